/* util: write_file_atomic() writes a file whole or not at all, through a
 * temporary name nobody can predict or plant: a symlink at the name it
 * used to take (<path>.tmp.<pid>) is not followed, a file there is not
 * touched, and nothing is left beside the result. Files in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-atomic-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

static void a_planted_symlink_is_not_followed(void **state)
{
	(void)state;
	char *path = path_join(dir, "report.html"), *victim = path_join(dir, "victim");
	char *planted = xasprintf("%s.tmp.%ld", path, (long)getpid());
	assert_int_equal(write_file_atomic(victim, "keep", 4), 0);
	assert_int_equal(symlink(victim, planted), 0);

	assert_int_equal(write_file_atomic(path, "new", 3), 0);
	char *got = read_file(victim, NULL);
	assert_string_equal(got, "keep");
	free(got);
	got = read_file(path, NULL);
	assert_string_equal(got, "new");
	free(got);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* the planted link is the planter's; the writer left nothing else */
	struct strlist names = { 0 };
	assert_int_equal(list_dir(dir, &names), 0);
	assert_int_equal(names.n, 3);
	assert_string_equal(names.v[0], "report.html");
	assert_string_equal(names.v[1], planted + strlen(dir) + 1);
	assert_string_equal(names.v[2], "victim");
	strlist_free(&names);
	free(planted);
	free(path);
	free(victim);
}

static void a_failed_write_leaves_nothing(void **state)
{
	(void)state;
	char *path = xasprintf("%s/no-such-dir/f", dir);
	assert_int_equal(write_file_atomic(path, "x", 1), -1);
	free(path);
	struct strlist names = { 0 };
	assert_int_equal(list_dir(dir, &names), 0);
	for (size_t i = 0; i < names.n; i++)
		assert_null(strstr(names.v[i], ".tmp"));
	strlist_free(&names);
}

static void the_file_is_readable_as_before(void **state)
{
	(void)state;
	char *path = path_join(dir, "mode");
	mode_t old = umask(022);
	assert_int_equal(write_file_atomic(path, "x", 1), 0);
	umask(old);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_planted_symlink_is_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failed_write_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(the_file_is_readable_as_before, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
