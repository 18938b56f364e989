#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "store/metrics.h"
#include "util/util.h"

struct store {
	sqlite3 *db;
	char *dir;
	int timeout_s;		/* how long a write waits for another writer */
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS runs("
	" id TEXT PRIMARY KEY, session TEXT, plan TEXT,"
	" board TEXT NOT NULL, strategy TEXT NOT NULL, workload TEXT NOT NULL,"
	" repetition INTEGER NOT NULL, boot_id TEXT,"
	" class TEXT NOT NULL CHECK (class IN ('pass','fail','error','miss')), reason TEXT,"
	" timing TEXT NOT NULL, started TEXT NOT NULL, ended TEXT NOT NULL,"
	" kernel_version TEXT, kernel_release TEXT, build_key TEXT, config_sha256 TEXT,"
	" build_manifest TEXT, patches TEXT, initramfs_sha256 TEXT, emulator TEXT,"
	" hilbench_commit TEXT, host TEXT, artifacts TEXT);"
	"CREATE TABLE IF NOT EXISTS metrics("
	" run_id TEXT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
	" value REAL NOT NULL, unit TEXT NOT NULL, source TEXT NOT NULL,"
	" PRIMARY KEY (run_id, name));"
	"CREATE INDEX IF NOT EXISTS runs_session ON runs(session);";

/* Version 2: runs.attempt, so a retried run and its failed attempts are
 * told apart. Stores of version 1 get the column, their runs attempt 1. */
static const char migrate_v2[] =
	"ALTER TABLE runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;"
	"PRAGMA user_version = 2;";

/* Version 3: runs.settings, the runtime settings tried before the run
 * (docs/knobs.md), requested and read back, as JSON. Older runs had none
 * (NULL). */
static const char migrate_v3[] =
	"ALTER TABLE runs ADD COLUMN settings TEXT;"
	"PRAGMA user_version = 3;";

/* Version 4: decisions, the planner's verdict per strategy, workload and
 * metric of a session (run/planner.h), so a report made later says how
 * many runs each took and why it stopped. Older sessions have none. */
static const char migrate_v4[] =
	"CREATE TABLE IF NOT EXISTS decisions("
	" session TEXT NOT NULL, reference TEXT NOT NULL, strategy TEXT NOT NULL,"
	" workload TEXT NOT NULL, metric TEXT NOT NULL,"
	" reference_runs INTEGER NOT NULL, candidate_runs INTEGER NOT NULL,"
	" outcome TEXT NOT NULL, delta_pct REAL, lo_pct REAL, hi_pct REAL,"
	" threshold_pct REAL NOT NULL, alpha REAL NOT NULL, why TEXT NOT NULL, movers TEXT,"
	" PRIMARY KEY (session, strategy, workload, metric));"
	"PRAGMA user_version = 4;";

/* Version 5: runs.workload_sha256 (config/workload.h's digest of what the
 * DUT was asked to do), and reused: the runs of other sessions a session
 * judged with as its own (a reference reused by compare, run/planner.h),
 * so its reports read them as the session's. Older runs have no digest
 * and are never reused. */
static const char migrate_v5[] =
	"ALTER TABLE runs ADD COLUMN workload_sha256 TEXT;"
	"CREATE TABLE IF NOT EXISTS reused("
	" session TEXT NOT NULL, run_id TEXT NOT NULL REFERENCES runs(id),"
	" PRIMARY KEY (session, run_id));"
	"PRAGMA user_version = 5;";

/* Version 6: runs.resumed_from, the boot whose saved state the run's boot
 * started from instead of booting (run/executor.c, docs/measurements.md,
 * "Repetitions from a saved boot"). NULL: the run's boot booted, as every
 * boot of older stores did. */
static const char migrate_v6[] =
	"ALTER TABLE runs ADD COLUMN resumed_from TEXT;"
	"PRAGMA user_version = 6;";
#define STORE_VERSION 6

#define STORE_TIMEOUT_DEFAULT_S 30

const char *run_class_name(enum run_class c)
{
	static const char *const names[] = { "pass", "fail", "error", "miss" };
	return names[c];
}

/* The error of the last call, with what to do about the usual ones. */
static void report_error(struct store *s, const char *what)
{
	int code = sqlite3_errcode(s->db) & 0xff;
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		hb_err("store %s/hilbench.db: %s: still locked by another process after %d s "
		       "(another hilbench, or sqlite3 holding a write transaction); nothing was "
		       "written. Let it finish, or wait longer with HILBENCH_STORE_TIMEOUT_S",
		       s->dir, what, s->timeout_s);
	else if (code == SQLITE_FULL || code == SQLITE_IOERR)
		hb_err("store %s/hilbench.db: %s: %s; the file system of %s is full or failing, "
		       "nothing was written. Free space there and go on with --resume",
		       s->dir, what, sqlite3_errmsg(s->db), s->dir);
	else
		hb_err("store %s/hilbench.db: %s: %s", s->dir, what, sqlite3_errmsg(s->db));
}

/* A read that stopped part-way (a damaged file, an I/O error): -1, so that
 * no reader takes the rows it got for the whole selection. */
static int read_failed(struct store *s, const char *what)
{
	hb_err("store %s/hilbench.db: %s stopped part-way: %s; nothing read from it is used",
	       s->dir, what, sqlite3_errmsg(s->db));
	return -1;
}

static int exec_sql(struct store *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		report_error(s, "cannot write");
		return -1;
	}
	return 0;
}

static int user_version(struct store *s)
{
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Creates or upgrades the schema, under the write lock so that two
 * processes opening a new store do not both upgrade it. */
static int ensure_schema(struct store *s)
{
	if (user_version(s) >= STORE_VERSION)
		return 0;	/* readers need no write lock */
	if (exec_sql(s, "BEGIN IMMEDIATE") < 0)
		return -1;
	int ok = sqlite3_exec(s->db, schema, NULL, NULL, NULL) == SQLITE_OK;
	if (ok && user_version(s) < 2)
		ok = sqlite3_exec(s->db, migrate_v2, NULL, NULL, NULL) == SQLITE_OK;
	if (ok && user_version(s) < 3)
		ok = sqlite3_exec(s->db, migrate_v3, NULL, NULL, NULL) == SQLITE_OK;
	if (ok && user_version(s) < 4)
		ok = sqlite3_exec(s->db, migrate_v4, NULL, NULL, NULL) == SQLITE_OK;
	if (ok && user_version(s) < 5)
		ok = sqlite3_exec(s->db, migrate_v5, NULL, NULL, NULL) == SQLITE_OK;
	if (ok && user_version(s) < 6)
		ok = sqlite3_exec(s->db, migrate_v6, NULL, NULL, NULL) == SQLITE_OK;
	if (!ok) {
		report_error(s, "cannot set up the tables");
		exec_sql(s, "ROLLBACK");
		return -1;
	}
	return exec_sql(s, "COMMIT");
}

/* HILBENCH_STORE_TIMEOUT_S: seconds, 1..86400; -1 with the message if bad. */
static int timeout_from_env(void)
{
	const char *v = getenv("HILBENCH_STORE_TIMEOUT_S");
	if (!v || !*v)
		return STORE_TIMEOUT_DEFAULT_S;
	char *end;
	errno = 0;
	long t = strtol(v, &end, 10);
	if (errno || *end || t < 1 || t > 86400) {
		hb_err("HILBENCH_STORE_TIMEOUT_S=%s: give whole seconds from 1 to 86400 "
		       "(default %d)", v, STORE_TIMEOUT_DEFAULT_S);
		return -1;
	}
	return (int)t;
}

struct store *store_open(const char *dir)
{
	struct store *s = xcalloc(1, sizeof(*s));
	s->dir = xstrdup(dir);
	s->timeout_s = timeout_from_env();
	char *runs = path_join(dir, "runs");
	char *path = path_join(dir, "hilbench.db");
	int ok = s->timeout_s > 0 && mkdir_p(runs, 0755) == 0;
	if (s->timeout_s > 0 && !ok)
		hb_err("cannot create %s: %s", runs, strerror(errno));
	/* one connection per thread (hilbench has one): no SQLite mutexes */
	if (ok && sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				  SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		hb_err("cannot open %s: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		ok = 0;
	}
	if (ok) {
		sqlite3_busy_timeout(s->db, s->timeout_s * 1000);
		ok = exec_sql(s, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;") == 0 &&
		     ensure_schema(s) == 0;
	}
	free(runs);
	free(path);
	if (!ok) {
		store_close(s);
		return NULL;
	}
	return s;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->dir);
	free(s);
}

const char *store_dir(const struct store *s)
{
	return s->dir;
}

/* An id's stamp: its time, to the second (store_new_id(), store_id_seconds()). */
static const char id_stamp[] = "%Y%m%dT%H%M%SZ";

void store_new_id(char out[40])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	unsigned char r[3] = { 0 };
	if (getrandom(r, sizeof(r), 0) != sizeof(r)) {
		/* uniqueness still holds within a process through the clock */
		r[0] = (unsigned char)clock();
	}
	char stamp[20];
	strftime(stamp, sizeof(stamp), id_stamp, &tm);
	snprintf(out, 40, "%s-%02x%02x%02x", stamp, r[0], r[1], r[2]);
}

double store_id_seconds(const char *id)
{
	struct tm tm = { 0 };
	const char *rest = id ? strptime(id, id_stamp, &tm) : NULL;
	return rest && *rest == '-' ? (double)timegm(&tm) : NAN;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int run_class_parse(const char *name, enum run_class *c)
{
	for (int i = 0; i < RUN_CLASSES; i++)
		if (!strcmp(name, run_class_name((enum run_class)i))) {
			*c = (enum run_class)i;
			return 0;
		}
	return -1;
}

/* Steps a bound "SELECT 1 ..." once and finalizes it: 1 if it found a row,
 * 0 if not, -1 on error (message printed). */
static int found_row(struct store *s, sqlite3_stmt *st)
{
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		report_error(s, "cannot read");
		return -1;
	}
	return step == SQLITE_ROW;
}

/* 1 if the store has run id, 0 if not, -1 on error (message printed). */
static int has_run(struct store *s, const char *id)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
		report_error(s, "cannot read");
		return -1;
	}
	bind_text(st, 1, id);
	return found_row(s, st);
}

/* The run and its metrics in one transaction. if_absent: a run the store
 * already has is left as it is (1 when inserted, 0 when it was there). */
static int insert_run(struct store *s, const struct run_record *r, int if_absent)
{
	static const char ins_run[] =
		"INSERT INTO runs(id, session, plan, board, strategy, workload, repetition,"
		" boot_id, class, reason, timing, started, ended, kernel_version,"
		" kernel_release, build_key, config_sha256, build_manifest, patches,"
		" initramfs_sha256, emulator, hilbench_commit, host, artifacts, attempt,"
		" settings, workload_sha256, resumed_from)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	static const char ins_metric[] =
		"INSERT INTO metrics(run_id, name, value, unit, source) VALUES (?,?,?,?,?)";
	sqlite3_stmt *st = NULL, *sm = NULL;
	if (exec_sql(s, "BEGIN IMMEDIATE") < 0)
		return -1;
	if (if_absent) {
		int have = has_run(s, r->id);
		if (have != 0) {
			exec_sql(s, "ROLLBACK");
			return have < 0 ? -1 : 0;
		}
	}
	int ok = sqlite3_prepare_v2(s->db, ins_run, -1, &st, NULL) == SQLITE_OK &&
		 sqlite3_prepare_v2(s->db, ins_metric, -1, &sm, NULL) == SQLITE_OK;
	if (ok) {
		const char *text[] = { r->id, r->session, r->plan, r->board, r->strategy,
				       r->workload };
		int i = 1;
		for (size_t k = 0; k < HB_ARRAY_SIZE(text); k++)
			bind_text(st, i++, text[k]);
		sqlite3_bind_int(st, i++, r->repetition);
		const char *more[] = { r->boot_id, run_class_name(r->cls), r->reason, r->timing,
				       r->started, r->ended, r->kernel_version, r->kernel_release,
				       r->build_key, r->config_sha256, r->build_manifest,
				       r->patches, r->initramfs_sha256, r->emulator,
				       r->hilbench_commit, r->host, r->artifacts };
		for (size_t k = 0; k < HB_ARRAY_SIZE(more); k++)
			bind_text(st, i++, more[k]);
		sqlite3_bind_int(st, i++, r->attempt > 0 ? r->attempt : 1);
		bind_text(st, i++, r->settings);
		bind_text(st, i++, r->workload_sha256);
		bind_text(st, i++, r->resumed_from);
		ok = sqlite3_step(st) == SQLITE_DONE;
	}
	for (size_t k = 0; ok && k < r->n_metrics; k++) {
		const struct metric *m = &r->metrics[k];
		sqlite3_reset(sm);
		bind_text(sm, 1, r->id);
		bind_text(sm, 2, m->name);
		sqlite3_bind_double(sm, 3, m->value);
		bind_text(sm, 4, m->unit);
		bind_text(sm, 5, m->source);
		ok = sqlite3_step(sm) == SQLITE_DONE;
	}
	if (!ok) {
		char what[80];
		snprintf(what, sizeof(what), "cannot store run %s", r->id);
		report_error(s, what);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(sm);
	/* A COMMIT that fails leaves the transaction open: rolled back, the
	 * run is surely not stored (the caller keeps its files). */
	if (!ok || exec_sql(s, "COMMIT") < 0) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 1;
}

int store_add_run(struct store *s, const struct run_record *r)
{
	return insert_run(s, r, 0) < 0 ? -1 : 0;
}

int store_import_run(struct store *s, const struct run_record *r)
{
	return insert_run(s, r, 1);
}

int store_check_writable(struct store *s)
{
	if (exec_sql(s, "BEGIN IMMEDIATE") < 0)
		return -1;
	return exec_sql(s, "ROLLBACK");
}

int store_has_pass(struct store *s, const char *session, const char *board,
		   const char *strategy, const char *workload, int repetition)
{
	static const char sql[] =
		"SELECT 1 FROM runs WHERE session = ? AND board = ? AND strategy = ?"
		" AND workload = ? AND repetition = ? AND class = 'pass' LIMIT 1";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		report_error(s, "cannot read");
		return -1;
	}
	bind_text(st, 1, session);
	bind_text(st, 2, board);
	bind_text(st, 3, strategy);
	bind_text(st, 4, workload);
	sqlite3_bind_int(st, 5, repetition);
	return found_row(s, st);
}

int store_session_plan(struct store *s, const char *session, char *plan, size_t len)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT plan FROM runs WHERE session = ? LIMIT 1", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	bind_text(st, 1, session);
	int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
	if (rc == 0)
		snprintf(plan, len, "%s", sqlite3_column_text(st, 0) ?
			 (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	return rc;
}

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* NaN (a verdict with no interval) is stored as NULL, and read back so. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int store_put_decision(struct store *s, const struct decision_record *d)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO decisions(session, reference, strategy, workload, metric,"
		" reference_runs, candidate_runs, outcome, delta_pct, lo_pct, hi_pct,"
		" threshold_pct, alpha, why, movers) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		report_error(s, "cannot store a decision");
		return -1;
	}
	const char *text[] = { d->session, d->reference, d->strategy, d->workload, d->metric };
	int i = 1;
	for (size_t k = 0; k < HB_ARRAY_SIZE(text); k++)
		bind_text(st, i++, text[k]);
	sqlite3_bind_int(st, i++, d->reference_runs);
	sqlite3_bind_int(st, i++, d->candidate_runs);
	bind_text(st, i++, d->outcome);
	bind_real(st, i++, d->delta_pct);
	bind_real(st, i++, d->lo_pct);
	bind_real(st, i++, d->hi_pct);
	sqlite3_bind_double(st, i++, d->threshold_pct);
	sqlite3_bind_double(st, i++, d->alpha);
	bind_text(st, i++, d->why);
	bind_text(st, i++, d->movers && *d->movers ? d->movers : NULL);
	int ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	if (!ok)
		report_error(s, "cannot store a decision");
	return ok ? 0 : -1;
}

int store_each_decision(struct store *s, const char *session,
			int (*cb)(const struct decision_record *d, void *ctx), void *ctx)
{
	static const char sql[] =
		"SELECT session, reference, strategy, workload, metric, reference_runs,"
		" candidate_runs, outcome, delta_pct, lo_pct, hi_pct, threshold_pct, alpha, why,"
		" movers FROM decisions WHERE session = ? ORDER BY rowid";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		report_error(s, "cannot read the decisions");
		return -1;
	}
	bind_text(st, 1, session);
	int step, rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct decision_record d = {
			.session = col(st, 0), .reference = col(st, 1), .strategy = col(st, 2),
			.workload = col(st, 3), .metric = col(st, 4),
			.reference_runs = sqlite3_column_int(st, 5),
			.candidate_runs = sqlite3_column_int(st, 6), .outcome = col(st, 7),
			.delta_pct = col_real(st, 8), .lo_pct = col_real(st, 9),
			.hi_pct = col_real(st, 10), .threshold_pct = sqlite3_column_double(st, 11),
			.alpha = sqlite3_column_double(st, 12), .why = col(st, 13),
			.movers = col(st, 14),
		};
		rc = cb(&d, ctx);
	}
	if (!rc && step != SQLITE_DONE)
		rc = read_failed(s, "reading the decisions");
	sqlite3_finalize(st);
	return rc;
}

/* "?first, ?first+1, ..." for n values */
static char *params(size_t first, size_t n)
{
	char *out = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *more = xasprintf("%s%s?%zu", out, i ? ", " : "", first + i);
		free(out);
		out = more;
	}
	return out;
}

static size_t list_n(const struct strlist *l)
{
	return l ? l->n : 0;
}

/* A selection's conditions on the runs r, but for its session (?1, which
 * readers and store_reuse_runs() use differently) and its metrics: single
 * values ?2..?11, then the workload digests' list from ?12 on (a
 * digests-only list, "IN ()" never written). Bound by bind_run_filter(). */
#define FIRST_LIST_PARAM 12
static char *run_filter(const struct selection *sel)
{
	size_t nd = list_n(sel->workload_sha256s);
	char *digests = params(FIRST_LIST_PARAM, nd);
	char *sql = xasprintf(
		" AND (?2 IS NULL OR r.plan = ?2)"
		" AND (?3 IS NULL OR r.board = ?3) AND (?4 IS NULL OR r.strategy = ?4)"
		" AND (?5 IS NULL OR r.workload = ?5) AND (?6 IS NULL OR r.started >= ?6)"
		" AND (?7 OR r.class = 'pass') AND (?8 IS NULL OR r.timing = ?8)"
		" AND (?9 IS NULL OR r.build_key = ?9) AND (?10 IS NULL OR r.initramfs_sha256 = ?10)"
		" AND (?11 IS NULL OR substr(r.emulator, -length(?11)) = ?11)%s%s%s",
		nd ? " AND r.workload_sha256 IN (" : "", digests, nd ? ")" : "");
	free(digests);
	return sql;
}

static void bind_run_filter(sqlite3_stmt *st, const struct selection *sel)
{
	const char *text[] = { sel->plan, sel->board, sel->strategy, sel->workload, sel->since };
	for (size_t k = 0; k < HB_ARRAY_SIZE(text); k++)
		bind_text(st, (int)k + 2, text[k]);
	sqlite3_bind_int(st, 7, sel->all_classes);
	bind_text(st, 8, sel->timing);
	bind_text(st, 9, sel->build_key);
	bind_text(st, 10, sel->initramfs);
	bind_text(st, 11, sel->emulator_provenance);
	for (size_t i = 0; i < list_n(sel->workload_sha256s); i++)
		bind_text(st, (int)(FIRST_LIST_PARAM + i), sel->workload_sha256s->v[i]);
}

int store_reuse_runs(struct store *s, const char *session, const struct selection *sel,
		     int want)
{
	if (want <= 0)
		return 0;
	struct selection pass = *sel;
	pass.all_classes = 0;
	char *filter = run_filter(&pass);
	size_t first_metric = FIRST_LIST_PARAM + list_n(sel->workload_sha256s);
	size_t nm = list_n(sel->metrics), limit = first_metric + nm;
	char *names = params(first_metric, nm);
	char *has = nm ? xasprintf(" AND (SELECT count(DISTINCT m.name) FROM metrics m"
				   "  WHERE m.run_id = r.id AND m.name IN (%s)) = %zu", names, nm)
		       : xstrdup("");
	char *sql = xasprintf(
		"INSERT INTO reused(session, run_id) SELECT ?1, r.id FROM runs r"
		" WHERE r.session != ?1"
		" AND r.id NOT IN (SELECT run_id FROM reused WHERE session = ?1)%s%s"
		" AND r.boot_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs o"
		"  WHERE o.boot_id = r.boot_id AND o.workload = r.workload AND o.id != r.id)"
		" ORDER BY r.started DESC LIMIT ?%zu", filter, has, limit);
	free(filter);
	free(names);
	free(has);
	if (exec_sql(s, "BEGIN IMMEDIATE") < 0) {
		free(sql);
		return -1;
	}
	sqlite3_stmt *st;
	int ok = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK;
	free(sql);
	if (ok) {
		bind_text(st, 1, session);
		bind_run_filter(st, &pass);
		for (size_t i = 0; i < nm; i++)
			bind_text(st, (int)(first_metric + i), sel->metrics->v[i]);
		sqlite3_bind_int(st, (int)limit, want);
		ok = sqlite3_step(st) == SQLITE_DONE;
	}
	int added = ok ? sqlite3_changes(s->db) : -1;
	sqlite3_finalize(st);
	if (!ok)
		report_error(s, "cannot record the reused runs");
	if (!ok || exec_sql(s, "COMMIT") < 0) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return added;
}

int store_each_reused(struct store *s, const char *session,
		      int (*fn)(const char *strategy, const char *workload, const char *from,
				int runs, void *ctx), void *ctx)
{
	static const char sql[] =
		"SELECT r.strategy, r.workload, r.session, count(*) FROM reused u"
		" JOIN runs r ON r.id = u.run_id WHERE u.session = ?"
		" GROUP BY r.strategy, r.workload, r.session ORDER BY min(u.rowid)";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		report_error(s, "cannot read the reused runs");
		return -1;
	}
	bind_text(st, 1, session);
	int step, rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(col(st, 0), col(st, 1), col(st, 2), sqlite3_column_int(st, 3), ctx);
	if (!rc && step != SQLITE_DONE)
		rc = read_failed(s, "reading the reused runs");
	sqlite3_finalize(st);
	return rc;
}

int store_foreach(struct store *s, const struct selection *sel,
		  int (*fn)(const struct run_row *row, void *ctx), void *ctx)
{
	static const char query[] =
		"SELECT r.id, r.session, r.board, r.strategy, r.workload, r.class, r.reason,"
		" r.timing, r.repetition, m.name, m.unit, m.source, m.value, r.build_key, r.patches,"
		" r.boot_id, %s"
		" FROM runs r LEFT JOIN metrics m ON m.run_id = r.id"
		" WHERE (?1 IS NULL OR r.session = ?1"
		"  OR r.id IN (SELECT run_id FROM reused WHERE session = ?1))%s"
		" AND (r.class != 'pass' OR m.name IS NOT NULL)%s%s"
		" ORDER BY r.rowid, m.name";	/* insertion order: the plan's order */
	/* metric and run filters: one parameter per value after the run
	 * filter's, bound below */
	size_t first = FIRST_LIST_PARAM + list_n(sel->workload_sha256s);
	size_t nmetrics = list_n(sel->metrics), nruns = list_n(sel->runs);
	size_t nprefixes = list_n(sel->metric_prefixes);
	char *metrics = params(first, nmetrics), *runs = params(first + nmetrics, nruns);
	/* a prefix's parameter twice: substr(m.name, 1, length(?N)) = ?N */
	char *prefixes = xstrdup("");
	for (size_t i = 0; i < nprefixes; i++) {
		size_t k = first + nmetrics + nruns + i;
		char *more = xasprintf("%s%ssubstr(m.name, 1, length(?%zu)) = ?%zu", prefixes,
				       i || nmetrics ? " OR " : "", k, k);
		free(prefixes);
		prefixes = more;
	}
	char *filter = xasprintf("%s%s%s%s%s%s%s%s", nmetrics || nprefixes ? " AND (m.name IS NULL OR " : "",
				 nmetrics ? "m.name IN (" : "", metrics, nmetrics ? ")" : "",
				 prefixes, nmetrics || nprefixes ? ")" : "",
				 nruns ? " AND r.id IN (" : "", nruns ? runs : "");
	free(prefixes);
	const char *provenance = sel->no_provenance
		? "NULL, NULL, NULL, NULL, NULL, NULL"
		: "r.plan, r.started, r.kernel_version, r.kernel_release, r.ended, r.build_manifest";
	char *runs_filter = run_filter(sel);
	char *sql = xasprintf(query, provenance, runs_filter, filter, nruns ? ")" : "");
	free(runs_filter);
	free(metrics);
	free(runs);
	free(filter);
	sqlite3_stmt *st;
	int prepared = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	free(sql);
	if (prepared != SQLITE_OK) {
		hb_err("store query: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	bind_text(st, 1, sel->session);
	bind_run_filter(st, sel);
	for (size_t i = 0; i < nmetrics; i++)
		bind_text(st, (int)(first + i), sel->metrics->v[i]);
	for (size_t i = 0; i < nruns; i++)
		bind_text(st, (int)(first + nmetrics + i), sel->runs->v[i]);
	for (size_t i = 0; i < nprefixes; i++)
		bind_text(st, (int)(first + nmetrics + nruns + i), sel->metric_prefixes->v[i]);
	int rc = 0, step;
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct run_row row = {
			.id = col(st, 0), .session = col(st, 1), .board = col(st, 2),
			.strategy = col(st, 3), .workload = col(st, 4), .cls = col(st, 5),
			.reason = col(st, 6), .timing = col(st, 7),
			.repetition = sqlite3_column_int(st, 8), .metric = col(st, 9),
			.unit = col(st, 10), .source = col(st, 11),
			.value = sqlite3_column_double(st, 12), .build_key = col(st, 13),
			.patches = col(st, 14), .boot_id = col(st, 15), .plan = col(st, 16),
			.started = col(st, 17), .kernel_version = col(st, 18),
			.kernel_release = col(st, 19), .ended = col(st, 20),
			.build_manifest = col(st, 21),
		};
		rc = fn(&row, ctx);
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = read_failed(s, "reading runs");
	sqlite3_finalize(st);
	return rc;
}

/* store_count_runs(): rows come per run and metric, a run's together */
struct run_count {
	char last[40];
	int n;
	const struct strlist *groups;
	size_t ngroups;
	int *counts;
};

static int count_run(const struct run_row *r, void *ctx)
{
	struct run_count *c = ctx;
	if (strcmp(c->last, r->id)) {
		snprintf(c->last, sizeof(c->last), "%s", r->id);
		c->n++;
		for (size_t g = 0; g < c->ngroups; g++)
			c->counts[g] += r->workload && strlist_has(&c->groups[g], r->workload);
	}
	return 0;
}

int store_count_runs_by_workload(struct store *s, const struct selection *sel,
				 const struct strlist *groups, size_t ngroups, int *counts)
{
	struct run_count c = { "", 0, groups, ngroups, counts };
	for (size_t g = 0; g < ngroups; g++)
		counts[g] = 0;
	return store_foreach(s, sel, count_run, &c) < 0 ? -1 : c.n;
}

int store_count_runs(struct store *s, const struct selection *sel)
{
	return store_count_runs_by_workload(s, sel, NULL, 0, NULL);
}

/* The first row's session of a prepared query, copied to out, the query
 * finalized; -1 when it has none. */
static int first_session(sqlite3_stmt *st, char *out, size_t len)
{
	int rc = sqlite3_step(st) == SQLITE_ROW && col(st, 0) ? 0 : -1;
	if (rc == 0)
		snprintf(out, len, "%s", col(st, 0));
	sqlite3_finalize(st);
	return rc;
}

int store_last_decided_sessions(struct store *s, const char *plan, const char *except,
				char (*out)[40], int max)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT r.session FROM runs r WHERE r.plan = ?1"
			       " AND r.session <> ?2 AND r.session IN (SELECT session FROM"
			       " decisions) GROUP BY r.session"
			       " ORDER BY MAX(r.started) DESC, MAX(r.id) DESC LIMIT ?3", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	bind_text(st, 1, plan);
	bind_text(st, 2, except);
	sqlite3_bind_int(st, 3, max);
	int n = 0;
	while (n < max && sqlite3_step(st) == SQLITE_ROW)
		if (col(st, 0))
			snprintf(out[n++], 40, "%s", col(st, 0));
	sqlite3_finalize(st);
	return n;
}

int store_latest_session(struct store *s, char *out, size_t len)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT session FROM runs ORDER BY started DESC, id DESC"
			       " LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	return first_session(st, out, len);
}

int store_show_run(struct store *s, const char *id)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT * FROM runs WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_text(st, 1, id);
	int found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		for (int i = 0; i < sqlite3_column_count(st); i++)
			printf("%-17s %s\n", sqlite3_column_name(st, i),
			       col(st, i) ? col(st, i) : "-");
	}
	sqlite3_finalize(st);
	if (!found) {
		hb_err("no run '%s' in %s/hilbench.db; `hilbench show` lists the runs", id, s->dir);
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT name, value, unit, source FROM metrics"
			       " WHERE run_id = ? ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_text(st, 1, id);
	printf("metrics:\n");
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		printf("  %-28s %14.3f %-8s %s\n", col(st, 0), sqlite3_column_double(st, 1),
		       col(st, 2), col(st, 3));
	int rc = step == SQLITE_DONE ? 0 : read_failed(s, "reading the metrics");
	sqlite3_finalize(st);
	return rc;
}

struct run_list {
	FILE *out;
	char *last;	/* a copy: r->id is SQLite's, and the next row reuses it */
};

/* One line per run: what `hilbench show` lists. */
static int list_row(const struct run_row *r, void *ctx)
{
	struct run_list *l = ctx;
	const struct metric_def *m = r->metric ? metric_find(r->metric) : NULL;
	if (r->metric && (!m || m->shown != SHOWN_HEADLINE))
		return 0;
	if (!l->last || strcmp(l->last, r->id)) {
		fprintf(l->out, "\n%-24s %-18s %-14s %-14s %2d %-5s %-8s", r->id, r->board,
			r->strategy, r->workload, r->repetition, r->cls, r->timing);
		if (r->reason)
			fprintf(l->out, " %s", r->reason);
		free(l->last);
		l->last = xstrdup(r->id);
	}
	if (r->metric)
		fprintf(l->out, " %s=%.1f", r->metric, r->value);
	return 0;
}

int store_list_runs(struct store *s, FILE *out)
{
	struct run_list l = { out, NULL };
	fprintf(out, "%-24s %-18s %-14s %-14s %2s %-5s %-8s", "run", "board", "strategy",
		"workload", "#", "class", "timing");
	struct selection all = { .all_classes = 1 };
	int rc = store_foreach(s, &all, list_row, &l);
	fprintf(out, "\n");
	free(l.last);
	return rc;
}
