/*
 * util: small helpers every module uses.
 *
 * Contract: allocation helpers never return NULL (they abort on OOM, the only
 * failure a harness cannot recover from); file helpers return 0 on success and
 * -1 with errno set, never print. hb_err()/hb_info() are the only places that
 * write to the user, so every message has the same shape.
 */
#ifndef HB_UTIL_H
#define HB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define HB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes shared by every command (see docs/usage.md). */
enum hb_exit {
	HB_EXIT_OK = 0,
	HB_EXIT_FAIL = 1,	/* regression found / check failed */
	HB_EXIT_USAGE = 2,	/* bad command line or input file */
	HB_EXIT_INFRA = 125,	/* inconclusive: build, boot or host failure */
};

/* What library code returns when a caller must tell kinds of failure apart
 * (docs/design.md, "Errors"): negative, so that < 0 is always "failed" and
 * -1 stays the plain failure. A function returns a kind other than -1 only
 * when its header says which; cmd/ maps them to enum hb_exit (hb_exit_of()). */
enum hb_fail {
	HB_FAIL = -1,		/* infrastructure, or anything not below: inconclusive */
	HB_FAIL_INPUT = -2,	/* what the user must fix: a file, a patch, an option */
	HB_FAIL_DUT = -3,	/* the DUT misbehaved: panic, oops, no driver, no link */
	HB_FAIL_LAB = -4,	/* a lab a new boot would meet again: unreachable, refusing */
};
/* The exit code of a library result (rule 4): 0 ok (also a count, or
 * run_options_parse()'s 1 for the help printed), HB_FAIL_INPUT the user's
 * to fix (2), any other failure inconclusive (125); a verdict's
 * HB_EXIT_FAIL never comes from here. The commands (cmd/) call it where
 * they turn a library result into their exit code. */
static inline int hb_exit_of(int rc)
{
	return rc >= 0 ? HB_EXIT_OK : rc == HB_FAIL_INPUT ? HB_EXIT_USAGE : HB_EXIT_INFRA;
}

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable list of owned strings. */
struct strlist {
	char **v;
	size_t n;
};
void strlist_push(struct strlist *l, const char *s);
void strlist_pushf(struct strlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strlist_free(struct strlist *l);
/* NULL-terminated view for execve; valid until the list changes. */
char **strlist_argv(struct strlist *l);
/* Appends the non-empty fields of s separated by any of seps. */
void strlist_split(struct strlist *l, const char *s, const char *seps);
/* Sorts the entries by strcmp(). */
void strlist_sort(struct strlist *l);
/* 1 if an entry is s, else 0. */
int strlist_has(const struct strlist *l, const char *s);
/* The entries joined with sep, newly allocated. */
char *argv_join(const struct strlist *l, const char *sep);

/* The names in a directory (without . and hidden entries), sorted. */
int list_dir(const char *dir, struct strlist *names);
int mkdir_p(const char *path, int mode);
int rm_rf(const char *path);
int path_exists(const char *path);
/* Whole file into a NUL-terminated buffer; *len may be NULL. */
char *read_file(const char *path, size_t *len);
/* Write to a new file of an unpredictable name beside path (O_EXCL, so
 * never through a symlink someone planted), fsync, rename: readers never
 * see half a file. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* A new file beside path, <path>.tmp-<random>, opened O_EXCL|O_NOFOLLOW for
 * writing; its name in *tmp (the caller frees it). The fd, or -1 with errno
 * and *tmp NULL. For output a child writes before it is renamed to path. */
int create_unique(const char *path, char **tmp);
/* Plain write of a string, for /proc and /sys files. */
int write_string(const char *path, const char *s);
int copy_file(const char *from, const char *to);
/* All of len bytes to or from fd (a pipe between processes), through
 * EINTR and short transfers; -1 with errno on failure, or at EOF first. */
int write_all(int fd, const void *buf, size_t len);
int read_all(int fd, void *buf, size_t len);
char *path_join(const char *a, const char *b);
char *path_dirname(const char *path);

/* s as a whole decimal number no greater than max: digits only (no sign,
 * blank or suffix), no overflow. 0 with *v, else -1. For numbers from
 * text hilbench does not control (a DUT's console, a LAVA log): they
 * become sizes and counts, so they are bounded before they are used. */
int parse_uint(const char *s, unsigned long long max, unsigned long long *v);

/* Lower-case hex SHA-256 (65 bytes incl. NUL) of a buffer or a file. */
void sha256_hex(const void *data, size_t len, char out[65]);
int sha256_file_hex(const char *path, char out[65]);

/* hb_home() and hb_store_dir() were declared here: most callers of util
 * want them, so util.h keeps giving them (where files are: util/paths.h). */
#include "util/paths.h"

/* Build cache outside the clone: $HILBENCH_CACHE, else ~/.cache/hilbench. */
const char *hb_cache_dir(void);

void hb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The message into err (for the pure functions that say why in a buffer
 * instead of printing); returns -1. */
int hb_errbuf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void hb_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hb_verr(const char *fmt, va_list ap);
/* A status line (a progress bar) kept below the messages on a terminal:
 * hb_err() and hb_info() clear it, print, and draw it again. NULL removes
 * it. Nothing is drawn when stderr is not a terminal (or TERM is dumb):
 * hb_status_shown() then says 0 and callers print plain lines instead. */
void hb_status(const char *line);
int hb_status_shown(void);

/* ISO-8601 UTC time, e.g. 2026-11-30T05:28:09Z. */
void utc_now(char out[32]);
/* A time utc_now() wrote ("YYYY-MM-DDTHH:MM:SSZ") as seconds since the
 * epoch; NaN when it is not one (or NULL). */
double utc_seconds(const char *iso);
double monotonic_s(void);

#endif
