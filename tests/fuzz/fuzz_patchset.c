/*
 * fuzz_patchset: patchset_add_patch() on arbitrary files. It decides whether
 * a file is an mbox and, if so, splits it into one patch per mail named
 * after the Subject, all under $HILBENCH_CACHE: input from mailing lists,
 * so hostile subjects and broken "From " lines must not escape that
 * directory or overflow anything. patchset_files() reads the same file's
 * headers (a header cut at the file's end, a path of no component). The
 * cache is emptied after every input so the scratch directory stays small
 * during long runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "build/patchset.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_dir();
	char cache[128], path[128], err[1024];

	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(path, sizeof(path), "%s/input.mbox", dir);
	setenv("HILBENCH_CACHE", cache, 1);
	fuzz_write(path, data, size);

	struct strlist out = { 0 };
	patchset_add_patch(&out, path, err, sizeof(err));
	strlist_free(&out);
	patchset_files(path, &out);
	strlist_free(&out);

	fuzz_rm_tree(cache);
	return 0;
}
