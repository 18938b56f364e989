/*
 * fuzz.h: what every libFuzzer target here shares. The parsers take C
 * strings or file paths, libFuzzer hands out raw bytes: these turn one into
 * the other, and give each target a private scratch directory that is gone
 * when the process exits, so fuzz runs leave nothing behind in /tmp.
 */
#ifndef HB_FUZZ_H
#define HB_FUZZ_H

#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input as a NUL-terminated string in its own allocation, so ASan sees
 * any read past its end. Embedded NULs just shorten it, as they would for
 * a line read from a console or a file. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static inline int fuzz_rm_one(const char *path, const struct stat *st, int type,
			      struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Removes a directory tree (FTW_DEPTH: contents before the directory). */
static inline void fuzz_rm_tree(const char *dir)
{
	nftw(dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char fuzz_dir_path[64];

static void fuzz_dir_cleanup(void)
{
	fuzz_rm_tree(fuzz_dir_path);
}

/* A scratch directory for this process, removed at exit (libFuzzer exits
 * through exit() at the end of a timed run, so atexit handlers run). In
 * /dev/shm when there is one: the code under test fsyncs what it writes,
 * which on a disk makes a target 30 times slower. */
static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "/dev/shm/hb-fuzz-XXXXXX");
		if (!mkdtemp(fuzz_dir_path)) {
			snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "/tmp/hb-fuzz-XXXXXX");
			if (!mkdtemp(fuzz_dir_path))
				abort();
		}
		atexit(fuzz_dir_cleanup);
	}
	return fuzz_dir_path;
}

/* Writes data to path, truncating; aborts on failure (a harness bug, not
 * a finding). */
static inline void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

#endif
