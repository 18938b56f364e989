/* userland: the initramfs QEMU boots, gunzipped once beside the .cpio.gz.
 * The archive is a few bytes the test gzips itself (gzip, as the product
 * uses); no package is downloaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/userland.h"
#include "util/proc.h"
#include "util/util.h"

static const char content[] = "070701 stand-in cpio bytes\n";
static char dir[64];

/* dir/name.cpio.gz holding `text` gzipped; its path. */
static char *gzipped(const char *name, const char *text)
{
	char *plain = xasprintf("%s/%s.cpio", dir, name);
	char *gz = xasprintf("%s.gz", plain);
	assert_int_equal(write_file_atomic(plain, text, strlen(text)), 0);
	char *argv[] = { "gzip", "-n", "-f", "--", plain, NULL };
	assert_int_equal(proc_run(argv, NULL), 0);
	free(plain);
	return gz;
}

static struct userland_result result_of(char *gz)
{
	struct userland_result u = { .initramfs = gz, .manifest = xasprintf("%s.manifest", gz) };
	memset(u.sha256, 'g', 64);
	return u;
}

/* Files in dir whose name has `part`. */
static int files_with(const char *part)
{
	char *argv[] = { "find", dir, "-name", (char *)part, NULL };
	char *out = proc_output(argv);
	int n = 0;
	for (char *p = out; p && *p; p++)
		n += *p == '\n';
	n += out && *out;
	free(out);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-test-userland-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

static void the_booted_file_is_the_archive_gunzipped(void **state)
{
	(void)state;
	struct userland_result u = result_of(gzipped("good", content));
	char *manifest = xstrdup(u.manifest);
	assert_int_equal(userland_uncompressed(&u), 0);
	char *want = xasprintf("%s/good.cpio", dir);
	assert_string_equal(u.initramfs, want);
	size_t len = 0;
	char *got = read_file(u.initramfs, &len);
	assert_non_null(got);
	assert_int_equal(len, strlen(content));
	assert_memory_equal(got, content, len);
	char sha[65];
	sha256_hex(content, strlen(content), sha);
	assert_string_equal(u.sha256, sha);
	/* the manifest is the archive's, and nothing is left half-written */
	assert_string_equal(u.manifest, manifest);
	assert_int_equal(files_with("*.tmp.*"), 0);
	/* once uncompressed, a second call changes nothing */
	assert_int_equal(userland_uncompressed(&u), 0);
	assert_string_equal(u.initramfs, want);
	free(got);
	free(want);
	free(manifest);
	userland_result_free(&u);
}

static void an_unpacked_copy_is_reused(void **state)
{
	(void)state;
	struct userland_result u = result_of(gzipped("reused", content));
	assert_int_equal(userland_uncompressed(&u), 0);
	userland_result_free(&u);
	/* the archive spoilt after: the copy made before is what boots */
	char *gz = xasprintf("%s/reused.cpio.gz", dir);
	assert_int_equal(write_file_atomic(gz, "not gzip", 8), 0);
	u = result_of(gz);
	assert_int_equal(userland_uncompressed(&u), 0);
	char sha[65];
	sha256_hex(content, strlen(content), sha);
	assert_string_equal(u.sha256, sha);
	userland_result_free(&u);
}

static void a_broken_archive_is_an_error_that_leaves_nothing(void **state)
{
	(void)state;
	char *gz = xasprintf("%s/broken.cpio.gz", dir);
	assert_int_equal(write_file_atomic(gz, "not gzip", 8), 0);
	struct userland_result u = result_of(gz);
	assert_int_equal(userland_uncompressed(&u), -1);
	/* the result still names the archive, untouched */
	assert_string_equal(u.initramfs, gz);
	assert_int_equal(u.sha256[0], 'g');
	assert_int_equal(files_with("broken.cpio"), 0);
	assert_int_equal(files_with("broken.cpio.tmp.*"), 0);
	userland_result_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_booted_file_is_the_archive_gunzipped),
		cmocka_unit_test(an_unpacked_copy_is_reused),
		cmocka_unit_test(a_broken_archive_is_an_error_that_leaves_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
