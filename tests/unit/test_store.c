/* store: what --resume and the fault handling rely on: a version-1 store is
 * upgraded in place (its runs become attempt 1), the attempt of a retried
 * run is kept, pass runs of a session are found, a write lock held by
 * another connection makes writes fail after the timeout without storing
 * anything, a bad HILBENCH_STORE_TIMEOUT_S is refused, and a session
 * reuses only independent runs of the same build; an id's stamp reads
 * back as its time. Real SQLite
 * files in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "util/util.h"

static char dir[64];

static sqlite3 *raw_open(void)
{
	char *path = path_join(dir, "hilbench.db");
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	free(path);
	return db;
}

static long long scalar(const char *sql)
{
	sqlite3 *db = raw_open();
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static int add(struct store *s, const char *session, int rep, enum run_class cls, int attempt)
{
	struct metric m = { "pps", 1000, "packets/s", "test" };
	struct run_record r = {
		.session = session, .plan = "adhoc", .board = "b", .strategy = "baseline",
		.workload = "udp", .repetition = rep, .cls = cls,
		.reason = cls == RUN_PASS ? NULL : "boot failed; infrastructure, retried",
		.timing = "virtual", .started = "2026-11-30T00:00:00Z",
		.ended = "2026-11-30T00:00:01Z", .metrics = &m, .n_metrics = cls == RUN_PASS,
		.attempt = attempt,
	};
	store_new_id(r.id);
	snprintf(r.id + strlen(r.id), sizeof(r.id) - strlen(r.id), "-%d-%d", rep, attempt);
	return store_add_run(s, &r);
}

static void a_version_1_store_is_upgraded(void **state)
{
	(void)state;
	/* the schema as version 1 wrote it, with one run */
	sqlite3 *db = raw_open();
	assert_int_equal(sqlite3_exec(db,
		"CREATE TABLE runs(id TEXT PRIMARY KEY, session TEXT, plan TEXT,"
		" board TEXT NOT NULL, strategy TEXT NOT NULL, workload TEXT NOT NULL,"
		" repetition INTEGER NOT NULL, boot_id TEXT, class TEXT NOT NULL, reason TEXT,"
		" timing TEXT NOT NULL, started TEXT NOT NULL, ended TEXT NOT NULL,"
		" kernel_version TEXT, kernel_release TEXT, build_key TEXT, config_sha256 TEXT,"
		" build_manifest TEXT, patches TEXT, initramfs_sha256 TEXT, emulator TEXT,"
		" hilbench_commit TEXT, host TEXT, artifacts TEXT);"
		"INSERT INTO runs(id, session, plan, board, strategy, workload, repetition, class,"
		" timing, started, ended) VALUES ('old', 'S0', 'adhoc', 'b', 'baseline', 'udp', 1,"
		" 'pass', 'virtual', '2026-11-29', '2026-11-29');"
		"PRAGMA user_version = 1;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	struct store *s = store_open(dir);
	assert_non_null(s);
	/* 2: attempt, 3: settings, 4: decisions, 5: workload digests and
	 * reuse, 6: the saved boot a run's boot started from */
	assert_int_equal(scalar("PRAGMA user_version"), 6);
	assert_int_equal(scalar("SELECT resumed_from IS NULL FROM runs WHERE id = 'old'"), 1);
	assert_int_equal(scalar("SELECT count(*) FROM decisions"), 0);
	assert_int_equal(scalar("SELECT count(*) FROM reused"), 0);
	assert_int_equal(scalar("SELECT workload_sha256 IS NULL FROM runs WHERE id = 'old'"), 1);
	assert_int_equal(scalar("SELECT attempt FROM runs WHERE id = 'old'"), 1);
	assert_int_equal(add(s, "S1", 1, RUN_ERROR, 1), 0);
	assert_int_equal(add(s, "S1", 1, RUN_PASS, 2), 0);
	assert_int_equal(scalar("SELECT attempt FROM runs WHERE class = 'pass' AND session = 'S1'"), 2);
	store_close(s);
}

static int keep_decision(const struct decision_record *d, void *ctx)
{
	struct strlist *l = ctx;
	strlist_pushf(l, "%s %s %s %s %d/%d %s %.2f %s %s %s", d->reference, d->strategy,
		      d->workload, d->metric, d->reference_runs, d->candidate_runs, d->outcome,
		      d->delta_pct, isnan(d->lo_pct) ? "nan" : "lo", d->why,
		      d->movers ? d->movers : "-");
	return 0;
}

/* A planner's decisions come back as stored, per session, in order; a
 * second one of the same cell replaces the first (a resumed session
 * decides again), and a change with no interval stays NaN. */
static void decisions_round_trip(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	assert_non_null(s);
	struct decision_record d = {
		.session = "D1", .reference = "baseline", .strategy = "revert",
		.workload = "udp64-dut-tx", .metric = "pps", .reference_runs = 6,
		.candidate_runs = 1, .outcome = "improved", .delta_pct = 23.5, .lo_pct = 23.1,
		.hi_pct = 23.9, .threshold_pct = 1, .alpha = 0.05, .why = "decided at look 1 of 6",
		.movers = "-312 instructions/packet in stmmac_tx_timer_arm",
	};
	assert_int_equal(store_put_decision(s, &d), 0);
	d.metric = "mbps";
	d.outcome = "inconclusive";
	d.lo_pct = d.hi_pct = NAN;
	d.movers = "";
	d.why = "cap: 6 runs a side";
	assert_int_equal(store_put_decision(s, &d), 0);
	d.session = "D2";
	assert_int_equal(store_put_decision(s, &d), 0);
	d.session = "D1";
	d.candidate_runs = 2;	/* again: replaces */
	assert_int_equal(store_put_decision(s, &d), 0);
	struct strlist got = { 0 };
	assert_int_equal(store_each_decision(s, "D1", keep_decision, &got), 0);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.v[0], "baseline revert udp64-dut-tx pps 6/1 improved 23.50 lo "
			    "decided at look 1 of 6 -312 instructions/packet in stmmac_tx_timer_arm");
	assert_string_equal(got.v[1], "baseline revert udp64-dut-tx mbps 6/2 inconclusive 23.50 "
			    "nan cap: 6 runs a side -");
	strlist_free(&got);
	assert_int_equal(store_each_decision(s, "none", keep_decision, &got), 0);
	assert_int_equal(got.n, 0);
	store_close(s);
}

static void resume_finds_pass_runs_of_a_session(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	assert_non_null(s);
	assert_int_equal(add(s, "S2", 1, RUN_PASS, 1), 0);
	assert_int_equal(add(s, "S2", 2, RUN_MISS, 1), 0);
	assert_int_equal(store_has_pass(s, "S2", "b", "baseline", "udp", 1), 1);
	assert_int_equal(store_has_pass(s, "S2", "b", "baseline", "udp", 2), 0);
	assert_int_equal(store_has_pass(s, "S3", "b", "baseline", "udp", 1), 0);
	assert_int_equal(store_has_pass(s, "S2", "b", "revert", "udp", 1), 0);
	char plan[32];
	assert_int_equal(store_session_plan(s, "S2", plan, sizeof(plan)), 0);
	assert_string_equal(plan, "adhoc");
	assert_int_equal(store_session_plan(s, "nosuch", plan, sizeof(plan)), -1);
	store_close(s);
}

static void a_locked_store_fails_after_the_timeout_and_stores_nothing(void **state)
{
	(void)state;
	setenv("HILBENCH_STORE_TIMEOUT_S", "1", 1);
	struct store *s = store_open(dir);
	unsetenv("HILBENCH_STORE_TIMEOUT_S");
	assert_non_null(s);
	long long before = scalar("SELECT count(*) FROM runs");
	sqlite3 *other = raw_open();
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(store_check_writable(s), -1);
	assert_int_equal(add(s, "S4", 1, RUN_PASS, 1), -1);
	assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	assert_int_equal(scalar("SELECT count(*) FROM runs"), before);
	/* once the other writer is gone, the same handle writes again */
	assert_int_equal(store_check_writable(s), 0);
	assert_int_equal(add(s, "S4", 1, RUN_PASS, 1), 0);
	store_close(s);
}

static void a_bad_timeout_is_refused(void **state)
{
	(void)state;
	static const char *const bad[] = { "soon", "0", "-5", "10x", "86401" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		setenv("HILBENCH_STORE_TIMEOUT_S", bad[i], 1);
		assert_null(store_open(dir));
	}
	unsetenv("HILBENCH_STORE_TIMEOUT_S");
}

/* A pass run "run-<rep>" of session with these metrics. */
static void add_pass(struct store *s, const char *session, int rep, const struct metric *m,
		     size_t n)
{
	struct run_record r = {
		.session = session, .plan = "adhoc", .board = "b", .strategy = "baseline",
		.workload = "udp", .repetition = rep, .cls = RUN_PASS, .timing = "virtual",
		.started = "2026-11-30T00:00:00Z", .ended = "2026-11-30T00:00:01Z",
		.metrics = m, .n_metrics = n, .attempt = 1,
	};
	snprintf(r.id, sizeof(r.id), "run-%d", rep);
	assert_int_equal(store_add_run(s, &r), 0);
}

static int count_rows(const struct run_row *r, void *ctx)
{
	(void)r;
	++*(int *)ctx;
	return 0;
}

/* store_count_runs(): a run with three metrics counts once; a session's
 * runs only; by workload, each group of workloads its own. */
static void runs_are_counted_not_rows(void **state)
{
	(void)state;
	char *sub = path_join(dir, "counted");
	assert_int_equal(mkdir_p(sub, 0755), 0);
	struct store *s = store_open(sub);
	assert_non_null(s);
	const struct metric m[3] = { { "pps", 1, "x", "t" }, { "mbps", 2, "x", "t" },
				     { "jitter_ms", 3, "x", "t" } };
	for (int rep = 1; rep <= 4; rep++)
		add_pass(s, "S6", rep, m, 3);
	struct selection all = { .session = "S6", .all_classes = 1 };
	assert_int_equal(store_count_runs(s, &all), 4);
	struct selection none = { .session = "S7", .all_classes = 1 };
	assert_int_equal(store_count_runs(s, &none), 0);
	struct strlist groups[2] = { 0 };
	strlist_push(&groups[0], "tcp");
	strlist_push(&groups[0], "udp");
	strlist_push(&groups[1], "tcp");
	int counts[2] = { -1, -1 };
	assert_int_equal(store_count_runs_by_workload(s, &all, groups, 2, counts), 4);
	assert_int_equal(counts[0], 4);
	assert_int_equal(counts[1], 0);
	strlist_free(&groups[0]);
	strlist_free(&groups[1]);
	store_close(s);
	free(sub);
}

/* A read that fails half-way (here: the later pages of the file damaged)
 * is an error naming the store and SQLite's reason, never the rows read
 * before it passed off as the whole selection. */
static void a_read_that_fails_half_way_is_an_error(void **state)
{
	(void)state;
	char *sub = path_join(dir, "damaged"), *db = path_join(sub, "hilbench.db");
	char *log = path_join(dir, "stderr");
	assert_int_equal(mkdir_p(sub, 0755), 0);
	struct store *s = store_open(sub);
	assert_non_null(s);
	struct metric m[20];
	char names[20][16];
	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "metric_%02d", i);
		m[i] = (struct metric){ names[i], i, "x", "a source long enough to fill pages" };
	}
	for (int rep = 1; rep <= 100; rep++)
		add_pass(s, "S5", rep, m, 20);
	store_close(s);	/* the last connection: the WAL goes into the file */
	FILE *f = fopen(db, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f), pages = size / 4096;
	assert_true(pages > 8);
	static char junk[4096];
	memset(junk, 0xa5, sizeof(junk));
	assert_int_equal(fseek(f, (pages / 2) * 4096, SEEK_SET), 0);
	for (long p = pages / 2; p < pages; p++)
		assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	assert_int_equal(fclose(f), 0);

	s = store_open(sub);
	assert_non_null(s);
	struct selection sel = { .session = "S5" };
	int rows = 0;
	fflush(stderr);
	int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	int rc = store_foreach(s, &sel, count_rows, &rows);
	dup2(saved, 2);
	close(saved);
	close(fd);
	store_close(s);
	assert_true(rows < 100 * 20);
	assert_int_equal(rc, -1);
	char *msg = read_file(log, NULL);
	assert_non_null(strstr(msg, "damaged/hilbench.db"));
	assert_non_null(strstr(msg, "malformed"));
	free(msg);
	free(log);
	free(db);
	free(sub);
}

/* `hilbench show`: each run on its own line, with its own metrics. The
 * list kept a pointer to the id of the row before, in SQLite's buffer the
 * next row reused, so every run's metrics strung onto the first line. */
static int keep_reused(const char *strategy, const char *workload, const char *from, int runs,
		       void *ctx)
{
	strlist_pushf(ctx, "%s %s %s %d", strategy, workload, from, runs);
	return 0;
}

/* A run of session "R<n>" for the reuse test: its boot, workload digest,
 * start and emulator line as given. */
static void add_ref(struct store *s, const char *id, const char *session, const char *boot,
		    const char *digest, const char *started, const char *emulator,
		    enum run_class cls)
{
	struct metric m = { "pps", 4478, "packets/s", "test" };
	struct run_record r = {
		.session = session, .plan = "default", .board = "qemu-orangepi-pc",
		.strategy = "baseline", .workload = "udp64-dut-tx", .workload_sha256 = digest,
		.repetition = 1, .boot_id = boot, .cls = cls, .reason = cls == RUN_PASS ? NULL : "x",
		.timing = "virtual", .started = started, .ended = started, .build_key = "K",
		.initramfs_sha256 = "I", .emulator = emulator, .metrics = &m,
		.n_metrics = cls == RUN_PASS, .attempt = 1,
	};
	snprintf(r.id, sizeof(r.id), "%s", id);
	assert_int_equal(store_add_run(s, &r), 0);
}

static int keep_id(const struct run_row *r, void *ctx)
{
	strlist_pushf(ctx, "%s@%s", r->id, r->session);
	return 0;
}

/* The reference's runs of earlier sessions join a session only where they
 * are pass runs of the same kernel, initramfs, emulator build and workload
 * digest, each its boot's only run of the workload; newest first, up to
 * the number asked, never twice; the session's selections then read them
 * (with the session they were measured in), and the grouping says so. */
static void a_session_reuses_only_independent_runs_of_the_same_build(void **state)
{
	(void)state;
	char *sub = path_join(dir, "reuse");
	assert_int_equal(mkdir_p(sub, 0755), 0);
	struct store *s = store_open(sub);
	assert_non_null(s);
	const char *emu = "QEMU emulator version 7.2.22; hilbench emulator: key E1; patch p1";
	add_ref(s, "old", "R1", "b1", "D", "2026-12-01T01:00:00Z", emu, RUN_PASS);
	add_ref(s, "mid", "R1", "b2", "D", "2026-12-01T02:00:00Z", emu, RUN_PASS);
	add_ref(s, "new", "R2", "b3", "D", "2026-12-01T03:00:00Z", emu, RUN_PASS);
	/* not reused: a boot with two runs of it (--fixed), a failed run,
	 * another workload digest (another duration), another emulator build */
	add_ref(s, "fixed1", "R3", "b4", "D", "2026-12-01T04:00:00Z", emu, RUN_PASS);
	add_ref(s, "fixed2", "R3", "b4", "D", "2026-12-01T04:01:00Z", emu, RUN_PASS);
	add_ref(s, "failed", "R4", "b5", "D", "2026-12-01T05:00:00Z", emu, RUN_ERROR);
	add_ref(s, "longer", "R4", "b6", "D10", "2026-12-01T05:00:00Z", emu, RUN_PASS);
	add_ref(s, "emu2", "R4", "b7", "D",  "2026-12-01T05:00:00Z",
		"QEMU emulator version 7.2.22; hilbench emulator: key E2; patch p1", RUN_PASS);
	struct strlist digests = { 0 };
	strlist_push(&digests, "D");
	struct selection sel = { .plan = "default", .board = "qemu-orangepi-pc",
				 .strategy = "baseline", .workload = "udp64-dut-tx",
				 .timing = "virtual", .build_key = "K", .initramfs = "I",
				 .emulator_provenance = "key E1; patch p1",
				 .workload_sha256s = &digests };
	assert_int_equal(store_reuse_runs(s, "NOW", &sel, 2), 2);
	struct strlist got = { 0 };
	struct selection mine = { .session = "NOW" };
	assert_int_equal(store_foreach(s, &mine, keep_id, &got), 0);
	assert_int_equal(got.n, 2);
	/* insertion order, the newest two */
	assert_string_equal(got.v[0], "mid@R1");
	assert_string_equal(got.v[1], "new@R2");
	strlist_free(&got);
	/* again: only what it has not taken yet, and nothing that does not fit */
	assert_int_equal(store_reuse_runs(s, "NOW", &sel, 6), 1);
	assert_int_equal(store_reuse_runs(s, "NOW", &sel, 6), 0);
	assert_int_equal(store_foreach(s, &mine, keep_id, &got), 0);
	assert_int_equal(got.n, 3);
	strlist_free(&got);
	/* a session's own runs are never "reused" by it */
	assert_int_equal(store_reuse_runs(s, "R1", &sel, 6), 1);	/* new@R2 only */
	/* the digests filter readers too */
	struct selection longer = { .strategy = "baseline", .workload_sha256s = &digests };
	strlist_free(&digests);
	strlist_push(&digests, "D10");
	assert_int_equal(store_foreach(s, &longer, keep_id, &got), 0);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.v[0], "longer@R4");
	strlist_free(&got);
	assert_int_equal(store_each_reused(s, "NOW", keep_reused, &got), 0);
	assert_int_equal(got.n, 2);
	/* in the order they were taken: the newest first */
	assert_string_equal(got.v[0], "baseline udp64-dut-tx R2 1");
	assert_string_equal(got.v[1], "baseline udp64-dut-tx R1 2");
	strlist_free(&got);
	/* a run stored before a metric the gate judges existed stands for no
	 * reference run of it: every metric named must be there */
	struct strlist judged = { 0 };
	strlist_push(&judged, "pps");
	strlist_push(&judged, "mbps_acked");
	strlist_free(&digests);
	strlist_push(&digests, "D");
	sel.metrics = &judged;
	assert_int_equal(store_reuse_runs(s, "LATER", &sel, 6), 0);
	free(judged.v[--judged.n]);
	assert_int_equal(store_reuse_runs(s, "LATER", &sel, 6), 3);
	strlist_free(&judged);
	strlist_free(&digests);
	store_close(s);
	free(sub);
}

static void show_lists_each_run_on_its_own_row(void **state)
{
	(void)state;
	char *sub = path_join(dir, "show");
	assert_int_equal(mkdir_p(sub, 0755), 0);
	struct store *s = store_open(sub);
	assert_non_null(s);
	for (int rep = 1; rep <= 2; rep++) {
		struct metric m[2] = { { "mbps", 10.0 * rep, "Mbit/s", "t" },
				       { "pps", 1000.0 * rep, "packets/s", "t" } };
		add_pass(s, "S6", rep, m, 2);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(store_list_runs(s, out), 0);
	fclose(out);
	store_close(s);
	struct strlist lines = { 0 };
	strlist_split(&lines, text, "\n");
	assert_int_equal(lines.n, 3);	/* the heading and two runs */
	assert_true(!strncmp(lines.v[1], "run-1 ", 6));
	assert_non_null(strstr(lines.v[1], " mbps=10.0 pps=1000.0"));
	assert_null(strstr(lines.v[1], "2000"));
	assert_true(!strncmp(lines.v[2], "run-2 ", 6));
	assert_non_null(strstr(lines.v[2], " mbps=20.0 pps=2000.0"));
	strlist_free(&lines);
	free(text);
	free(sub);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-store.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

static void an_ids_stamp_reads_back_as_its_time(void **state)
{
	(void)state;
	char id[40];
	store_new_id(id);
	double t = store_id_seconds(id), now = (double)time(NULL);
	assert_true(t <= now && now - t < 5);
	assert_true(fabs(store_id_seconds("20261202T100203Z-b00001") -
			 utc_seconds("2026-12-02T10:02:03Z")) < 1e-9);
	assert_true(isnan(store_id_seconds("b1")));
	assert_true(isnan(store_id_seconds("20261202T100203Z")));	/* no suffix */
	assert_true(isnan(store_id_seconds("20261302T100203Z-b00001")));	/* month 13 */
	assert_true(isnan(store_id_seconds(NULL)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_version_1_store_is_upgraded),
		cmocka_unit_test(an_ids_stamp_reads_back_as_its_time),
		cmocka_unit_test(resume_finds_pass_runs_of_a_session),
		cmocka_unit_test(decisions_round_trip),
		cmocka_unit_test(a_locked_store_fails_after_the_timeout_and_stores_nothing),
		cmocka_unit_test(a_bad_timeout_is_refused),
		cmocka_unit_test(runs_are_counted_not_rows),
		cmocka_unit_test(a_read_that_fails_half_way_is_an_error),
		cmocka_unit_test(show_lists_each_run_on_its_own_row),
		cmocka_unit_test(a_session_reuses_only_independent_runs_of_the_same_build),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
