/*
 * capture-count: the host's counting path (measure/capture.c and
 * measure/linkstats.c, exactly as a run uses them) on one interface, for
 * tests/bench.sh: how fast can it count, and does it miss anything. Counts
 * IPv4 frames between two addresses until SIGINT/SIGTERM or a time limit,
 * then prints one line:
 *   counted=<from peer> rx_packets=<netlink delta> rx_dropped=<delta> drops=<pcap>
 * Usage: capture-count IFACE LOCAL_CIDR PEER_CIDR SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "measure/capture.h"
#include "measure/linkstats.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: capture-count IFACE LOCAL_CIDR PEER_CIDR SECONDS\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct link_counters before, after;
	/* the peer plays the DUT: its frames are the ones counted */
	struct capture *c = capture_start(argv[1], argv[2], argv[3]);
	if (!c || linkstats_read(argv[1], &before) < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	for (int ms = atoi(argv[4]) * 1000; ms > 0 && !stop; ms -= 100)
		usleep(100000);
	struct capture_counts n;
	if (linkstats_read(argv[1], &after) < 0 || capture_stop(c, &n) < 0)
		return 1;
	printf("counted=%llu rx_packets=%llu rx_dropped=%llu drops=%llu\n", n.from_dut,
	       (unsigned long long)(after.rx_packets - before.rx_packets),
	       (unsigned long long)(after.rx_dropped - before.rx_dropped), n.drops);
	return 0;
}
