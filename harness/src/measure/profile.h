/*
 * profile: read what the DUT's profilers wrote during a profiled run
 * (docs/metrics.md, "hrtimer CPU share"): the ftrace function profiler's
 * table, `perf report --stdio --sort sym` and `perf stat -x,` output; and
 * what the emulator's instruction counter wrote on the host.
 *
 * The files come from another machine over a console: anything may be in
 * them. Contract: each parser reads NUL-terminated text, fills at most max
 * entries (lines beyond that are counted in the return value but not
 * stored, so a caller can tell), skips lines that are not entries, and
 * returns the number of entries, or -1 when the text is not that tool's
 * output at all (no header). Names longer than the field are truncated.
 * Pure; prints nothing.
 */
#ifndef HB_PROFILE_H
#define HB_PROFILE_H

#include <stddef.h>

#define PROFILE_NAME_MAX 64

/* trace_stat/function0: "  hrtimer_start_range_ns   18256    123.456 us  ..." */
struct fprof_entry {
	char function[PROFILE_NAME_MAX];
	unsigned long long hits;
	double time_us;		/* total, children included (graph-time) */
};
int fprof_parse(const char *text, struct fprof_entry *out, size_t max);

/* perf report: "    12.34%  [k] _raw_spin_unlock_irqrestore" */
struct perf_sym {
	char symbol[PROFILE_NAME_MAX];
	double pct;		/* share of all samples */
	int kernel;		/* [k] rather than [.] (user space) */
};
/* *samples gets the "# Samples: 40K of event ..." count (K and M expanded),
 * 0 when the header has none. */
int perf_report_parse(const char *text, struct perf_sym *out, size_t max,
		      unsigned long long *samples);

/* perf stat -x,: "36,,timer:hrtimer_start,1031417040,100.00,," */
struct perf_count {
	char event[PROFILE_NAME_MAX];
	unsigned long long count;
	unsigned long long runtime_ns;	/* how long perf counted it; 0 if not given */
	int counted;		/* 0 for "<not counted>" / "<not supported>" */
};
int perf_stat_parse(const char *text, struct perf_count *out, size_t max);

/* The emulator's instruction counts of one window (harness/plugin/hb-insn.c):
 * "hb-insn 2", the header's "word N" lines, "fn NAME SELF CALLS" (and
 * "INCLUSIVE UNMATCHED INCLUSIVE_OWN" for a function counted with its
 * callees), "end". -1 also for a window without its "end" line (cut
 * short). */
struct insn_window {
	unsigned long long window;	/* the plugin's window number, from 1 */
	unsigned long long insns, kernel, user, stack_overflows;
	unsigned long long own;		/* in the driver's own functions (own=) */
};
struct insn_fn {
	char function[PROFILE_NAME_MAX];
	unsigned long long self, calls;
	int inclusive;			/* 1: incl, unmatched and incl_own given */
	unsigned long long incl, unmatched;
	unsigned long long incl_own;	/* of incl, in the driver's own functions */
};
int insn_window_parse(const char *text, struct insn_window *w, struct insn_fn *out, size_t max);

#endif
