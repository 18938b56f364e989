#include "measure/tcpacked.h"

#include <string.h>

#include "measure/dataspan.h"
#include "measure/frame.h"

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

static int same(struct in_addr a, struct in_addr b)
{
	return a.s_addr == b.s_addr;
}

void tcp_acked_frame(struct tcp_acked *a, long long t_us, const unsigned char *frame,
		     size_t caplen)
{
	struct frame sg;
	a->last_us = t_us;
	if (!frame_parse(frame, caplen, &sg) || sg.proto != IPPROTO_TCP)
		return;
	for (size_t i = 0; i < a->n; i++) {
		const struct tcp_stream *s = &a->s[i];
		if (same(sg.src, s->sender) && same(sg.dst, s->receiver) &&
		    sg.sport == s->sender_port && sg.dport == s->receiver_port) {
			/* the client's cookie comes before the test starts */
			if (data_span_is_data(IPPROTO_TCP, sg.payload) && a->first_data_us < 0)
				a->first_data_us = t_us;
			return;
		}
		if (same(sg.src, s->receiver) && same(sg.dst, s->sender) &&
		    sg.sport == s->receiver_port && sg.dport == s->sender_port) {
			if (!(sg.tcp_flags & FRAME_TCP_ACK) || a->first_data_us < 0)
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
