#include "measure/dataspan.h"

#include "measure/frame.h"

void data_span_init(struct data_span *s, struct in_addr host, struct in_addr dut)
{
	*s = (struct data_span){ .host = host, .dut = dut, .control_port = -1, .first_us = -1,
				 .last_us = -1, .first_data_us = -1, .last_data_us = -1,
				 .dut_sent_us = -1 };
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
	int data = !(tcp && dut_port == s->control_port) && data_span_is_data(f.proto, f.payload);
	/* the host's kernel acknowledging is not the host answering */
	int answer = to_dut && (!tcp || f.payload > 0 ||
				(f.tcp_flags & (FRAME_TCP_SYN | FRAME_TCP_FIN)));
	if (answer && s->dut_sent_us >= 0) {
		/* the DUT waited from its last frame */
		if (s->first_data_us < 0) {
			s->setup_waits_us += t_us - s->dut_sent_us;
		} else {
			s->after[s->n_after % DATASPAN_WAITS] =
				(struct data_wait){ .from_us = s->dut_sent_us, .to_us = t_us };
			s->n_after++;
		}
	}
	if (from_dut)
		s->dut_sent_us = t_us;
	else if (answer)
		s->dut_sent_us = -1;
	s->last_us = t_us;
	if (!data)
		return;
	if (s->first_data_us < 0)
		s->first_data_us = t_us;
	s->last_data_us = t_us;
	s->n_after = 0;
}

/* Where the test ended on the record's clock. */
static long long test_end_us(const struct data_span *s, long long test_us)
{
	long long end = s->first_data_us + (test_us > 0 ? test_us : 0);
	return end < s->last_data_us ? s->last_data_us : end;
}

long long data_span_outside_us(const struct data_span *s, long long test_us)
{
	if (s->first_data_us < 0)
		return -1;
	long long end = test_end_us(s, test_us);
	return (s->first_data_us - s->first_us) + (s->last_us > end ? s->last_us - end : 0);
}

long long data_span_waits_us(const struct data_span *s, long long test_us)
{
	if (s->first_data_us < 0)
		return -1;
	long long end = test_end_us(s, test_us), us = s->setup_waits_us;
	size_t n = s->n_after < DATASPAN_WAITS ? s->n_after : DATASPAN_WAITS;
	for (size_t i = 0; i < n; i++) {
		const struct data_wait *w = &s->after[i];
		long long from = w->from_us > end ? w->from_us : end;
		us += w->to_us > from ? w->to_us - from : 0;
	}
	return us;
}
