#include "util/ipv4.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int ipv4_parse(const char *cidr, struct in_addr *out)
{
	char addr[INET_ADDRSTRLEN];
	size_t n = strcspn(cidr, "/");
	if (n >= sizeof(addr))
		return -1;
	memcpy(addr, cidr, n);
	addr[n] = '\0';
	return inet_pton(AF_INET, addr, out) == 1 ? 0 : -1;
}

int ipv4_parse_cidr(const char *cidr, uint32_t *addr, int *len)
{
	const char *slash = strchr(cidr, '/');
	struct in_addr in;
	char *end;

	if (!slash || slash[1] < '0' || slash[1] > '9' || ipv4_parse(cidr, &in) < 0)
		return -1;
	long l = strtol(slash + 1, &end, 10);
	if (*end || l > 32)
		return -1;
	*addr = ntohl(in.s_addr);
	*len = (int)l;
	return 0;
}

uint32_t ipv4_net_of(uint32_t addr, int len)
{
	/* a shift by 32 is undefined: /32 and /0 by themselves */
	return len >= 32 ? addr : len ? addr & ~(UINT32_MAX >> len) : 0;
}

int ipv4_iface_of(const char *cidr, char *ifname, size_t len)
{
	struct in_addr want;
	struct ifaddrs *all;
	if (ipv4_parse(cidr, &want) < 0) {
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
