#include "measure/profile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next line of *p (without its newline) into line; 0 at the end. */
static int next_line(const char **p, char *line, size_t len)
{
	if (!**p)
		return 0;
	size_t n = strcspn(*p, "\n");
	size_t c = n < len - 1 ? n : len - 1;
	memcpy(line, *p, c);
	line[c] = '\0';
	*p += n + ((*p)[n] == '\n');
	return 1;
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A word (no blanks) into out, truncated; returns what follows it. */
static const char *word(const char *s, char *out, size_t len)
{
	size_t n = strcspn(s, " \t");
	size_t c = n < len - 1 ? n : len - 1;
	memcpy(out, s, c);
	out[c] = '\0';
	return s + n;
}

static int parse_ull(const char *s, const char **end, unsigned long long *v)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *e;
	*v = strtoull(s, &e, 10);
	*end = e;
	return errno ? -1 : 0;
}

static int parse_double(const char *s, const char **end, double *v)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	char *e;
	*v = strtod(s, &e);
	*end = e;
	return isfinite(*v) ? 0 : -1;
}

int fprof_parse(const char *text, struct fprof_entry *out, size_t max)
{
	char line[512];
	int header = 0, n = 0;

	for (const char *p = text; next_line(&p, line, sizeof(line));) {
		const char *s = skip_blank(line);
		if (!strncmp(s, "Function", 8) && strstr(s, "Hit")) {
			header = 1;
			continue;
		}
		struct fprof_entry e;
		const char *r = word(s, e.function, sizeof(e.function));
		if (!e.function[0] || e.function[0] == '-')
			continue;
		if (parse_ull(skip_blank(r), &r, &e.hits) < 0)
			continue;
		if (parse_double(skip_blank(r), &r, &e.time_us) < 0 ||
		    strncmp(skip_blank(r), "us", 2) != 0)
			continue;
		if ((size_t)n < max)
			out[n] = e;
		n++;
	}
	return header ? n : -1;
}

int perf_report_parse(const char *text, struct perf_sym *out, size_t max,
		      unsigned long long *samples)
{
	char line[512];
	int header = 0, n = 0;

	*samples = 0;
	for (const char *p = text; next_line(&p, line, sizeof(line));) {
		const char *s = skip_blank(line);
		if (!strncmp(s, "# Samples:", 10)) {
			const char *r;
			unsigned long long v;
			header = 1;
			if (parse_ull(skip_blank(s + 10), &r, &v) < 0)
				continue;
			if (*r == 'K' || *r == 'M') {
				/* perf rounds: "40K" is 40,000 +- 500 */
				unsigned long long mul = *r == 'K' ? 1000 : 1000000;
				v = v <= (unsigned long long)-1 / mul ? v * mul : 0;
			}
			*samples = v;
			continue;
		}
		if (*s == '#')
			continue;
		struct perf_sym e;
		const char *r;
		if (parse_double(s, &r, &e.pct) < 0 || *r != '%' || e.pct > 100)
			continue;
		r = skip_blank(r + 1);
		if (r[0] != '[' || !r[1] || r[2] != ']')
			continue;
		e.kernel = r[1] == 'k';
		word(skip_blank(r + 3), e.symbol, sizeof(e.symbol));
		if (!e.symbol[0])
			continue;
		if ((size_t)n < max)
			out[n] = e;
		n++;
	}
	return header ? n : -1;
}

int perf_stat_parse(const char *text, struct perf_count *out, size_t max)
{
	char line[512];
	int n = 0, any = 0;

	for (const char *p = text; next_line(&p, line, sizeof(line));) {
		if (line[0] == '#' || !line[0])
			continue;
		/* value, unit, event, run time, percentage, ... */
		char *f[4] = { NULL, NULL, NULL, NULL };
		char *s = line;
		for (int k = 0; k < 4 && s; k++) {
			f[k] = s;
			s = strchr(s, ',');
			if (s)
				*s++ = '\0';
		}
		if (!f[2] || !f[2][0])
			continue;
		struct perf_count e = { .counted = 0 };
		snprintf(e.event, sizeof(e.event), "%s", f[2]);
		const char *r;
		if (f[0][0] == '<') {
			e.count = 0;
		} else if (parse_ull(f[0], &r, &e.count) == 0 && *r == '\0') {
			e.counted = 1;
		} else {
			continue;
		}
		if (!f[3] || parse_ull(f[3], &r, &e.runtime_ns) < 0 || *r != '\0')
			e.runtime_ns = 0;
		any = 1;
		if ((size_t)n < max)
			out[n] = e;
		n++;
	}
	return any ? n : -1;
}

/* "word N" for one of the header's words, in any order. */
static int insn_header_line(const char *line, struct insn_window *w)
{
	static const char *const keys[] = { "window", "insns", "kernel", "user", "own",
					    "stack_overflows" };
	unsigned long long *slots[] = { &w->window, &w->insns, &w->kernel, &w->user, &w->own,
					&w->stack_overflows };
	char key[24];
	const char *p = word(line, key, sizeof(key)), *end;
	unsigned long long v;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i])) {
			p = skip_blank(p);
			if (parse_ull(p, &end, &v) < 0 || *skip_blank(end))
				return 0;
			*slots[i] = v;
			return 1;
		}
	return 0;
}

int insn_window_parse(const char *text, struct insn_window *w, struct insn_fn *out, size_t max)
{
	const char *p = text;
	char line[512];
	int n = 0, ended = 0;
	memset(w, 0, sizeof(*w));
	if (!next_line(&p, line, sizeof(line)) || strcmp(line, "hb-insn 2"))
		return -1;
	while (next_line(&p, line, sizeof(line))) {
		if (!strcmp(line, "end")) {
			ended = 1;
			break;
		}
		if (strncmp(line, "fn ", 3)) {
			insn_header_line(line, w);
			continue;
		}
		struct insn_fn e = { .function = "" };
		const char *s = skip_blank(word(skip_blank(line + 3), e.function, sizeof(e.function)));
		unsigned long long v[5];
		int got = 0;
		const char *end;
		while (got < 5 && parse_ull(s, &end, &v[got]) == 0) {
			got++;
			s = skip_blank(end);
		}
		if (!e.function[0] || *s || (got != 2 && got != 5))
			continue;
		e.self = v[0];
		e.calls = v[1];
		if (got == 5) {
			e.inclusive = 1;
			e.incl = v[2];
			e.unmatched = v[3];
			e.incl_own = v[4];
		}
		if ((size_t)n < max)
			out[n] = e;
		if (n < INT_MAX)
			n++;
	}
	return ended ? n : -1;
}
