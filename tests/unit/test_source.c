/* source: a user's tree or tarball becomes a pristine copy in the cache
 * with a version from its Makefile and a content identity.
 *
 * The "kernel trees" here are stand-ins: a top-level Makefile with the
 * version variables and a file or two, which is all source.c reads. The
 * Debian kind is exercised by every real build (make check-boards,
 * tests/integration). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build/source.h"
#include "util/proc.h"
#include "util/util.h"

static char tmp[64];

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);
	char *dir = path_dirname(path);
	assert_int_equal(mkdir_p(dir, 0755), 0);
	free(dir);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

static const char makefile_612[] =
	"# SPDX-License-Identifier: GPL-2.0\n"
	"VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 3\nEXTRAVERSION =\n"
	"NAME = Baby Opossum Posse\n";

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/hb-test-source.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	char *cache = xasprintf("%s/cache", tmp);
	setenv("HILBENCH_CACHE", cache, 1);
	free(cache);
	free(put("tree/Makefile", makefile_612));
	free(put("tree/drivers/net/x.c", "int x;\n"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(tmp);
	return 0;
}

static void makefile_versions(void **state)
{
	char *v, *s;
	(void)state;
	assert_int_equal(source_makefile_version(makefile_612, &v, &s), 0);
	assert_string_equal(v, "6.12.3");
	assert_string_equal(s, "6.12");
	free(v);
	free(s);
	assert_int_equal(source_makefile_version("VERSION = 6\nPATCHLEVEL = 13\nSUBLEVEL = 0\n"
						 "EXTRAVERSION = -rc3\n", &v, &s), 0);
	assert_string_equal(v, "6.13.0-rc3");
	assert_string_equal(s, "6.13");
	free(v);
	free(s);
	/* KERNELVERSION = or a comment mentioning VERSION are not VERSION = */
	assert_int_equal(source_makefile_version("KERNELVERSION = 1\n# VERSION = 2\n", &v, &s), -1);
	assert_int_equal(source_makefile_version("VERSION = 6\nPATCHLEVEL = x\nSUBLEVEL = 0\n",
						 &v, &s), -1);
	assert_int_equal(source_makefile_version("VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n"
						 "EXTRAVERSION = $(shell id)\n", &v, &s), -1);
}

static void plain_dir_is_copied_and_identified_by_content(void **state)
{
	struct source a, b;
	char *dir = xasprintf("%s/tree", tmp);
	struct source_spec spec = { .path = dir };
	(void)state;

	assert_int_equal(source_prepare(&spec, &a), 0);
	assert_int_equal(a.kind, SOURCE_DIR);
	assert_string_equal(a.series, "6.12");
	assert_string_equal(a.kernel_version, "6.12.3");
	assert_string_equal(a.origin, dir);
	assert_true(!strncmp(a.identity, "files ", 6));
	char *copied = path_join(a.tree, "drivers/net/x.c");
	assert_true(path_exists(copied));
	free(copied);
	char *key = source_key_line(&a);
	assert_true(!strncmp(key, "dir 6.12.3 files ", 17));
	free(key);

	/* Same content: same identity and copy. One byte more: another. */
	assert_int_equal(source_prepare(&spec, &b), 0);
	assert_string_equal(a.identity, b.identity);
	assert_string_equal(a.tree, b.tree);
	source_free(&b);
	free(put("tree/drivers/net/x.c", "int x;\nint y;\n"));
	assert_int_equal(source_prepare(&spec, &b), 0);
	assert_string_not_equal(a.identity, b.identity);
	assert_string_not_equal(a.tree, b.tree);
	source_free(&b);

	/* The series asked for must be the tree's. */
	spec.series = "6.1";
	assert_int_equal(source_prepare(&spec, &b), HB_FAIL_INPUT);
	assert_null(b.tree);
	spec.series = "6.12";
	assert_int_equal(source_prepare(&spec, &b), 0);
	source_free(&b);
	source_free(&a);
	free(dir);
}

static void git_checkout_identity_follows_commits_and_edits(void **state)
{
	struct source a;
	(void)state;
	free(put("git/Makefile", makefile_612));
	free(put("git/net.c", "int n;\n"));
	char *dir = xasprintf("%s/git", tmp);
	char *init[] = { "git", "-C", dir, "init", "-q", NULL };
	char *add[] = { "git", "-C", dir, "add", ".", NULL };
	char *commit[] = { "git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@t",
			   "commit", "-q", "-m", "x", NULL };
	assert_int_equal(proc_run(init, NULL), 0);
	assert_int_equal(proc_run(add, NULL), 0);
	assert_int_equal(proc_run(commit, NULL), 0);
	char *head_argv[] = { "git", "-C", dir, "rev-parse", "HEAD", NULL };
	char *head = proc_output(head_argv);

	struct source_spec spec = { .path = dir };
	assert_int_equal(source_prepare(&spec, &a), 0);
	char *want = xasprintf("git %s ", head);
	assert_true(!strncmp(a.identity, want, strlen(want)));
	assert_non_null(strstr(a.identity, " clean"));
	/* .git stays behind */
	char *git_copy = path_join(a.tree, ".git");
	assert_false(path_exists(git_copy));
	free(git_copy);
	char *clean = xstrdup(a.identity);
	assert_null(a.git_url);		/* no remote */
	source_free(&a);

	/* A remote and a branch: named, not part of the identity, and the
	 * token in the remote's URL never copied. */
	char *remote[] = { "git", "-C", dir, "remote", "add", "origin",
			   "https://lab:s3cret@git.example.org/linux.git", NULL };
	char *branch[] = { "git", "-C", dir, "checkout", "-q", "-b", "hb-work", NULL };
	assert_int_equal(proc_run(remote, NULL), 0);
	assert_int_equal(proc_run(branch, NULL), 0);
	assert_int_equal(source_prepare(&spec, &a), 0);
	assert_string_equal(a.identity, clean);
	assert_string_equal(a.git_url, "https://git.example.org/linux.git");
	assert_string_equal(a.git_branch, "hb-work");
	source_free(&a);

	/* An uncommitted edit, then an untracked file: new identities. */
	free(put("git/net.c", "int n = 1;\n"));
	assert_int_equal(source_prepare(&spec, &a), 0);
	assert_non_null(strstr(a.identity, " changes "));
	char *edited = xstrdup(a.identity);
	source_free(&a);
	free(put("git/new.c", "int m;\n"));
	assert_int_equal(source_prepare(&spec, &a), 0);
	assert_string_not_equal(a.identity, edited);
	assert_string_not_equal(a.identity, clean);
	source_free(&a);

	free(clean);
	free(edited);
	free(want);
	free(head);
	free(dir);
}

static void public_git_url_is_https_without_credentials(void **state)
{
	(void)state;
	static const struct { const char *in, *out; } cases[] = {
		{ "https://git.kernel.org/pub/scm/linux/kernel/git/netdev/net.git",
		  "https://git.kernel.org/pub/scm/linux/kernel/git/netdev/net.git" },
		{ "https://u:tok@host.example/a.git", "https://host.example/a.git" },
		{ "https://tok@host.example", "https://host.example" },
		{ "https://host.example/x@y", "https://host.example/x@y" },	/* '@' in the path */
		{ "https://u@/a.git", NULL },					/* no host */
		{ "https:///a.git", NULL },
		{ "http://host.example/a.git", NULL },
		{ "git@github.com:torvalds/linux.git", NULL },
		{ "ssh://git@host.example/a.git", NULL },
		{ "/srv/git/linux", NULL },
		{ "https://host.example/a b", NULL },
		{ "https://host.example/a\nb", NULL },
		{ "", NULL },
	};
	assert_null(source_public_git_url(NULL));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = source_public_git_url(cases[i].in);
		if (cases[i].out)
			assert_string_equal(got, cases[i].out);
		else
			assert_null(got);
		free(got);
	}
}

static void tarball_is_extracted_once(void **state)
{
	struct source a, b;
	(void)state;
	free(put("rel/linux-6.12.3/Makefile", makefile_612));
	char *tarball = xasprintf("%s/linux-6.12.3.tar.gz", tmp);
	char *rel = xasprintf("%s/rel", tmp);
	char *tar[] = { "tar", "-czf", tarball, "-C", rel, "linux-6.12.3", NULL };
	assert_int_equal(proc_run(tar, NULL), 0);
	struct source_spec spec = { .path = tarball };
	assert_int_equal(source_prepare(&spec, &a), 0);
	assert_int_equal(a.kind, SOURCE_TARBALL);
	assert_string_equal(a.kernel_version, "6.12.3");
	assert_string_equal(a.tree + strlen(a.tree) - 13, "/linux-6.12.3");
	assert_true(!strncmp(a.identity, "tarball-sha256 ", 15));
	assert_int_equal(source_prepare(&spec, &b), 0);
	assert_string_equal(a.tree, b.tree);
	source_free(&a);
	source_free(&b);
	free(tarball);
	free(rel);
}

/* Two hilbench processes meeting a tarball for the first time, at the
 * same moment: both get the tree, whole. They shared one fixed <base>.tmp
 * before any lock, and one removed or renamed it under the other. A few
 * hundred files make the extraction last long enough to overlap; each
 * round's tarball is new to the cache (its content differs). */
static void two_processes_prepare_one_tarball_at_once(void **state)
{
	(void)state;
	for (int i = 0; i < 300; i++) {
		char name[64];
		snprintf(name, sizeof(name), "race/linux-6.12.3/drivers/f%03d.c", i);
		free(put(name, makefile_612));
	}
	free(put("race/linux-6.12.3/Makefile", makefile_612));
	char *tarball = xasprintf("%s/race.tar", tmp), *race = xasprintf("%s/race", tmp);
	char *tar[] = { "tar", "-cf", tarball, "-C", race, "linux-6.12.3", NULL };
	struct source_spec spec = { .path = tarball };
	for (int round = 0; round < 5; round++) {
		char text[16];
		snprintf(text, sizeof(text), "%d\n", round);
		free(put("race/linux-6.12.3/round", text));
		assert_int_equal(proc_run(tar, NULL), 0);
		int go[2];
		assert_int_equal(pipe(go), 0);
		pid_t kids[2];
		for (int k = 0; k < 2; k++) {
			kids[k] = fork();
			assert_true(kids[k] >= 0);
			if (kids[k] == 0) {
				char c;
				close(go[1]);
				struct source s = { 0 };
				int ok = read(go[0], &c, 1) == 1 && source_prepare(&spec, &s) == 0;
				char *last = ok ? path_join(s.tree, "drivers/f299.c") : NULL;
				ok = ok && path_exists(last);
				/* nothing left for valgrind's leak check in this process */
				free(last);
				source_free(&s);
				free(tarball);
				free(race);
				_exit(ok ? 0 : 1);
			}
		}
		close(go[0]);
		assert_int_equal(write(go[1], "gg", 2), 2);
		close(go[1]);
		for (int k = 0; k < 2; k++) {
			int st;
			assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
			assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
	}
	free(tarball);
	free(race);
}

static void bad_trees_are_refused(void **state)
{
	struct source a;
	(void)state;
	struct source_spec spec = { .path = "/nonexistent/linux" };
	assert_int_equal(source_prepare(&spec, &a), HB_FAIL_INPUT);
	/* not a kernel Makefile */
	free(put("notlinux/Makefile", "all:\n\ttrue\n"));
	char *dir = xasprintf("%s/notlinux", tmp);
	spec.path = dir;
	assert_int_equal(source_prepare(&spec, &a), HB_FAIL_INPUT);
	free(dir);
	/* in-tree build output: kbuild would refuse it with O= */
	free(put("dirty/Makefile", makefile_612));
	free(put("dirty/.config", "CONFIG_X=y\n"));
	dir = xasprintf("%s/dirty", tmp);
	spec.path = dir;
	assert_int_equal(source_prepare(&spec, &a), HB_FAIL_INPUT);
	free(dir);
	/* a tarball of two trees */
	free(put("two/a/Makefile", makefile_612));
	free(put("two/b/Makefile", makefile_612));
	char *tarball = xasprintf("%s/two.tar", tmp);
	char *two = xasprintf("%s/two", tmp);
	char *tar[] = { "tar", "-cf", tarball, "-C", two, "a", "b", NULL };
	assert_int_equal(proc_run(tar, NULL), 0);
	spec.path = tarball;
	assert_int_equal(source_prepare(&spec, &a), HB_FAIL_INPUT);
	free(tarball);
	free(two);
	/* Debian's package needs a series */
	spec.path = NULL;
	spec.series = NULL;
	assert_int_equal(source_prepare(&spec, &a), HB_FAIL_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(makefile_versions),
		cmocka_unit_test(plain_dir_is_copied_and_identified_by_content),
		cmocka_unit_test(git_checkout_identity_follows_commits_and_edits),
		cmocka_unit_test(public_git_url_is_https_without_credentials),
		cmocka_unit_test(tarball_is_extracted_once),
		cmocka_unit_test(two_processes_prepare_one_tarball_at_once),
		cmocka_unit_test(bad_trees_are_refused),
	};
	return cmocka_run_group_tests_name("source", tests, setup, teardown);
}
