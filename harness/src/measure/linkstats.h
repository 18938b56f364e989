/*
 * linkstats: the kernel's own counters of the host's DUT-facing interface,
 * read over rtnetlink (libnl-route-3), as one of the independent packet
 * counts (docs/metrics.md, "Cross-checks").
 *
 * The counters count every frame the interface passed, whatever its
 * protocol (ARP and IPv6 included). On a tap the directions are mirrored:
 * what the DUT sends is the tap's RX, what the host sends to the DUT is its TX.
 * Netlink sockets belong to the namespace they were opened in, so these
 * read the interface of the caller's namespace (the benchmark netns).
 *
 * Contract: linkstats_read() returns 0, or -1 with the reason printed. The
 * interface of the DUT's link is util/ipv4.h's ipv4_iface_of().
 */
#ifndef HB_LINKSTATS_H
#define HB_LINKSTATS_H

#include <stdint.h>

struct link_counters {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, rx_dropped;
};

int linkstats_read(const char *ifname, struct link_counters *out);

#endif
