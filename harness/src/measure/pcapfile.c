#include "measure/pcapfile.h"

#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/ipv4.h"

long long pcapfile_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

int pcapfile_each(const char *path, long long from, long long to, pcapfile_fn fn, void *ctx,
		  char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_open_offline(path, perr);
	if (!p) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *bytes;
	int r;
	/* libpcap reads the file through stdio: the position after a record
	 * is where that record ends. */
	while ((r = pcap_next_ex(p, &h, &bytes)) == 1) {
		long long end = ftell(pcap_file(p));
		if (end > to)
			break;
		if (end <= from)
			continue;
		fn(ctx, (long long)h->ts.tv_sec * 1000000 + h->ts.tv_usec, bytes, h->caplen);
	}
	/* A record cut short at the end of the file is one still being
	 * written: past the window, not an error. */
	int ok = r != -1 || ftell(pcap_file(p)) >= to;
	if (!ok)
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(p));
	pcap_close(p);
	return ok ? 0 : -1;
}

struct count_ctx {
	struct in_addr host, dut;
	struct capture_counts c;
};

static void count_frame(void *ctx, long long t_us, const unsigned char *frame, size_t caplen)
{
	struct count_ctx *cc = ctx;
	capture_count(&cc->c, capture_classify(frame, caplen, cc->host, cc->dut));
	data_span_frame(&cc->c.span, t_us, frame, caplen);
}

int pcapfile_count(const char *path, long long from, long long to, const char *host_cidr,
		   const char *dut_cidr, struct capture_counts *out, char *err, size_t errlen)
{
	struct count_ctx cc = { .c = { 0 } };
	if (ipv4_parse(host_cidr, &cc.host) < 0 || ipv4_parse(dut_cidr, &cc.dut) < 0) {
		snprintf(err, errlen, "not IPv4 addresses: %s, %s", host_cidr, dut_cidr);
		return -1;
	}
	data_span_init(&cc.c.span, cc.host, cc.dut);
	if (pcapfile_each(path, from, to, count_frame, &cc, err, errlen) < 0)
		return -1;
	*out = cc.c;
	return 0;
}
