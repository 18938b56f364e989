#include "measure/dataspan.h"

#include "measure/frame.h"

void data_span_init(struct data_span *s, struct in_addr host, struct in_addr dut)
{
	*s = (struct data_span){ .host = host, .dut = dut, .control_port = -1, .first_us = -1,
				 .last_us = -1, .first_data_us = -1, .last_data_us = -1 };
}

int data_span_is_data(int proto, long payload)
{
	return proto == IPPROTO_TCP ? payload > DATASPAN_COOKIE_BYTES
				    : payload > DATASPAN_UDP_HELLO_BYTES;
}

void data_span_frame(struct data_span *s, long long t_us, const unsigned char *frame,
		     size_t caplen)
{
	struct frame f;
	if (!frame_parse(frame, caplen, &f))
		return;
	int from_dut = f.src.s_addr == s->dut.s_addr && f.dst.s_addr == s->host.s_addr;
	int to_dut = f.src.s_addr == s->host.s_addr && f.dst.s_addr == s->dut.s_addr;
	if (!from_dut && !to_dut)
		return;
	int dut_port = from_dut ? f.sport : f.dport;
	int tcp = f.proto == IPPROTO_TCP;
	if (s->control_port < 0) {
		/* the test begins with it; a frame before is another's */
		if (!tcp || !from_dut ||
		    (f.tcp_flags & (FRAME_TCP_SYN | FRAME_TCP_ACK)) != FRAME_TCP_SYN)
			return;
		s->control_port = dut_port;
		s->first_us = t_us;
	}
	s->last_us = t_us;
	if ((tcp && dut_port == s->control_port) || !data_span_is_data(f.proto, f.payload))
		return;
	if (s->first_data_us < 0)
		s->first_data_us = t_us;
	s->last_data_us = t_us;
}

long long data_span_outside_us(const struct data_span *s)
{
	if (s->first_data_us < 0)
		return -1;
	return (s->first_data_us - s->first_us) + (s->last_us - s->last_data_us);
}
