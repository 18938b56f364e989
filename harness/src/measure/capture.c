#include "measure/capture.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/ipv4.h"
#include "util/util.h"

/* Two retire periods close every block that held a frame from before the
 * stop; one more covers the thread sitting in poll() when it came. */
#define DRAIN_US (3LL * CAPTURE_BLOCK_MS * 1000)

struct capture {
	pcap_t *pcap;
	pthread_t thread;
	char ifname[32];
	struct in_addr host, dut;
	atomic_llong stop_us;		/* end of the window (CLOCK_REALTIME, as pcap's
					 * timestamps); 0 while the window is open */
	struct capture_counts counts;	/* the thread's until it is joined */
	char err[PCAP_ERRBUF_SIZE];	/* the thread's read error, "" if none */
};

int capture_filter(const char *host_cidr, const char *dut_cidr, char *out, size_t outlen)
{
	struct in_addr host, dut;
	char h[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN];
	if (ipv4_parse(host_cidr, &host) < 0 || ipv4_parse(dut_cidr, &dut) < 0)
		return -1;
	/* Re-printed from the parsed form: the filter never carries the
	 * prefix or whatever else the configuration text held. */
	inet_ntop(AF_INET, &host, h, sizeof(h));
	inet_ntop(AF_INET, &dut, d, sizeof(d));
	int n = snprintf(out, outlen, "ip host %s and ip host %s", h, d);
	return n > 0 && (size_t)n < outlen ? 0 : -1;
}

enum capture_dir capture_classify(const unsigned char *frame, size_t caplen,
				  struct in_addr host, struct in_addr dut)
{
	/* Ethernet II header (14 bytes) with EtherType IPv4, then an IPv4
	 * header: source address at offset 12 of it, destination at 16.
	 * Tagged frames do not match the filter's "ip" either. */
	if (caplen < 14 + 20 || frame[12] != 0x08 || frame[13] != 0x00 || frame[14] >> 4 != 4)
		return CAPTURE_OTHER;
	const unsigned char *src = frame + 26, *dst = frame + 30;
	if (!memcmp(src, &dut.s_addr, 4) && !memcmp(dst, &host.s_addr, 4))
		return CAPTURE_FROM_DUT;
	if (!memcmp(src, &host.s_addr, 4) && !memcmp(dst, &dut.s_addr, 4))
		return CAPTURE_TO_DUT;
	return CAPTURE_OTHER;
}

void capture_count(struct capture_counts *c, enum capture_dir d)
{
	switch (d) {
	case CAPTURE_FROM_DUT:
		c->from_dut++;
		break;
	case CAPTURE_TO_DUT:
		c->to_dut++;
		break;
	case CAPTURE_OTHER:
		break;
	}
}

static long long realtime_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capture *c = (struct capture *)user;
	long long end = atomic_load(&c->stop_us);
	long long at = (long long)h->ts.tv_sec * 1000000 + h->ts.tv_usec;
	if (end && at > end)
		return;
	capture_count(&c->counts, capture_classify(bytes, h->caplen, c->host, c->dut));
	data_span_frame(&c->counts.span, at, bytes, h->caplen);
}

static void *count_frames(void *arg)
{
	struct capture *c = arg;
	struct pollfd p = { .fd = pcap_get_selectable_fd(c->pcap), .events = POLLIN };
	for (;;) {
		long long end = atomic_load(&c->stop_us);
		int last = end && realtime_us() > end + DRAIN_US;
		/* -1: every frame of every retired block; never waits */
		int n = pcap_dispatch(c->pcap, -1, on_frame, (u_char *)c);
		if (n < 0) {
			snprintf(c->err, sizeof(c->err), "%s", pcap_geterr(c->pcap));
			return NULL;
		}
		if (last)
			return NULL;
		if (n == 0 && poll(&p, 1, CAPTURE_BLOCK_MS) < 0 && errno != EINTR) {
			snprintf(c->err, sizeof(c->err), "poll: %s", strerror(errno));
			return NULL;
		}
	}
}

struct capture *capture_start(const char *ifname, const char *host_cidr, const char *dut_cidr)
{
	char filter[96], errbuf[PCAP_ERRBUF_SIZE] = "";
	struct capture *c = xcalloc(1, sizeof(*c));
	snprintf(c->ifname, sizeof(c->ifname), "%s", ifname);
	if (capture_filter(host_cidr, dut_cidr, filter, sizeof(filter)) < 0 ||
	    ipv4_parse(host_cidr, &c->host) < 0 || ipv4_parse(dut_cidr, &c->dut) < 0) {
		hb_err("capture: %s and %s must be IPv4 addresses", host_cidr, dut_cidr);
		free(c);
		return NULL;
	}
	data_span_init(&c->counts.span, c->host, c->dut);
	c->pcap = pcap_create(ifname, errbuf);
	if (!c->pcap) {
		hb_err("capture on %s: %s", ifname, errbuf);
		free(c);
		return NULL;
	}
	/* The setters fail only on an activated handle; this one is fresh. */
	pcap_set_snaplen(c->pcap, CAPTURE_SNAPLEN);
	pcap_set_buffer_size(c->pcap, CAPTURE_BUFFER);
	pcap_set_timeout(c->pcap, CAPTURE_BLOCK_MS);
	int rc = pcap_activate(c->pcap);
	struct bpf_program prog;
	if (rc < 0) {
		snprintf(errbuf, sizeof(errbuf), "%s (%s)", pcap_statustostr(rc), pcap_geterr(c->pcap));
	} else if (pcap_datalink(c->pcap) != DLT_EN10MB) {
		snprintf(errbuf, sizeof(errbuf), "not an Ethernet interface");
	} else if (pcap_compile(c->pcap, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(errbuf, sizeof(errbuf), "filter \"%s\": %s", filter, pcap_geterr(c->pcap));
	} else {
		rc = pcap_setfilter(c->pcap, &prog);
		pcap_freecode(&prog);
		if (rc < 0)
			snprintf(errbuf, sizeof(errbuf), "%s", pcap_geterr(c->pcap));
		else if (pcap_setnonblock(c->pcap, 1, errbuf) == 0 &&
			 pcap_get_selectable_fd(c->pcap) < 0)
			snprintf(errbuf, sizeof(errbuf), "no selectable descriptor");
	}
	if (!errbuf[0]) {
		/* The thread inherits this mask: signals stay with the runner. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = pthread_create(&c->thread, NULL, count_frames, c);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc == 0)
			return c;
		snprintf(errbuf, sizeof(errbuf), "thread: %s", strerror(rc));
	}
	hb_err("capture on %s: %s", ifname, errbuf);
	pcap_close(c->pcap);
	free(c);
	return NULL;
}

int capture_stop(struct capture *c, struct capture_counts *out)
{
	atomic_store(&c->stop_us, realtime_us());
	pthread_join(c->thread, NULL);
	struct pcap_stat st;
	int rc = -1;
	if (c->err[0]) {
		hb_err("capture on %s: %s", c->ifname, c->err);
	} else if (pcap_stats(c->pcap, &st) < 0) {
		hb_err("capture on %s: %s", c->ifname, pcap_geterr(c->pcap));
	} else {
		*out = c->counts;
		out->drops = (unsigned long long)st.ps_drop + st.ps_ifdrop;
		rc = 0;
	}
	pcap_close(c->pcap);
	free(c);
	return rc;
}
