/*
 * netns: the private network hilbench measures in.
 *
 * netns_enter() moves the calling thread into a new, anonymous network
 * namespace with a tap device carrying the host-side address; programs
 * started afterwards (QEMU, lava-run, libiperf children) inherit it.
 * Because the namespace has no name, the kernel destroys it, and the tap
 * with it, when the last process inside exits: nothing leaks, even after
 * SIGKILL. Traffic cannot reach any other network from inside.
 *
 * Contract: netns_enter() returns 0 or -1 with the message printed (and the
 * thread back in its original namespace); netns_leave() is idempotent.
 */
#ifndef HB_NETNS_H
#define HB_NETNS_H

struct netns {
	int orig_fd;		/* the namespace to return to; -1 when not inside */
	char tap[16];
};

int netns_enter(struct netns *ns, const char *tap, const char *host_cidr);
void netns_leave(struct netns *ns);
/* Is a TCP port in LISTEN state in the current namespace? */
int netns_port_listening(int port);

#endif
