#include "build/patchset.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/strategy.h"

/* "From 26e872db0f14... Mon Sep 17 00:00:00 2001": an mbox separator line
 * ends in a year; a "From " line inside a commit message almost never does. */
static int is_from_line(const char *line, size_t len)
{
	if (len < 10 || strncmp(line, "From ", 5) || line[5] == ' ')
		return 0;
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len < 4)
		return 0;
	for (size_t i = len - 4; i < len; i++)
		if (!isdigit((unsigned char)line[i]))
			return 0;
	return line[len - 5] == ' ';
}

/* "Subject: [PATCH 2/3] net: stmmac: improve TX timer" in the mail headers
 * -> "net-stmmac-improve-TX-timer" */
static void subject_slug(const char *msg, size_t len, char *out, size_t outlen)
{
	snprintf(out, outlen, "patch");
	const char *end = msg + len, *s = NULL;
	for (const char *line = msg; line < end && *line != '\n';) {
		if (!strncmp(line, "Subject: ", 9)) {
			s = line + 9;
			break;
		}
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		line = nl ? nl + 1 : end;
	}
	if (!s)
		return;
	if (*s == '[' && memchr(s, ']', (size_t)(end - s)))
		s = (const char *)memchr(s, ']', (size_t)(end - s)) + 1;
	size_t o = 0;
	int gap = 0;
	for (; s < end && *s != '\n' && o < outlen - 2 && o < 52; s++) {
		if (!isalnum((unsigned char)*s)) {
			gap = 1;
			continue;
		}
		if (gap && o)
			out[o++] = '-';
		out[o++] = *s;
		gap = 0;
	}
	if (o)
		out[o] = '\0';
}

struct mbox_split {
	const char *path, *dir;
	int n;
	struct strlist *out;
	char *err;
	size_t errlen;
};

static int write_mail(struct mbox_split *m, const char *msg, size_t len, int lineno)
{
	if (!memmem(msg, len, "\n--- ", 5) && !memmem(msg, len, "\ndiff --git ", 12)) {
		snprintf(m->err, m->errlen, "%s:%d: this mail has no diff; an mbox for hilbench "
			 "holds patches only (git format-patch output)", m->path, lineno);
		return -1;
	}
	char slug[64];
	subject_slug(msg, len, slug, sizeof(slug));
	char *file = xasprintf("%s/%04d-%s.patch", m->dir, ++m->n, slug);
	int ok = path_exists(file) || write_file_atomic(file, msg, len) == 0;
	if (ok)
		strlist_push(m->out, file);
	else
		snprintf(m->err, m->errlen, "%s: cannot write %s: %s", m->path, file, strerror(errno));
	free(file);
	return ok ? 0 : -1;
}

static int split_mbox(struct strlist *out, const char *path, const char *text, size_t len,
		      char *err, size_t errlen)
{
	char sha[65];
	sha256_hex(text, len, sha);
	char *dir = xasprintf("%s/mbox/%s", hb_cache_dir(), sha);
	struct mbox_split m = { path, dir, 0, out, err, errlen };
	int rc = mkdir_p(dir, 0755);
	if (rc < 0)
		snprintf(err, errlen, "%s: cannot create %s: %s", path, dir, strerror(errno));
	const char *end = text + len, *msg = text;
	int lineno = 1, msg_line = 1;
	for (const char *line = text; rc == 0 && line < end; lineno++) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *next = nl ? nl + 1 : end;
		if (line != msg && is_from_line(line, (size_t)(next - line))) {
			rc = write_mail(&m, msg, (size_t)(line - msg), msg_line);
			msg = line;
			msg_line = lineno;
		}
		line = next;
	}
	if (rc == 0)
		rc = write_mail(&m, msg, (size_t)(end - msg), msg_line);
	free(dir);
	return rc;
}

int patchset_add_patch(struct strlist *out, const char *path, char *err, size_t errlen)
{
	size_t len;
	char *text = read_file(path, &len);
	if (!text) {
		snprintf(err, errlen, "%s: %s; give the path of a patch or mbox file", path,
			 strerror(errno));
		return -1;
	}
	int rc = 0;
	const char *nl = memchr(text, '\n', len);
	if (is_from_line(text, nl ? (size_t)(nl - text + 1) : len)) {
		rc = split_mbox(out, path, text, len, err, errlen);
	} else if (strncmp(text, "+++ ", 4) && !strstr(text, "\n+++ ")) {
		/* caught here, not an hour later when the build's patch(1) fails */
		snprintf(err, errlen, "%s: not a patch (no '+++ b/FILE' line); give a unified "
			 "diff (git format-patch, diff -u) or an mbox of them", path);
		rc = -1;
	} else {
		strlist_push(out, path);
	}
	free(text);
	return rc;
}

int patchset_add_series(struct strlist *out, const char *path, char *err, size_t errlen)
{
	struct strlist listed = { 0 };
	int rc = series_file_load(path, &listed, NULL, NULL, NULL, NULL, err, errlen);
	for (size_t i = 0; rc == 0 && i < listed.n; i++)
		rc = patchset_add_patch(out, listed.v[i], err, errlen);
	strlist_free(&listed);
	return rc;
}

static void add_unique(struct strlist *out, const char *name, size_t len)
{
	char *path = xasprintf("%.*s", (int)len, name);
	if (!strlist_has(out, path))
		strlist_push(out, path);
	free(path);
}

/* "a/drivers/x.c\t2024-01-01 ..." -> "drivers/x.c"; git's quoted names
 * (unusual bytes) stay quoted, which only makes a path no tree has. */
static void add_stripped(struct strlist *out, const char *name, size_t len)
{
	size_t end = strcspn(name, "\t\r\n");
	if (end < len)
		len = end;
	if (len == 9 && !strncmp(name, "/dev/null", 9))
		return;
	const char *slash = memchr(name, '/', len);
	if (slash)	/* -p1 strips a component; none is no file of the tree */
		add_unique(out, slash + 1, len - (size_t)(slash + 1 - name));
}

int patchset_files(const char *patch, struct strlist *out)
{
	size_t len;
	char *text = read_file(patch, &len);
	if (!text)
		return -1;
	const char *end = text + len;
	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *next = nl ? nl + 1 : end;
		size_t n = (size_t)(next - line);
		if (n > 4 && !strncmp(line, "--- ", 4) && end - next > 4 &&
		    !strncmp(next, "+++ ", 4)) {
			const char *nl2 = memchr(next, '\n', (size_t)(end - next));
			const char *after = nl2 ? nl2 + 1 : end;
			add_stripped(out, line + 4, n - 4);
			add_stripped(out, next + 4, (size_t)(after - next - 4));
			next = after;
		} else if (n > 11 && !strncmp(line, "diff --git ", 11)) {
			/* "a/X b/Y", split at " b/": a path with " b/" in it
			 * adds one too many, never one too few */
			const char *a = line + 11, *b = memmem(a, n - 11, " b/", 3);
			if (b) {
				add_stripped(out, a, (size_t)(b - a));
				add_stripped(out, b + 1, (size_t)(next - b - 1));
			}
		} else if (n > 12 && !strncmp(line, "rename from ", 12)) {
			add_unique(out, line + 12, strcspn(line + 12, "\r\n"));
		} else if (n > 10 && !strncmp(line, "rename to ", 10)) {
			add_unique(out, line + 10, strcspn(line + 10, "\r\n"));
		}
		line = next;
	}
	free(text);
	return 0;
}
