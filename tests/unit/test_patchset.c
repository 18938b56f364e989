/* patchset: plain patches, quilt series files and mboxes become an ordered
 * list of patch files; bad input names the file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/patchset.h"

static char tmp[64];

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

static const char two_mails[] =
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Subject: [PATCH 1/2] net: introduce napi_is_scheduled helper\n"
	"\n"
	"From the commit message, a line that is not a separator.\n"
	"---\n"
	"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Subject: [PATCH 2/2] net: stmmac: improve TX timer arm logic\n"
	"\n"
	"--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n";

static void mbox_splits_into_one_patch_per_mail(void **state)
{
	(void)state;
	char *mbox = put("series.mbox", two_mails), err[512] = "";
	struct strlist out = { 0 };
	assert_int_equal(patchset_add_patch(&out, mbox, err, sizeof(err)), 0);
	assert_int_equal(out.n, 2);
	assert_non_null(strstr(out.v[0], "/0001-net-introduce-napi-is-scheduled-helper.patch"));
	assert_non_null(strstr(out.v[1], "/0002-net-stmmac-improve-TX-timer-arm-logic.patch"));
	char *second = read_file(out.v[1], NULL);
	assert_true(!strncmp(second, "From 2222", 9));
	assert_non_null(strstr(second, "+d\n"));
	assert_null(strstr(second, "+b\n"));
	free(second);
	/* the same mbox again: the same content-addressed files */
	struct strlist again = { 0 };
	assert_int_equal(patchset_add_patch(&again, mbox, err, sizeof(err)), 0);
	assert_string_equal(again.v[1], out.v[1]);
	strlist_free(&again);
	strlist_free(&out);
	free(mbox);
}

static void mail_without_diff_is_an_error_with_its_line(void **state)
{
	(void)state;
	char *mbox = put("nodiff.mbox",
			 "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
			 "Subject: a patch\n\n--- a/x\n+++ b/x\n"
			 "From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
			 "Subject: just talk\n\nno diff here\n");
	char err[512] = "";
	struct strlist out = { 0 };
	assert_int_equal(patchset_add_patch(&out, mbox, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "nodiff.mbox:6: this mail has no diff"));
	strlist_free(&out);
	free(mbox);
}

static void plain_patch_is_taken_as_is(void **state)
{
	(void)state;
	char *p = put("plain.patch", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), err[512];
	struct strlist out = { 0 };
	assert_int_equal(patchset_add_patch(&out, p, err, sizeof(err)), 0);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0], p);
	strlist_free(&out);
	free(p);
}

static void series_file_lists_patches_in_order(void **state)
{
	(void)state;
	char *a = put("a.patch", "--- a/x\n+++ b/x\n"), *b = put("b.patch", "--- a/y\n+++ b/y\n");
	char *series = put("series", "# two patches\nb.patch\n\na.patch\n"), err[512];
	struct strlist out = { 0 };
	assert_int_equal(patchset_add_series(&out, series, err, sizeof(err)), 0);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.v[0], b);
	assert_string_equal(out.v[1], a);
	strlist_free(&out);
	free(a);
	free(b);
	free(series);
}

static void series_file_errors_name_file_and_line(void **state)
{
	(void)state;
	char *series = put("bad-series", "# ok\nmissing.patch\n"), err[512];
	struct strlist out = { 0 };
	assert_int_equal(patchset_add_series(&out, series, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad-series:2: patch file 'missing.patch' does not exist"));
	free(series);
	series = put("escape-series", "../elsewhere.patch\n");
	assert_int_equal(patchset_add_series(&out, series, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "escape-series:1: '../elsewhere.patch' points outside"));
	strlist_free(&out);
	free(series);
}

/* Every file a patch changes, both sides of a rename, each once; a
 * removed "-- x" line in a hunk is not a header unless "+++ " follows. */
static void files_of_a_patch_are_both_sides_of_each_header(void **state)
{
	(void)state;
	char *p = put("files.patch",
		      "From: A <a@example.org>\n"
		      "Subject: [PATCH] x\n"
		      "---\n"
		      " net/Kconfig | 1 +\n"
		      "diff --git a/net/Kconfig b/net/Kconfig\n"
		      "--- a/net/Kconfig\n"
		      "+++ b/net/Kconfig\n"
		      "@@ -1,2 +1,2 @@\n"
		      "--- not a header, a removed line\n"
		      " context\n"
		      "diff --git a/old.c b/drivers/new.c\n"
		      "similarity index 90%\n"
		      "rename from old.c\n"
		      "rename to drivers/new.c\n"
		      "--- /dev/null\t2024-01-01 00:00:00\n"
		      "+++ b/drivers/added.c\t2024-01-01 00:00:00\n"
		      "@@ -0,0 +1 @@\n"
		      "+x\n"
		      "--- a/top\n"
		      "+++ b/top");
	struct strlist files = { 0 };
	assert_int_equal(patchset_files(p, &files), 0);
	assert_int_equal(files.n, 5);
	assert_string_equal(files.v[0], "net/Kconfig");
	assert_string_equal(files.v[1], "old.c");
	assert_string_equal(files.v[2], "drivers/new.c");
	assert_string_equal(files.v[3], "drivers/added.c");
	assert_string_equal(files.v[4], "top");
	strlist_free(&files);
	free(p);
	assert_int_equal(patchset_files("/nonexistent/x.patch", &files), -1);
	assert_int_equal(files.n, 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/hb-patchset.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	setenv("HILBENCH_CACHE", tmp, 1);	/* mbox splits land here */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mbox_splits_into_one_patch_per_mail),
		cmocka_unit_test(mail_without_diff_is_an_error_with_its_line),
		cmocka_unit_test(plain_patch_is_taken_as_is),
		cmocka_unit_test(series_file_lists_patches_in_order),
		cmocka_unit_test(series_file_errors_name_file_and_line),
		cmocka_unit_test(files_of_a_patch_are_both_sides_of_each_header),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
