/*
 * agent_proto: the pure parts of the DUT agent (docs/agent-protocol.md).
 *
 * Parsing what the agent is told (kernel command line, hbcmd lines) and what
 * it reads (tracefs hist, /proc), encoding what it sends (base64, CRC-32).
 * Nothing here does I/O, so every function is unit-tested on the host.
 *
 * Contract: parsers return 0 (or a command) on success and -1 (CMD_INVALID)
 * on failure; when they take an err buffer they fill it with a one-line
 * reason fit for an `msg=` token. Output structs are only valid on success.
 */
#ifndef HB_AGENT_PROTO_H
#define HB_AGENT_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* hb.* parameters from the kernel command line. */
struct agent_params {
	char iface[16];		/* IFNAMSIZ: it becomes a /sys/class/net path */
	char addr[64];		/* DUT address with prefix, 198.18.0.2/24 */
	char peer[48];		/* host address, 198.18.0.1 */
	/* For fault tests only (docs/faults.md), 0 (absent) in real runs:
	 * hb.fault_kill_iperf_s=N, the agent SIGKILLs iperf3 N s into every
	 * run (it dies); hb.fault_stop_iperf_s=N, it SIGSTOPs it (it hangs
	 * until the deadline). */
	unsigned fault_kill_iperf_s;
	unsigned fault_stop_iperf_s;
};

int agent_params_parse(const char *cmdline, struct agent_params *p,
		       char *err, size_t errlen);

enum run_proto { RUN_UDP, RUN_TCP };
enum run_dir { RUN_TX, RUN_RX, RUN_BIDIR };	/* seen from the DUT */

/* What else runs during the traffic to measure where the CPU time goes
 * (docs/metrics.md, "hrtimer CPU share"). Each perturbs what it measures,
 * so it is a property of the run, recorded with it. */
enum run_profile { PROFILE_NONE, PROFILE_FTRACE, PROFILE_PERF };

/* Whose clock ends a run whose iperf3 outlives time + omit + AGENT_GRACE_S.
 * DEADLINE_DUT: the agent's own (CLOCK_MONOTONIC), where nobody else can
 * tell it (a LAVA job's agent, the host gone once the run is handed over).
 * DEADLINE_HOST: the host's, which says so with `hbcmd stop id=<id>`: in a
 * virtual-time run the DUT's clock races through every second it idles,
 * and it idles while it waits for the host's iperf3 to answer, so a host
 * 20 ms late at the test's set-up put the agent's deadline 35 DUT-seconds
 * on and failed a sound run (docs/faults.md). */
enum run_deadline { DEADLINE_DUT, DEADLINE_HOST };
/* Beyond time + omit: connection set-up and JSON output on a slow DUT. */
#define AGENT_GRACE_S 30

#define RUN_ID_MAX 64
/* functions=: the function profiler's filter, sent by the host from the
 * driver file (config/driver.h). At most this many names, each a C
 * identifier of at most RUN_FUNCTION_NAME_MAX characters, joined by ','
 * into at most RUN_FUNCTIONS_LEN characters. */
#define RUN_FUNCTIONS_MAX	16
#define RUN_FUNCTION_NAME_MAX	63
#define RUN_FUNCTIONS_LEN	255

/* One `hbcmd run`: every field validated and in range. */
struct run_spec {
	char id[RUN_ID_MAX];	/* [A-Za-z0-9._-]: it becomes /tmp/<id>.json */
	enum run_proto proto;
	enum run_dir dir;
	unsigned len;		/* bytes per write/datagram, 0 = iperf3 default */
	uint64_t rate;		/* bit/s, 0 = unlimited */
	unsigned time_s;
	unsigned omit_s;
	unsigned streams;
	unsigned port;
	enum run_profile profile;	/* optional key profile=none|ftrace|perf */
	char functions[RUN_FUNCTIONS_LEN + 1];	/* "a,b,c": required with profile=ftrace,
						 * refused without it */
	enum run_deadline deadline;	/* optional key deadline=dut|host (default dut) */
};

/* 0 if list is a valid functions= value (see RUN_FUNCTIONS_MAX), else -1
 * with the reason in err. */
int run_functions_check(const char *list, char *err, size_t errlen);

/*
 * The key=value tokens of a run (without "hbcmd run"). Every key is
 * required except id when default_id is not NULL, profile (default none),
 * deadline (default dut) and functions (only and always with
 * profile=ftrace); unknown or repeated
 * keys are errors. dir=bidir: the DUT is the client and sends and receives
 * at once (iperf3 --bidir).
 */
int run_spec_parse(int ntok, char *const tok[], const char *default_id,
		   struct run_spec *rs, char *err, size_t errlen);

/* iperf3's command line for a run (docs/agent-protocol.md); the argument
 * strings live in the struct. */
struct iperf_args {
	char port[8], rate[24], len[12], time_s[12], omit[12], streams[12];
	const char *argv[24];	/* NULL-terminated, argv[0] = /usr/bin/iperf3 */
};

void iperf_args_build(struct iperf_args *a, const struct agent_params *p,
		      const struct run_spec *rs);

/* How the END msg of a run begins when the agent killed iperf3 at its
 * deadline (time + omit + AGENT_GRACE_S, on the clock run_spec.deadline
 * names): the host tells that failure from the others (measure/runner.c). */
#define AGENT_DEADLINE_KILL "iperf3 killed after"

/*
 * The top-level "error" string of iperf3's JSON, escapes kept, non-printable
 * bytes as '?'. 1 if there is one. iperf3 3.12 exits 0 with -J even when the
 * test failed (e.g. connection refused), so this is how failure shows.
 */
int iperf_json_error(const char *json, char *msg, size_t msglen);

enum agent_cmd { CMD_INVALID = -1, CMD_RUN, CMD_POWEROFF, CMD_STOP };

/* One console line (trailing CR/LF allowed); fills *rs for CMD_RUN, and
 * rs->id alone for CMD_STOP (`hbcmd stop id=<id>`: the host's deadline of
 * that run passed). */
enum agent_cmd command_parse(const char *line, struct run_spec *rs,
			     char *err, size_t errlen);

/*
 * `hbcmd set id=<id> method=<m> key=<k> value=<v>`: apply one runtime
 * setting and read it back (docs/knobs.md). Kept out of command_parse() so
 * the run command's parser stays as it is.
 */
enum set_method { SET_ETHTOOL_COALESCE, SET_SYSFS_NET, SET_IRQ_AFFINITY, SET_QDISC };
#define SET_TOKEN_MAX 64

struct set_spec {
	char id[RUN_ID_MAX];
	enum set_method method;
	char key[SET_TOKEN_MAX];	/* ethtool -C word, path under /sys/class/net/<if>/,
					 * or "root" (qdisc) */
	char value[SET_TOKEN_MAX];	/* [A-Za-z0-9,._-]; a qdisc kind is [a-z0-9_] */
};

/* 0 if line is not an `hbcmd set` line; 1 with *ss filled; -1 with err for
 * an `hbcmd set` line that is invalid (ss->id is then "?" or the id). */
int set_command_parse(const char *line, struct set_spec *ss, char *err, size_t errlen);

/* The value of `key:` in `ethtool -c` output ("tx-usecs:\t1000"), 0 if
 * found; "n/a" counts as found. */
int ethtool_coalesce_value(const char *text, const char *key, char *out, size_t outlen);

/* The IRQ of iface in /proc/interrupts text: the line whose last field is
 * iface (drivers request their IRQ with the netdev's name). 0 if found. */
int iface_irq_parse(const char *proc_interrupts, const char *iface, unsigned *irq);

/*
 * The qdisc method speaks rtnetlink: what `tc qdisc replace dev <if> root
 * <kind>` sends, so the DUT needs no iproute2. These build the two requests
 * and read the kernel's answers; hb-agent.c does the socket I/O.
 */
#define QDISC_KIND_MAX 16	/* IFNAMSIZ, the kernel's limit for TCA_KIND */

/* RTM_NEWQDISC with NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK for the root
 * of ifindex, TCA_KIND = kind and no TCA_OPTIONS (the qdisc's defaults).
 * The length written, 0 if buf is too small or kind is too long. */
size_t qdisc_replace_request(void *buf, size_t buflen, uint32_t seq, int ifindex,
			     const char *kind);

/* RTM_GETQDISC, NLM_F_DUMP: every device's qdiscs (6.1 filters none). */
size_t qdisc_dump_request(void *buf, size_t buflen, uint32_t seq);

/* RTM_NEWADDR with NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK: what `ip addr add
 * <cidr> dev <if>` sends (IFA_LOCAL and IFA_ADDRESS the address, no
 * broadcast), so that the agent sets up its interface without forking
 * busybox. cidr is "a.b.c.d/n". The length written, 0 if cidr is no IPv4
 * address with a prefix of 0 to 32 or buf is too small. */
size_t addr_add_request(void *buf, size_t buflen, uint32_t seq, int ifindex, const char *cidr);

/*
 * The NLMSG_ERROR answering seq in one received datagram: 1 when found,
 * with *errnum the positive errno (0 for an ack) and msg the extended ack's
 * text (NLMSGERR_ATTR_MSG) or ""; 0 when the datagram does not answer seq;
 * -1 when it is malformed.
 */
int netlink_ack_parse(const void *buf, size_t len, uint32_t seq, int *errnum, char *msg,
		      size_t msglen);

/*
 * One datagram of the dump answering seq: copies the TCA_KIND of ifindex's
 * root qdisc (parent TC_H_ROOT) into kind when the datagram has it. 1 when
 * the dump is over (NLMSG_DONE), 0 when more follows, -1 when malformed or
 * when the kernel answered with an error (*errnum positive, else 0).
 */
int qdisc_dump_parse(const void *buf, size_t len, uint32_t seq, int ifindex, char *kind,
		     size_t kindlen, int *errnum);

/*
 * One bucket line of a tracefs hist file keyed by a .sym field:
 *   { function: [c0a1b2c4] stmmac_tx_timer      } hitcount:       1234
 * The caller is the symbol without a " [module]" suffix. Header, blank and
 * "Totals:" lines return -1.
 */
int hist_line_parse(const char *line, char *caller, size_t callerlen,
		    uint64_t *hits);

/*
 * One record read from /dev/kmsg: "<prio>,<seq>,<usec>,<flags>[,...];<text>"
 * followed by optional continuation lines (" KEY=value"). Gives the syslog
 * level (prio & 7) and the text of the first line (not NUL-terminated at
 * the newline: *textlen says how long). -1 for anything else.
 */
int kmsg_record_parse(const char *rec, size_t len, unsigned *level,
		      const char **text, size_t *textlen);

/* A task's kernel stack from /proc/<pid>/stack ("[<0>] do_select+0x2b4/0x5c0"
 * a line, innermost first) as one line of function names, innermost first:
 * "do_select < core_sys_select < sys_select". Names are cut to C identifier
 * characters; out is always terminated, cut at outlen. The number of frames. */
int kernel_stack_text(const char *proc_stack, char *out, size_t outlen);

/* 1 if /proc/net/tcp or tcp6 text has a socket on port in LISTEN state. */
int tcp_port_listening(const char *proc_net_tcp, unsigned port);

/* The aggregate "cpu" line of /proc/stat, in jiffies, in this order. */
enum { CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT, CPU_IRQ, CPU_SOFTIRQ, CPU_FIELDS };
extern const char *const cpu_field_names[CPU_FIELDS];
int cpu_stat_parse(const char *proc_stat, uint64_t out[CPU_FIELDS]);

/* RFC 4648 base64 with padding; out needs 4 * ((len + 2) / 3) + 1 bytes.
 * Returns the length written (without the NUL). */
size_t base64_encode(const void *in, size_t len, char *out);

/* The inverse, for the host: len must be a multiple of 4; returns the bytes
 * written to out (at most len / 4 * 3), or -1 for anything not base64. */
long base64_decode(const char *in, size_t len, unsigned char *out);

/* zlib's crc32(): start with crc = 0, feed the result back to continue. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t len);

#endif
