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

int pcapfile_count(const char *path, long long from, long long to, const char *host_cidr,
		   const char *dut_cidr, struct capture_counts *out, char *err, size_t errlen)
{
	struct in_addr host, dut;
	char perr[PCAP_ERRBUF_SIZE] = "";
	if (ipv4_parse(host_cidr, &host) < 0 || ipv4_parse(dut_cidr, &dut) < 0) {
		snprintf(err, errlen, "not IPv4 addresses: %s, %s", host_cidr, dut_cidr);
		return -1;
	}
	pcap_t *p = pcap_open_offline(path, perr);
	if (!p) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -1;
	}
	struct capture_counts c = { 0 };
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
		switch (capture_classify(bytes, h->caplen, host, dut)) {
		case CAPTURE_FROM_DUT:
			c.from_dut++;
			break;
		case CAPTURE_TO_DUT:
			c.to_dut++;
			break;
		case CAPTURE_OTHER:
			break;
		}
	}
	/* A record cut short at the end of the file is one still being
	 * written: past the window, not an error. */
	int ok = r != -1 || ftell(pcap_file(p)) >= to;
	if (!ok)
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(p));
	pcap_close(p);
	if (ok)
		*out = c;
	return ok ? 0 : -1;
}
