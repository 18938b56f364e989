/*
 * tcpacked: how much of a TCP transfer arrived, from a record of the link's
 * frames: the bytes its receiver acknowledged over iperf3's measured
 * interval, per second of the record's clock.
 *
 * Why: iperf3's sending side counts what it wrote into its socket. On the
 * emulated board a TCP DUT-TX connection's send buffer grows by about a
 * megabyte in a 3 s test, by a different amount each run, so the DUT's
 * iperf3 read 4.5 % apart between boots of one kernel where the bytes
 * acknowledged over the same seconds spread 0.9 % (docs/measurements.md,
 * "What TCP DUT-TX's rate measured"). QEMU's filter-dump stamps each frame
 * with the emulator's virtual clock, the DUT's clock.
 *
 * The interval: it starts omit_us after the transfer's first data segment
 * (iperf3 starts its clock as the streams start sending; the cookie a
 * client sends on each stream as it connects is not data, dataspan.h) and lasts secs_us.
 * A stream's acknowledged sequence number at either end is the last one its
 * receiver sent at or before that time. The streams are given by address
 * and port, their data direction from sender to receiver.
 *
 * Frames are hostile input (the kernel under test writes them): every
 * length is checked, and a frame that is not a whole Ethernet, IPv4 and TCP
 * header of one of the streams counts nothing.
 *
 * Contract: tcp_acked_init() takes up to TCP_ACKED_STREAMS streams (more:
 * -1); tcp_acked_frame() takes the frames in the record's order, with their
 * time in microseconds; tcp_acked_mbps() is the rate in Mbit/s, or -1 when
 * the record does not cover the interval: no data segment, a stream with no
 * acknowledgement before the interval's start, no frame at or past its end,
 * or an acknowledgement that went backwards. Nothing allocates or prints.
 */
#ifndef HB_TCPACKED_H
#define HB_TCPACKED_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define TCP_ACKED_STREAMS 8

struct tcp_stream {
	struct in_addr sender, receiver;
	uint16_t sender_port, receiver_port;
};

struct tcp_acked {
	struct tcp_stream s[TCP_ACKED_STREAMS];
	size_t n;
	long long omit_us, secs_us;
	long long first_data_us, last_us;	/* -1 before any */
	int have_start[TCP_ACKED_STREAMS], have_end[TCP_ACKED_STREAMS];
	uint32_t ack_start[TCP_ACKED_STREAMS], ack_end[TCP_ACKED_STREAMS];
};

int tcp_acked_init(struct tcp_acked *a, const struct tcp_stream *streams, size_t n,
		   long long omit_us, long long secs_us);
void tcp_acked_frame(struct tcp_acked *a, long long t_us, const unsigned char *frame,
		     size_t caplen);
double tcp_acked_mbps(const struct tcp_acked *a);

#endif
