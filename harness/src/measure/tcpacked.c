#include "measure/tcpacked.h"

#include <string.h>

int tcp_acked_init(struct tcp_acked *a, const struct tcp_stream *streams, size_t n,
		   long long omit_us, long long secs_us)
{
	memset(a, 0, sizeof(*a));
	if (!n || n > TCP_ACKED_STREAMS || omit_us < 0 || secs_us <= 0)
		return -1;
	memcpy(a->s, streams, n * sizeof(*streams));
	a->n = n;
	a->omit_us = omit_us;
	a->secs_us = secs_us;
	a->first_data_us = -1;
	a->last_us = -1;
	return 0;
}

static unsigned be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The parts of a TCP segment this needs; 0 when the frame is not a whole
 * Ethernet II, IPv4 (unfragmented) and TCP header. */
struct segment {
	struct in_addr src, dst;
	uint16_t sport, dport;
	uint32_t ack;
	int has_ack;
	long payload;
};

static int parse(const unsigned char *f, size_t caplen, struct segment *sg)
{
	if (caplen < 14 + 20 || be16(f + 12) != 0x0800)
		return 0;
	const unsigned char *ip = f + 14;
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;
	if (ip[0] >> 4 != 4 || ihl < 20 || ip[9] != 6 || (be16(ip + 6) & 0x3fff))
		return 0;
	/* the TCP header up to its flags byte, 14 bytes */
	if (caplen < 14 + ihl + 14)
		return 0;
	const unsigned char *tcp = ip + ihl;
	size_t doff = (size_t)(tcp[12] >> 4) * 4;
	long total = (long)be16(ip + 2);
	if (doff < 20 || total < (long)(ihl + doff))
		return 0;
	memcpy(&sg->src.s_addr, ip + 12, 4);
	memcpy(&sg->dst.s_addr, ip + 16, 4);
	sg->sport = (uint16_t)be16(tcp);
	sg->dport = (uint16_t)be16(tcp + 2);
	sg->ack = be32(tcp + 8);
	sg->has_ack = (tcp[13] & 0x10) != 0;
	sg->payload = total - (long)(ihl + doff);
	return 1;
}

static int same(struct in_addr a, struct in_addr b)
{
	return a.s_addr == b.s_addr;
}

void tcp_acked_frame(struct tcp_acked *a, long long t_us, const unsigned char *frame,
		     size_t caplen)
{
	struct segment sg;
	a->last_us = t_us;
	if (!parse(frame, caplen, &sg))
		return;
	for (size_t i = 0; i < a->n; i++) {
		const struct tcp_stream *s = &a->s[i];
		if (same(sg.src, s->sender) && same(sg.dst, s->receiver) &&
		    sg.sport == s->sender_port && sg.dport == s->receiver_port) {
			if (sg.payload > 0 && a->first_data_us < 0)
				a->first_data_us = t_us;
			return;
		}
		if (same(sg.src, s->receiver) && same(sg.dst, s->sender) &&
		    sg.sport == s->receiver_port && sg.dport == s->sender_port) {
			if (!sg.has_ack || a->first_data_us < 0)
				return;
			long long start = a->first_data_us + a->omit_us;
			if (t_us <= start) {
				a->ack_start[i] = sg.ack;
				a->have_start[i] = 1;
			}
			if (t_us <= start + a->secs_us) {
				a->ack_end[i] = sg.ack;
				a->have_end[i] = 1;
			}
			return;
		}
	}
}

double tcp_acked_mbps(const struct tcp_acked *a)
{
	if (!a->n || a->first_data_us < 0 ||
	    a->last_us < a->first_data_us + a->omit_us + a->secs_us)
		return -1;
	double bytes = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (!a->have_start[i] || !a->have_end[i])
			return -1;
		/* sequence space wraps at 2^32; a step back beyond half of it
		 * is an acknowledgement that went backwards */
		uint32_t d = a->ack_end[i] - a->ack_start[i];
		if (d > UINT32_MAX / 2)
			return -1;
		bytes += d;
	}
	return bytes * 8 / ((double)a->secs_us / 1e6) / 1e6;
}
