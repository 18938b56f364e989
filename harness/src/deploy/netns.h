/*
 * netns: the private network hilbench measures in.
 *
 * netns_enter() moves the calling thread into a new, anonymous network
 * namespace with a tap device carrying the host-side address, its route
 * with quickack (the host acknowledges every TCP segment at once); programs
 * started afterwards (QEMU, lava-run, libiperf children) inherit it.
 * Because the namespace has no name, the kernel destroys it, and the tap
 * with it, when the last process inside exits: nothing leaks, even after
 * SIGKILL. Traffic cannot reach any other network from inside.
 *
 * netns_join() moves the calling thread into a namespace that exists
 * already, by name (/run/netns/NAME, as `ip netns add` makes them): a
 * lab's peer of one device (lava.peers in the board file). Threads and
 * processes started afterwards inherit it; a thread that must stay
 * outside returns with netns_thread_return().
 *
 * Contract: netns_enter() and netns_join() return 0 or -1 with the message
 * printed (and the thread back in its original namespace); netns_leave()
 * is idempotent, and a no-op while orig_fd is -1 (set it so before either
 * runs).
 */
#ifndef HB_NETNS_H
#define HB_NETNS_H

struct netns {
	int orig_fd;		/* the namespace to return to; -1 when not inside */
	int joined_fd;		/* netns_join()'s namespace, for netns_socket(); -1 */
	char tap[16];
};

int netns_enter(struct netns *ns, const char *tap, const char *host_cidr);
int netns_join(struct netns *ns, const char *name);
/* Moves the calling thread back to the namespace ns was entered from (a
 * thread started inside it); 0, or -1 with the message printed. */
int netns_thread_return(const struct netns *ns);
/* socket(2) in the namespace ns joined, from any thread (a socket keeps
 * the namespace it was made in); a plain socket() when ns is NULL or
 * joined none. -1 with errno set. */
int netns_socket(const struct netns *ns, int domain, int type, int protocol);
void netns_leave(struct netns *ns);
/* Is a TCP port in LISTEN state in the current namespace? */
int netns_port_listening(int port);

#endif
