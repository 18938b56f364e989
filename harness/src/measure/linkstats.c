#include "measure/linkstats.h"

#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdio.h>
#include <string.h>

#include "measure/capture.h"
#include "util/util.h"

int linkstats_read(const char *ifname, struct link_counters *out)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct rtnl_link *link = NULL;
	int err = sk ? nl_connect(sk, NETLINK_ROUTE) : -NLE_NOMEM;
	if (err == 0)
		err = rtnl_link_get_kernel(sk, 0, ifname, &link);
	if (err == 0) {
		*out = (struct link_counters){
			.rx_packets = rtnl_link_get_stat(link, RTNL_LINK_RX_PACKETS),
			.tx_packets = rtnl_link_get_stat(link, RTNL_LINK_TX_PACKETS),
			.rx_bytes = rtnl_link_get_stat(link, RTNL_LINK_RX_BYTES),
			.tx_bytes = rtnl_link_get_stat(link, RTNL_LINK_TX_BYTES),
			.rx_dropped = rtnl_link_get_stat(link, RTNL_LINK_RX_DROPPED),
		};
		rtnl_link_put(link);
	}
	nl_socket_free(sk);
	if (err < 0)
		hb_err("link counters of %s (netlink): %s", ifname, nl_geterror(err));
	return err < 0 ? -1 : 0;
}

int linkstats_iface_of(const char *cidr, char *ifname, size_t len)
{
	struct in_addr want;
	struct ifaddrs *all;
	if (capture_parse_ipv4(cidr, &want) < 0) {
		hb_err("%s is not an IPv4 address", cidr);
		return -1;
	}
	if (getifaddrs(&all) < 0) {
		hb_err("cannot list the interfaces: %s", strerror(errno));
		return -1;
	}
	int found = 0;
	for (const struct ifaddrs *i = all; i && !found; i = i->ifa_next) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)i->ifa_addr;
		if (a && a->sin_family == AF_INET && a->sin_addr.s_addr == want.s_addr) {
			snprintf(ifname, len, "%s", i->ifa_name);
			found = 1;
		}
	}
	freeifaddrs(all);
	if (!found)
		hb_err("no interface carries %s in this network namespace", cidr);
	return found ? 0 : -1;
}
