/*
 * capture: count the frames on the host's DUT-facing interface during a run,
 * live, with libpcap, as one of the independent packet counts
 * (docs/metrics.md, "Cross-checks").
 *
 * Only IPv4 frames between the host's and the DUT's addresses are counted
 * (kernel BPF filter "ip host A and ip host B"), so ARP, IPv6 neighbour
 * traffic and anything else on the wire is excluded; the iperf control
 * connection is included (the DUT's own counters include it too). A frame
 * whose IPv4 source is the DUT was sent by the DUT; one whose source is the
 * host was sent to it. Classifying by address rather than by capture
 * direction keeps one ring and one copy per frame for both directions.
 *
 * The counting runs in a thread, not a forked child. It must not block the
 * runner, which keeps reading the DUT's console meanwhile; libpcap, unlike
 * libiperf, keeps no global state and never calls exit(), and the handle is
 * non-blocking and polled with a short timeout, so the thread sees the stop
 * request within CAPTURE_BLOCK_MS whatever the traffic does: there is nothing
 * a deadline would have to kill. A thread also needs no IPC to hand back its
 * counts and leaves no process behind. It blocks all signals, so SIGINT still
 * interrupts the runner's own waits. The capture socket is opened by the
 * caller, in the caller's network namespace (the benchmark netns).
 *
 * TPACKET_V3 (libpcap's default) hands frames over in blocks that the kernel
 * retires when full or CAPTURE_BLOCK_MS after they opened; a blocking read
 * never returns once traffic stops (shared/notes/host-capture.md), hence
 * non-blocking + poll, and a short drain after the stop request.
 *
 * Contract: capture_start() returns a running capture, or NULL with the
 * reason printed. capture_stop() ends the window at the moment it is called
 * (frames stamped later are not counted), always frees the capture, and
 * returns 0 with the counts and the test's data span on the host's clock
 * (measure/dataspan.h), or -1 with the reason printed. The pure helpers
 * print nothing.
 */
#ifndef HB_CAPTURE_H
#define HB_CAPTURE_H

#include <netinet/in.h>
#include <stddef.h>

#include "measure/dataspan.h"

#define CAPTURE_SNAPLEN 96		/* Ethernet + IPv4 + UDP/TCP headers */
#define CAPTURE_BUFFER (64 << 20)	/* ring bytes: seconds of line rate at 96 B */
#define CAPTURE_BLOCK_MS 20		/* block retire timeout = poll timeout */

struct capture_counts {
	unsigned long long from_dut;	/* IPv4 frames the DUT sent to the host */
	unsigned long long to_dut;	/* IPv4 frames the host sent to the DUT */
	unsigned long long drops;	/* pcap ps_drop + ps_ifdrop: frames the capture missed */
	struct data_span span;		/* the test's data frames on the record's clock */
};

struct capture;

struct capture *capture_start(const char *ifname, const char *host_cidr, const char *dut_cidr);
int capture_stop(struct capture *c, struct capture_counts *out);

/* The BPF filter text for frames between the two addresses (given as CIDR);
 * -1 for a bad address or a short buffer. */
int capture_filter(const char *host_cidr, const char *dut_cidr, char *out, size_t outlen);

enum capture_dir { CAPTURE_OTHER, CAPTURE_FROM_DUT, CAPTURE_TO_DUT };
/* Which way an Ethernet frame (caplen bytes captured) went between the two. */
enum capture_dir capture_classify(const unsigned char *frame, size_t caplen,
				  struct in_addr host, struct in_addr dut);
/* Counts a frame so classified into c (a live capture's, a file's). */
void capture_count(struct capture_counts *c, enum capture_dir d);

#endif
