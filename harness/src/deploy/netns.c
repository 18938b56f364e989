#include "deploy/netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_proto.h"
#include "config/yamldoc.h"
#include "util/ipv4.h"
#include "util/proc.h"
#include "util/util.h"

static int ip(char *const argv[])
{
	int st = proc_run(argv, NULL);
	if (st != 0) {
		char *cmd = argv_display(argv);
		hb_err("`%s` failed (exit %d); is iproute2 installed (`make deps`)?", cmd, st);
		free(cmd);
		return -1;
	}
	return 0;
}

/* "198.18.0.1/24": its address alone in addr, the network ("198.18.0.0/24")
 * in prefix; -1 unless an IPv4 address with a prefix length. */
static int split_cidr(const char *cidr, char *addr, char *prefix, size_t len)
{
	uint32_t host;
	int bits;
	if (ipv4_parse_cidr(cidr, &host, &bits) < 0)
		return -1;
	struct in_addr a = { htonl(host) }, net = { htonl(ipv4_net_of(host, bits)) };
	char net_s[INET_ADDRSTRLEN];
	if (!inet_ntop(AF_INET, &a, addr, (socklen_t)len) ||
	    !inet_ntop(AF_INET, &net, net_s, sizeof(net_s)))
		return -1;
	snprintf(prefix, len, "%s/%d", net_s, bits);
	return 0;
}

int netns_enter(struct netns *ns, const char *tap, const char *host_cidr)
{
	snprintf(ns->tap, sizeof(ns->tap), "%s", tap);
	ns->joined_fd = -1;
	ns->orig_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns->orig_fd < 0 || unshare(CLONE_NEWNET) < 0) {
		hb_err("cannot create a network namespace: %s (hilbench needs root "
		       "or CAP_SYS_ADMIN for its private benchmark network)", strerror(errno));
		if (ns->orig_fd >= 0)
			close(ns->orig_fd);
		ns->orig_fd = -1;
		return -1;
	}
	char *tapname = ns->tap;
	char *lo_up[] = { "ip", "link", "set", "lo", "up", NULL };
	char *add[] = { "ip", "tuntap", "add", "dev", tapname, "mode", "tap", NULL };
	char *addr[] = { "ip", "addr", "add", (char *)host_cidr, "dev", tapname, NULL };
	char *up[] = { "ip", "link", "set", tapname, "up", NULL };
	/* The host acknowledges every TCP segment at once (the route's
	 * quickack): how many segments one of its ACKs covers otherwise
	 * follows the host's timing, and the DUT's cost per sent segment and
	 * its TCP throughput in virtual time with it (docs/measurements.md,
	 * "TCP DUT-TX and the host's ACKs"). */
	char host_ip[INET_ADDRSTRLEN + 4], net[INET_ADDRSTRLEN + 4];
	char *quickack[] = { "ip", "route", "replace", net, "dev", tapname, "proto", "kernel",
			     "scope", "link", "src", host_ip, "quickack", "1", NULL };
	if (split_cidr(host_cidr, host_ip, net, sizeof(net)) < 0) {
		hb_err("'%s' is no IPv4 address with a prefix length (the board's dut.host_addr)",
		       host_cidr);
		netns_leave(ns);
		return -1;
	}
	if (ip(lo_up) < 0 || ip(add) < 0 || ip(addr) < 0 || ip(up) < 0 || ip(quickack) < 0) {
		netns_leave(ns);
		return -1;
	}
	/* A quiet host side: no IPv6 router/neighbour chatter on the DUT's
	 * wire. A host without IPv6 has no such file and no such chatter. */
	char *v6 = xasprintf("/proc/sys/net/ipv6/conf/%s/disable_ipv6", tapname);
	if (path_exists(v6))
		write_string(v6, "1\n");
	free(v6);
	return 0;
}

int netns_join(struct netns *ns, const char *name)
{
	ns->tap[0] = '\0';
	ns->orig_fd = ns->joined_fd = -1;
	if (!ydoc_name_ok(name)) {
		hb_err("'%s' is no network namespace name ([a-z0-9._-])", name);
		return -1;
	}
	char *path = xasprintf("/run/netns/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int orig = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int rc = -1;
	if (fd < 0)
		hb_err("network namespace %s: %s: %s; create it with `ip netns add %s` and move the "
		       "host end of the device's link into it (docs/lava.md, \"A lab\")", name, path,
		       strerror(errno), name);
	else if (orig < 0 || setns(fd, CLONE_NEWNET) < 0)
		hb_err("cannot enter network namespace %s: %s (hilbench needs root or "
		       "CAP_SYS_ADMIN)", name, strerror(errno));
	else {
		ns->orig_fd = orig;
		ns->joined_fd = fd;
		orig = fd = -1;
		rc = 0;
	}
	if (orig >= 0)
		close(orig);
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

int netns_thread_return(const struct netns *ns)
{
	if (ns->orig_fd >= 0 && setns(ns->orig_fd, CLONE_NEWNET) < 0) {
		hb_err("cannot return to the original network namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int netns_socket(const struct netns *ns, int domain, int type, int protocol)
{
	if (!ns || ns->joined_fd < 0)
		return socket(domain, type, protocol);
	int here = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (here < 0)
		return -1;
	int s = -1, saved;
	if (setns(ns->joined_fd, CLONE_NEWNET) == 0) {
		s = socket(domain, type, protocol);
		saved = errno;
		if (setns(here, CLONE_NEWNET) < 0) {
			/* this thread must not stay there: nothing it does next
			 * would reach what it means to */
			hb_err("cannot return to this thread's network namespace: %s", strerror(errno));
			abort();
		}
		errno = saved;
	}
	saved = errno;
	close(here);
	errno = saved;
	return s;
}

void netns_leave(struct netns *ns)
{
	if (ns->orig_fd < 0)
		return;
	if (ns->joined_fd >= 0)
		close(ns->joined_fd);
	ns->joined_fd = -1;
	if (setns(ns->orig_fd, CLONE_NEWNET) < 0)
		hb_err("cannot return to the original network namespace: %s", strerror(errno));
	close(ns->orig_fd);
	ns->orig_fd = -1;
}

int netns_port_listening(int port)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	int found = 0;
	for (size_t i = 0; i < HB_ARRAY_SIZE(files) && !found; i++) {
		char *text = read_file(files[i], NULL);
		found = text && tcp_port_listening(text, (unsigned)port);
		free(text);
	}
	return found;
}
