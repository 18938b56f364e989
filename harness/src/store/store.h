/*
 * store: every run, with provenance, in SQLite (WAL), artifacts on disk.
 *
 * Layout: <dir>/hilbench.db and <dir>/runs/<run-id>/ (console log, iperf
 * JSON, ...). One transaction per finished run: a run is in the store whole
 * or not at all. Runs of every class are stored (pass, fail, error, miss);
 * only pass runs are measurements, and readers must select on class.
 *
 * Contract: functions return 0 or -1 with the message printed. The store is
 * safe to share between processes (SQLite locking): a write waits up to
 * HILBENCH_STORE_TIMEOUT_S (default 30) for another writer, then fails with
 * a message saying so. A full disk fails the write whole (docs/faults.md).
 */
#ifndef HB_STORE_H
#define HB_STORE_H

#include <stddef.h>
#include <stdio.h>

#include "util/util.h"

struct store;

enum run_class { RUN_PASS, RUN_FAIL, RUN_ERROR, RUN_MISS };
#define RUN_CLASSES (RUN_MISS + 1)
const char *run_class_name(enum run_class c);
/* "pass" ... "miss" to the class; -1 for anything else. */
int run_class_parse(const char *name, enum run_class *c);

struct metric {
	const char *name;
	double value;
	const char *unit;
	const char *source;	/* how it was measured, e.g. "iperf3 receiver (host)" */
};

struct run_record {
	char id[40];
	const char *session;	/* one hilbench run/compare invocation */
	const char *plan;
	const char *board;
	const char *strategy;
	const char *workload;
	const char *workload_sha256;	/* config/workload.h's workload_digest() */
	int repetition;
	const char *boot_id;	/* runs sharing a boot share this */
	/* the boot whose saved state this run's boot started from instead of
	 * booting (run/executor.c); NULL: it booted */
	const char *resumed_from;
	enum run_class cls;
	const char *reason;	/* why not pass; NULL for pass */
	const char *timing;	/* realtime | virtual */
	const char *started, *ended;
	const char *kernel_version, *kernel_release;
	const char *build_key, *config_sha256, *build_manifest;
	const char *patches;	/* JSON array of {layer, path, sha256} */
	const char *initramfs_sha256;
	const char *emulator;	/* e.g. QEMU version; NULL on real boards */
	const char *hilbench_commit, *host;
	const char *artifacts;	/* runs/<id> relative to the store dir */
	int attempt;		/* 1, or 2.. for a retry after an infrastructure error */
	/* JSON array of the runtime settings tried before the run:
	 * {name, requested, read_back, status, msg}; NULL: none */
	const char *settings;
	const struct metric *metrics;
	size_t n_metrics;
};

struct store *store_open(const char *dir);
void store_close(struct store *s);
const char *store_dir(const struct store *s);
/* A fresh, sortable, unique run id: 20261130T052809Z-1a2b3c. */
void store_new_id(char out[40]);
/* When store_new_id() made id (its stamp, to the second), as seconds since
 * the epoch; NaN when id is none of its. */
double store_id_seconds(const char *id);
int store_add_run(struct store *s, const struct run_record *r);
/* store_add_run() of a run that finished earlier (store/runfile.h): 1 when
 * stored, 0 when the store already has a run of that id (left as it is),
 * -1 on error. */
int store_import_run(struct store *s, const struct run_record *r);
/* Takes and drops the write lock: whether runs could be stored now. */
int store_check_writable(struct store *s);
/* 1 if this session already has a pass run of this cell and repetition,
 * 0 if not, -1 on error: what --resume skips. */
int store_has_pass(struct store *s, const char *session, const char *board,
		   const char *strategy, const char *workload, int repetition);
/* The plan a session ran; -1 if the store has no such session. */
int store_session_plan(struct store *s, const char *session, char *plan, size_t len);

/* A planner's verdict on one strategy, workload and metric of a session
 * (run/planner.h): how many runs it took a side, the outcome
 * (gate_outcome_name()), the change in % of the reference with its
 * interval (NaN: none), and why it stopped ("decided at look 1 of 6",
 * "cap: 6 runs a side", ...). alpha: the decision's error rate over all
 * its looks; movers: where the instructions moved, or NULL. */
struct decision_record {
	const char *session, *reference, *strategy, *workload, *metric;
	int reference_runs, candidate_runs;
	const char *outcome;
	double delta_pct, lo_pct, hi_pct, threshold_pct, alpha;
	const char *why, *movers;
};
/* Stores (or replaces: a resumed session decides again) one decision. */
int store_put_decision(struct store *s, const struct decision_record *d);
/* Calls cb for each decision of the session, in the order stored, until cb
 * returns non-zero (returned); 0 when done, -1 when the store cannot be
 * read (said). */
int store_each_decision(struct store *s, const char *session,
			int (*cb)(const struct decision_record *d, void *ctx), void *ctx);

/* One stored measurement, as readers see it. */
struct run_row {
	const char *id, *session, *board, *strategy, *workload, *cls, *reason, *timing;
	int repetition;
	const char *metric, *unit, *source;
	double value;
	/* which kernel and boot: reports group runs by board and build */
	const char *build_key, *patches;	/* patches: JSON array of {layer, path, sha256} */
	const char *boot_id;
	/* provenance, for series over time */
	const char *plan, *started, *kernel_version, *kernel_release, *ended;
	const char *build_manifest;	/* the build's manifest.json in the cache */
};
/* Which runs a reader wants; NULL fields match everything. A session's
 * runs are those it measured and those it reused (store_reuse_runs()). */
struct selection {
	const char *session, *plan, *board, *strategy, *workload;
	const char *since;	/* ISO-8601 date or time; runs started at or after */
	const char *timing;	/* realtime | virtual */
	const char *build_key, *initramfs;	/* exactly this kernel and userland */
	/* runs of the emulator hilbench built so: its provenance line, which
	 * ends the runs' emulator column (build/emulator.h) */
	const char *emulator_provenance;
	/* what the DUT was asked to do was one of these (config/workload.h's
	 * digests); NULL: anything, runs without a digest too */
	const struct strlist *workload_sha256s;
	int all_classes;	/* also runs that are not measurements (metric NULL) */
	const struct strlist *metrics;	/* only these metrics; NULL: every one */
	/* with metrics: also the metrics whose names start so (a family's
	 * members: "insn_self_per_pkt."); alone: only those */
	const struct strlist *metric_prefixes;
	const struct strlist *runs;	/* only these run ids; NULL: any */
	int no_provenance;	/* leave plan ... ended of run_row NULL: a report
				 * of 100,000 runs reads less */
};
/* Streams matching rows (one per run and metric) in run order, so readers
 * never hold the whole store in memory. fn returning non-zero stops, and
 * that value is returned; a read that fails part-way returns -1 with the
 * message printed, after fn saw the rows before it (readers then drop
 * what they collected). */
int store_foreach(struct store *s, const struct selection *sel,
		  int (*fn)(const struct run_row *row, void *ctx), void *ctx);
/* The runs store_foreach() would visit (a run's rows counted once); -1
 * when the read failed (said). */
int store_count_runs(struct store *s, const struct selection *sel);
/* The same, and in counts[g] (g < ngroups, set to 0 first) how many of
 * them are of a workload groups[g] names: one read for every group. */
int store_count_runs_by_workload(struct store *s, const struct selection *sel,
				 const struct strlist *groups, size_t ngroups, int *counts);
/* Up to `want` pass runs of other sessions that match sel (its session and
 * metric_prefixes ignored), have every metric sel->metrics names (a run
 * stored before a metric existed cannot stand for one that has it), and
 * were the only run of their workload in their boot
 * (so independent repetitions: run/planner.h), newest first, become
 * `session`'s own: its selections read them from now on, and nothing is
 * copied. The runs the session has or reused already are not taken again.
 * Returns how many were added, or -1 (said). */
int store_reuse_runs(struct store *s, const char *session, const struct selection *sel,
		     int want);
/* What `session` reused, grouped: per strategy, workload and session the
 * runs were measured in, how many; fn as store_each_decision()'s. */
int store_each_reused(struct store *s, const char *session,
		      int (*fn)(const char *strategy, const char *workload, const char *from,
				int runs, void *ctx), void *ctx);
/* The newest sessions of plan, other than except, that stored decisions
 * (store_put_decision()), newest first, at most max of them copied to
 * out: how many (0: none), or -1 when the store cannot be read. */
int store_last_decided_sessions(struct store *s, const char *plan, const char *except,
				char (*out)[40], int max);
/* The session of the newest run, copied to out; -1 when the store is empty. */
int store_latest_session(struct store *s, char *out, size_t len);
/* Every run, one line each: id, board, strategy, workload, repetition,
 * class, timing, the reason or pps and mbps. */
int store_list_runs(struct store *s, FILE *out);
/* Print one run and its provenance. */
int store_show_run(struct store *s, const char *id);

#endif
