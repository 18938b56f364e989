#include "measure/runner.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_proto.h"
#include "measure/capture.h"
#include "measure/crosscheck.h"
#include "measure/dataspan.h"
#include "measure/linkstats.h"
#include "measure/pcapfile.h"
#include "measure/profile.h"
#include "measure/tcpacked.h"
#include "measure/traffic.h"
#include "store/intervals.h"
#include "store/metrics.h"
#include "util/ipv4.h"
#include "util/util.h"

#define COUNTERS 40
#define HIST_MAX 128
#define PROFILE_MAX 256
#define DSTAT_MAX 64

/* What the agent reported for one run. */
struct agent_report {
	char names[COUNTERS][32];
	long long before[COUNTERS], after[COUNTERS];
	int n;
	char hist_event[HIST_MAX][32];	/* hrtimer_start | timer_start */
	char hist_caller[HIST_MAX][64];
	long long hist_hits[HIST_MAX];
	int n_hist;
	char dstat_name[DSTAT_MAX][40];	/* the driver's ethtool -S stats that moved */
	long long dstat_delta[DSTAT_MAX];
	int n_dstat;
	int end_seen, end_ok;
	char end_msg[256];
	int file_ok;		/* iperf.json arrived intact */
	char health[512];	/* the kernel-log line that fails the run (dut_health_note) */
	FILE *context;		/* dut-context.txt: name=value per line */
	long long coalesce[4];	/* rx_usecs rx_frames tx_usecs tx_frames; -1 unknown */
	int insn_counted;	/* the emulator counts windows: insn-profile.txt expected */
	/* iperf3 was stopped at its deadline after its transfer had run the
	 * whole test (runner_transfer_ran()) */
	int transfer_ran;
};

/* The files a run may send besides iperf.json (the profilers'), stored in
 * the run's directory under these names. */
static const char *const profile_files[] = {
	"function-profile.txt", "perf-report.txt", "perf-stat.csv",
};
static const char *const coalesce_keys[4] = { "rx_usecs", "rx_frames", "tx_usecs", "tx_frames" };

static int counter_slot(struct agent_report *a, const char *name)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->names[i], name))
			return i;
	if (a->n == COUNTERS)
		return -1;
	snprintf(a->names[a->n], sizeof(a->names[0]), "%s", name);
	a->before[a->n] = a->after[a->n] = -1;
	return a->n++;
}

static long long counter_delta(const struct agent_report *a, const char *name)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->names[i], name) && a->before[i] >= 0 && a->after[i] >= a->before[i])
			return a->after[i] - a->before[i];
	return -1;
}

/* The DUT's /proc/stat ticks over the agent's window, per field of
 * agent_proto.h (< 0 not sent) into v; returns their sum, 0 when none was
 * sent. */
static long long cpu_ticks(const struct agent_report *a, long long v[CPU_FIELDS])
{
	long long total = 0;
	for (int i = 0; i < CPU_FIELDS; i++) {
		v[i] = counter_delta(a, cpu_field_names[i]);
		total += v[i] > 0 ? v[i] : 0;
	}
	return total;
}

/* The unit is the metric table's (store/metrics.h). A name not in it is
 * stored without one, and said: it needs a row there. */
static void add_metric(struct run_result *res, const char *name, double value,
		       const char *source)
{
	if (res->n_metrics == RUNNER_MAX_METRICS)
		return;
	const struct metric_def *def = metric_find(name);
	if (!def)
		hb_err("metric %s has no row in store/metrics.c: stored without a unit", name);
	size_t i = res->n_metrics++;
	snprintf(res->names[i], sizeof(res->names[i]), "%s", name);
	snprintf(res->sources[i], sizeof(res->sources[i]), "%s", source);
	res->metrics[i] = (struct metric){ res->names[i], value, def ? def->unit : "",
					   res->sources[i] };
}

/* A metric of the run's so far; -1 when it has none. */
static double result_metric(const struct run_result *res, const char *name)
{
	for (size_t i = 0; i < res->n_metrics; i++)
		if (!strcmp(res->names[i], name))
			return res->metrics[i].value;
	return -1;
}

/* Larger than any file the agent sends (iperf3's JSON of a long run, a
 * perf report: a few MiB), and small enough to allocate at once: a size=
 * above it is console noise or hostile, refused before any allocation. */
#define FILE_MAX (64ull << 20)
/* Counters and hist hits above 2^53 are not exact as metrics (doubles)
 * and are noise; below it, sums of a run's hundreds cannot overflow. */
#define COUNT_MAX (1ull << 53)

/* FILE/B64/EOF: decode into path, check size and CRC-32. The header and
 * the lines come from the console: the size is bounded before anything is
 * allocated, and no line is decoded that could go past it. */
static int receive_file(struct dut *d, const char *header, const char *path, FILE *trace)
{
	char crc_s[16] = "", line[1024];
	unsigned long long want;
	if (!proto_get_uint(header, "size", FILE_MAX, &want) ||
	    !proto_get(header, "crc32", crc_s, sizeof(crc_s)) || strlen(crc_s) != 8 ||
	    strspn(crc_s, "0123456789abcdefABCDEF") != 8) {
		fprintf(trace, "host: refused: size= is not a number up to %llu or crc32= not 8 "
			"hex digits\n", FILE_MAX);
		return 0;
	}
	unsigned long crc_want = strtoul(crc_s, NULL, 16);
	/* room for the padding of the last line: it decodes to up to 2 fewer
	 * bytes than len / 4 * 3 */
	size_t cap = (size_t)want + 2, got = 0;
	unsigned char *data = xmalloc(cap);
	int ok = 0;
	while (dut_read_line(d, line, sizeof(line), 30) == 1) {
		fprintf(trace, "%s\n", line);
		if (!strncmp(line, "EOF", 3)) {
			ok = got == want && crc32_update(0, data, got) == crc_want;
			break;
		}
		if (strncmp(line, "B64 ", 4))
			break;
		size_t len = strlen(line + 4);
		if (len / 4 * 3 > cap - got)
			break;
		long n = base64_decode(line + 4, len, data + got);
		if (n < 0)
			break;
		got += (size_t)n;
	}
	if (ok)
		ok = write_file_atomic(path, data, got) == 0;
	free(data);
	return ok;
}

static const cJSON *jpath(const cJSON *j, const char *a, const char *b)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, a), b);
}

static double jnum(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/*
 * The per-interval rates of the measured part of a run (store/intervals.h):
 * Mbit/s, and for UDP packets/s (the receiver counts packets -
 * lost_packets). The sample standard deviations go to *mbps_sd and *pps_sd
 * (-1 when fewer than 2).
 */
static void interval_stddev(const cJSON *json, int udp_receiver, double *mbps_sd, double *pps_sd)
{
	double s1[2] = { 0, 0 }, s2[2] = { 0, 0 };
	int n[2] = { 0, 0 };
	struct iperf_interval *iv;
	size_t count = iperf_json_intervals(json, &iv);
	for (size_t i = 0; i < count; i++) {
		double secs = iv[i].seconds, pk = iv[i].packets, lost = iv[i].lost_packets;
		if (!(secs > 0))
			continue;
		double x[2] = { iv[i].mbps, (pk - (udp_receiver && lost > 0 ? lost : 0)) / secs };
		int have[2] = { iv[i].mbps >= 0, pk >= 0 };
		for (int k = 0; k < 2; k++)
			if (have[k]) {
				s1[k] += x[k];
				s2[k] += x[k] * x[k];
				n[k]++;
			}
	}
	free(iv);
	double *out[2] = { mbps_sd, pps_sd };
	for (int k = 0; k < 2; k++) {
		*out[k] = -1;
		if (n[k] >= 2) {
			double var = (s2[k] - s1[k] * s1[k] / n[k]) / (n[k] - 1);
			*out[k] = var > 0 ? sqrt(var) : 0;
		}
	}
}

static cJSON *load_json(const char *path)
{
	char *text = read_file(path, NULL);
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	free(text);
	return j;
}

/* ftrace's function profile of the window: each function's share of the
 * window and its hits, the hrtimer paths' share, and the driver's TX NAPI
 * polls per packet. 0 with res->reason if path's text is not a profile. */
static int ftrace_metrics(const char *text, const char *path, const struct driver *dr,
			  long long window_ns, long long txp, struct run_result *res)
{
	struct fprof_entry e[PROFILE_MAX];
	int n = fprof_parse(text, e, PROFILE_MAX);
	if (n < 0) {
		snprintf(res->reason, sizeof(res->reason), "%s is not a function profile", path);
		return 0;
	}
	char name[96], src[96];
	double window_us = (double)window_ns / 1e3, share = 0;
	for (int i = 0; i < n && i < PROFILE_MAX; i++) {
		snprintf(name, sizeof(name), "ftrace_time_pct.%.60s", e[i].function);
		add_metric(res, name, 100.0 * e[i].time_us / window_us,
			   "ftrace function profiler, graph time / window");
		snprintf(name, sizeof(name), "ftrace_hits.%.60s", e[i].function);
		add_metric(res, name, (double)e[i].hits, "ftrace function profiler");
		for (size_t k = 0; metric_hrtimer_paths[k]; k++)
			if (!strcmp(e[i].function, metric_hrtimer_paths[k]))
				share += e[i].time_us;
		if (dr && !strcmp(e[i].function, dr->tx_napi_poll) && txp > 0) {
			snprintf(src, sizeof(src), "ftrace profiler hits of %.40s / DUT tx_packets",
				 dr->tx_napi_poll);
			add_metric(res, "tx_napi_polls_per_pkt", (double)e[i].hits / (double)txp, src);
		}
	}
	add_metric(res, "hrtimer_share_ftrace_pct", 100.0 * share / window_us,
		   "ftrace profiler: hrtimer_start_range_ns+try_to_cancel+interrupt");
	return 1;
}

/* perf record's report: the kernel's shares of samples in the hrtimer
 * functions, in _raw_spin_unlock_irqrestore and in the driver's xmit. 0
 * with res->reason if path's text has no samples. */
static int perf_report_metrics(const char *text, const char *path, const struct driver *dr,
			       struct run_result *res)
{
	struct perf_sym e[PROFILE_MAX];
	unsigned long long samples;
	int n = perf_report_parse(text, e, PROFILE_MAX, &samples);
	if (n < 0) {
		/* seen when perf record ran a second time in one boot */
		snprintf(res->reason, sizeof(res->reason),
			 "%s has no '# Samples:' line: perf recorded no samples", path);
		return 0;
	}
	double hr = 0, unlock = 0, xmit = 0;
	for (int i = 0; i < n && i < PROFILE_MAX; i++) {
		if (!e[i].kernel)
			continue;
		if (strstr(e[i].symbol, "hrtimer"))
			hr += e[i].pct;
		if (!strcmp(e[i].symbol, "_raw_spin_unlock_irqrestore"))
			unlock += e[i].pct;
		if (dr && !strcmp(e[i].symbol, dr->xmit))
			xmit += e[i].pct;
	}
	add_metric(res, "perf_samples", (double)samples, "perf record -e cpu-clock -a");
	add_metric(res, "hrtimer_share_perf_pct", hr,
		   "perf record cpu-clock: samples in kernel symbols named *hrtimer*");
	add_metric(res, "irqrestore_share_perf_pct", unlock,
		   "perf record cpu-clock: samples in _raw_spin_unlock_irqrestore");
	if (dr) {
		char src[96];
		snprintf(src, sizeof(src), "perf record cpu-clock: samples in %.40s (self)", dr->xmit);
		add_metric(res, "xmit_share_perf_pct", xmit, src);
	}
	return 1;
}

/* perf stat's counts (perf-stat.csv) and their rates over the window; 0
 * with res->reason if the file is missing or not perf stat -x, output. */
static int perf_stat_metrics(const char *rundir, long long window_ns, struct run_result *res)
{
	char *path = path_join(rundir, "perf-stat.csv");
	char *text = read_file(path, NULL);
	struct perf_count c[32];
	int n = text ? perf_stat_parse(text, c, HB_ARRAY_SIZE(c)) : -1;
	if (n < 0)
		snprintf(res->reason, sizeof(res->reason), "%s is missing or not perf stat -x, output",
			 path);
	/* perf stat counts from 3 s before the window (its start-up) to just
	 * after it: the few events of that idle lead-in are counted, and rates
	 * use the window, not perf's longer run time. */
	for (int i = 0; i < n && i < (int)HB_ARRAY_SIZE(c); i++) {
		if (!c[i].counted)
			continue;
		const char *ev = strchr(c[i].event, ':') ? strchr(c[i].event, ':') + 1 : c[i].event;
		char name[96], src[96];
		snprintf(name, sizeof(name), "perf_stat.%.60s", ev);
		snprintf(src, sizeof(src), "perf stat -a -e %.60s", c[i].event);
		add_metric(res, name, (double)c[i].count, src);
		snprintf(name, sizeof(name), "perf_stat.%.60s_per_s", ev);
		snprintf(src, sizeof(src), "perf stat -a -e %.40s / DUT clock window", c[i].event);
		add_metric(res, name, (double)c[i].count / ((double)window_ns / 1e9), src);
	}
	free(text);
	free(path);
	return n >= 0;
}

/* The profiled run's files as metrics; 0 with res->reason if a file the
 * run's profiler must have written is missing or unreadable. */
static int profile_metrics(const struct workload *w, const struct driver *dr,
			   const struct agent_report *a, const char *rundir, struct run_result *res)
{
	const char *file = w->profile == WL_PROFILE_FTRACE ? "function-profile.txt" : "perf-report.txt";
	char *path = path_join(rundir, file);
	char *text = read_file(path, NULL);
	long long ns = counter_delta(a, "profile_clock_ns");
	long long txp = counter_delta(a, "tx_packets");
	int ok;
	if (!text || ns <= 0) {
		snprintf(res->reason, sizeof(res->reason), "the DUT's %s or its window is missing", file);
		ok = 0;
	} else if (w->profile == WL_PROFILE_FTRACE) {
		ok = ftrace_metrics(text, path, dr, ns, txp, res);
	} else {
		ok = perf_report_metrics(text, path, dr, res) && perf_stat_metrics(rundir, ns, res);
	}
	free(text);
	free(path);
	return ok;
}

/* The functions with the most instructions of their own, per run. */
#define INSN_TOP 20

static int insn_by_self(const void *x, const void *y)
{
	const struct insn_fn *a = x, *b = y;
	return a->self < b->self ? 1 : a->self > b->self ? -1 : strcmp(a->function, b->function);
}

/* The inclusive counts of the window: each function's instructions from
 * entry to return per packet, the receive poll's alone in a DUT-RX run,
 * the hrtimer paths' share of the window and the entries left out. */
static void insn_inclusive_metrics(const struct workload *w, const struct driver *dr,
				   const struct insn_fn *e, int n, const struct insn_window *win,
				   double per, struct run_result *res)
{
	char name[96], src[96];
	unsigned long long hrtimer = 0, unmatched = 0;
	for (int i = 0; i < n; i++) {
		if (!e[i].inclusive)
			continue;
		unmatched += e[i].unmatched;
		for (size_t k = 0; metric_hrtimer_paths[k]; k++)
			if (!strcmp(e[i].function, metric_hrtimer_paths[k]))
				hrtimer += e[i].incl;
		snprintf(name, sizeof(name), "insn_incl_per_pkt.%.60s", e[i].function);
		add_metric(res, name, (double)e[i].incl / per,
			   "emulator-insn: instructions entry to return / DUT packets");
		/* the receive path alone: insn_per_pkt of a DUT-RX run also holds
		 * the idle and timer work of a window the host's pace stretches */
		if (w->dir == WL_DUT_RX && dr && dr->rx_napi_poll &&
		    !strcmp(e[i].function, dr->rx_napi_poll)) {
			snprintf(src, sizeof(src), "emulator-insn: %.40s entry to return / DUT rx_packets",
				 dr->rx_napi_poll);
			add_metric(res, "insn_rx_poll_per_pkt", (double)e[i].incl / per, src);
			/* of those, the driver's own code: the core kernel's
			 * work for the packets it hands up, and the scheduling
			 * and interrupts that land inside the poll, which the
			 * host's pace varies, left out */
			if (win->own)
				add_metric(res, "insn_rx_driver_per_pkt", (double)e[i].incl_own / per,
					   "emulator-insn: the driver's own functions inside its RX "
					   "poll / DUT rx_packets");
		}
	}
	add_metric(res, "hrtimer_share_insn_pct", 100.0 * (double)hrtimer / (double)win->insns,
		   "emulator-insn: hrtimer_start_range_ns+try_to_cancel+interrupt, inclusive");
	add_metric(res, "insn_unmatched_calls", (double)unmatched,
		   "emulator-insn: inclusive entries left out");
}

/* The entries per packet of each function the driver file counts calls
 * of; a function the window never entered has no line: 0 calls. */
static void insn_call_metrics(const struct driver *dr, const struct insn_fn *e, int n,
			      double per, struct run_result *res)
{
	char name[96], src[96];
	for (size_t c = 0; dr && c < dr->calls.n; c++) {
		unsigned long long calls = 0;
		for (int i = 0; i < n; i++)
			if (!strcmp(e[i].function, dr->calls.v[c]))
				calls = e[i].calls;
		snprintf(name, sizeof(name), "calls_per_pkt.%.60s", dr->calls.v[c]);
		snprintf(src, sizeof(src), "emulator-insn: entries of %.40s / DUT packets",
			 dr->calls.v[c]);
		add_metric(res, name, (double)calls / per, src);
	}
}

/* The INSN_TOP functions with the most instructions of their own, per
 * packet (e is sorted by them). */
static void insn_self_metrics(struct insn_fn *e, int n, double per, struct run_result *res)
{
	char name[96];
	qsort(e, (size_t)n, sizeof(*e), insn_by_self);
	for (int i = 0, kept = 0; i < n && kept < INSN_TOP && e[i].self; i++) {
		if (e[i].function[0] == '[')	/* [user], [kernel-other] */
			continue;
		snprintf(name, sizeof(name), "insn_self_per_pkt.%.60s", e[i].function);
		add_metric(res, name, (double)e[i].self / per,
			   "emulator-insn: the function's own instructions / DUT packets");
		kept++;
	}
}

/* The emulator's instruction counts of the window (method emulator-insn):
 * 0 with res->reason when the plugin wrote none, or not a whole one. */
static int insn_metrics(const struct workload *w, const struct driver *dr,
			const struct agent_report *a, const char *rundir, struct run_result *res)
{
	char *path = path_join(rundir, "insn-profile.txt");
	char *text = read_file(path, NULL);
	long long txp = counter_delta(a, "tx_packets"), rxp = counter_delta(a, "rx_packets");
	long long pkts = w->dir == WL_DUT_TX ? txp : w->dir == WL_DUT_RX ? rxp :
			 txp >= 0 && rxp >= 0 ? txp + rxp : -1;
	size_t max = 1;
	for (const char *p = text; p && (p = strstr(p, "\nfn ")); p++)
		max++;
	struct insn_fn *e = xcalloc(max, sizeof(*e));
	struct insn_window win;
	int n = text ? insn_window_parse(text, &win, e, max) : -1, ok = 0;
	if (n < 0 || win.insns == 0) {
		snprintf(res->reason, sizeof(res->reason), "the emulator's instruction counts of the "
			 "window (%s) are %s", path, text ? "not whole" : "missing");
	} else if (pkts <= 0) {
		snprintf(res->reason, sizeof(res->reason), "no packets to divide the emulator's "
			 "instruction counts by");
	} else {
		double per = (double)pkts;
		add_metric(res, "insn_window", (double)win.insns,
			   "emulator-insn: instructions in the window");
		add_metric(res, "insn_per_pkt", (double)win.insns / per,
			   "emulator-insn: instructions in the window / DUT packets");
		add_metric(res, "insn_kernel_per_pkt", (double)win.kernel / per,
			   "emulator-insn: kernel instructions in the window / DUT packets");
		if (win.own)
			add_metric(res, "insn_driver_per_pkt", (double)win.own / per,
				   "emulator-insn: the driver's own functions' instructions / DUT "
				   "packets");
		insn_inclusive_metrics(w, dr, e, n, &win, per, res);
		insn_call_metrics(dr, e, n, per, res);
		insn_self_metrics(e, n, per, res);
		ok = 1;
	}
	free(e);
	free(text);
	free(path);
	return ok;
}

/*
 * Metrics (definitions in docs/metrics.md). Rates come from the DUT's iperf3
 * side, i.e. the DUT's clock: in virtual time that is the only clock that
 * is deterministic, and in real time it matches the host's. The host's view
 * is kept beside it for cross-checking.
 */
/*
 * The driver's own statistics (ethtool -S, read by the agent before and
 * after the run) that show how the TX path ran, as its driver file lists
 * them. Exact and free (the driver counts them anyway), so on in every
 * run. A driver without one of these stats has no such metric.
 */
static void driver_metrics(const struct driver *dr, const struct agent_report *a,
			   long long txp, long long rxp, struct run_result *res)
{
	const struct driver_stat *st = dr->stats.v;
	for (size_t r = 0; r < dr->stats.n; r++) {
		long long delta = 0;
		for (int i = 0; i < a->n_dstat; i++)
			if (!strcmp(a->dstat_name[i], st[r].stat))
				delta = a->dstat_delta[i];
		int per_rx = st[r].per == DRIVER_PER_RX;
		long long pkts = per_rx ? rxp : txp;
		char name[64], source[sizeof(res->sources[0])];
		snprintf(name, sizeof(name), "ethtool.%s", st[r].stat);
		snprintf(source, sizeof(source), "ethtool -S %.24s delta: %.40s", st[r].stat,
			 st[r].counts);
		/* an unchanged stat is not reported: 0 only where the driver has it */
		if (!a->n_dstat || pkts <= 0)
			continue;
		add_metric(res, name, (double)delta, source);
		snprintf(source, sizeof(source), "ethtool -S %.24s / DUT %s_packets", st[r].stat,
			 per_rx ? "rx" : "tx");
		add_metric(res, st[r].metric, (double)delta / (double)pkts, source);
	}
}

/* The rates in Mbit/s from the DUT's end summary ds (and the host's, hs,
 * beside it): a bidir run's each way and both; 0, or -1 with the run's
 * reason. */
static int mbps_metrics(const struct workload *w, const cJSON *dj, const cJSON *hs, double bps,
			struct run_result *res)
{
	if (w->dir == WL_BIDIR) {
		double rbps = jnum(jpath(dj, "end", "sum_received_bidir_reverse"), "bits_per_second");
		if (rbps < 0) {
			snprintf(res->reason, sizeof(res->reason),
				 "iperf3 JSON of the DUT has no end.sum_received_bidir_reverse");
			return -1;
		}
		add_metric(res, "mbps_dut_tx", bps / 1e6,
			   "iperf3 --bidir on the DUT: end.sum_sent, DUT clock");
		add_metric(res, "mbps_dut_rx", rbps / 1e6,
			   "iperf3 --bidir on the DUT: end.sum_received_bidir_reverse");
		add_metric(res, "mbps", (bps + rbps) / 1e6,
			   "iperf3 --bidir on the DUT: both directions, DUT clock");
	} else {
		add_metric(res, "mbps", bps / 1e6, "iperf3 on the DUT, DUT clock");
		double hbps = jnum(hs, "bits_per_second");
		if (hbps >= 0)
			add_metric(res, "host_mbps", hbps / 1e6,
				   "libiperf on the host, host clock");
	}
	return 0;
}

/* A one-way UDP run's packets: the rate on the DUT's side, and the
 * receiver's loss and jitter. On the receiving side iperf counts sequence
 * numbers: received datagrams are packets - lost_packets. */
static void udp_packet_metrics(const cJSON *ds, const cJSON *hs, int dut_sends, double secs,
			       struct run_result *res)
{
	const cJSON *rx = dut_sends ? hs : ds;
	double pkts = jnum(ds, "packets");
	double lost = jnum(rx, "lost_packets"), total = jnum(rx, "packets");
	if (dut_sends && pkts >= 0)
		add_metric(res, "pps", pkts / secs, "iperf3 sender on the DUT, DUT clock");
	if (!dut_sends && total >= 0 && lost >= 0)
		add_metric(res, "pps", (total - lost) / secs, "iperf3 receiver on the DUT, DUT clock");
	if (total > 0 && lost >= 0)
		add_metric(res, "lost_pct", 100.0 * lost / total, "iperf3 receiver");
	double jit = jnum(rx, "jitter_ms");
	if (jit >= 0)
		add_metric(res, "jitter_ms", jit, "iperf3 receiver");
}

/* Do iperf3's measured intervals in JSON j add up to its test's duration? */
static int transfer_ran(const cJSON *j)
{
	double duration = jnum(jpath(j, "start", "test_start"), "duration"), measured = 0;
	const cJSON *iv, *intervals = cJSON_GetObjectItemCaseSensitive(j, "intervals");
	if (!cJSON_IsArray(intervals))
		intervals = NULL;
	cJSON_ArrayForEach(iv, intervals) {
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(iv, "sum");
		double secs = jnum(sum, "seconds");
		if (secs > 0 && secs < 3600 && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "omitted")))
			measured += secs;
	}
	/* iperf3's intervals end within a fraction of a second of the test's */
	return duration >= 1 && measured >= duration - 0.5;
}

/*
 * Errors the host's libiperf records after its part of a TCP test is
 * done. libiperf 3.12's server closes its stream sockets on the client's
 * TEST_END and its interval timer can fire once more before the results
 * exchange ends: its TCP_INFO read of the closed socket fails, and it puts
 * that in its JSON's "error" and goes on (iperf_handle_message_server(),
 * save_tcpinfo()). Seen in tcp-dut-rx runs of 3 s, the host sending
 * (docs/faults.md). The DUT's JSON holds the run; the host's sums may
 * hold that extra interval, so the host's numbers are left out.
 */
static const char *const host_errors_after_test[] = { "getsockopt - Bad file descriptor" };

static int host_error_after_test(const struct workload *w, const cJSON *herr, const cJSON *dj)
{
	if (w->proto != WL_TCP || !cJSON_IsString(herr) || !transfer_ran(dj))
		return 0;
	for (size_t i = 0; i < HB_ARRAY_SIZE(host_errors_after_test); i++)
		if (!strcmp(herr->valuestring, host_errors_after_test[i]))
			return 1;
	return 0;
}

/* The rates and their spread from the two iperf3 JSON files; 0, or -1 with
 * the run's reason. */
static int iperf_metrics(const struct workload *w, const cJSON *dj, const cJSON *hj,
			 struct run_result *res)
{
	const cJSON *derr = cJSON_GetObjectItemCaseSensitive(dj, "error");
	const cJSON *herr = cJSON_GetObjectItemCaseSensitive(hj, "error");
	int host_late = host_error_after_test(w, herr, dj);
	if (!dj || !hj || cJSON_IsString(derr) || (cJSON_IsString(herr) && !host_late)) {
		snprintf(res->reason, sizeof(res->reason), "iperf3 result missing or failed: %s",
			 cJSON_IsString(derr) ? derr->valuestring :
			 cJSON_IsString(herr) ? herr->valuestring : "no JSON");
		return -1;
	}
	/* bidir: the DUT is the client; its forward stream is what it sends */
	int dut_sends = w->dir != WL_DUT_RX;
	const char *dut_sum = dut_sends ? "sum_sent" : "sum_received";
	const char *host_sum = dut_sends ? "sum_received" : "sum_sent";
	const cJSON *ds = jpath(dj, "end", dut_sum);
	const cJSON *hs = host_late ? NULL : jpath(hj, "end", host_sum);
	double secs = jnum(ds, "seconds"), bps = jnum(ds, "bits_per_second");
	if (secs <= 0 || bps < 0) {
		snprintf(res->reason, sizeof(res->reason), "iperf3 JSON of the DUT has no end.%s",
			 dut_sum);
		return -1;
	}
	if (mbps_metrics(w, dj, hs, bps, res) < 0)
		return -1;
	double mbps_sd, pps_sd;
	interval_stddev(dj, w->proto == WL_UDP && !dut_sends, &mbps_sd, &pps_sd);
	if (mbps_sd >= 0)
		add_metric(res, "mbps_interval_stddev", mbps_sd,
			   "iperf3 on the DUT: stddev of the measured intervals");
	if (w->proto == WL_UDP && pps_sd >= 0)
		add_metric(res, "pps_interval_stddev", pps_sd,
			   "iperf3 on the DUT: stddev of the measured intervals");
	if (w->proto == WL_UDP && w->dir != WL_BIDIR)
		udp_packet_metrics(ds, hs, dut_sends, secs, res);
	return 0;
}

/* The DUT's interface counters over the agent's window. */
static void counter_metrics(const struct workload *w, const struct agent_report *a,
			    struct run_result *res)
{
	/* Both directions: the host-side counts are cross-checked against the
	 * DUT's sending direction, whichever way the workload's data flows. */
	static const char *const dut_ctr[][2] = { { "tx_packets", "dut_tx_packets" },
						  { "rx_packets", "dut_rx_packets" } };
	for (size_t i = 0; i < HB_ARRAY_SIZE(dut_ctr); i++) {
		long long n = counter_delta(a, dut_ctr[i][0]);
		if (n >= 0)
			add_metric(res, dut_ctr[i][1], (double)n,
				   "DUT interface counters (sysfs), whole run");
	}
	long long pkts = counter_delta(a, w->dir != WL_DUT_RX ? "tx_packets" : "rx_packets");
	long long ns = counter_delta(a, "clock_ns");
	if (pkts >= 0 && ns > 0) {
		double ctr_pps = (double)pkts / ((double)ns / 1e9);
		/* The window includes iperf3's start-up and warm-up: a lower
		 * bound, for cross-checking, never the headline number. */
		add_metric(res, "pps_counter", ctr_pps,
			   "DUT interface counters (sysfs) over the agent's sampling window, DUT clock");
	}
}

/* What the timer and NAPI hist triggers counted, summed for the metrics
 * that divide them. */
struct hist_tally {
	long long tx_timer_starts[2];	/* hrtimer, timer_list */
	long long expiries[2], tx_timer_expiries, napi_polls;
};

/* Each hist bucket as a metric, and the expiry rates; the sums into *t. */
static void hist_metrics(const struct driver *dr, const struct agent_report *a,
			 const char *iface, long long txp, struct hist_tally *t,
			 struct run_result *res)
{
	long long ns = counter_delta(a, "clock_ns");
	for (int i = 0; i < a->n_hist; i++) {
		const char *ev = a->hist_event[i];
		int tx_timer = dr && !strcmp(a->hist_caller[i], dr->tx_timer);
		char name[96], source[96];
		snprintf(name, sizeof(name), "%s.%s", ev, a->hist_caller[i]);
		snprintf(source, sizeof(source), "tracefs hist on %s, keyed by %s", ev,
			 strcmp(ev, "napi_poll") ? "callback" : "device");
		add_metric(res, name, (double)a->hist_hits[i], source);
		if (!strcmp(ev, "hrtimer_start") || !strcmp(ev, "timer_start")) {
			if (tx_timer)
				t->tx_timer_starts[ev[0] != 'h'] += a->hist_hits[i];
		} else if (!strcmp(ev, "hrtimer_expire_entry") || !strcmp(ev, "timer_expire_entry")) {
			t->expiries[ev[0] != 'h'] += a->hist_hits[i];
			t->tx_timer_expiries += tx_timer ? a->hist_hits[i] : 0;
		} else if (!strcmp(ev, "napi_poll") && !strcmp(a->hist_caller[i], iface)) {
			t->napi_polls += a->hist_hits[i];
		}
	}
	char src[96];
	if (a->n_hist > 0 && ns > 0) {
		double secs_dut = (double)ns / 1e9;
		const char *exp_src = "tracefs hist on timer:*_expire_entry / DUT clock window";
		add_metric(res, "hrtimer_expiries_per_s", (double)t->expiries[0] / secs_dut, exp_src);
		add_metric(res, "timer_list_expiries_per_s", (double)t->expiries[1] / secs_dut, exp_src);
		if (dr) {
			snprintf(src, sizeof(src), "tracefs hist: expiries of %.40s / DUT clock window",
				 dr->tx_timer);
			add_metric(res, "tx_timer_expiries_per_s", (double)t->tx_timer_expiries / secs_dut,
				   src);
		}
	}
	if (dr && a->n_hist > 0 && txp > 0) {
		snprintf(src, sizeof(src), "tracefs hist: expiries of %.40s / DUT tx_packets",
			 dr->tx_timer);
		add_metric(res, "tx_timer_expiries_per_pkt", (double)t->tx_timer_expiries / (double)txp,
			   src);
	}
}

/* NAPI polls and TX timer starts per packet, from the hist sums. */
static void per_packet_metrics(const struct workload *w, const struct driver *dr,
			       const struct agent_report *a, long long txp, long long rxp,
			       const struct hist_tally *t, struct run_result *res)
{
	/* the agent counts NAPI polls in profiled runs only (per-packet cost) */
	if (w->profile != WL_PROFILE_NONE && a->n_hist > 0 && txp >= 0 && rxp >= 0 && txp + rxp > 0)
		add_metric(res, "napi_polls_per_pkt", (double)t->napi_polls / (double)(txp + rxp),
			   "tracefs hist on napi:napi_poll for the interface / DUT tx+rx packets");
	/* A strategy that never arms the timer has no hist bucket for it: that
	 * is a measured 0, as long as the trace data arrived at all. */
	if (dr && a->n_hist > 0 && txp > 0) {
		char src[96];
		snprintf(src, sizeof(src), "%.40s hrtimer_start / DUT tx_packets", dr->tx_timer);
		add_metric(res, "hrtimer_starts_per_pkt", (double)t->tx_timer_starts[0] / (double)txp,
			   src);
		snprintf(src, sizeof(src), "%.40s timer_start (timer_list) / DUT tx_packets",
			 dr->tx_timer);
		add_metric(res, "timer_list_starts_per_pkt",
			   (double)t->tx_timer_starts[1] / (double)txp, src);
	}
}

/* The DUT's CPU time (/proc/stat) and its coalescing settings. */
static void cpu_metrics(const struct agent_report *a, struct run_result *res)
{
	long long v[CPU_FIELDS];
	long long total = cpu_ticks(a, v);
	long long busy = total - (v[CPU_IDLE] > 0 ? v[CPU_IDLE] : 0);
	if (total > 0) {
		add_metric(res, "cpu_softirq_pct", 100.0 * (double)v[CPU_SOFTIRQ] / (double)total, "/proc/stat on the DUT");
		add_metric(res, "cpu_system_pct", 100.0 * (double)v[CPU_SYSTEM] / (double)total, "/proc/stat on the DUT");
		add_metric(res, "cpu_busy_pct", 100.0 * (double)busy / (double)total, "/proc/stat on the DUT");
	}
	for (int i = 0; i < 4; i++)
		if (a->coalesce[i] >= 0) {
			char name[32];
			snprintf(name, sizeof(name), "coalesce_%s", coalesce_keys[i]);
			add_metric(res, name, (double)a->coalesce[i],
				   "ethtool ETHTOOL_GCOALESCE on the DUT before the run");
		}
}

/* Every metric of a run, in the order they are stored; 1, or 0 with the
 * run's reason. dr NULL (no driver under test): no metric of the driver's
 * functions or statistics. */
static int compute_metrics(const struct workload *w, const struct driver *dr,
			   const struct agent_report *a, const char *iface, const char *rundir,
			   const char *dut_json, const char *host_json, struct run_result *res)
{
	cJSON *dj = load_json(dut_json), *hj = load_json(host_json);
	int ok = 0;
	if (iperf_metrics(w, dj, hj, res) < 0)
		goto out;
	counter_metrics(w, a, res);
	long long txp = counter_delta(a, "tx_packets"), rxp = counter_delta(a, "rx_packets");
	struct hist_tally t = { 0 };
	hist_metrics(dr, a, iface, txp, &t, res);
	if (dr)
		driver_metrics(dr, a, txp, rxp, res);
	per_packet_metrics(w, dr, a, txp, rxp, &t, res);
	cpu_metrics(a, res);
	if (w->profile != WL_PROFILE_NONE && !profile_metrics(w, dr, a, rundir, res))
		goto out;
	if (a->insn_counted && !insn_metrics(w, dr, a, rundir, res))
		goto out;
	ok = 1;
out:
	cJSON_Delete(dj);
	cJSON_Delete(hj);
	return ok;
}

/*
 * The host's own counts of the frames on the DUT's link, over the host's
 * window: from just before the agent is told to run until its END. The
 * netlink window sits inside the pcap window, and both contain the agent's
 * (docs/metrics.md, "Cross-checks").
 */
struct host_view {
	char ifname[32];
	struct capture *cap;
	struct capture_counts pcap;
	struct link_counters before, after;
	int pcap_ok, link_ok, stopped;
	const char *host_addr, *dut_addr;
	/* the emulator's own record of the link (d->netdev_pcap), by offsets,
	 * read once the window closed */
	const char *dump_path;
	long long dump_from, dump_to;
	struct capture_counts dump;
	int dump_ok;
	char dump_err[256];
	/* the window on the host's clock, and PSI's cpu "some" total at its
	 * ends (microseconds; -1 without PSI, a kernel booted with psi=0) */
	double t_start, t_stop;
	long long psi_start, psi_stop;
};

static long long host_cpu_pressure_us(void)
{
	char *text = read_file("/proc/pressure/cpu", NULL);
	long long us;
	if (!text || crosscheck_psi_some_us(text, &us) < 0)
		us = -1;
	free(text);
	return us;
}

static void host_view_start(struct host_view *h, const struct dut *d)
{
	const struct board *b = d->board;
	h->host_addr = b->host_addr;
	h->dut_addr = b->dut_addr;
	if (d->netdev_pcap[0]) {
		h->dump_path = d->netdev_pcap;
		h->dump_from = pcapfile_size(d->netdev_pcap);
	}
	h->psi_start = host_cpu_pressure_us();
	h->t_start = monotonic_s();
	if (ipv4_iface_of(b->host_addr, h->ifname, sizeof(h->ifname)) < 0)
		return;
	h->cap = capture_start(h->ifname, b->host_addr, b->dut_addr);
	h->link_ok = linkstats_read(h->ifname, &h->before) == 0;
}

/* Idempotent, so every way out of a run releases the capture. */
static void host_view_stop(struct host_view *h)
{
	if (h->stopped)
		return;
	h->stopped = 1;
	h->t_stop = monotonic_s();
	h->psi_stop = host_cpu_pressure_us();
	if (h->link_ok)
		h->link_ok = linkstats_read(h->ifname, &h->after) == 0;
	if (h->cap)
		h->pcap_ok = capture_stop(h->cap, &h->pcap) == 0;
	h->cap = NULL;
	if (!h->dump_path || h->dump_from < 0)
		return;
	h->dump_to = pcapfile_size(h->dump_path);
	h->dump_ok = h->dump_to >= h->dump_from &&
		     pcapfile_count(h->dump_path, h->dump_from, h->dump_to, h->host_addr,
				    h->dut_addr, &h->dump, h->dump_err, sizeof(h->dump_err)) == 0;
}

/* libpcap's counts of the frames each way on the host's interface, and
 * the capture's drops; returns the frames from the DUT, -1 without a
 * capture. */
static long long pcap_metrics(const struct host_view *h, FILE *trace, struct run_result *res)
{
	if (!h->pcap_ok)
		return -1;
	char src[96];
	snprintf(src, sizeof(src), "libpcap on %s, IPv4 DUT->host, host window", h->ifname);
	add_metric(res, "pcap_dut_tx_frames", (double)h->pcap.from_dut, src);
	snprintf(src, sizeof(src), "libpcap on %s, IPv4 host->DUT, host window", h->ifname);
	add_metric(res, "pcap_dut_rx_frames", (double)h->pcap.to_dut, src);
	add_metric(res, "pcap_drops", (double)h->pcap.drops, "libpcap ps_drop + ps_ifdrop");
	fprintf(trace, "host pcap iface=%s from_dut=%llu to_dut=%llu drops=%llu\n", h->ifname,
		h->pcap.from_dut, h->pcap.to_dut, h->pcap.drops);
	return (long long)h->pcap.from_dut;
}

/* The host interface's netlink counters over the window; returns the
 * frames the DUT sent, -1 without the counters. */
static long long netlink_metrics(const struct host_view *h, FILE *trace, struct run_result *res)
{
	if (!h->link_ok)
		return -1;
	/* a tap's RX is what the DUT sent, its TX what the DUT was sent */
	const struct link_counters *b = &h->before, *e = &h->after;
	char src[96];
	snprintf(src, sizeof(src), "netlink counters of %s: rx_packets, host window", h->ifname);
	add_metric(res, "netlink_dut_tx_frames", (double)(e->rx_packets - b->rx_packets), src);
	snprintf(src, sizeof(src), "netlink counters of %s: tx_packets, host window", h->ifname);
	add_metric(res, "netlink_dut_rx_frames", (double)(e->tx_packets - b->tx_packets), src);
	fprintf(trace, "host netlink iface=%s rx_packets=%llu rx_bytes=%llu rx_dropped=%llu "
		"tx_packets=%llu tx_bytes=%llu\n", h->ifname,
		(unsigned long long)(e->rx_packets - b->rx_packets),
		(unsigned long long)(e->rx_bytes - b->rx_bytes),
		(unsigned long long)(e->rx_dropped - b->rx_dropped),
		(unsigned long long)(e->tx_packets - b->tx_packets),
		(unsigned long long)(e->tx_bytes - b->tx_bytes));
	return (long long)(e->rx_packets - b->rx_packets);
}

/* The emulator's own record of the link (QEMU filter-dump) over the
 * window; returns the frames from the DUT, -1 without a readable one. */
static long long dump_metrics(const struct host_view *h, FILE *trace, struct run_result *res)
{
	if (!h->dump_path || h->dump_from < 0 || h->dump_to < h->dump_from)
		return -1;
	if (!h->dump_ok) {
		fprintf(trace, "host filter-dump unreadable: %s\n", h->dump_err);
		return -1;
	}
	const struct capture_counts *dc = &h->dump;
	add_metric(res, "dump_dut_tx_frames", (double)dc->from_dut,
		   "QEMU filter-dump pcap read with libpcap, IPv4 DUT->host, host window");
	add_metric(res, "dump_dut_rx_frames", (double)dc->to_dut,
		   "QEMU filter-dump pcap read with libpcap, IPv4 host->DUT, host window");
	fprintf(trace, "host filter-dump %s bytes %lld..%lld from_dut=%llu to_dut=%llu\n",
		h->dump_path, h->dump_from, h->dump_to, dc->from_dut, dc->to_dut);
	return (long long)dc->from_dut;
}

static void acked_frame(void *ctx, long long t_us, const unsigned char *frame, size_t caplen)
{
	tcp_acked_frame(ctx, t_us, frame, caplen);
}

/*
 * A one-way TCP run's rate as delivered (measure/tcpacked.h): the bytes the
 * receiver acknowledged over the workload's measured seconds, from the
 * emulator's record of the link, whose clock is the DUT's. The streams are
 * the DUT's iperf3 `start.connected` (the DUT is the client either way).
 * No metric without a record (0); -1 with the run's reason when the record
 * is there but cannot give it (no streams, unreadable, the measured seconds
 * not covered): the gate judges it, so such a run was not measured.
 */
static int acked_metrics(const struct host_view *h, const struct workload *w,
			 const char *dut_json, FILE *trace, struct run_result *res)
{
	if (w->proto != WL_TCP || w->dir == WL_BIDIR || !h->dump_path || h->dump_from < 0 ||
	    h->dump_to < h->dump_from)
		return 0;
	struct in_addr host, dut;
	if (ipv4_parse(h->host_addr, &host) < 0 || ipv4_parse(h->dut_addr, &dut) < 0)
		return 0;
	cJSON *dj = load_json(dut_json);
	const cJSON *conn = jpath(dj, "start", "connected"), *c;
	struct tcp_stream s[TCP_ACKED_STREAMS];
	size_t n = 0;
	if (!cJSON_IsArray(conn))
		conn = NULL;
	cJSON_ArrayForEach(c, conn) {
		double lp = jnum(c, "local_port"), rp = jnum(c, "remote_port");
		if (n == TCP_ACKED_STREAMS || lp < 1 || lp > 65535 || rp < 1 || rp > 65535) {
			n = 0;
			break;
		}
		int dut_sends = w->dir == WL_DUT_TX;
		s[n++] = (struct tcp_stream){ .sender = dut_sends ? dut : host,
					      .receiver = dut_sends ? host : dut,
					      .sender_port = (uint16_t)(dut_sends ? lp : rp),
					      .receiver_port = (uint16_t)(dut_sends ? rp : lp) };
	}
	cJSON_Delete(dj);
	struct tcp_acked a;
	char err[256];
	if (tcp_acked_init(&a, s, n, (long long)w->omit_s * 1000000,
			   (long long)w->duration_s * 1000000) < 0) {
		snprintf(res->reason, sizeof(res->reason), "the DUT's iperf3 JSON names no TCP "
			 "stream the link's record could be read for (start.connected)");
		return -1;
	}
	if (pcapfile_each(h->dump_path, h->dump_from, h->dump_to, acked_frame, &a, err,
			  sizeof(err)) < 0) {
		snprintf(res->reason, sizeof(res->reason), "the link's record is unreadable: %s",
			 err);
		return -1;
	}
	double mbps = tcp_acked_mbps(&a);
	fprintf(trace, "host acked streams=%zu mbps=%.3f\n", n, mbps);
	if (mbps < 0) {
		snprintf(res->reason, sizeof(res->reason), "the link's record does not cover the "
			 "measured seconds of every stream, so what arrived is not known");
		return -1;
	}
	add_metric(res, "mbps_acked", mbps,
		   "QEMU filter-dump, DUT clock: bytes acknowledged / measured seconds");
	return 0;
}

/*
 * The host-side counts as metrics, and the cross-check of the DUT's sending
 * direction: there, no queue sits between the DUT's counter and the host's
 * (a tap takes every frame QEMU writes; its rx_dropped goes to the trace),
 * so the counts differ only by what each includes and by the window edges,
 * unless something miscounts, which is what the check is for. The receiving
 * direction is stored, not checked: there a frame the host counted may be
 * legitimately lost before the DUT counts it (that is lost_pct).
 * An inconsistent run keeps its class: the numbers are flagged, not dropped.
 */
static void host_metrics(const struct host_view *h, const struct agent_report *a,
			 const char *run_id, FILE *trace, struct run_result *res)
{
	static const char *const what[4] = { "DUT tx_packets", "host rx_packets", "pcap",
					     "QEMU filter-dump" };
	long long counts[4] = { counter_delta(a, "tx_packets"), -1, -1, -1 };
	/* in this order: it is the order of their metrics and trace lines */
	counts[2] = pcap_metrics(h, trace, res);
	counts[1] = netlink_metrics(h, trace, res);
	counts[3] = dump_metrics(h, trace, res);
	struct crosscheck cc;
	if (crosscheck_counts(counts, HB_ARRAY_SIZE(counts), &cc) < 0)
		return;
	const char *how = "max pairwise |a-b|/max(a,b) of DUT tx_packets, host rx_packets, pcap, "
			  "QEMU dump";
	add_metric(res, "count_disagreement_pct", cc.max_pct, how);
	add_metric(res, "counts_inconsistent", cc.inconsistent, how);
	char pair[160];
	crosscheck_pair_text(&cc, counts, what, pair, sizeof(pair));
	fprintf(trace, "host crosscheck %s: %s, tolerance %g %% and %d frames\n",
		cc.inconsistent ? "inconsistent" : "ok", pair, CROSSCHECK_TOL_PCT,
		CROSSCHECK_TOL_FRAMES);
	if (cc.inconsistent)
		hb_info("  %s: the packet counts disagree: %s", run_id, pair);
}

/* A record's seconds outside the test (test_us long on its clock, 0 when
 * not known), or of them the DUT's waits, 0 when it has no data. */
static double outside_s(int ok, const struct capture_counts *c, long long test_us, int waits)
{
	long long us = !ok ? -1 : waits ? data_span_waits_us(&c->span, test_us)
					 : data_span_outside_us(&c->span, test_us);
	return us > 0 ? (double)us / 1e6 : 0;
}

/*
 * Did the host fall behind this run (measure/crosscheck.h)? Only in a
 * virtual-time run: in real time the DUT's clock is real time too. Who
 * paces the run decides which signs count (enum run_pacing). The
 * DUT's clock and idle ticks are the agent's window, the host's clock and
 * CPU pressure its own, which holds the agent's; the test's set-up and
 * teardown come off either clock by the record stamped with it (the
 * emulator's on the DUT's, the host's capture on the host's). *cc is
 * filled whenever the clocks were read.
 */
static int host_fell_behind(const struct dut *d, const struct workload *w,
			    const struct host_view *h, const struct agent_report *a,
			    struct clock_check *cc)
{
	long long v[CPU_FIELDS], ns = counter_delta(a, "clock_ns");
	long long total = cpu_ticks(a, v);
	if (ns < 0 || total <= 0 || v[CPU_IDLE] < 0 || h->psi_start < 0)
		return 0;
	double dut_s = (double)ns / 1e9;
	long long test_us = (long long)(w->omit_s + w->duration_s) * 1000000;
	struct run_clocks c = {
		.pacing = crosscheck_pacing(w),
		.dut_s = dut_s, .dut_idle_s = dut_s * (double)v[CPU_IDLE] / (double)total,
		.host_s = h->t_stop - h->t_start,
		.host_wait_s = (double)(h->psi_stop - h->psi_start) / 1e6,
		.dut_outside_s = outside_s(h->dump_ok, &h->dump, test_us, 0),
		.dut_waits_s = outside_s(h->dump_ok, &h->dump, test_us, 1),
		.host_outside_s = outside_s(h->pcap_ok, &h->pcap, 0, 0),
	};
	return crosscheck_clocks(&c, cc) == 0 && cc->host_behind && d->timing == TIMING_VIRTUAL;
}

/* The clock check's two ratios, for reading how close a run came. */
static void clock_metrics(const struct clock_check *cc, FILE *trace, struct run_result *res)
{
	if (cc->idle_per_host_s < 0)
		return;
	add_metric(res, "dut_idle_per_host_s", cc->idle_per_host_s,
		   "DUT idle seconds (/proc/stat, DUT clock) / host seconds, over the windows "
		   "less the test's set-up and teardown (the links' records)");
	add_metric(res, "host_cpu_pressure_pct", cc->host_wait_pct,
		   "host /proc/pressure/cpu some / host seconds, host window");
	fprintf(trace, "host clocks: DUT idle %.3f s per host s, host CPU pressure %.1f %%, "
		"set-up and teardown left out %.3f s DUT (%.3f s of it idle), %.3f s host\n",
		cc->idle_per_host_s, cc->host_wait_pct, cc->dut_outside_s, cc->dut_waits_s,
		cc->host_outside_s);
}

/* A COUNTER, HIST or DSTAT line into the report; a malformed one, or one
 * past the report's room, is left out (the trace has it). */
static void note_count(const char *line, struct agent_report *a)
{
	char name[64] = "", phase[32] = "";
	unsigned long long value;
	if (!strncmp(line, "COUNTER ", 8) && proto_get(line, "name", name, sizeof(name)) &&
	    proto_get_uint(line, "value", COUNT_MAX, &value) &&
	    proto_get(line, "phase", phase, sizeof(phase))) {
		int slot = counter_slot(a, name);
		if (slot >= 0)
			(strcmp(phase, "before") ? a->after : a->before)[slot] = (long long)value;
	} else if (!strncmp(line, "HIST ", 5) && a->n_hist < HIST_MAX &&
		   proto_get(line, "caller", name, sizeof(name)) &&
		   proto_get_uint(line, "hits", COUNT_MAX, &value) &&
		   proto_get(line, "event", phase, sizeof(phase))) {
		const char *ev = strchr(phase, ':') ? strchr(phase, ':') + 1 : phase;
		snprintf(a->hist_event[a->n_hist], sizeof(a->hist_event[0]), "%s", ev);
		snprintf(a->hist_caller[a->n_hist], sizeof(a->hist_caller[0]), "%s", name);
		a->hist_hits[a->n_hist++] = (long long)value;
	} else if (!strncmp(line, "DSTAT ", 6) && a->n_dstat < DSTAT_MAX &&
		   proto_get(line, "name", name, sizeof(name)) &&
		   proto_get_uint(line, "delta", COUNT_MAX, &value)) {
		a->dstat_delta[a->n_dstat] = (long long)value;
		snprintf(a->dstat_name[a->n_dstat++], sizeof(a->dstat_name[0]), "%s", name);
	}
}

/* A FILE the agent sends: iperf.json to dut_json, a profiler's file into
 * the run's directory, any other name left unread. */
static void take_file(struct dut *d, const char *line, const char *rundir, const char *dut_json,
		      FILE *trace, struct agent_report *a)
{
	char fname[48] = "";
	proto_get(line, "name", fname, sizeof(fname));
	if (!strcmp(fname, "iperf.json")) {
		a->file_ok = receive_file(d, line, dut_json, trace);
		return;
	}
	for (size_t i = 0; i < HB_ARRAY_SIZE(profile_files); i++)
		if (!strcmp(fname, profile_files[i])) {
			char *path = path_join(rundir, fname);
			if (!receive_file(d, line, path, trace))
				fprintf(trace, "host: %s did not arrive intact\n", fname);
			free(path);
		}
}

/* A CONTEXT line into dut-context.txt, and the coalescing the agent read
 * back from the driver. */
static void note_context(const char *line, struct agent_report *a)
{
	char name[64] = "", msg[800] = "";
	unsigned long long value;
	proto_get(line, "name", name, sizeof(name));
	proto_get(line, "msg", msg, sizeof(msg));
	if (a->context)
		fprintf(a->context, "%s=%s\n", name[0] ? name : "?", msg);
	if (!strcmp(name, "coalesce"))
		for (int i = 0; i < 4; i++)
			if (proto_get_uint(msg, coalesce_keys[i], COUNT_MAX, &value))
				a->coalesce[i] = (long long)value;
}

int runner_transfer_ran(const char *dut_json)
{
	cJSON *j = load_json(dut_json);
	int ran = transfer_ran(j);
	cJSON_Delete(j);
	return ran;
}

/* Protocol lines until HB END for this id (or the DUT dies / time runs out).
 * stop_s > 0: the run's deadline is the host's (host_ends_run()), and
 * `hbcmd stop` goes to the agent that many seconds on. */
static void collect(struct dut *d, const char *run_id, double timeout_s, double stop_s,
		    const char *rundir, const char *dut_json, FILE *trace, struct agent_report *a)
{
	char line[1024], id[RUN_ID_MAX];
	double now = monotonic_s(), deadline = now + timeout_s, stop_at = stop_s > 0 ? now + stop_s : 0;
	for (;;) {
		now = monotonic_s();
		if (stop_at > 0 && now >= stop_at) {
			dut_send(d, "hbcmd stop id=%s", run_id);
			stop_at = 0;
		}
		double left = deadline - now;
		double wait = stop_at > 0 && stop_at - now < left ? stop_at - now : left;
		if (left <= 0)
			return;
		int got = dut_read_line(d, line, sizeof(line), wait);
		if (got == 0 && wait < left)
			continue;	/* time to send the stop */
		if (got != 1)
			return;
		fprintf(trace, "%s\n", line);
		if (!proto_get(line, "id", id, sizeof(id)) || strcmp(id, run_id))
			continue;
		if (!strncmp(line, "FILE ", 5)) {
			take_file(d, line, rundir, dut_json, trace, a);
		} else if (!strncmp(line, "CONTEXT ", 8)) {
			note_context(line, a);
		} else if (!strncmp(line, "KMSG ", 5)) {
			char msg[800] = "";
			proto_get(line, "msg", msg, sizeof(msg));
			dut_health_note(a->health, sizeof(a->health), msg);
		} else if (!strncmp(line, "END ", 4)) {
			char st[16] = "";
			proto_get(line, "status", st, sizeof(st));
			proto_get(line, "msg", a->end_msg, sizeof(a->end_msg));
			a->end_seen = 1;
			a->end_ok = !strcmp(st, "ok");
			return;
		} else {
			note_count(line, a);
		}
	}
}

/* The emulator's counts of the window the agent just closed, moved into
 * the run's directory (the trace says when there are none). */
static void take_insn_window(const struct dut *d, const char *rundir, FILE *trace)
{
	char *dst = path_join(rundir, "insn-profile.txt");
	int ok = rename(d->insn_window, dst) == 0 ||
		 (copy_file(d->insn_window, dst) == 0 && unlink(d->insn_window) == 0);
	if (!ok)
		fprintf(trace, "host: no instruction counts from the emulator (%s): %s\n",
			d->insn_window, strerror(errno));
	free(dst);
}

/* Whose clock ends a run that outlives its deadline (agent_proto.h, enum
 * run_deadline): the host's in virtual time, where the DUT's clock races
 * through the seconds it waits for the host, as long as the host can still
 * talk to the agent mid-run (a LAVA job's agent is handed its one run and
 * left alone). */
static int host_ends_run(const struct dut *d)
{
	return d->timing == TIMING_VIRTUAL && d->ops && !d->ops->one_run_per_boot;
}

/* The agent's command that starts the run (harness/agent/hb-agent.c). */
static void send_run(struct dut *d, const struct workload *w, const char *run_id)
{
	static const char *const agent_dir[] = { [WL_DUT_TX] = "tx", [WL_DUT_RX] = "rx",
						 [WL_BIDIR] = "bidir" };
	char *functions = w->profile == WL_PROFILE_FTRACE && d->under_test ?
			  argv_join(&d->under_test->profile, ",") : NULL;
	/* a window the emulator wrote for an earlier run is not this one's */
	if (d->insn_window[0])
		unlink(d->insn_window);
	dut_send(d, "hbcmd run id=%s proto=%s dir=%s len=%d rate=%llu time=%d omit=%d streams=%d "
		 "port=%d profile=%s%s%s%s", run_id, wl_proto_name(w->proto), agent_dir[w->dir],
		 w->length, (unsigned long long)w->rate_bps, w->duration_s, w->omit_s, w->streams,
		 IPERF_PORT, wl_profile_name(w->profile), functions ? " functions=" : "",
		 functions ? functions : "", host_ends_run(d) ? " deadline=host" : "");
	free(functions);
}

/* The host's side of a run, as the runner judges it. */
struct host_side {
	int ok, behind;
	char died[96];		/* why it died mid-run, if it did */
	struct clock_check cc;
};

/* Why the run is no measurement, the causes in the order they explain each
 * other (the DUT's own failures first, then what they would bring about);
 * res->cls and res->reason set and 1, or 0 when its numbers may be read. */
static int not_measured(const struct dut *d, const struct agent_report *a,
			const struct host_side *h, double budget, struct run_result *res)
{
	if (hb_interrupted) {
		snprintf(res->reason, sizeof(res->reason), "interrupted");
	} else if (d->health[0]) {
		res->cls = RUN_FAIL;
		snprintf(res->reason, sizeof(res->reason), "DUT: %.480s", d->health);
	} else if (a->health[0]) {
		res->cls = RUN_FAIL;
		snprintf(res->reason, sizeof(res->reason), "DUT kernel log: %.470s", a->health);
	} else if (h->died[0]) {
		/* RUN_ERROR: the DUT's side then fails too, but as a consequence */
		snprintf(res->reason, sizeof(res->reason), "%s", h->died);
	} else if (!a->end_seen && d->console_closed) {
		/* RUN_ERROR: no kernel message, so most likely not the DUT's doing */
		snprintf(res->reason, sizeof(res->reason),
			 "the console closed mid-run without a kernel message (the emulator "
			 "exited or the console server went away)");
	} else if (!a->end_seen) {
		res->cls = RUN_FAIL;
		snprintf(res->reason, sizeof(res->reason),
			 "the agent did not finish within %.0f s (DUT hung or console lost)", budget);
	} else if (!a->end_ok &&
		   (h->behind || (d->timing == TIMING_VIRTUAL && h->cc.waited_for_host)) &&
		   !strncmp(a->end_msg, AGENT_DEADLINE_KILL, strlen(AGENT_DEADLINE_KILL))) {
		/* RUN_ERROR: the deadline is on the DUT's clock, which raced
		 * ahead of a host that had not sent its traffic yet */
		snprintf(res->reason, sizeof(res->reason), "agent: %.100s; %s", a->end_msg, h->cc.reason);
	} else if (!a->end_ok && a->transfer_ran && !h->ok &&
		   !strncmp(a->end_msg, AGENT_DEADLINE_KILL, strlen(AGENT_DEADLINE_KILL))) {
		/* RUN_ERROR: the traffic ran its course and both iperf3 ends then
		 * stuck in their end-of-test exchange, the DUT's kernel log clean
		 * (checked above): iperf3's doing, not the DUT's (docs/faults.md) */
		snprintf(res->reason, sizeof(res->reason),
			 "agent: %.100s after its transfer had run the whole test, and the host's "
			 "libiperf side failed too: iperf3's end-of-test exchange hung (the DUT's "
			 "kernel log is clean; where iperf3 was is in dut-context.txt)", a->end_msg);
	} else if (!a->end_ok) {
		res->cls = RUN_FAIL;
		snprintf(res->reason, sizeof(res->reason), "agent: %s", a->end_msg);
	} else if (!a->file_ok) {
		snprintf(res->reason, sizeof(res->reason),
			 "the DUT's iperf3 JSON did not arrive intact (size/CRC mismatch)");
	} else if (!h->ok) {
		snprintf(res->reason, sizeof(res->reason), "the host's libiperf side failed");
	} else {
		return 0;
	}
	return 1;
}

/* The run itself, on a workload this board can run: the host's iperf3
 * server, the agent's run and its report (the host's view of the link
 * beside it), then its metrics, or why it is not a measurement. Sets
 * res->cls from RUN_ERROR on, and returns it. */
static enum run_class run_traffic(struct dut *d, const struct workload *w, const char *run_id,
				  const char *rundir, const char *host_json, const char *dut_json,
				  FILE *trace, struct agent_report *a, struct run_result *res)
{
	const struct board *b = d->board;
	struct iperf_job host = { .pid = -1 };
	struct host_view hv = { .cap = NULL };
	char peer[64];
	board_ip(b->host_addr, peer, sizeof(peer));
	double budget = w->omit_s + w->duration_s + 60;
	res->cls = RUN_ERROR;
	/* the DUT is iperf3's client in every direction (hb-agent.c) */
	if (traffic_server_start(&host, peer, IPERF_PORT, host_json) < 0) {
		snprintf(res->reason, sizeof(res->reason), "host iperf server did not start");
		traffic_job_free(&host);
		return res->cls;
	}
	hb_info("  %s: %s %s, %d s (+%d s warm-up)", run_id, wl_proto_name(w->proto),
		wl_dir_name(w->dir), w->duration_s, w->omit_s);
	host_view_start(&hv, d);
	send_run(d, w, run_id);
	struct host_side h = { .cc = { .idle_per_host_s = -1 } };
	collect(d, run_id, budget, host_ends_run(d) ? w->omit_s + w->duration_s + AGENT_GRACE_S : 0,
		rundir, dut_json, trace, a);
	if (d->insn_window[0]) {
		/* expected: a window without them is the run's error */
		take_insn_window(d, rundir, trace);
		a->insn_counted = 1;
	}
	host_view_stop(&hv);
	h.ok = traffic_wait(&host, a->end_seen ? 15 : 0, h.died, sizeof(h.died)) == 0;
	a->transfer_ran = a->end_seen && !a->end_ok && a->file_ok &&
			  runner_transfer_ran(dut_json);
	h.behind = host_fell_behind(d, w, &hv, a, &h.cc);
	if (!not_measured(d, a, &h, budget, res) &&
	    compute_metrics(w, d->under_test, a, b->dut_interface, rundir, dut_json, host_json, res)) {
		res->cls = RUN_PASS;
		host_metrics(&hv, a, run_id, trace, res);
		clock_metrics(&h.cc, trace, res);
		if (acked_metrics(&hv, w, dut_json, trace, res) < 0) {
			/* RUN_ERROR, and no numbers: not measured as the gate judges */
			res->cls = RUN_ERROR;
			res->n_metrics = 0;
		} else if (w->proto == WL_TCP && w->dir == WL_DUT_RX &&
			   d->timing == TIMING_VIRTUAL &&
			   crosscheck_tcp_received(result_metric(res, "mbps"),
						   result_metric(res, "mbps_acked"), &h.cc) == 1) {
			h.behind = 1;
		}
	}
	if (res->cls == RUN_PASS && h.behind) {
		/* RUN_ERROR, and no numbers: they measured the host */
		res->cls = RUN_ERROR;
		res->n_metrics = 0;
		snprintf(res->reason, sizeof(res->reason), "the run's rates are not the DUT's: %s",
			 h.cc.reason);
	}
	host_view_stop(&hv);
	traffic_job_free(&host);
	return res->cls;
}

enum run_class runner_run(struct dut *d, const struct workload *asked, const char *run_id,
			  const char *rundir, struct run_result *res)
{
	memset(res, 0, sizeof(*res));
	/* the workload as this board runs it (board_virtual_seconds()) */
	struct workload scaled = *asked;
	if (d->timing == TIMING_VIRTUAL) {
		scaled.duration_s = board_virtual_seconds(d->board, asked->duration_s);
		scaled.omit_s = board_virtual_seconds(d->board, asked->omit_s);
	}
	const struct workload *w = &scaled;
	char *host_json = path_join(rundir, "host-iperf.json");
	char *dut_json = path_join(rundir, "dut-iperf.json");
	char *trace_path = path_join(rundir, "agent.log");
	char *context_path = path_join(rundir, "dut-context.txt");
	FILE *trace = fopen(trace_path, "w");
	struct agent_report a = { .coalesce = { -1, -1, -1, -1 } };
	res->cls = RUN_ERROR;
	if (!trace) {
		snprintf(res->reason, sizeof(res->reason), "cannot write %s: %s", trace_path,
			 strerror(errno));
	} else if (w->dir == WL_BIDIR && d->timing == TIMING_VIRTUAL) {
		/* 2 of 2 runs hung: the DUT's clock crawls while both directions
		 * keep it busy, and the host's side gave up (docs/measurements.md) */
		snprintf(res->reason, sizeof(res->reason), "%s: bidir runs hang in virtual time; "
			 "run it with --timing realtime (or timing: realtime in the plan)", w->path);
	} else {
		a.context = fopen(context_path, "w");
		run_traffic(d, w, run_id, rundir, host_json, dut_json, trace, &a, res);
	}
	if (trace)
		fclose(trace);
	if (a.context)
		fclose(a.context);
	free(context_path);
	free(trace_path);
	free(host_json);
	free(dut_json);
	return res->cls;
}

int runner_iperf_metrics(const struct workload *w, const char *dut_json, const char *host_json,
			 struct run_result *res)
{
	struct agent_report a = { .coalesce = { -1, -1, -1, -1 } };
	memset(res, 0, sizeof(*res));
	/* no agent report: no hist, counters or profile files to read */
	struct workload unprofiled = *w;
	unprofiled.profile = WL_PROFILE_NONE;
	return compute_metrics(&unprofiled, NULL, &a, "", "", dut_json, host_json, res);
}

int runner_agent_metrics(struct dut *d, const struct workload *w, const char *run_id,
			 const char *rundir, const char *host_json, struct run_result *res)
{
	struct agent_report a = { .coalesce = { -1, -1, -1, -1 } };
	char *dut_json = path_join(rundir, "dut-iperf.json");
	char *trace_path = path_join(rundir, "agent.log");
	FILE *trace = fopen(trace_path, "w");
	int ok = 0;
	memset(res, 0, sizeof(*res));
	if (!trace) {
		snprintf(res->reason, sizeof(res->reason), "cannot write %s: %s", trace_path,
			 strerror(errno));
		goto out;
	}
	collect(d, run_id, 60, 0, rundir, dut_json, trace, &a);
	if (!a.end_seen || !a.end_ok)
		snprintf(res->reason, sizeof(res->reason), "agent: %s",
			 a.end_seen ? a.end_msg : "no END");
	else if (!a.file_ok)
		snprintf(res->reason, sizeof(res->reason), "the DUT's iperf3 JSON did not arrive intact");
	else
		ok = compute_metrics(w, d->under_test, &a, d->board->dut_interface, rundir, dut_json, host_json, res);
out:
	if (trace)
		fclose(trace);
	free(trace_path);
	free(dut_json);
	return ok;
}
