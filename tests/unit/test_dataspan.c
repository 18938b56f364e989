/*
 * dataspan: when an iperf3 test's data flowed in a record of the link, and
 * the record's time outside it, from frames built by frames.h in the
 * orders iperf3 sends them (the recorded run of docs/measurements.md, "A
 * host late at a run's set-up", for UDP).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "frames.h"
#include "measure/dataspan.h"

#define DUT "198.18.0.2"
#define HOST "198.18.0.1"
#define CPORT 52254	/* the DUT's end of the control connection */
#define DPORT 41950	/* the DUT's end of the data stream */
#define HPORT 5201	/* the host's */
#define MS 1000LL	/* a millisecond in microseconds */

static void span_of(struct data_span *s)
{
	struct in_addr host, dut;
	inet_pton(AF_INET, HOST, &host);
	inet_pton(AF_INET, DUT, &dut);
	data_span_init(s, host, dut);
}

static void feed(struct data_span *s, long long t, const struct seg *g)
{
	unsigned char f[FRAME_BYTES];
	size_t n = frame_build(f, g);
	data_span_frame(s, t, f, n);
}

static void feed_udp(struct data_span *s, long long t, const struct dgram *d)
{
	unsigned char f[FRAME_BYTES];
	size_t n = frame_build_udp(f, d);
	data_span_frame(s, t, f, n);
}

static const struct seg syn = { DUT, HOST, CPORT, HPORT, 1, 0, 0x02, 0 },
			synack = { HOST, DUT, HPORT, CPORT, 1, 2, 0x12, 0 },
			cookie = { DUT, HOST, CPORT, HPORT, 2, 2, 0x18, 37 },
			params = { DUT, HOST, CPORT, HPORT, 39, 2, 0x18, 119 },
			answer = { HOST, DUT, HPORT, CPORT, 2, 158, 0x18, 1 },
			kernel_ack = { HOST, DUT, HPORT, CPORT, 2, 158, 0x10, 0 },
			results = { DUT, HOST, CPORT, HPORT, 158, 3, 0x18, 280 },
			fin = { DUT, HOST, CPORT, HPORT, 438, 3, 0x11, 0 };

/* The recorded UDP run: the host answered the parameters 25.36 s after
 * they went, then 4 s of datagrams, then the results. */
static void udp_set_up_wait_is_outside(void **state)
{
	(void)state;
	struct data_span s;
	span_of(&s);
	struct dgram hello = { DUT, HOST, DPORT, HPORT, 4 }, reply = { HOST, DUT, HPORT, DPORT, 4 },
		     data = { DUT, HOST, DPORT, HPORT, 64 };
	feed(&s, 1147, &syn);
	feed(&s, 1147, &synack);
	feed(&s, 2389, &cookie);
	feed(&s, 5245, &params);
	feed(&s, 5245, &kernel_ack);	/* at once: not the answer */
	feed(&s, 25365038, &answer);
	feed_udp(&s, 25365874, &hello);
	feed_udp(&s, 25365874, &reply);
	feed(&s, 25365874, &answer);
	for (long long t = 25369203; t <= 29368724; t += 137)
		feed_udp(&s, t, &data);
	long long last = 29368724 - (29368724 - 25369203) % 137;
	feed(&s, 29369021, &answer);
	feed(&s, 29372595, &results);
	feed(&s, 29378463, &fin);
	assert_int_equal(s.first_data_us, 25369203);
	assert_int_equal(s.last_data_us, last);
	/* the test ends at its last datagram on the host's clock, 4 s (omit +
	 * duration) past its first on the DUT's */
	assert_int_equal(data_span_outside_us(&s, 0), (25369203 - 1147) + (29378463 - last));
	assert_int_equal(data_span_outside_us(&s, 4000000),
			 (25369203 - 1147) + (29378463 - (25369203 + 4000000)));
	/* of it the DUT waited for the answers: the parameters' 25.36 s, and
	 * after the last datagram for the host's TEST_END state */
	assert_int_equal(data_span_waits_us(&s, 4000000), 25365038 - 5245);
	assert_int_equal(data_span_waits_us(&s, 0), (25365038 - 5245) + (29369021 - last));
}

/* TCP, the host sending (DUT-RX): the data stream's handshake and the
 * DUT's cookie on it are set-up; the host's segments are the data, the
 * DUT's ACKs (no payload) are not. */
static void tcp_data_stream_after_its_cookie(void **state)
{
	(void)state;
	struct data_span s;
	span_of(&s);
	struct seg dsyn = { DUT, HOST, DPORT, HPORT, 1, 0, 0x02, 0 },
		   dcookie = { DUT, HOST, DPORT, HPORT, 2, 2, 0x18, 37 },
		   data = { HOST, DUT, HPORT, DPORT, 2, 39, 0x10, 1448 },
		   ack = { DUT, HOST, DPORT, HPORT, 39, 3, 0x10, 0 };
	feed(&s, 0, &syn);
	feed(&s, 1 * MS, &cookie);
	feed(&s, 2 * MS, &params);
	feed(&s, 3 * MS, &dsyn);
	feed(&s, 4 * MS, &dcookie);
	feed(&s, 500 * MS, &answer);	/* the host late to start the test */
	for (long long t = 501 * MS; t <= 3501 * MS; t += MS) {
		feed(&s, t, &data);
		feed(&s, t + 100, &ack);
	}
	feed(&s, 3600 * MS, &results);
	assert_int_equal(s.control_port, CPORT);
	assert_int_equal(s.first_data_us, 501 * MS);
	assert_int_equal(s.last_data_us, 3501 * MS);
	assert_int_equal(data_span_outside_us(&s, 0), 501 * MS + 99 * MS);
	assert_int_equal(data_span_outside_us(&s, 3000 * MS), 501 * MS + 99 * MS);
	/* the DUT's set-up work is not a wait; the ACK-to-data gaps are the
	 * test's */
	assert_int_equal(data_span_waits_us(&s, 3000 * MS), 496 * MS);
}

/* A transfer that stalls before its end: on the DUT's clock (the test's
 * length known) the stall stays inside; on the host's the test ends at the
 * last data frame, and the stall is left out, which only makes the host's
 * seconds fewer. */
static void a_stall_before_the_end_stays_inside(void **state)
{
	(void)state;
	struct data_span s;
	span_of(&s);
	struct seg data = { DUT, HOST, DPORT, HPORT, 39, 2, 0x10, 1448 };
	feed(&s, 0, &syn);
	for (long long t = 100 * MS; t <= 1500 * MS; t += MS)
		feed(&s, t, &data);
	feed(&s, 3200 * MS, &results);
	feed(&s, 3300 * MS, &answer);
	assert_int_equal(data_span_outside_us(&s, 3000 * MS), 100 * MS + 200 * MS);
	assert_int_equal(data_span_outside_us(&s, 0), 100 * MS + 1800 * MS);
	assert_int_equal(data_span_waits_us(&s, 3000 * MS), 100 * MS);
	assert_int_equal(data_span_waits_us(&s, 0), 100 * MS);
}

/* A teardown of more answers than the span keeps: the last ones count. */
static void a_long_teardown_keeps_its_last_waits(void **state)
{
	(void)state;
	struct data_span s;
	span_of(&s);
	struct dgram data = { DUT, HOST, DPORT, HPORT, 64 };
	feed(&s, 0, &syn);
	feed_udp(&s, 10, &data);
	for (long long i = 0; i < DATASPAN_WAITS + 8; i++) {
		feed(&s, 1000 + i * 10, &results);
		feed(&s, 1000 + i * 10 + (i < 8 ? 5 : 1), &answer);
	}
	assert_int_equal(data_span_waits_us(&s, 0), DATASPAN_WAITS);
}

/* What came before the control connection's SYN (a run before's last
 * frames, ARP) and what is not between the two is not the test's. */
static void only_this_tests_frames(void **state)
{
	(void)state;
	struct data_span s;
	span_of(&s);
	struct seg old = { HOST, DUT, HPORT, 33333, 5, 5, 0x10, 1448 };
	struct dgram data = { DUT, HOST, DPORT, HPORT, 64 },
		     stranger = { "198.18.0.9", DUT, HPORT, DPORT, 64 };
	feed(&s, 0, &old);
	feed_udp(&s, 10, &data);
	assert_int_equal(s.first_us, -1);
	assert_int_equal(data_span_outside_us(&s, 0), -1);
	feed(&s, 100, &syn);
	feed_udp(&s, 200, &stranger);
	feed_udp(&s, 300, &data);
	feed_udp(&s, 400, &stranger);
	feed(&s, 500, &fin);
	assert_int_equal(s.first_us, 100);
	assert_int_equal(s.last_us, 500);
	assert_int_equal(data_span_outside_us(&s, 0), 200 + 200);
	/* the host's SYN (a connection it opened) is not the control's */
	span_of(&s);
	struct seg hsyn = { HOST, DUT, HPORT, CPORT, 1, 0, 0x02, 0 };
	feed(&s, 0, &hsyn);
	feed(&s, 10, &synack);
	assert_int_equal(s.control_port, -1);
}

/* A test with no data frame (iperf3 failed at its set-up) has no span. */
static void no_data_no_span(void **state)
{
	(void)state;
	struct data_span s;
	span_of(&s);
	feed(&s, 0, &syn);
	feed(&s, 1, &cookie);
	feed(&s, 2, &params);
	feed(&s, 3, &fin);
	assert_int_equal(data_span_outside_us(&s, 0), -1);
}

/* Frames cut short, fragments and other protocols count nothing. */
static void broken_frames_count_nothing(void **state)
{
	(void)state;
	struct data_span s;
	span_of(&s);
	feed(&s, 0, &syn);
	struct dgram data = { DUT, HOST, DPORT, HPORT, 64 };
	unsigned char f[FRAME_BYTES];
	size_t n = frame_build_udp(f, &data);
	data_span_frame(&s, 10, f, n - 1);	/* cut short */
	data_span_frame(&s, 11, f, 13);		/* not even an Ethernet header */
	f[20] = 0x20;				/* a fragment */
	data_span_frame(&s, 12, f, n);
	frame_build_udp(f, &data);
	f[23] = 1;				/* ICMP */
	data_span_frame(&s, 13, f, n);
	frame_build_udp(f, &data);
	f[17] = 20 + 7;				/* IPv4 total shorter than its headers */
	data_span_frame(&s, 14, f, n);
	assert_int_equal(s.first_data_us, -1);
	assert_int_equal(s.last_us, 0);
	assert_true(data_span_is_data(IPPROTO_TCP, 38) && !data_span_is_data(IPPROTO_TCP, 37));
	assert_true(data_span_is_data(IPPROTO_UDP, 5) && !data_span_is_data(IPPROTO_UDP, 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(udp_set_up_wait_is_outside),
		cmocka_unit_test(tcp_data_stream_after_its_cookie),
		cmocka_unit_test(a_stall_before_the_end_stays_inside),
		cmocka_unit_test(a_long_teardown_keeps_its_last_waits),
		cmocka_unit_test(only_this_tests_frames),
		cmocka_unit_test(no_data_no_span),
		cmocka_unit_test(broken_frames_count_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
