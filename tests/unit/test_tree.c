/* tree: copy_tree() on a small tree the test makes in a temp dir (a file,
 * a nested directory, a symlink, a hidden entry and an objects directory,
 * all with old timestamps): copies or hard links, symlinks kept as links,
 * timestamps kept, hidden top-level entries left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/tree.h"
#include "util/util.h"

static char dir[64];
static char *from;

/* 2001-09-09: older than anything the copy could stamp itself */
static const struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

static void make_file(const char *name, const char *text)
{
	char *path = path_join(from, name);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	free(path);
}

static void make_dir(const char *name)
{
	char *path = path_join(from, name);
	assert_int_equal(mkdir_p(path, 0755), 0);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-tree-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	from = path_join(dir, "from");
	make_dir("sub/deeper");
	make_dir("hb-out/drivers");
	make_file("Makefile", "VERSION = 6\n");
	make_file("sub/deeper/driver.c", "int x;\n");
	make_file("hb-out/drivers/driver.o", "object\n");
	make_file(".gitignore", "*.o\n");
	char *link = path_join(from, "sub/to-driver");
	assert_int_equal(symlink("deeper/driver.c", link), 0);
	free(link);
	/* the directories last: making their entries stamped them */
	static const char *const dirs[] = { "sub/deeper", "sub", "hb-out/drivers", "hb-out" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(dirs); i++) {
		char *path = path_join(from, dirs[i]);
		assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
		free(path);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(from);
	return rm_rf(dir);
}

static struct stat stat_of(const char *top, const char *name)
{
	char *path = path_join(top, name);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	free(path);
	return st;
}

/* name in to is a separate file (copied) or the same inode (linked), with
 * from's content, mode and modification time */
static void assert_entry(const char *to, const char *name, int linked)
{
	struct stat a = stat_of(from, name), b = stat_of(to, name);
	assert_int_equal(linked, a.st_ino == b.st_ino);
	assert_int_equal(a.st_mode, b.st_mode);
	assert_int_equal(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
	assert_int_equal(a.st_mtim.tv_sec, old[1].tv_sec);
	if (S_ISREG(a.st_mode)) {
		char *pa = path_join(from, name), *pb = path_join(to, name);
		char *ta = read_file(pa, NULL), *tb = read_file(pb, NULL);
		assert_non_null(tb);
		assert_string_equal(ta, tb);
		free(ta);
		free(tb);
		free(pa);
		free(pb);
	}
}

static void assert_symlink_kept(const char *to)
{
	struct stat st = stat_of(to, "sub/to-driver");
	assert_true(S_ISLNK(st.st_mode));
	char *path = path_join(to, "sub/to-driver");
	char target[64];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "deeper/driver.c");
	free(path);
}

static void assert_no_hidden(const char *to)
{
	char *hidden = path_join(to, ".gitignore");
	assert_false(path_exists(hidden));
	free(hidden);
}

static void a_copy_is_files_of_its_own_with_the_same_times(void **state)
{
	(void)state;
	char *to = path_join(dir, "copy");
	assert_int_equal(copy_tree(from, to, TREE_COPY, NULL), 0);
	assert_entry(to, "Makefile", 0);
	assert_entry(to, "sub/deeper/driver.c", 0);
	assert_entry(to, "hb-out/drivers/driver.o", 0);
	assert_entry(to, "sub", 0);
	assert_entry(to, "sub/deeper", 0);
	assert_symlink_kept(to);
	assert_no_hidden(to);
	free(to);
}

static void a_linked_tree_shares_the_source_and_copies_the_objects(void **state)
{
	(void)state;
	char *to = path_join(dir, "linked");
	assert_int_equal(copy_tree(from, to, TREE_HARD_LINK, "hb-out"), 0);
	assert_entry(to, "Makefile", 1);
	assert_entry(to, "sub/deeper/driver.c", 1);
	assert_entry(to, "hb-out/drivers/driver.o", 0);
	assert_entry(to, "hb-out/drivers", 0);
	assert_symlink_kept(to);
	assert_no_hidden(to);
	/* a compiler rewriting the copied object leaves the original alone */
	char *obj = path_join(to, "hb-out/drivers/driver.o");
	assert_int_equal(write_string(obj, "rebuilt\n"), 0);
	free(obj);
	char *orig = path_join(from, "hb-out/drivers/driver.o");
	char *text = read_file(orig, NULL);
	assert_string_equal(text, "object\n");
	free(text);
	free(orig);
	free(to);
}

static void a_missing_tree_is_an_error(void **state)
{
	(void)state;
	char *missing = path_join(dir, "missing"), *to = path_join(dir, "nothing");
	assert_int_equal(copy_tree(missing, to, TREE_COPY, NULL), -1);
	assert_false(path_exists(to));
	free(missing);
	free(to);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_copy_is_files_of_its_own_with_the_same_times),
		cmocka_unit_test(a_linked_tree_shares_the_source_and_copies_the_objects),
		cmocka_unit_test(a_missing_tree_is_an_error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
