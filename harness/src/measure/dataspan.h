/*
 * dataspan: when an iperf3 test's data flowed, in a record of the link's
 * frames, and how much of the record lay outside it: the test's set-up
 * (connections, parameters, the streams' hellos) before the first data
 * frame, its teardown (results, the closing handshakes) after the last.
 *
 * Why: a virtual-time run's clock check (measure/crosscheck.h) weighs the
 * DUT's idle seconds against the host's seconds. While the DUT waits for
 * the host at the set-up it idles, and an idle DUT's clock races to its
 * next timer: a host a few milliseconds late to answer the parameters made
 * 25.4 idle DUT-seconds before a test whose 4 s then ran cleanly
 * (docs/measurements.md, "A host late at a run's set-up"). What iperf3
 * measures lies between the first and the last data frame, so only that
 * part of either clock says whether the host kept up with the test.
 *
 * Which frames are data: the DUT is iperf3's client in every direction
 * (hb-agent.c), so the first TCP SYN the DUT sends in the record opens the
 * control connection, whose frames are never data. Every other TCP segment
 * with more payload than iperf3's cookie (DATASPAN_COOKIE_BYTES, which a
 * client sends first on each stream) and every UDP datagram with more than
 * iperf3's 4-byte connect message or its reply is data. Frames before that
 * SYN (the last frames of the run before), frames between other addresses
 * and other protocols are left out; ARP is not IPv4.
 *
 * Where the test ends: on the DUT's clock iperf3's test lasts its warm-up
 * and duration from the first data frame (its timers run on that clock),
 * so a transfer that stalls before that end keeps its stall inside. On the
 * host's clock the length is not known, and the test ends at its last data
 * frame: a stall brings that forward, leaving more host seconds out, which
 * makes the clock check stricter, never looser (bench37's `error` runs that
 * sent their last data 1-3 DUT-seconds before the end: docs/measurements.md,
 * "The clock check over the test's data").
 *
 * Which of it the DUT idled: outside the test the DUT works (starts
 * iperf3's connections, writes its parameters and results) or waits for
 * the host's answer. The waits are the times from a frame the DUT sent to
 * the next the host's application sent (a datagram, or a segment with
 * payload, SYN or FIN: a bare ACK is the host's kernel, at once, 2 ms
 * before the parameters' answer came 25.36 s late in the run above); the
 * rest of the outside time is the DUT's own,
 * and taking it off the idle seconds would hide idle inside the test
 * (0.1-0.2 DUT-seconds a TCP run, against the TCP rule's 0.3 idle
 * DUT-seconds a host second).
 *
 * Contract: data_span_init() starts an empty span of frames between host
 * and dut; data_span_frame() takes the record's frames in its order, with
 * their times in microseconds on the record's clock (any frame, parsed
 * with measure/frame.h; hostile input); data_span_outside_us() is the
 * record's time before the first data frame and after the test's end: the
 * later of its last data frame and test_us past its first (test_us 0: the
 * last data frame), or -1 without a data frame; data_span_waits_us() is
 * the part of that time the DUT waited for the host's answers (of the
 * teardown, the last DATASPAN_WAITS waits), or -1 without a data frame.
 * Nothing allocates or prints.
 */
#ifndef HB_DATASPAN_H
#define HB_DATASPAN_H

#include <netinet/in.h>
#include <stddef.h>

#define DATASPAN_COOKIE_BYTES 37	/* iperf3's COOKIE_SIZE */
#define DATASPAN_UDP_HELLO_BYTES 4	/* iperf3's UDP connect message and reply */
#define DATASPAN_WAITS 32	/* a teardown's answers: about 5 (bench43's records) */

struct data_wait {
	long long from_us, to_us;
};

struct data_span {
	struct in_addr host, dut;
	int control_port;		/* the control connection's DUT port; -1 before its SYN */
	long long first_us, last_us;	/* the control SYN's, the last frame's; -1 before */
	long long first_data_us, last_data_us;	/* a data frame's; -1 before */
	long long dut_sent_us;		/* the DUT's last frame since the host last answered, or -1 */
	long long setup_waits_us;	/* the DUT's waits for the host before the first data */
	struct data_wait after[DATASPAN_WAITS];	/* since the last data frame, a ring */
	size_t n_after;			/* how many came (the ring holds the last ones) */
};

void data_span_init(struct data_span *s, struct in_addr host, struct in_addr dut);
void data_span_frame(struct data_span *s, long long t_us, const unsigned char *frame,
		     size_t caplen);
long long data_span_outside_us(const struct data_span *s, long long test_us);
long long data_span_waits_us(const struct data_span *s, long long test_us);
/* Whether a segment or datagram of proto (IPPROTO_TCP or IPPROTO_UDP) with
 * this much payload carries more than iperf3's set-up messages: data. */
int data_span_is_data(int proto, long payload);

#endif
