#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(void)
{
	fputs("hilbench: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		oom();
	return d;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

static void strlist_take(struct strlist *l, char *s)
{
	/* One spare slot keeps strlist_argv() NULL-terminated for free. */
	l->v = xrealloc(l->v, (l->n + 2) * sizeof(*l->v));
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

void strlist_push(struct strlist *l, const char *s)
{
	strlist_take(l, xstrdup(s));
}

void strlist_pushf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strlist_take(l, xvasprintf(fmt, ap));
	va_end(ap);
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

char **strlist_argv(struct strlist *l)
{
	if (!l->v) {
		l->v = xcalloc(2, sizeof(*l->v));
	}
	return l->v;
}

void strlist_split(struct strlist *l, const char *s, const char *seps)
{
	char *copy = xstrdup(s), *save = NULL;
	for (char *t = strtok_r(copy, seps, &save); t; t = strtok_r(NULL, seps, &save))
		strlist_push(l, t);
	free(copy);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strlist_sort(struct strlist *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

int strlist_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

char *argv_join(const struct strlist *l, const char *sep)
{
	size_t len = 1;
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + strlen(sep);
	char *s = xmalloc(len);
	s[0] = '\0';
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			strcat(s, sep);
		strcat(s, l->v[i]);
	}
	return s;
}

int list_dir(const char *dir, struct strlist *names)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			strlist_push(names, e->d_name);
	closedir(d);
	strlist_sort(names);
	return 0;
}

int mkdir_p(const char *path, int mode)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; *s && rc == 0; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (rc == 0 && mkdir(p, mode) < 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT ? -1 : 0;
}

int rm_rf(const char *path)
{
	if (!path_exists(path))
		return 0;
	return nftw(path, rm_one, 64, FTW_DEPTH | FTW_PHYS);
}

int path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0)
			buf = xrealloc(buf, cap *= 2);
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* mkstemp's way, with open()'s mode so the umask applies as before:
 * O_EXCL never opens what is already there, a symlink planted in a shared
 * directory included. */
int create_unique(const char *path, char **tmp)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char r[8];
		char suffix[sizeof(r) + 1];
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -1;
		for (size_t i = 0; i < sizeof(r); i++)
			suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
		suffix[sizeof(r)] = '\0';
		*tmp = xasprintf("%s.tmp-%s", path, suffix);
		int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		free(*tmp);
		*tmp = NULL;
	}
	return -1;	/* errno EEXIST */
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = NULL;
	int fd = create_unique(path, &tmp);
	int rc = -1;
	if (fd < 0)
		goto out;
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto out_close;
		}
		p += w;
		len -= (size_t)w;
	}
	if (fsync(fd) < 0)
		goto out_close;
	if (close(fd) < 0) {
		fd = -1;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) == 0)
		rc = 0;
out_close:
	if (fd >= 0)
		close(fd);
out_unlink:
	if (rc < 0) {
		int saved = errno;
		unlink(tmp);
		errno = saved;
	}
out:
	free(tmp);
	return rc;
}

int write_string(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = strlen(s);
	ssize_t w = write(fd, s, len);
	int saved = errno;
	close(fd);
	errno = saved;
	return w == (ssize_t)len ? 0 : -1;
}

int write_all(int fd, const void *buf, size_t len)
{
	for (const char *p = buf; len;) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int read_all(int fd, void *buf, size_t len)
{
	for (char *p = buf; len;) {
		ssize_t r = read(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			errno = EPIPE;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	if (!data)
		return -1;
	int rc = write_file_atomic(to, data, len);
	free(data);
	return rc;
}

int parse_uint(const char *s, unsigned long long max, unsigned long long *v)
{
	unsigned long long n = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');
		/* n * 10 + d <= max, written so that nothing wraps */
		if (d > 9 || d > max || n > (max - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

char *path_join(const char *a, const char *b)
{
	if (b[0] == '/')
		return xstrdup(b);
	size_t la = strlen(a);
	return xasprintf("%s%s%s", a, la && a[la - 1] == '/' ? "" : "/", b);
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return strndup(path, (size_t)(slash - path));
}

static void hex(const unsigned char *md, unsigned n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[2 * n] = '\0';
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
	hex(md, n, out);
}

int sha256_file_hex(const char *path, char out[65])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	unsigned char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		EVP_DigestUpdate(ctx, buf, got);
	int err = ferror(f);
	fclose(f);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	EVP_DigestFinal_ex(ctx, md, &n);
	EVP_MD_CTX_free(ctx);
	if (err) {
		errno = EIO;
		return -1;
	}
	hex(md, n, out);
	return 0;
}

const char *hb_cache_dir(void)
{
	static char dir[PATH_MAX];
	if (dir[0])
		return dir;
	const char *env = getenv("HILBENCH_CACHE");
	const char *home = getenv("HOME");
	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/hilbench", home && *home ? home : "/root");
	return dir;
}

/* The status line hb_status() keeps, "" for none. */
static char status_line[512];

int hb_status_shown(void)
{
	static int tty = -1;
	if (tty < 0) {
		const char *term = getenv("TERM");
		tty = isatty(STDERR_FILENO) && term && *term && strcmp(term, "dumb");
	}
	return tty;
}

/* Clears the status line's row before a message. */
static void status_clear(void)
{
	if (status_line[0])
		fputs("\r\033[K", stderr);
}

/* Draws it again, cut to the terminal's width (a wrapped line cannot be
 * cleared with one carriage return). */
static void status_draw(void)
{
	if (!status_line[0])
		return;
	struct winsize ws;
	int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
	fprintf(stderr, "\r\033[K%.*s", width, status_line);
	fflush(stderr);
}

void hb_status(const char *line)
{
	if (!hb_status_shown())
		return;
	status_clear();
	snprintf(status_line, sizeof(status_line), "%s", line ? line : "");
	if (!status_line[0])
		fflush(stderr);
	status_draw();
}

void hb_verr(const char *fmt, va_list ap)
{
	status_clear();
	fputs("hilbench: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	status_draw();
}

int hb_errbuf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void hb_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	hb_verr(fmt, ap);
	va_end(ap);
}

void hb_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	status_clear();
	fputs("hilbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	status_draw();
	va_end(ap);
}

void utc_now(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double utc_seconds(const char *iso)
{
	struct tm tm = { 0 };
	const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
	return end ? (double)timegm(&tm) : NAN;
}

double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
