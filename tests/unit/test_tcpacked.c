/*
 * tcpacked: the bytes a TCP receiver acknowledged over the measured
 * interval, from frames built by frames.h.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "frames.h"
#include "measure/tcpacked.h"

#define DUT "198.18.0.2"
#define HOST "198.18.0.1"
#define DPORT 40000	/* the DUT's */
#define HPORT 5201	/* the host's */
#define S 1000000LL	/* a second in microseconds */

static void feed(struct tcp_acked *a, long long t, const struct seg *s)
{
	unsigned char f[FRAME_BYTES];
	size_t n = frame_build(f, s);
	tcp_acked_frame(a, t, f, n);
}

static void dut_sends(struct tcp_acked *a, unsigned omit_s, unsigned secs)
{
	struct tcp_stream st = { .sender_port = DPORT, .receiver_port = HPORT };
	inet_pton(AF_INET, DUT, &st.sender);
	inet_pton(AF_INET, HOST, &st.receiver);
	assert_int_equal(tcp_acked_init(a, &st, 1, omit_s * S, secs * S), 0);
}

static const struct seg data = { DUT, HOST, DPORT, HPORT, 1, 0, 0x10, 1448 };

/* A transfer from t0: a data segment and an ACK every 10 ms, the ACK
 * covering ack_per_tick more bytes each time, from ack0. */
static void transfer(struct tcp_acked *a, long long t0, long long until, uint32_t ack0,
		     uint32_t ack_per_tick)
{
	uint32_t ack = ack0;
	for (long long t = t0; t <= until; t += 10000) {
		feed(a, t, &data);
		struct seg s = { HOST, DUT, HPORT, DPORT, 1, ack, 0x10, 0 };
		feed(a, t + 5000, &s);
		ack += ack_per_tick;
	}
}

static void rate_over_the_measured_seconds(void **state)
{
	(void)state;
	struct tcp_acked a;
	dut_sends(&a, 1, 3);
	/* the handshake and the control connection count nothing */
	struct seg syn = { DUT, HOST, DPORT, HPORT, 0, 0, 0x02, 0 };
	feed(&a, 500000, &syn);
	struct seg ctl = { HOST, DUT, HPORT, DPORT + 1, 0, 77, 0x10, 0 };
	feed(&a, 600000, &ctl);
	/* 45,000 bytes acknowledged every 10 ms: 36 Mbit/s */
	transfer(&a, 2 * S, 7 * S, 1000, 45000);
	assert_true(tcp_acked_mbps(&a) > 35.999 && tcp_acked_mbps(&a) < 36.001);
}

/* The interval starts at the first data segment, not at the first frame
 * nor at the cookie the DUT, iperf3's client, sends as the stream opens
 * (a host late to start the test holds the data back). */
static void interval_from_the_first_data_segment(void **state)
{
	(void)state;
	struct tcp_acked a;
	dut_sends(&a, 1, 3);
	struct seg early = { HOST, DUT, HPORT, DPORT, 1, 5, 0x10, 0 },
		   cookie = { DUT, HOST, DPORT, HPORT, 1, 0, 0x18, 37 };
	feed(&a, 0, &early);
	feed(&a, 0, &cookie);
	/* a second of slow start (1,000 bytes a tick), then 45,000 a tick */
	transfer(&a, S, 2 * S - 10000, 10, 1000);
	transfer(&a, 2 * S, 6 * S, 100010, 45000);
	/* the interval is 2-5 s: from the slow start's last acknowledgement
	 * (at 1.995 s, 99,010) to the fast part's at 4.995 s (100,010 + 299 x
	 * 45,000): 13,456,000 bytes in 3 s */
	double want = 13456000.0 * 8 / 3 / 1e6;
	assert_true(tcp_acked_mbps(&a) > want - 1e-9 && tcp_acked_mbps(&a) < want + 1e-9);
}

static void sequence_numbers_wrap(void **state)
{
	(void)state;
	struct tcp_acked a;
	dut_sends(&a, 1, 3);
	transfer(&a, 0, 5 * S, UINT32_MAX - 3000000, 45000);
	assert_true(tcp_acked_mbps(&a) > 35.999 && tcp_acked_mbps(&a) < 36.001);
}

static void two_streams_add_up(void **state)
{
	(void)state;
	struct tcp_stream st[2] = { { .sender_port = DPORT, .receiver_port = HPORT },
				    { .sender_port = DPORT + 2, .receiver_port = HPORT } };
	for (int i = 0; i < 2; i++) {
		inet_pton(AF_INET, DUT, &st[i].sender);
		inet_pton(AF_INET, HOST, &st[i].receiver);
	}
	struct tcp_acked a;
	assert_int_equal(tcp_acked_init(&a, st, 2, S, 3 * S), 0);
	uint32_t ack = 0;
	for (long long t = 0; t <= 5 * S; t += 10000, ack += 10000) {
		struct seg d2 = data, a1 = { HOST, DUT, HPORT, DPORT, 1, ack, 0x10, 0 };
		struct seg a2 = { HOST, DUT, HPORT, DPORT + 2, 1, 2 * ack, 0x10, 0 };
		d2.sport = DPORT + 2;
		feed(&a, t, &data);
		feed(&a, t, &d2);
		feed(&a, t + 1, &a1);
		feed(&a, t + 2, &a2);
	}
	/* 1 MB/s and 2 MB/s: 24 Mbit/s */
	assert_true(tcp_acked_mbps(&a) > 23.999 && tcp_acked_mbps(&a) < 24.001);
}

/* The DUT receiving: the host sends, the DUT acknowledges. */
static void either_direction(void **state)
{
	(void)state;
	struct tcp_stream st = { .sender_port = HPORT, .receiver_port = DPORT };
	inet_pton(AF_INET, HOST, &st.sender);
	inet_pton(AF_INET, DUT, &st.receiver);
	struct tcp_acked a;
	assert_int_equal(tcp_acked_init(&a, &st, 1, S, 3 * S), 0);
	uint32_t ack = 0;
	for (long long t = 0; t <= 5 * S; t += 10000, ack += 100000) {
		struct seg d = { HOST, DUT, HPORT, DPORT, 1, 0, 0x10, 1448 };
		struct seg k = { DUT, HOST, DPORT, HPORT, 1, ack, 0x10, 0 };
		feed(&a, t, &d);
		feed(&a, t + 1, &k);
	}
	assert_true(tcp_acked_mbps(&a) > 79.999 && tcp_acked_mbps(&a) < 80.001);
}

/* What the record does not cover is no number. */
static void uncovered_intervals_have_no_rate(void **state)
{
	(void)state;
	struct tcp_acked a;
	/* no data segment at all */
	dut_sends(&a, 1, 3);
	struct seg ack = { HOST, DUT, HPORT, DPORT, 1, 100, 0x10, 0 };
	feed(&a, S, &ack);
	feed(&a, 9 * S, &ack);
	assert_true(tcp_acked_mbps(&a) < 0);
	/* the record ends before the interval does */
	dut_sends(&a, 1, 3);
	transfer(&a, 0, 3 * S, 0, 1000);
	assert_true(tcp_acked_mbps(&a) < 0);
	/* no acknowledgement before the interval's start */
	dut_sends(&a, 1, 3);
	feed(&a, 0, &data);
	struct seg late = { HOST, DUT, HPORT, DPORT, 1, 100, 0x10, 0 };
	feed(&a, 2 * S, &late);
	feed(&a, 5 * S, &late);
	assert_true(tcp_acked_mbps(&a) < 0);
	/* an acknowledgement that went backwards */
	dut_sends(&a, 1, 3);
	feed(&a, 0, &data);
	struct seg k1 = { HOST, DUT, HPORT, DPORT, 1, 5000000, 0x10, 0 };
	struct seg k2 = { HOST, DUT, HPORT, DPORT, 1, 4000000, 0x10, 0 };
	feed(&a, S / 2, &k1);
	feed(&a, 3 * S, &k2);
	feed(&a, 5 * S, &k2);
	assert_true(tcp_acked_mbps(&a) < 0);
}

/* Frames that are not a whole header of the stream count nothing. */
static void other_frames_count_nothing(void **state)
{
	(void)state;
	struct tcp_acked a;
	dut_sends(&a, 1, 3);
	transfer(&a, 0, 5 * S, 0, 45000);
	double rate = tcp_acked_mbps(&a);
	dut_sends(&a, 1, 3);
	uint32_t ack = 0;
	for (long long t = 0; t <= 5 * S; t += 10000, ack += 45000) {
		unsigned char f[FRAME_BYTES];
		struct seg d = data, k = { HOST, DUT, HPORT, DPORT, 1, ack, 0x10, 0 };
		feed(&a, t, &d);
		/* a huge acknowledgement in frames that must not count */
		struct seg bogus = k;
		bogus.ack = ack + 999999;
		size_t n = frame_build(f, &bogus);
		tcp_acked_frame(&a, t + 1, f, n - 1);	/* cut short */
		frame_build(f, &bogus);
		f[23] = 17;				/* UDP */
		tcp_acked_frame(&a, t + 2, f, n);
		frame_build(f, &bogus);
		f[20] = 0x20;				/* a fragment */
		tcp_acked_frame(&a, t + 3, f, n);
		frame_build(f, &bogus);
		f[14] = 0x44;				/* IHL 4 */
		tcp_acked_frame(&a, t + 4, f, n);
		frame_build(f, &bogus);
		f[14 + 20 + 12] = 4 << 4;		/* data offset 4 */
		tcp_acked_frame(&a, t + 5, f, n);
		frame_build(f, &bogus);
		f[12] = 0x86;				/* not IPv4 */
		tcp_acked_frame(&a, t + 6, f, n);
		bogus.flags = 0x02;			/* no ACK flag */
		feed(&a, t + 7, &bogus);
		bogus.flags = 0x10;
		bogus.sport = HPORT + 1;		/* another stream */
		feed(&a, t + 8, &bogus);
		bogus.sport = HPORT;
		bogus.src = "198.18.0.9";		/* another host */
		feed(&a, t + 9, &bogus);
		feed(&a, t + 10, &k);
	}
	assert_true(tcp_acked_mbps(&a) > rate - 0.001 && tcp_acked_mbps(&a) < rate + 0.001);
}

static void init_refuses_what_it_cannot_do(void **state)
{
	(void)state;
	struct tcp_stream st[TCP_ACKED_STREAMS + 1] = { { .sender_port = 1 } };
	struct tcp_acked a;
	assert_int_equal(tcp_acked_init(&a, st, 0, S, S), -1);
	assert_int_equal(tcp_acked_init(&a, st, TCP_ACKED_STREAMS + 1, S, S), -1);
	assert_int_equal(tcp_acked_init(&a, st, 1, S, 0), -1);
	assert_int_equal(tcp_acked_init(&a, st, 1, -1, S), -1);
	assert_int_equal(tcp_acked_init(&a, st, TCP_ACKED_STREAMS, 0, S), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_over_the_measured_seconds),
		cmocka_unit_test(interval_from_the_first_data_segment),
		cmocka_unit_test(sequence_numbers_wrap),
		cmocka_unit_test(two_streams_add_up),
		cmocka_unit_test(either_direction),
		cmocka_unit_test(uncovered_intervals_have_no_rate),
		cmocka_unit_test(other_frames_count_nothing),
		cmocka_unit_test(init_refuses_what_it_cannot_do),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
