/* gitsource: a revision of a local git tree becomes `git diff BASE REV` as
 * a patch file in the cache. The repository is a tiny one the test makes
 * in a temp dir with git (two files, three commits). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/gitsource.h"
#include "util/proc.h"
#include "util/util.h"

static char dir[64];
static char *repo;

static void git(const char *a, const char *b, const char *c, const char *d)
{
	char *argv[] = { "git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t.invalid",
			 (char *)a, (char *)b, (char *)c, (char *)d, NULL };
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.stdout_fd = -1;
	assert_int_equal(proc_run(argv, &o), 0);
}

static void write_in_repo(const char *name, const char *text)
{
	char *path = path_join(repo, name);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-gitsource-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char *cache = path_join(dir, "cache");
	setenv("HILBENCH_CACHE", cache, 1);
	free(cache);
	repo = path_join(dir, "repo");
	char *init[] = { "git", "init", "-q", repo, NULL };
	if (proc_run(init, NULL) != 0)
		return -1;
	write_in_repo("Makefile", "VERSION = 6\n");
	write_in_repo("driver.c", "int x;\n");
	git("add", "-A", NULL, NULL);
	git("commit", "-q", "-m", "base");
	git("tag", "base", NULL, NULL);
	write_in_repo("driver.c", "int x;\nint y;\n");
	git("commit", "-q", "-am", "driver: add y");
	git("tag", "one", NULL, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(repo);
	return rm_rf(dir);
}

static void a_revision_is_its_diff_from_the_root(void **state)
{
	(void)state;
	struct git_revision r;
	assert_int_equal(git_revision_prepare(repo, "one", NULL, &r), 0);
	assert_string_equal(r.subject, "driver: add y");
	assert_non_null(r.patch);
	assert_non_null(strstr(r.patch, "/git/"));
	char *text = read_file(r.patch, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "+++ b/driver.c"));
	assert_non_null(strstr(text, "+int y;"));
	char sha[65];
	sha256_hex(text, strlen(text), sha);
	assert_string_equal(r.patch_sha256, sha);
	free(text);
	char tag[16];
	git_revision_tag(&r, tag);
	assert_int_equal(strlen(tag), 13);
	assert_int_equal(strncmp(tag + 1, r.commit, 12), 0);
	git_revision_free(&r);
}

static void the_base_itself_needs_no_patch(void **state)
{
	(void)state;
	struct git_revision r;
	assert_int_equal(git_revision_prepare(repo, "base", NULL, &r), 0);
	assert_null(r.patch);
	assert_string_equal(r.commit, r.base);
	git_revision_free(&r);
}

static void unknown_revisions_are_refused(void **state)
{
	(void)state;
	struct git_revision r;
	assert_int_equal(git_revision_prepare(repo, "no-such-rev", NULL, &r), -1);
	git_revision_free(&r);
	assert_int_equal(git_revision_prepare(repo, "one", "no-such-base", &r), -1);
	git_revision_free(&r);
}

/* The repository's URL goes into KCIDB's git_repository_url: https only,
 * without the credentials a lab's remote may carry; nothing for a remote
 * others cannot fetch from. */
static void the_repository_is_named_without_credentials(void **state)
{
	(void)state;
	struct git_revision r;
	assert_int_equal(git_revision_prepare(repo, "one", NULL, &r), 0);
	assert_null(r.url);	/* no remote */
	git_revision_free(&r);
	git("remote", "add", "origin", "https://lab:s3cret@git.example.org/lab/linux.git");
	assert_int_equal(git_revision_prepare(repo, "one", NULL, &r), 0);
	assert_string_equal(r.url, "https://git.example.org/lab/linux.git");
	git_revision_free(&r);
	git("remote", "set-url", "origin", "git@git.example.org:lab/linux.git");
	assert_int_equal(git_revision_prepare(repo, "one", NULL, &r), 0);
	assert_null(r.url);
	git_revision_free(&r);
	git("remote", "remove", "origin", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_revision_is_its_diff_from_the_root),
		cmocka_unit_test(the_base_itself_needs_no_patch),
		cmocka_unit_test(unknown_revisions_are_refused),
		cmocka_unit_test(the_repository_is_named_without_credentials),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
