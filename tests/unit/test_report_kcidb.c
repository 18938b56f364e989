/* report --format kcidb: runs of every class become KCIDB v5 checkouts,
 * builds and tests that pass tests/kcidb/validate.py (kcidb-io's own v5.3
 * schema, vendored, plus no-nulls and references).
 * The runs are written by the test into a real store in a temp dir; their
 * values are made up for the export, not measurements. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/report.h"
#include "store/store.h"
#include "util/proc.h"
#include "util/util.h"

static char dir[64];
static struct store *st;

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
static const char patches[] = "[{\"layer\":\"strategy\",\"path\":\"0001-x.patch\",\"sha256\":\""
			      SHA_A "\"},{\"layer\":\"user\",\"path\":\"y.patch\",\"sha256\":\""
			      SHA_B "\"}]";

static const char *manifest;	/* a build manifest as build/kernel.c writes it */

static void add_run(const char *session, const char *id, enum run_class cls,
		    const char *workload, const char *reason, const char *build_key,
		    const char *patch_json)
{
	struct metric m[] = { { "pps", 74000.5, "packets/s", "test" },
			      { "mbps", 37.9, "Mbit/s", "test" } };
	struct run_record r = {
		.session = session, .plan = "p", .board = "qemu-orangepi-pc", .strategy = "gating",
		.workload = workload, .repetition = 0, .cls = cls, .reason = reason,
		.timing = "virtual", .started = "2026-11-30T02:00:00Z",
		.ended = "2026-11-30T02:00:30Z", .kernel_version = build_key ? "6.1.200" : NULL,
		.kernel_release = build_key ? "6.1.0-hb" : NULL, .build_key = build_key,
		.build_manifest = build_key ? manifest : NULL,
		.patches = build_key ? patch_json : NULL,
		.metrics = m, .n_metrics = cls == RUN_PASS ? 2 : 0,
	};
	snprintf(r.id, sizeof(r.id), "%s", id);
	assert_int_equal(store_add_run(st, &r), 0);
}

static void add_patched(const char *id, enum run_class cls, const char *workload,
			const char *reason, const char *build_key, const char *patch_json)
{
	add_run("s1", id, cls, workload, reason, build_key, patch_json);
}

static void add(const char *id, enum run_class cls, const char *workload, const char *reason,
		const char *build_key)
{
	add_patched(id, cls, workload, reason, build_key, patches);
}

#define COMMIT "0123456789abcdef0123456789abcdef01234567"
/* a --kernel-git run: build/gitsource.c's layer, named <base>..<commit> */
static const char git_patches[] = "[{\"layer\":\"user\",\"path\":\"/c/git/"
				  "fedcba9876543210fedcba9876543210fedcba98.." COMMIT ".patch\","
				  "\"sha256\":\"" SHA_A "\",\"git_repository_url\":"
				  "\"https://git.example.org/lab/linux.git\"}]";

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-kcidb-XXXXXX");
	if (!mkdtemp(dir) || !(st = store_open(dir)))
		return -1;
	static char manifest_path[96];
	snprintf(manifest_path, sizeof(manifest_path), "%s/manifest.json", dir);
	static const char m[] = "{\"schema\":\"hilbench-kernel-build/1\",\"source\":{\"kind\":"
				"\"debian\",\"deb_version\":\"6.1.200-1\",\"identity\":\"debian x\"},"
				"\"toolchain\":\"gcc 12\",\"build_seconds\":571.5}";
	if (write_file_atomic(manifest_path, m, strlen(m)) < 0)
		return -1;
	manifest = manifest_path;
	const char *key = "1111111111111111111111111111111111111111111111111111111111111111";
	add("r1", RUN_PASS, "udp64-dut-tx", NULL, key);
	add("r2", RUN_PASS, "udp 64/<weird>", NULL, key);
	add("r3", RUN_FAIL, "udp64-dut-tx", "agent: iperf3 exited 1 \"quoted\"", key);
	add("r4", RUN_ERROR, "udp64-dut-tx", "build failed (see the error above)", NULL);
	add_patched("r5", RUN_PASS, "udp64-dut-tx", NULL,
		    "2222222222222222222222222222222222222222222222222222222222222222", git_patches);
	/* session s3: a --kernel-src git checkout, whose manifest names the
	 * commit's repository and branch (build/source.c) */
	static char git_manifest_path[96];
	snprintf(git_manifest_path, sizeof(git_manifest_path), "%s/git-manifest.json", dir);
	static const char gm[] = "{\"schema\":\"hilbench-kernel-build/1\",\"source\":{\"kind\":"
				 "\"dir\",\"identity\":\"git " COMMIT " "
				 "1111111111111111111111111111111111111111 clean\","
				 "\"git_repository_url\":\"https://git.kernel.org/pub/scm/linux/"
				 "kernel/git/netdev/net-next.git\",\"git_repository_branch\":"
				 "\"main\"}}";
	if (write_file_atomic(git_manifest_path, gm, strlen(gm)) < 0)
		return -1;
	manifest = git_manifest_path;
	add_run("s3", "g1", RUN_PASS, "udp64-dut-tx", NULL,
		"3333333333333333333333333333333333333333333333333333333333333333", patches);
	manifest = manifest_path;
	/* session s2: a strategy whose kernel did not build, so none of its
	 * runs ran (run/executor.c stores each with the build's reason) */
	static const char *const workloads[] = { "udp64-dut-tx", "tcp-dut-tx", "tcp-dut-rx" };
	for (int i = 0; i < 6; i++) {
		char id[8];
		snprintf(id, sizeof(id), "f%d", i);
		add_run("s2", id, RUN_ERROR, workloads[i % 3], "build failed: bad input (see the error "
			"above)", NULL, NULL);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(st);
	return rm_rf(dir);
}

static char *export_session(const char *session, const char *name)
{
	char *path = path_join(dir, name);
	struct selection sel = { .session = session };
	assert_int_equal(report_write_file(st, &sel, NULL, REPORT_KCIDB, path), 0);
	return path;
}

static char *export_to(const char *name)
{
	return export_session("s1", name);
}

/* validate.py's exit status; its complaints (stderr) in *why when given. */
static int validate_why(const char *path, char **why)
{
	char *script = path_join(getenv("HILBENCH_HOME") ? getenv("HILBENCH_HOME") : ".",
				 "tests/kcidb/validate.py");
	char *log = xasprintf("%s.stderr", path);
	char *argv[] = { "python3", script, (char *)path, NULL };
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.log = log;
	unlink(log);
	int rc = proc_run(argv, &o);
	if (why)
		*why = read_file(log, NULL);
	free(log);
	free(script);
	return rc;
}

static int validate(const char *path)
{
	return validate_why(path, NULL);
}

static cJSON *load(const char *path)
{
	char *text = read_file(path, NULL);
	assert_non_null(text);
	cJSON *j = cJSON_Parse(text);
	free(text);
	assert_non_null(j);
	return j;
}

static void export_passes_the_kcidb_schema(void **state)
{
	(void)state;
	char *path = export_to("kcidb.json");
	assert_int_equal(validate(path), 0);
	free(path);
}

static void measurements_are_done_tests_with_numbers(void **state)
{
	(void)state;
	char *path = export_to("kcidb.json");
	cJSON *j = load(path);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "version"), "major")->valueint, 5);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "checkouts")), 3);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "builds")), 3);
	cJSON *tests = cJSON_GetObjectItem(j, "tests");
	assert_int_equal(cJSON_GetArraySize(tests), 8);	/* 3 runs x 2 metrics + 2 failed runs */
	int done = 0, fail = 0, error = 0, weird = 0;
	cJSON *t;
	cJSON_ArrayForEach(t, tests) {
		const char *status = cJSON_GetObjectItem(t, "status")->valuestring;
		const char *p = cJSON_GetObjectItem(t, "path")->valuestring;
		if (!strcmp(status, "DONE")) {
			done++;
			cJSON *num = cJSON_GetObjectItem(t, "number");
			assert_non_null(cJSON_GetObjectItem(num, "value"));
			assert_non_null(cJSON_GetObjectItem(num, "unit"));
		}
		fail += !strcmp(status, "FAIL");
		error += !strcmp(status, "ERROR");
		weird += !strcmp(p, "hilbench.udp_64__weird_.pps");
	}
	assert_int_equal(done, 6);
	assert_int_equal(fail, 1);
	assert_int_equal(error, 0);	/* r4 never got a kernel: MISS */
	assert_int_equal(weird, 1);
	/* KCIDB's patchset_hash: sha256 of the newline-terminated patch hashes */
	char want[65];
	sha256_hex(SHA_A "\n" SHA_B "\n", 130, want);
	cJSON *checkout = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "checkouts"), 0);
	assert_string_equal(cJSON_GetObjectItem(checkout, "patchset_hash")->valuestring, want);
	assert_null(cJSON_GetObjectItem(checkout, "git_commit_hash"));
	/* Debian's linux-source: its package version names the tree */
	assert_string_equal(cJSON_GetObjectItem(checkout, "tree_name")->valuestring,
			    "debian-6.1.200-1");
	/* the git layer is the checkout's commit, not part of its patchset */
	cJSON *git = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "checkouts"), 2);
	assert_string_equal(cJSON_GetObjectItem(git, "git_commit_hash")->valuestring, COMMIT);
	assert_string_equal(cJSON_GetObjectItem(git, "patchset_hash")->valuestring, "");
	assert_null(cJSON_GetObjectItem(git, "tree_name"));
	/* and its repository, which the run recorded with the layer (run/executor.c) */
	assert_string_equal(cJSON_GetObjectItem(git, "git_repository_url")->valuestring,
			    "https://git.example.org/lab/linux.git");
	assert_null(cJSON_GetObjectItem(checkout, "git_repository_url"));
	cJSON_Delete(j);
	/* no host paths: a patch is its file name and hash */
	char *text = read_file(path, NULL);
	assert_null(strstr(text, "/c/git/"));
	assert_non_null(strstr(text, "\"fedcba9876543210fedcba9876543210fedcba98.." COMMIT ".patch\""));
	free(text);
	free(path);
}

/* A checkout of a git tree names the commit, the repository others can
 * fetch it from and the branch, so it groups with other CI systems' results
 * of the same commit; and it still validates. */
static void kcidb_git_checkout_names_its_repository(void **state)
{
	(void)state;
	char *path = export_session("s3", "git.json");
	assert_int_equal(validate(path), 0);
	char *text = read_file(path, NULL);
	cJSON *j = cJSON_Parse(text);
	cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "checkouts"), 0);
	assert_string_equal(cJSON_GetObjectItem(c, "git_commit_hash")->valuestring, COMMIT);
	assert_string_equal(cJSON_GetObjectItem(c, "git_repository_url")->valuestring,
			    "https://git.kernel.org/pub/scm/linux/kernel/git/netdev/net-next.git");
	assert_string_equal(cJSON_GetObjectItem(c, "git_repository_branch")->valuestring, "main");
	cJSON_Delete(j);
	free(text);
	free(path);
}

static const cJSON *find_id(const cJSON *list, const char *id)
{
	const cJSON *o;
	cJSON_ArrayForEach(o, list)
		if (!strcmp(cJSON_GetObjectItem(o, "id")->valuestring, id))
			return o;
	return NULL;
}

/* A build failure is one FAIL build, whose runs are MISS tests: not one
 * ERROR build per run, and no checkout claiming a version or an empty
 * patchset it never had. */
static void kcidb_build_failure(void **state)
{
	(void)state;
	char *path = export_session("s2", "kcidb-s2.json");
	assert_int_equal(validate(path), 0);
	cJSON *j = load(path);
	cJSON *builds = cJSON_GetObjectItem(j, "builds"), *tests = cJSON_GetObjectItem(j, "tests");
	cJSON *checkouts = cJSON_GetObjectItem(j, "checkouts");
	assert_int_equal(cJSON_GetArraySize(builds), 1);
	assert_int_equal(cJSON_GetArraySize(checkouts), 1);
	const cJSON *b = cJSON_GetArrayItem(builds, 0);
	assert_string_equal(cJSON_GetObjectItem(b, "status")->valuestring, "FAIL");
	assert_non_null(strstr(cJSON_GetObjectItem(b, "log_excerpt")->valuestring, "build failed"));
	assert_int_equal(cJSON_GetArraySize(tests), 6);
	const cJSON *t;
	cJSON_ArrayForEach(t, tests) {
		assert_string_equal(cJSON_GetObjectItem(t, "status")->valuestring, "MISS");
		assert_string_equal(cJSON_GetObjectItem(t, "build_id")->valuestring,
				    cJSON_GetObjectItem(b, "id")->valuestring);
	}
	const cJSON *c = find_id(checkouts, cJSON_GetObjectItem(b, "checkout_id")->valuestring);
	assert_non_null(c);
	assert_null(cJSON_GetObjectItem(c, "patchset_hash"));
	assert_null(cJSON_GetObjectItem(c, "valid"));
	assert_null(strstr(cJSON_GetObjectItem(c, "comment")->valuestring, "unknown version"));
	cJSON_Delete(j);
	free(path);
}

/* The validator must be able to say no, or the first test means nothing. */
static void validator_rejects_a_broken_report(void **state)
{
	(void)state;
	char *path = path_join(dir, "broken.json");
	static const char broken[] =
		"{\"version\":{\"major\":5,\"minor\":0},\"builds\":[],\"tests\":[{\"id\":\"hilbench:x\","
		"\"origin\":\"hilbench\",\"build_id\":\"hilbench:nowhere\",\"status\":\"PASSED\","
		"\"path\":\"a..b\",\"comment\":null}]}";
	assert_int_equal(write_file_atomic(path, broken, strlen(broken)), 0);
	char *why = NULL;
	assert_int_equal(validate_why(path, &why), 1);
	/* each of the three checks said why: an ImportError, a missing
	 * schema or a crash also exit 1, and would say none of this */
	assert_non_null(why);
	assert_non_null(strstr(why, "tests/0/status: 'PASSED' is not one of"));
	assert_non_null(strstr(why, "$.tests[0].comment: null (KCIDB has no nulls)"));
	assert_non_null(strstr(why, "test hilbench:x: build hilbench:nowhere not in the report"));
	assert_null(strstr(why, "Traceback"));
	free(why);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(export_passes_the_kcidb_schema),
		cmocka_unit_test(measurements_are_done_tests_with_numbers),
		cmocka_unit_test(validator_rejects_a_broken_report),
		cmocka_unit_test(kcidb_build_failure),
		cmocka_unit_test(kcidb_git_checkout_names_its_repository),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
