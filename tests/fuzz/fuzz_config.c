/*
 * fuzz_config: the YAML loaders (board_load, workload_load, plan_load) and
 * the quilt series parser (series_file_load) on arbitrary file contents.
 * These read files people edit by hand, so every typo a person can make,
 * and many they cannot, must end in a clean "FILE:LINE:COL: ..." error.
 *
 * The loaders take a path and insist that the file is named after its
 * `name:` key, so the input is written to <scratch>/<name>.yaml: a fuzzed
 * file that gets the schema right then reaches the checks behind the name
 * check (addresses, the config fragment, which is created next to it).
 *
 * The seeds include the shipped boards as they are (the Makefile builds the
 * corpus from boards/, workloads/, plans/ and tests/data/), so every
 * fragment name boards/ has exists, empty, in the scratch directory: run
 * from the top of the tree, as make fuzz-check does.
 */
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config/board.h"
#include "config/driver.h"
#include "config/plan.h"
#include "config/setting.h"
#include "config/strategy.h"
#include "config/workload.h"
#include "fuzz.h"

/* The value of the first "name: " at the start of a line, if it is a
 * plausible file name; "fuzz" otherwise. */
static void file_name(const char *s, char *out, size_t outlen)
{
	snprintf(out, outlen, "fuzz");
	const char *p = !strncmp(s, "name: ", 6) ? s : strstr(s, "\nname: ");
	if (!p)
		return;
	p += p[0] == '\n' ? 7 : 6;
	size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
	if (n > 0 && n < outlen && p[0] != '.')
		snprintf(out, outlen, "%.*s", (int)n, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_dir();
	char path[256], name[64], err[1024];
	static int once;

	if (!once) {
		/* what the shipped boards' config_fragment and a series line name */
		glob_t g;
		if (glob("boards/*.config", 0, NULL, &g) == 0)
			for (size_t i = 0; i < g.gl_pathc; i++) {
				snprintf(path, sizeof(path), "%s/%s", dir,
					 g.gl_pathv[i] + strlen("boards/"));
				fuzz_write(path, (const uint8_t *)"", 0);
			}
		globfree(&g);
		snprintf(path, sizeof(path), "%s/qemu-orangepi-pc.config", dir);
		fuzz_write(path, (const uint8_t *)"", 0);
		snprintf(path, sizeof(path), "%s/0001-fix.patch", dir);
		fuzz_write(path, (const uint8_t *)"", 0);
		once = 1;
	}

	char *s = fuzz_cstr(data, size);
	file_name(s, name, sizeof(name));
	free(s);
	snprintf(path, sizeof(path), "%s/%s.yaml", dir, name);
	fuzz_write(path, data, size);

	struct board b;
	if (board_load(path, &b, err, sizeof(err)) == 0)
		board_free(&b);
	struct workload w;
	if (workload_load(path, &w, err, sizeof(err)) == 0)
		workload_free(&w);
	struct plan p;
	if (plan_load(path, &p, err, sizeof(err)) == 0)
		plan_free(&p);
	struct setting_def sd;
	if (setting_load(path, &sd, err, sizeof(err)) == 0)
		setting_free(&sd);
	struct driver dr;
	if (driver_load(path, &dr, err, sizeof(err)) == 0)
		driver_free(&dr);

	struct strlist patches = { 0 }, upstream = { 0 }, settings = { 0 };
	char *description = NULL, *driver = NULL;
	series_file_load(path, &patches, &description, &upstream, &settings, &driver, err,
			 sizeof(err));
	free(driver);
	strlist_free(&patches);
	strlist_free(&upstream);
	strlist_free(&settings);
	free(description);

	unlink(path);
	return 0;
}
