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
 * Contract: both functions return 0, or -1 with the reason printed.
 */
#ifndef HB_LINKSTATS_H
#define HB_LINKSTATS_H

#include <stddef.h>
#include <stdint.h>

struct link_counters {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, rx_dropped;
};

int linkstats_read(const char *ifname, struct link_counters *out);
/* The interface that carries an IPv4 address ("198.18.0.1/24" or bare):
 * the host side of the DUT's link, whichever backend created it. */
int linkstats_iface_of(const char *cidr, char *ifname, size_t len);

#endif
