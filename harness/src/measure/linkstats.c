#include "measure/linkstats.h"

#include <errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdio.h>
#include <string.h>

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
