#include "measure/frame.h"

#include <string.h>

static unsigned be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int frame_parse(const unsigned char *f, size_t caplen, struct frame *out)
{
	if (caplen < 14 + 20 || be16(f + 12) != 0x0800)
		return 0;
	const unsigned char *ip = f + 14;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
	/* a fragment (more to come, or an offset) is never a whole datagram */
	if (ip[0] >> 4 != 4 || ihl < 20 || (be16(ip + 6) & 0x3fff))
		return 0;
	const unsigned char *l4 = ip + ihl;
	long total = (long)be16(ip + 2);
	size_t hdr;
	if (ip[9] == IPPROTO_TCP) {
		/* the TCP header up to its flags byte, 14 bytes */
		if (caplen < 14 + ihl + 14)
			return 0;
		hdr = (size_t)(l4[12] >> 4) * 4;
		if (hdr < 20)
			return 0;
		out->tcp_flags = l4[13];
		out->ack = be32(l4 + 8);
	} else if (ip[9] == IPPROTO_UDP) {
		if (caplen < 14 + ihl + 8)
			return 0;
		hdr = 8;
		out->tcp_flags = 0;
		out->ack = 0;
	} else {
		return 0;
	}
	if (total < (long)(ihl + hdr))
		return 0;
	out->proto = ip[9];
	memcpy(&out->src.s_addr, ip + 12, 4);
	memcpy(&out->dst.s_addr, ip + 16, 4);
	out->sport = (uint16_t)be16(l4);
	out->dport = (uint16_t)be16(l4 + 2);
	out->payload = total - (long)(ihl + hdr);
	return 1;
}
