/*
 * ipv4: the host's side of a board's IPv4 addresses ("198.18.0.1/24", as
 * board files write them): the address itself, and the interface that
 * carries it. The capture, the link counters and the backends that find
 * the DUT's link (lava-rest) all start from a board's address, so this
 * sits below all of them.
 *
 * Contract: ipv4_parse() returns 0, or -1 unless cidr is an IPv4 address
 * (prefix optional), printing nothing. ipv4_parse_cidr() returns 0 with the
 * address (host byte order) and the prefix length, or -1 unless cidr is
 * "a.b.c.d/len" with len a decimal 0-32, printing nothing; ipv4_net_of()
 * is its network (host byte order). ipv4_iface_of() returns 0 with the
 * interface's name in ifname, or -1 with the reason printed; it looks in
 * the caller's network namespace (the benchmark netns).
 */
#ifndef HB_IPV4_H
#define HB_IPV4_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

int ipv4_parse(const char *cidr, struct in_addr *out);
int ipv4_parse_cidr(const char *cidr, uint32_t *addr, int *len);
uint32_t ipv4_net_of(uint32_t addr, int len);
int ipv4_iface_of(const char *cidr, char *ifname, size_t len);

#endif
