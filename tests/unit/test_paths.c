/* paths and the data search path: a lab's directory (made in a temp dir,
 * given by $HILBENCH_DATA and by hb_data_dir_add() as --data-dir does)
 * searched before the clone ($HILBENCH_HOME, as check-unit sets it): its
 * own names and the ones it replaces come from it, the rest from the
 * clone, every name once; strategies likewise; program files in the
 * clone's layout. The installed layout is tests/install/check-install.sh's
 * (it depends on where the binary is). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/catalog.h"
#include "config/strategy.h"
#include "util/paths.h"
#include "util/util.h"

static char lab[64], lab2[80];

static void put(const char *dir, const char *rel, const char *text)
{
	char *path = path_join(dir, rel);
	char *parent = path_dirname(path);
	assert_int_equal(mkdir_p(parent, 0755), 0);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(parent);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(lab, sizeof(lab), "/tmp/hb-test-paths-XXXXXX");
	if (!mkdtemp(lab))
		return -1;
	put(lab, "boards/lab-only.yaml", "name: lab-only\n");
	put(lab, "boards/qemu-orangepi-pc-stock.yaml", "name: qemu-orangepi-pc-stock\n");
	put(lab, "driver-patches/6.1/lab-knob/series", "# a lab's strategy\ndriver: stmmac\n");
	snprintf(lab2, sizeof(lab2), "%s/second", lab);
	put(lab2, "plans/lab2.yaml", "name: lab2\n");
	/* before the first look at the search path, which is kept */
	setenv("HILBENCH_DATA", lab, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(lab);
}

static int has(const struct strlist *l, const char *s)
{
	int n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += !strcmp(l->v[i], s);
	return n;
}

static void test_search_path(void **state)
{
	(void)state;
	assert_int_equal(hb_layout(), HB_LAYOUT_TREE);
	const struct strlist *dirs = hb_data_dirs();
	assert_int_equal(dirs->n, 2);
	assert_string_equal(dirs->v[0], lab);
	assert_string_equal(dirs->v[1], hb_home());
	assert_string_equal(hb_home(), getenv("HILBENCH_HOME"));
}

static void test_names_lab_first(void **state)
{
	(void)state;
	char *p = catalog_path("board", "lab-only");
	char *want = path_join(lab, "boards/lab-only.yaml");
	assert_string_equal(p, want);
	free(p);
	free(want);
	/* the lab replaces an installed board of the same name */
	p = catalog_path("board", "qemu-orangepi-pc-stock");
	want = path_join(lab, "boards/qemu-orangepi-pc-stock.yaml");
	assert_string_equal(p, want);
	free(p);
	free(want);
	/* and the rest come from the default directory */
	p = catalog_path("board", "qemu-orangepi-pc");
	want = path_join(hb_home(), "boards/qemu-orangepi-pc.yaml");
	assert_string_equal(p, want);
	free(p);
	free(want);
	/* a name no directory has: the default's path, for the loader's error */
	p = catalog_path("board", "no-such-board");
	want = path_join(hb_home(), "boards/no-such-board.yaml");
	assert_string_equal(p, want);
	free(p);
	free(want);
	/* a path stays a path */
	p = catalog_path("board", "x/y.yaml");
	assert_string_equal(p, "x/y.yaml");
	free(p);

	struct strlist names = { 0 };
	assert_int_equal(catalog_names("board", &names), 0);
	assert_int_equal(has(&names, "lab-only"), 1);
	assert_int_equal(has(&names, "qemu-orangepi-pc-stock"), 1);
	assert_int_equal(has(&names, "qemu-orangepi-pc"), 1);
	for (size_t i = 1; i < names.n; i++)
		assert_true(strcmp(names.v[i - 1], names.v[i]) < 0);
	strlist_free(&names);
	assert_int_equal(catalog_names("nosuchkind", &names), -1);
	strlist_free(&names);
}

static void test_strategies(void **state)
{
	(void)state;
	struct strlist names = { 0 };
	assert_int_equal(strategy_list("6.1", &names), 0);
	assert_int_equal(has(&names, "lab-knob"), 1);
	assert_int_equal(has(&names, "gating"), 1);
	assert_int_equal(has(&names, "base"), 0);
	strlist_free(&names);

	struct strategy s;
	char err[1024];
	assert_int_equal(strategy_load("6.1", "lab-knob", &s, err, sizeof(err)), 0);
	char *want = path_join(lab, "driver-patches/6.1/lab-knob");
	assert_string_equal(s.dir, want);
	assert_string_equal(s.description, "a lab's strategy");
	free(want);
	strategy_free(&s);
	assert_int_equal(strategy_load("6.1", "gating", &s, err, sizeof(err)), 0);
	want = path_join(hb_home(), "driver-patches/6.1/gating");
	assert_string_equal(s.dir, want);
	free(want);
	strategy_free(&s);
}

static void test_data_dir_option(void **state)
{
	(void)state;
	char err[512];
	assert_int_equal(hb_data_dir_add("/nonexistent/hb-lab", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/hb-lab: no such directory"));
	assert_int_equal(hb_data_dir_add(lab2, err, sizeof(err)), 0);
	/* before $HILBENCH_DATA's, and in it for the processes hilbench starts */
	char *env = xasprintf("%s:%s", lab2, lab);
	assert_string_equal(getenv("HILBENCH_DATA"), env);
	free(env);
	const struct strlist *dirs = hb_data_dirs();
	assert_int_equal(dirs->n, 3);
	assert_string_equal(dirs->v[0], lab2);
	char *p = catalog_path("plan", "lab2");
	char *want = path_join(lab2, "plans/lab2.yaml");
	assert_string_equal(p, want);
	free(p);
	free(want);
}

static void test_program_files(void **state)
{
	(void)state;
	char *p = hb_script("mkinitramfs.sh");
	char *want = path_join(hb_home(), "harness/scripts/mkinitramfs.sh");
	assert_string_equal(p, want);
	assert_int_equal(access(p, R_OK), 0);
	free(p);
	free(want);
	p = hb_agent_file("lava-report.awk");
	want = path_join(hb_home(), "harness/agent/lava-report.awk");
	assert_string_equal(p, want);
	free(p);
	free(want);
	p = hb_agent_binary("armhf");
	want = path_join(hb_home(), "build/armhf/hb-agent");
	assert_string_equal(p, want);
	free(p);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_path),
		cmocka_unit_test(test_names_lab_first),
		cmocka_unit_test(test_strategies),
		cmocka_unit_test(test_data_dir_option),
		cmocka_unit_test(test_program_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
