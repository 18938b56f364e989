/* runfile: a run the store could not take keeps its row in its directory
 * and is imported whole by --resume: class, reason, provenance and
 * metrics as the row would have been; once only; a directory without the
 * file (a run that never finished) or with a file of another run is not
 * imported. Real SQLite files in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/runfile.h"
#include "util/util.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-runfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

/* The first column of the first row of sql, as text ("" for none). */
static char *query(const char *sql)
{
	char *path = path_join(dir, "hilbench.db");
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	char *out = xstrdup(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)
			    ? (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
	return out;
}

static void assert_query(const char *sql, const char *want)
{
	char *got = query(sql);
	if (strcmp(got, want))
		print_error("%s\n  got:  %s\n  want: %s\n", sql, got, want);
	assert_string_equal(got, want);
	free(got);
}

static const struct metric metrics[] = {
	{ "pps", 123456.789012345, "packets/s", "iperf3 receiver (host)" },
	{ "dut_cpu_pct", 0.1, "%", "/proc/stat (DUT)" },
};

/* A finished run's directory, as run/executor.c leaves it when the store is
 * locked: its files, then the row beside them. */
static void kept_run(const char *id, enum run_class cls, int with_row)
{
	struct run_record r = {
		.session = "S1", .plan = "adhoc", .board = "qemu-orangepi-pc",
		.strategy = "baseline", .workload = "udp64-smoke", .repetition = 2,
		.boot_id = "B1", .cls = cls, .reason = cls == RUN_PASS ? NULL : "agent: iperf3 killed",
		.timing = "virtual", .started = "2026-11-30T10:00:00Z",
		.ended = "2026-11-30T10:00:09Z", .kernel_version = "6.1.158",
		.kernel_release = "6.1.158-hb", .build_key = "k1", .config_sha256 = "c1",
		.build_manifest = "/cache/k1/manifest.json", .patches = "[]",
		.initramfs_sha256 = "i1", .emulator = "QEMU 7.2.x", .hilbench_commit = "abc",
		.host = "h", .attempt = 2, .settings = "[{\"name\":\"tx-usecs\"}]",
		.metrics = cls == RUN_PASS ? metrics : NULL,
		.n_metrics = cls == RUN_PASS ? HB_ARRAY_SIZE(metrics) : 0,
	};
	snprintf(r.id, sizeof(r.id), "%s", id);
	char *rel = xasprintf("runs/%s", id), *rundir = path_join(dir, rel);
	r.artifacts = rel;
	char *log = path_join(rundir, "agent.log");
	assert_int_equal(mkdir_p(rundir, 0755), 0);
	assert_int_equal(write_file_atomic(log, "HB END\n", 7), 0);
	if (with_row)
		assert_int_equal(runfile_write(rundir, &r), 0);
	free(log);
	free(rundir);
	free(rel);
}

static int runfile_exists(const char *id)
{
	char *path = xasprintf("%s/runs/%s/%s", dir, id, RUNFILE_NAME);
	int e = path_exists(path);
	free(path);
	return e;
}

static void a_kept_run_is_imported_whole_once(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	assert_non_null(s);
	kept_run("R1", RUN_PASS, 1);
	kept_run("R2", RUN_FAIL, 1);
	assert_int_equal(runfile_import_all(s), 2);
	assert_query("SELECT group_concat(id || ':' || class || ':' || ifnull(reason, '-'), ' ')"
		     " FROM (SELECT * FROM runs ORDER BY id)",
		     "R1:pass:- R2:fail:agent: iperf3 killed");
	assert_query("SELECT session || plan || board || strategy || workload || repetition ||"
		     " boot_id || timing || started || ended || kernel_version || kernel_release ||"
		     " build_key || config_sha256 || build_manifest || patches || initramfs_sha256 ||"
		     " emulator || hilbench_commit || host || artifacts || attempt || settings"
		     " FROM runs WHERE id = 'R1'",
		     "S1adhocqemu-orangepi-pcbaselineudp64-smoke2B1virtual2026-11-30T10:00:00Z"
		     "2026-11-30T10:00:09Z6.1.1586.1.158-hbk1c1/cache/k1/manifest.json[]i1"
		     "QEMU 7.2.xabchruns/R12[{\"name\":\"tx-usecs\"}]");
	/* metrics exactly: the double survives the file */
	assert_query("SELECT group_concat(name || '=' || printf('%.9f', value) || unit || source, ' ')"
		     " FROM (SELECT * FROM metrics WHERE run_id = 'R1' ORDER BY name)",
		     "dut_cpu_pct=0.100000000%/proc/stat (DUT) "
		     "pps=123456.789012345packets/siperf3 receiver (host)");
	assert_query("SELECT count(*) FROM metrics WHERE run_id = 'R2'", "0");
	assert_false(runfile_exists("R1"));
	assert_false(runfile_exists("R2"));
	/* a second --resume finds nothing to import */
	assert_int_equal(runfile_import_all(s), 0);
	assert_query("SELECT count(*) FROM runs", "2");
	assert_query("PRAGMA integrity_check", "ok");
	store_close(s);
}

static void a_run_the_store_has_is_not_imported_again(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	kept_run("R3", RUN_PASS, 1);
	assert_int_equal(runfile_import_all(s), 1);
	/* its row came back (a crash between storing and removing the file) */
	kept_run("R3", RUN_ERROR, 1);
	assert_int_equal(runfile_import_all(s), 0);
	assert_query("SELECT count(*) || class FROM runs WHERE id = 'R3'", "1pass");
	assert_false(runfile_exists("R3"));
	store_close(s);
}

static void unfinished_or_foreign_files_are_not_imported(void **state)
{
	(void)state;
	struct store *s = store_open(dir);
	kept_run("R4", RUN_PASS, 0);		/* files, no row: never finished */
	kept_run("R5", RUN_PASS, 1);
	char *r5 = xasprintf("%s/runs/R5/%s", dir, RUNFILE_NAME);
	char *r6dir = xasprintf("%s/runs/R6", dir), *r6 = path_join(r6dir, RUNFILE_NAME);
	assert_int_equal(mkdir_p(r6dir, 0755), 0);
	/* R5's row in R6's directory, and a cut-short file in R5's */
	char *text = read_file(r5, NULL);
	assert_int_equal(write_file_atomic(r6, text, strlen(text)), 0);
	assert_int_equal(write_file_atomic(r5, text, strlen(text) / 2), 0);
	assert_int_equal(runfile_import_all(s), 0);
	assert_query("SELECT count(*) FROM runs", "0");
	assert_true(path_exists(r5) && path_exists(r6));	/* left for a human */
	free(text);
	free(r5);
	free(r6);
	free(r6dir);
	store_close(s);
}

static void a_locked_store_keeps_the_files(void **state)
{
	(void)state;
	setenv("HILBENCH_STORE_TIMEOUT_S", "1", 1);
	struct store *s = store_open(dir);
	kept_run("R7", RUN_PASS, 1);
	char *path = path_join(dir, "hilbench.db");
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(runfile_import_all(s), -1);
	assert_true(runfile_exists("R7"));
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(runfile_import_all(s), 1);
	assert_query("SELECT count(*) FROM runs WHERE id = 'R7'", "1");
	unsetenv("HILBENCH_STORE_TIMEOUT_S");
	free(path);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_kept_run_is_imported_whole_once, setup, teardown),
		cmocka_unit_test_setup_teardown(a_run_the_store_has_is_not_imported_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(unfinished_or_foreign_files_are_not_imported, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_locked_store_keeps_the_files, setup, teardown),
	};
	return cmocka_run_group_tests_name("runfile", tests, NULL, NULL);
}
