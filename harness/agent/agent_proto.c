/*
 * agent_proto: the pure parts of the DUT agent; see agent_proto.h.
 */
#include "agent_proto.h"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next whitespace-separated token at *s: its start and length; 0 at the end. */
static size_t next_token(const char **s, const char **start)
{
	const char *p = *s;
	size_t n = 0;

	while (is_space(*p))
		p++;
	*start = p;
	while (p[n] && !is_space(p[n]))
		n++;
	*s = p + n;
	return n;
}

/* Names of things that end up in paths: no '/', no leading '.'. */
static int is_safe_name(const char *s, size_t maxlen)
{
	size_t n = strlen(s);

	if (n == 0 || n > maxlen || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

/* Decimal digits only (no sign, no spaces), at most max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int is_ip(const char *s)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static int valid_addr_prefix(const char *s)
{
	char ip[64];
	const char *slash = strchr(s, '/');
	uint64_t prefix;

	if (!slash || (size_t)(slash - s) >= sizeof(ip))
		return 0;
	memcpy(ip, s, (size_t)(slash - s));
	ip[slash - s] = '\0';
	unsigned char buf[16];
	uint64_t max = inet_pton(AF_INET, ip, buf) == 1 ? 32 :
		       inet_pton(AF_INET6, ip, buf) == 1 ? 128 : 0;
	return max && parse_u64(slash + 1, max, &prefix) == 0;
}

int agent_params_parse(const char *cmdline, struct agent_params *p,
		       char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off, size;
	} keys[] = {
		{ "hb.iface=", offsetof(struct agent_params, iface), sizeof(p->iface) },
		{ "hb.addr=", offsetof(struct agent_params, addr), sizeof(p->addr) },
		{ "hb.peer=", offsetof(struct agent_params, peer), sizeof(p->peer) },
	};
	/* fault tests only (docs/faults.md): seconds into every run */
	static const struct {
		const char *key;
		size_t off;
	} faults[] = {
		{ "hb.fault_kill_iperf_s=", offsetof(struct agent_params, fault_kill_iperf_s) },
		{ "hb.fault_stop_iperf_s=", offsetof(struct agent_params, fault_stop_iperf_s) },
	};
	const char *s = cmdline, *tok;
	size_t n;

	memset(p, 0, sizeof(*p));
	/* Later occurrences win, as for the kernel's own parameters. */
	while ((n = next_token(&s, &tok)) > 0) {
		for (size_t f = 0; f < sizeof(faults) / sizeof(faults[0]); f++) {
			size_t klen = strlen(faults[f].key);
			if (n <= klen || strncmp(tok, faults[f].key, klen) != 0)
				continue;
			char num[16];
			uint64_t secs;
			size_t vlen = n - klen;
			if (vlen >= sizeof(num))
				return fail(err, errlen, "%.*s is too long", (int)(klen - 1), tok);
			memcpy(num, tok + klen, vlen);
			num[vlen] = '\0';
			if (parse_u64(num, 3600, &secs) < 0)
				return fail(err, errlen, "%.*s%s: give seconds, 0..3600", (int)klen, tok,
					    num);
			*(unsigned *)(void *)((char *)p + faults[f].off) = (unsigned)secs;
		}
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t klen = strlen(keys[k].key);
			if (n < klen || strncmp(tok, keys[k].key, klen) != 0)
				continue;
			if (n - klen >= keys[k].size)
				return fail(err, errlen, "%.*s is too long", (int)(klen - 1), tok);
			char *dst = (char *)p + keys[k].off;
			memcpy(dst, tok + klen, n - klen);
			dst[n - klen] = '\0';
		}
	}
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (((char *)p + keys[k].off)[0] == '\0')
			return fail(err, errlen, "kernel command line lacks %.*s<value>",
				    (int)strlen(keys[k].key), keys[k].key);
	if (!is_safe_name(p->iface, sizeof(p->iface) - 1))
		return fail(err, errlen, "hb.iface=%s is not an interface name", p->iface);
	if (!valid_addr_prefix(p->addr))
		return fail(err, errlen, "hb.addr=%s is not ADDRESS/PREFIX", p->addr);
	if (!is_ip(p->peer))
		return fail(err, errlen, "hb.peer=%s is not an IP address", p->peer);
	return 0;
}

enum run_key {
	K_ID, K_PROTO, K_DIR, K_LEN, K_RATE, K_TIME, K_OMIT, K_STREAMS, K_PORT, K_PROFILE,
	K_FUNCTIONS, K_DEADLINE, K_COUNT
};

static const char *const run_key_names[K_COUNT] = {
	"id", "proto", "dir", "len", "rate", "time", "omit", "streams", "port", "profile",
	"functions", "deadline",
};

static const char *const profile_names[] = { "none", "ftrace", "perf" };
static const char *const deadline_names[] = { [DEADLINE_DUT] = "dut", [DEADLINE_HOST] = "host" };

/* The index of v among the n names (an enum's values), -1 if none. */
static int name_index(const char *v, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return (int)i;
	return -1;
}

/* Ranges of the numeric keys; len is checked again per protocol below.
 * Limits follow workload.h (time, omit, streams) and iperf3 (len). */
static const uint64_t run_key_min[K_COUNT] = {
	[K_TIME] = 1, [K_STREAMS] = 1, [K_PORT] = 1,
};
static const uint64_t run_key_max[K_COUNT] = {
	[K_LEN] = 1048576, [K_RATE] = UINT64_MAX, [K_TIME] = 3600,
	[K_OMIT] = 60, [K_STREAMS] = 16, [K_PORT] = 65535,
};

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

int run_functions_check(const char *list, char *err, size_t errlen)
{
	size_t len = strlen(list);
	if (len == 0 || len > RUN_FUNCTIONS_LEN)
		return fail(err, errlen, "functions= must have 1-%d characters", RUN_FUNCTIONS_LEN);
	int n = 0;
	for (const char *p = list;; p++) {
		const char *start = p;
		if (!is_ident_start(*p))
			return fail(err, errlen, "functions=: a name must start with [A-Za-z_]");
		while (is_ident_char(*p))
			p++;
		if (p - start > RUN_FUNCTION_NAME_MAX)
			return fail(err, errlen, "functions=: a name longer than %d characters",
				    RUN_FUNCTION_NAME_MAX);
		if (++n > RUN_FUNCTIONS_MAX)
			return fail(err, errlen, "functions=: more than %d names", RUN_FUNCTIONS_MAX);
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return fail(err, errlen, "functions=: names are C identifiers joined by ','");
	}
}

/* iperf3's largest UDP datagram: 65535 - IP header - UDP header. */
#define UDP_LEN_MAX 65507

int run_spec_parse(int ntok, char *const tok[], const char *default_id,
		   struct run_spec *rs, char *err, size_t errlen)
{
	uint64_t num[K_COUNT] = { 0 };
	int seen[K_COUNT] = { 0 };

	memset(rs, 0, sizeof(*rs));
	for (int t = 0; t < ntok; t++) {
		const char *eq = strchr(tok[t], '=');
		enum run_key k;

		if (!eq)
			return fail(err, errlen, "'%s' is not key=value", tok[t]);
		for (k = 0; k < K_COUNT; k++)
			if (strlen(run_key_names[k]) == (size_t)(eq - tok[t]) &&
			    strncmp(tok[t], run_key_names[k], (size_t)(eq - tok[t])) == 0)
				break;
		if (k == K_COUNT)
			return fail(err, errlen, "unknown key in '%s'", tok[t]);
		if (seen[k]++)
			return fail(err, errlen, "%s= given twice", run_key_names[k]);

		const char *v = eq + 1;
		switch (k) {
		case K_ID:
			if (!is_safe_name(v, RUN_ID_MAX - 1))
				return fail(err, errlen, "id=%s: use 1-%d of [A-Za-z0-9._-], not starting with '.'",
					    v, RUN_ID_MAX - 1);
			strcpy(rs->id, v);
			break;
		case K_PROTO:
			if (strcmp(v, "udp") != 0 && strcmp(v, "tcp") != 0)
				return fail(err, errlen, "proto=%s: use udp or tcp", v);
			rs->proto = v[0] == 'u' ? RUN_UDP : RUN_TCP;
			break;
		case K_DIR:
			if (strcmp(v, "tx") == 0)
				rs->dir = RUN_TX;
			else if (strcmp(v, "rx") == 0)
				rs->dir = RUN_RX;
			else if (strcmp(v, "bidir") == 0)
				rs->dir = RUN_BIDIR;
			else
				return fail(err, errlen, "dir=%s: use tx, rx or bidir", v);
			break;
		case K_PROFILE: {
			int i = name_index(v, profile_names, sizeof(profile_names) / sizeof(profile_names[0]));
			if (i < 0)
				return fail(err, errlen, "profile=%s: use none, ftrace or perf", v);
			rs->profile = (enum run_profile)i;
			break;
		}
		case K_FUNCTIONS:
			if (run_functions_check(v, err, errlen) < 0)
				return -1;
			strcpy(rs->functions, v);
			break;
		case K_DEADLINE: {
			int i = name_index(v, deadline_names,
					   sizeof(deadline_names) / sizeof(deadline_names[0]));
			if (i < 0)
				return fail(err, errlen, "deadline=%s: use dut or host", v);
			rs->deadline = (enum run_deadline)i;
			break;
		}
		default:
			if (parse_u64(v, run_key_max[k], &num[k]) < 0 || num[k] < run_key_min[k])
				return fail(err, errlen, "%s=%s: use an integer in %llu..%llu",
					    run_key_names[k], v,
					    (unsigned long long)run_key_min[k],
					    (unsigned long long)run_key_max[k]);
			break;
		}
	}
	if (!seen[K_ID] && default_id) {
		snprintf(rs->id, sizeof(rs->id), "%s", default_id);
		seen[K_ID] = 1;
	}
	if (seen[K_FUNCTIONS] != (rs->profile == PROFILE_FTRACE))
		return fail(err, errlen, seen[K_FUNCTIONS] ? "functions= is for profile=ftrace only" :
			    "profile=ftrace needs functions=");
	seen[K_PROFILE] = seen[K_FUNCTIONS] = seen[K_DEADLINE] = 1;	/* optional */
	for (int k = 0; k < K_COUNT; k++)
		if (!seen[k])
			return fail(err, errlen, "missing %s=", run_key_names[k]);
	if (rs->proto == RUN_UDP && num[K_LEN] > UDP_LEN_MAX)
		return fail(err, errlen, "len=%llu: UDP datagrams are at most %d bytes",
			    (unsigned long long)num[K_LEN], UDP_LEN_MAX);
	rs->len = (unsigned)num[K_LEN];
	rs->rate = num[K_RATE];
	rs->time_s = (unsigned)num[K_TIME];
	rs->omit_s = (unsigned)num[K_OMIT];
	rs->streams = (unsigned)num[K_STREAMS];
	rs->port = (unsigned)num[K_PORT];
	return 0;
}

void iperf_args_build(struct iperf_args *a, const struct agent_params *p,
		      const struct run_spec *rs)
{
	int n = 0;

	snprintf(a->port, sizeof(a->port), "%u", rs->port);
	snprintf(a->rate, sizeof(a->rate), "%llu", (unsigned long long)rs->rate);
	snprintf(a->len, sizeof(a->len), "%u", rs->len);
	snprintf(a->time_s, sizeof(a->time_s), "%u", rs->time_s);
	snprintf(a->omit, sizeof(a->omit), "%u", rs->omit_s);
	snprintf(a->streams, sizeof(a->streams), "%u", rs->streams);

	/* The DUT is the client in every direction (-R for DUT-RX): the
	 * client's timer ends a test, so its length is on the DUT's clock, the
	 * one a virtual-time run measures with (docs/agent-protocol.md). */
	a->argv[n++] = "/usr/bin/iperf3";
	a->argv[n++] = "-c";
	a->argv[n++] = p->peer;
	a->argv[n++] = "-p";
	a->argv[n++] = a->port;
	if (rs->proto == RUN_UDP)
		a->argv[n++] = "-u";
	a->argv[n++] = "-b";
	a->argv[n++] = a->rate;
	if (rs->len) {
		a->argv[n++] = "-l";
		a->argv[n++] = a->len;
	}
	a->argv[n++] = "-t";
	a->argv[n++] = a->time_s;
	a->argv[n++] = "-O";
	a->argv[n++] = a->omit;
	a->argv[n++] = "-P";
	a->argv[n++] = a->streams;
	if (rs->dir == RUN_RX)
		a->argv[n++] = "-R";
	else if (rs->dir == RUN_BIDIR)
		a->argv[n++] = "--bidir";
	a->argv[n++] = "-J";
	a->argv[n] = NULL;
}

/* The closing quote of a JSON string whose body starts at s; NULL if none. */
static const char *json_string_end(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (*s == '"')
			return s;
	}
	return NULL;
}

static const char *skip_space(const char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

int iperf_json_error(const char *json, char *msg, size_t msglen)
{
	int depth = 0;

	for (const char *p = json; *p; p++) {
		if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			depth--;
		} else if (*p == '"') {
			const char *key = p + 1, *end = json_string_end(key);
			if (!end)
				return 0;
			p = end;
			/* A top-level key "error" with a string value. */
			if (depth != 1 || end - key != 5 || strncmp(key, "error", 5) != 0)
				continue;
			const char *v = skip_space(end + 1);
			if (*v != ':')
				continue;
			v = skip_space(v + 1);
			const char *vend = *v == '"' ? json_string_end(v + 1) : NULL;
			if (!vend)
				return 0;
			size_t n = 0;
			for (const char *c = v + 1; c < vend && n + 1 < msglen; c++)
				msg[n++] = *c >= 0x20 && *c < 0x7f ? *c : '?';
			msg[n] = '\0';
			return 1;
		}
	}
	return 0;
}

/* More than any valid command has (hbcmd run + 12 keys). */
#define CMD_TOKENS_MAX 16

enum agent_cmd command_parse(const char *line, struct run_spec *rs,
			     char *err, size_t errlen)
{
	char buf[512];
	char *tok[CMD_TOKENS_MAX];
	int ntok = 0;

	if (strlen(line) >= sizeof(buf)) {
		fail(err, errlen, "line longer than %zu bytes", sizeof(buf) - 1);
		return CMD_INVALID;
	}
	strcpy(buf, line);
	for (char *p = buf;;) {
		while (is_space(*p))
			p++;
		if (*p == '\0')
			break;
		if (ntok == CMD_TOKENS_MAX) {
			fail(err, errlen, "more than %d tokens", CMD_TOKENS_MAX);
			return CMD_INVALID;
		}
		tok[ntok++] = p;
		while (*p && !is_space(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	if (ntok < 2 || strcmp(tok[0], "hbcmd") != 0) {
		fail(err, errlen, "not an hbcmd line");
		return CMD_INVALID;
	}
	if (strcmp(tok[1], "run") == 0)
		return run_spec_parse(ntok - 2, tok + 2, NULL, rs, err, errlen) == 0 ?
		       CMD_RUN : CMD_INVALID;
	if (strcmp(tok[1], "poweroff") == 0 && ntok == 2)
		return CMD_POWEROFF;
	if (strcmp(tok[1], "stop") == 0 && ntok == 3) {
		memset(rs, 0, sizeof(*rs));
		if (strncmp(tok[2], "id=", 3) != 0 || !is_safe_name(tok[2] + 3, RUN_ID_MAX - 1)) {
			fail(err, errlen, "hbcmd stop takes id=<run id>");
			return CMD_INVALID;
		}
		strcpy(rs->id, tok[2] + 3);
		return CMD_STOP;
	}
	fail(err, errlen, "unknown command '%s'", tok[1]);
	return CMD_INVALID;
}

int hist_line_parse(const char *line, char *caller, size_t callerlen,
		    uint64_t *hits)
{
	const char *p = line;

	while (*p == ' ')
		p++;
	if (*p != '{')
		return -1;
	p = strchr(p, ':');	/* past the key's field name */
	if (!p)
		return -1;
	p++;
	while (*p == ' ')
		p++;
	if (*p == '[') {	/* the raw address before the symbol */
		p = strchr(p, ']');
		if (!p)
			return -1;
		p++;
		while (*p == ' ')
			p++;
	}
	size_t n = strcspn(p, " }");
	if (n == 0 || n >= callerlen)
		return -1;
	memcpy(caller, p, n);
	caller[n] = '\0';

	const char *h = strstr(p + n, "} hitcount:");
	if (!h)
		return -1;
	h += strlen("} hitcount:");
	while (*h == ' ')
		h++;
	char digits[24];
	size_t nd = strspn(h, "0123456789");
	if (nd == 0 || nd >= sizeof(digits))
		return -1;
	memcpy(digits, h, nd);
	digits[nd] = '\0';
	return parse_u64(digits, UINT64_MAX, hits);
}

int kmsg_record_parse(const char *rec, size_t len, unsigned *level,
		      const char **text, size_t *textlen)
{
	size_t i = 0, fields = 0;
	uint64_t prio = 0;

	while (i < len && rec[i] >= '0' && rec[i] <= '9') {
		prio = prio * 10 + (uint64_t)(rec[i] - '0');
		if (prio > 0xffffff)
			return -1;
		i++;
	}
	if (i == 0 || i == len || rec[i] != ',')
		return -1;
	/* seq, timestamp, flags and any fields a newer kernel adds */
	for (; i < len && rec[i] != ';'; i++)
		if (rec[i] == ',')
			fields++;
	if (i == len || fields < 3)
		return -1;
	i++;
	size_t end = i;
	while (end < len && rec[end] != '\n')
		end++;
	*level = (unsigned)(prio & 7);
	*text = rec + i;
	*textlen = end - i;
	return 0;
}

int kernel_stack_text(const char *proc_stack, char *out, size_t outlen)
{
	size_t n = 0;
	int frames = 0;

	if (outlen)
		out[0] = '\0';
	for (const char *line = proc_stack; line && *line;) {
		const char *next = strchr(line, '\n');
		const char *name = strstr(line, "] ");
		if (name && (!next || name < next)) {
			name += 2;
			size_t len = 0;
			/* a C identifier, and its compiler suffixes (".constprop.0") */
			while (len ? is_ident_char(name[len]) || name[len] == '.' :
				     is_ident_start(name[len]))
				len++;
			if (len) {
				if (n >= outlen)
					break;
				int w = snprintf(out + n, outlen - n, "%s%.*s", frames ? " < " : "",
						 (int)len, name);
				if (w < 0)
					break;
				n += (size_t)w;	/* past outlen when cut: the next frame stops */
				frames++;
			}
		}
		line = next ? next + 1 : NULL;
	}
	return frames;
}

int tcp_port_listening(const char *proc_net_tcp, unsigned port)
{
	/* The header line does not parse; neither does a truncated one. */
	for (const char *line = proc_net_tcp; line; line = strchr(line, '\n')) {
		unsigned local_port, state;

		if (*line == '\n')
			line++;
		if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x",
			   &local_port, &state) == 2 &&
		    local_port == port && state == 0x0A)
			return 1;
	}
	return 0;
}

const char *const cpu_field_names[CPU_FIELDS] = {
	"cpu_user", "cpu_nice", "cpu_system", "cpu_idle",
	"cpu_iowait", "cpu_irq", "cpu_softirq",
};

int cpu_stat_parse(const char *proc_stat, uint64_t out[CPU_FIELDS])
{
	const char *s = proc_stat, *tok;
	size_t n = next_token(&s, &tok);

	if (n != 3 || strncmp(tok, "cpu", 3) != 0)
		return -1;
	for (int i = 0; i < CPU_FIELDS; i++) {
		char digits[24];

		n = next_token(&s, &tok);
		if (n == 0 || n >= sizeof(digits))
			return -1;
		memcpy(digits, tok, n);
		digits[n] = '\0';
		if (parse_u64(digits, UINT64_MAX, &out[i]) < 0)
			return -1;
	}
	return 0;
}

size_t base64_encode(const void *in, size_t len, char *out)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *b = in;
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)b[i + 1] << 8;
		if (i + 2 < len)
			v |= b[i + 2];
		out[o++] = alphabet[(v >> 18) & 63];
		out[o++] = alphabet[(v >> 12) & 63];
		out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

static int base64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

long base64_decode(const char *in, size_t len, unsigned char *out)
{
	if (len % 4)
		return -1;
	size_t o = 0;
	for (size_t i = 0; i < len; i += 4) {
		int pad = (in[i + 2] == '=') + (in[i + 3] == '=');
		/* padding only at the very end, and "x=y=" is not padding */
		if ((pad && i + 4 != len) || (in[i + 2] == '=' && in[i + 3] != '='))
			return -1;
		uint32_t v = 0;
		for (int k = 0; k < 4 - pad; k++) {
			int d = base64_value(in[i + k]);
			if (d < 0)
				return -1;
			v |= (uint32_t)d << (18 - 6 * k);
		}
		out[o++] = (unsigned char)(v >> 16);
		if (pad < 2)
			out[o++] = (unsigned char)(v >> 8);
		if (pad < 1)
			out[o++] = (unsigned char)v;
	}
	return (long)o;
}

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *b = buf;

	/* Bitwise: the agent checksums tens of kilobytes once per run, so a
	 * table would buy nothing worth its lines. */
	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= b[i];
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static const char *const set_method_names[] = {
	[SET_ETHTOOL_COALESCE] = "ethtool-coalesce", [SET_SYSFS_NET] = "sysfs-net",
	[SET_IRQ_AFFINITY] = "irq-affinity", [SET_QDISC] = "qdisc",
};

/* A sysfs path below the interface's directory or an ethtool word: no
 * "..", no leading or doubled '/', so it never leaves /sys/class/net/<if>/. */
static int is_safe_key(const char *k, int slashes)
{
	size_t n = strlen(k);

	if (n == 0 || n >= SET_TOKEN_MAX || k[0] == '/' || k[n - 1] == '/' ||
	    strstr(k, "//") || strstr(k, ".."))
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_' ||
		      *k == '-' || (slashes && *k == '/')))
			return 0;
	return 1;
}

static int is_safe_value(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= SET_TOKEN_MAX)
		return 0;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || *v == ',' || *v == '.' || *v == '_' ||
		      *v == '-'))
			return 0;
	return 1;
}

static int is_qdisc_kind(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= QDISC_KIND_MAX)
		return 0;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_'))
			return 0;
	return 1;
}

int set_command_parse(const char *line, struct set_spec *ss, char *err, size_t errlen)
{
	static const char *const keys[] = { "id", "method", "key", "value" };
	char val[4][SET_TOKEN_MAX + 1];
	int seen[4] = { 0 };
	const char *s = line, *tok;
	size_t n;

	memset(ss, 0, sizeof(*ss));
	strcpy(ss->id, "?");
	n = next_token(&s, &tok);
	if (n != 5 || strncmp(tok, "hbcmd", 5) != 0)
		return 0;
	n = next_token(&s, &tok);
	if (n != 3 || strncmp(tok, "set", 3) != 0)
		return 0;
	while ((n = next_token(&s, &tok)) > 0) {
		const char *eq = memchr(tok, '=', n);
		size_t k;

		if (!eq)
			return fail(err, errlen, "'%.*s' is not key=value", (int)n, tok);
		for (k = 0; k < 4; k++)
			if (strlen(keys[k]) == (size_t)(eq - tok) &&
			    strncmp(tok, keys[k], (size_t)(eq - tok)) == 0)
				break;
		if (k == 4)
			return fail(err, errlen, "unknown key in '%.*s'", (int)n, tok);
		if (seen[k]++)
			return fail(err, errlen, "%s= given twice", keys[k]);
		size_t vlen = n - (size_t)(eq + 1 - tok);
		if (vlen > SET_TOKEN_MAX)
			return fail(err, errlen, "%s= is longer than %d characters", keys[k],
				    SET_TOKEN_MAX - 1);
		memcpy(val[k], eq + 1, vlen);
		val[k][vlen] = '\0';
	}
	for (int k = 0; k < 4; k++)
		if (!seen[k])
			return fail(err, errlen, "missing %s=", keys[k]);
	if (!is_safe_name(val[0], RUN_ID_MAX - 1))
		return fail(err, errlen, "id=%s: use 1-%d of [A-Za-z0-9._-], not starting with '.'",
			    val[0], RUN_ID_MAX - 1);
	strcpy(ss->id, val[0]);
	size_t m;
	for (m = 0; m < sizeof(set_method_names) / sizeof(set_method_names[0]); m++)
		if (strcmp(val[1], set_method_names[m]) == 0)
			break;
	if (m == sizeof(set_method_names) / sizeof(set_method_names[0]))
		return fail(err, errlen, "method=%s: use ethtool-coalesce, sysfs-net, irq-affinity "
			    "or qdisc", val[1]);
	ss->method = (enum set_method)m;
	if (!is_safe_key(val[2], ss->method == SET_SYSFS_NET))
		return fail(err, errlen, "key=%s: use [a-z0-9_-] words%s", val[2],
			    ss->method == SET_SYSFS_NET ? " joined by '/', no '..'" : "");
	if (!is_safe_value(val[3]))
		return fail(err, errlen, "value=%s: use 1-%d of [A-Za-z0-9,._-]", val[3],
			    SET_TOKEN_MAX - 1);
	/* Only the root qdisc is replaced (settings/qdisc.yaml); a kind is a
	 * kernel name, and TCA_KIND takes fewer than IFNAMSIZ bytes. */
	if (ss->method == SET_QDISC && strcmp(val[2], "root") != 0)
		return fail(err, errlen, "key=%s: a qdisc setting replaces the root qdisc; use "
			    "key=root", val[2]);
	if (ss->method == SET_QDISC && !is_qdisc_kind(val[3]))
		return fail(err, errlen, "value=%s: a qdisc kind is 1-%d of [a-z0-9_]", val[3],
			    QDISC_KIND_MAX - 1);
	strcpy(ss->key, val[2]);
	strcpy(ss->value, val[3]);
	return 1;
}

int ethtool_coalesce_value(const char *text, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		if (strncmp(line, key, klen) != 0 || line[klen] != ':') {
			line = nl ? nl + 1 : NULL;
			continue;
		}
		const char *v = line + klen + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t n = strcspn(v, " \t\r\n");
		if (n == 0 || n >= outlen)
			return -1;
		memcpy(out, v, n);
		out[n] = '\0';
		return 0;
	}
	return -1;
}

int iface_irq_parse(const char *proc_interrupts, const char *iface, unsigned *irq)
{
	size_t ilen = strlen(iface);

	for (const char *line = proc_interrupts; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\r'))
			len--;
		unsigned n;
		char colon;
		/* the last field is the name, preceded by a space */
		if (len > ilen && line[len - ilen - 1] == ' ' &&
		    strncmp(line + len - ilen, iface, ilen) == 0 &&
		    sscanf(line, " %u%c", &n, &colon) == 2 && colon == ':') {
			*irq = n;
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* --- rtnetlink for the qdisc setting -------------------------------------
 * Headers are copied in and out with memcpy: a received datagram is only
 * byte-aligned as far as this code knows (and the fuzzer's inputs are not
 * aligned at all). */

static size_t nl_request(void *buf, size_t buflen, uint16_t type, uint16_t flags, uint32_t seq,
			 int ifindex, const char *kind)
{
	size_t kindlen = kind ? strlen(kind) + 1 : 0;
	size_t attr = kind ? RTA_SPACE(kindlen) : 0;
	size_t len = NLMSG_SPACE(sizeof(struct tcmsg)) + attr;
	struct nlmsghdr nh = { .nlmsg_len = (uint32_t)len, .nlmsg_type = type,
			       .nlmsg_flags = flags, .nlmsg_seq = seq };
	struct tcmsg tm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex };
	unsigned char *p = buf;

	if (len > buflen || kindlen > QDISC_KIND_MAX)
		return 0;
	memset(buf, 0, len);
	if (kind) {
		struct rtattr ra = { .rta_len = (unsigned short)RTA_LENGTH(kindlen),
				     .rta_type = TCA_KIND };
		/* handle 0: the kernel picks one; parent root */
		tm.tcm_parent = TC_H_ROOT;
		memcpy(p + NLMSG_SPACE(sizeof(tm)), &ra, sizeof(ra));
		memcpy(p + NLMSG_SPACE(sizeof(tm)) + RTA_LENGTH(0), kind, kindlen);
	}
	memcpy(p, &nh, sizeof(nh));
	memcpy(p + NLMSG_HDRLEN, &tm, sizeof(tm));
	return len;
}

size_t qdisc_replace_request(void *buf, size_t buflen, uint32_t seq, int ifindex,
			     const char *kind)
{
	return nl_request(buf, buflen, RTM_NEWQDISC,
			  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE, seq, ifindex,
			  kind);
}

size_t qdisc_dump_request(void *buf, size_t buflen, uint32_t seq)
{
	return nl_request(buf, buflen, RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, seq, 0, NULL);
}

size_t addr_add_request(void *buf, size_t buflen, uint32_t seq, int ifindex, const char *cidr)
{
	char host[INET_ADDRSTRLEN];
	const char *slash = strchr(cidr, '/');
	struct in_addr a;
	unsigned prefix = 0;

	if (!slash || (size_t)(slash - cidr) >= sizeof(host) || !slash[1] || strlen(slash + 1) > 2)
		return 0;
	for (const char *d = slash + 1; *d; d++) {
		if (*d < '0' || *d > '9')
			return 0;
		prefix = 10 * prefix + (unsigned)(*d - '0');
	}
	memcpy(host, cidr, (size_t)(slash - cidr));
	host[slash - cidr] = '\0';
	if (prefix > 32 || inet_pton(AF_INET, host, &a) != 1)
		return 0;

	size_t attr = RTA_SPACE(sizeof(a)), len = NLMSG_SPACE(sizeof(struct ifaddrmsg)) + 2 * attr;
	struct nlmsghdr nh = { .nlmsg_len = (uint32_t)len, .nlmsg_type = RTM_NEWADDR,
			       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
			       .nlmsg_seq = seq };
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_prefixlen = (unsigned char)prefix,
				 .ifa_scope = RT_SCOPE_UNIVERSE, .ifa_index = (unsigned)ifindex };
	unsigned char *p = buf;
	static const unsigned short types[] = { IFA_LOCAL, IFA_ADDRESS };

	if (len > buflen)
		return 0;
	memset(buf, 0, len);
	memcpy(p, &nh, sizeof(nh));
	memcpy(p + NLMSG_HDRLEN, &ifa, sizeof(ifa));
	for (size_t i = 0; i < 2; i++) {
		struct rtattr ra = { .rta_len = (unsigned short)RTA_LENGTH(sizeof(a)),
				     .rta_type = types[i] };
		unsigned char *at = p + NLMSG_SPACE(sizeof(ifa)) + i * attr;
		memcpy(at, &ra, sizeof(ra));
		memcpy(at + RTA_LENGTH(0), &a, sizeof(a));
	}
	return len;
}

/* The next message of a datagram at *off: its header, its start; 0 at the
 * end, -1 when the lengths do not add up. */
static int nl_next(const unsigned char *b, size_t len, size_t *off, struct nlmsghdr *nh,
		   const unsigned char **msg)
{
	if (*off >= len)
		return 0;
	if (len - *off < sizeof(*nh))
		return -1;
	memcpy(nh, b + *off, sizeof(*nh));
	if (nh->nlmsg_len < sizeof(*nh) || nh->nlmsg_len > len - *off)
		return -1;
	*msg = b + *off;
	*off += NLMSG_ALIGN(nh->nlmsg_len) < len - *off ? NLMSG_ALIGN(nh->nlmsg_len) : len - *off;
	return 1;
}

/* A string attribute's text, printable ASCII only, into out. */
static void attr_string(const unsigned char *data, size_t n, char *out, size_t outlen)
{
	size_t k = 0;

	for (size_t i = 0; i < n && data[i] && k + 1 < outlen; i++)
		out[k++] = data[i] >= 0x20 && data[i] < 0x7f ? (char)data[i] : '?';
	if (outlen)
		out[k] = '\0';
}

/* Attributes in [a, a + n): the payload of the first of type, or NULL. */
static const unsigned char *attr_find(const unsigned char *a, size_t n, unsigned short type,
				      size_t *plen)
{
	size_t off = 0;

	while (n - off >= sizeof(struct rtattr)) {
		struct rtattr ra;
		memcpy(&ra, a + off, sizeof(ra));
		if (ra.rta_len < sizeof(ra) || ra.rta_len > n - off)
			return NULL;
		if ((ra.rta_type & NLA_TYPE_MASK) == type) {
			*plen = ra.rta_len - RTA_LENGTH(0);
			return a + off + RTA_LENGTH(0);
		}
		off += RTA_ALIGN(ra.rta_len);
		if (off > n)
			return NULL;
	}
	return NULL;
}

/* The kernel's error code as a positive errno: it sends 0 or -errno, and an
 * errno is at most 4095 (MAX_ERRNO); anything else is no answer of its. */
static int nl_errno(int code, int *errnum)
{
	if (code > 0 || code < -4095)
		return -1;
	*errnum = -code;
	return 0;
}

int netlink_ack_parse(const void *buf, size_t len, uint32_t seq, int *errnum, char *msg,
		      size_t msglen)
{
	const unsigned char *b = buf, *m;
	struct nlmsghdr nh;
	size_t off = 0;
	int r;

	if (msglen)
		msg[0] = '\0';
	while ((r = nl_next(b, len, &off, &nh, &m)) == 1) {
		struct nlmsgerr e;
		if (nh.nlmsg_type != NLMSG_ERROR || nh.nlmsg_seq != seq)
			continue;
		if (nh.nlmsg_len < NLMSG_LENGTH(sizeof(e)))
			return -1;
		memcpy(&e, m + NLMSG_HDRLEN, sizeof(e));
		if (nl_errno(e.error, errnum) < 0)
			return -1;
		if (!(nh.nlmsg_flags & NLM_F_ACK_TLVS))
			return 1;
		/* After struct nlmsgerr: the rest of our request unless the
		 * kernel capped it, then the TLVs (as libmnl reads them). */
		size_t hlen = sizeof(e);
		if (!(nh.nlmsg_flags & NLM_F_CAPPED)) {
			if (e.msg.nlmsg_len < NLMSG_HDRLEN)
				return -1;
			hlen += e.msg.nlmsg_len - NLMSG_HDRLEN;
		}
		size_t tlv = NLMSG_HDRLEN + NLMSG_ALIGN(hlen), plen;
		if (tlv > nh.nlmsg_len)
			return -1;
		const unsigned char *text = attr_find(m + tlv, nh.nlmsg_len - tlv,
						      NLMSGERR_ATTR_MSG, &plen);
		if (text)
			attr_string(text, plen, msg, msglen);
		return 1;
	}
	return r;
}

int qdisc_dump_parse(const void *buf, size_t len, uint32_t seq, int ifindex, char *kind,
		     size_t kindlen, int *errnum)
{
	const unsigned char *b = buf, *m;
	struct nlmsghdr nh;
	size_t off = 0;
	int r;

	*errnum = 0;
	while ((r = nl_next(b, len, &off, &nh, &m)) == 1) {
		int code;
		struct tcmsg tm;
		if (nh.nlmsg_seq != seq)
			continue;
		if (nh.nlmsg_type == NLMSG_DONE)
			return 1;
		if (nh.nlmsg_type == NLMSG_ERROR) {
			if (nh.nlmsg_len < NLMSG_LENGTH(sizeof(code)))
				return -1;
			memcpy(&code, m + NLMSG_HDRLEN, sizeof(code));
			if (nl_errno(code, errnum) < 0)
				*errnum = 0;	/* malformed: no errno to name */
			return -1;
		}
		if (nh.nlmsg_type != RTM_NEWQDISC || nh.nlmsg_len < NLMSG_LENGTH(sizeof(tm)))
			continue;
		memcpy(&tm, m + NLMSG_HDRLEN, sizeof(tm));
		if (tm.tcm_ifindex != ifindex || tm.tcm_parent != TC_H_ROOT)
			continue;
		size_t at = NLMSG_SPACE(sizeof(tm)), plen;
		const unsigned char *k = at < nh.nlmsg_len
			? attr_find(m + at, nh.nlmsg_len - at, TCA_KIND, &plen) : NULL;
		if (k)
			attr_string(k, plen, kind, kindlen);
	}
	return r;
}
