#include "deploy/lava_client.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "util/util.h"

#define MESSAGE_MAX 400		/* of the server's message in err */

struct lava_client {
	char *url;		/* without the trailing slash */
	char *auth;		/* "Authorization: Token ..."; NULL: anonymous */
	struct lava_client_opts o;
	CURL *curl;
};

struct body {
	char *data;
	size_t len;
};

/* The token from the environment, for as long as the process runs. */
static char *env_token;

/* A copy of n bytes of s, with nothing left behind in other buffers (as
 * vasprintf's growing ones may). */
static char *copy_secret(const char *s, size_t n)
{
	char *t = xmalloc(n + 1);
	memcpy(t, s, n);
	t[n] = '\0';
	return t;
}

void lava_token_free(char *token)
{
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
}

void lava_token_take_env(void)
{
	char *v = getenv(LAVA_TOKEN_ENV);
	if (!v)
		return;
	if (v[0]) {
		lava_token_free(env_token);
		env_token = copy_secret(v, strlen(v));
	}
	/* Wiped in place before it goes: the initial environment stays
	 * readable in /proc/<pid>/environ after unsetenv(). */
	explicit_bzero(v, strlen(v));
	unsetenv(LAVA_TOKEN_ENV);
}

/* The first word of a token file, read with read(2) into a buffer that is
 * wiped after: no stdio buffer keeps a copy. */
static int read_token_file(const char *file, char **token, char *err, size_t errlen)
{
	char buf[4096];
	ssize_t n = 0, got = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		hb_errbuf(err, errlen, "cannot read the LAVA token file %s ($%s): %s", file,
			LAVA_TOKEN_FILE_ENV, strerror(errno));
		return -1;
	}
	while (n < (ssize_t)sizeof(buf) - 1 &&
	       ((got = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? got : 0;
	int saved = errno;
	close(fd);
	buf[n] = '\0';
	/* one line; surrounding blanks and the newline are not part of it */
	char *s = buf + strspn(buf, " \t\r\n");
	size_t len = strcspn(s, " \t\r\n");
	int rc = -1;
	if (got < 0)
		hb_errbuf(err, errlen, "cannot read the LAVA token file %s ($%s): %s", file,
			LAVA_TOKEN_FILE_ENV, strerror(saved));
	else if (n == (ssize_t)sizeof(buf) - 1)
		hb_errbuf(err, errlen, "the LAVA token file %s ($%s) is over 4 KiB: not a token", file,
			LAVA_TOKEN_FILE_ENV);
	else if (!len)
		hb_errbuf(err, errlen, "the LAVA token file %s ($%s) is empty", file,
			LAVA_TOKEN_FILE_ENV);
	else
		rc = 0;
	if (rc == 0)
		*token = copy_secret(s, len);
	explicit_bzero(buf, sizeof(buf));
	return rc;
}

int lava_token_load(char **token, char *err, size_t errlen)
{
	const char *file = getenv(LAVA_TOKEN_FILE_ENV);
	*token = NULL;
	lava_token_take_env();
	if (file && file[0])
		return read_token_file(file, token, err, errlen);
	if (env_token)
		*token = copy_secret(env_token, strlen(env_token));
	return 0;
}

/* Whether host (n bytes, an IPv6 address in brackets) is this machine. */
static int loopback_host(const char *host, size_t n)
{
	char h[64];
	struct in_addr a4;
	struct in6_addr a6;
	if (n >= sizeof(h))
		return 0;
	memcpy(h, host, n);
	h[n] = '\0';
	if (!strcasecmp(h, "localhost"))
		return 1;
	if (inet_pton(AF_INET, h, &a4) == 1)
		return ntohl(a4.s_addr) >> 24 == 127;
	if (n > 2 && h[0] == '[' && h[n - 1] == ']') {
		h[n - 1] = '\0';
		return inet_pton(AF_INET6, h + 1, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
	}
	return 0;
}

/* The host of an http(s) URL (an IPv6 address with its brackets) in
 * *host, its length returned; 0 when there is none. */
static size_t url_host(const char *url, int https, const char **host)
{
	const char *authority = url + (https ? 8 : 7);
	size_t alen = strcspn(authority, "/?#");
	*host = authority;
	for (const char *p = authority; p < authority + alen; p++)
		if (*p == '@')
			*host = p + 1;
	if ((*host)[0] == '[') {
		const char *end = memchr(*host, ']', (size_t)(authority + alen - *host));
		return end ? (size_t)(end - *host) + 1 : 0;
	}
	return strcspn(*host, ":/?#");
}

int lava_url_is_loopback(const char *url)
{
	int https = !strncasecmp(url, "https://", 8);
	const char *host;
	if (!https && strncasecmp(url, "http://", 7))
		return 0;
	size_t hlen = url_host(url, https, &host);
	return hlen && loopback_host(host, hlen);
}

/* 0 if url may carry the token (see lava_client_new), else -1 with err. */
static int url_allowed(const char *url, char *err, size_t errlen)
{
	int https = !strncasecmp(url, "https://", 8);
	if (!https && strncasecmp(url, "http://", 7)) {
		hb_errbuf(err, errlen, "LAVA server '%s': not an http:// or https:// URL", url);
		return -1;
	}
	const char *host;
	size_t hlen = url_host(url, https, &host);
	if (!hlen) {
		hb_errbuf(err, errlen, "LAVA server '%s': no host", url);
		return -1;
	}
	if (https)
		return 0;
	if (loopback_host(host, hlen)) {
		hb_info("warning: LAVA server %s is plain HTTP: the token goes unencrypted, if only "
			"over this machine's loopback", url);
		return 0;
	}
	const char *allow = getenv("HILBENCH_LAVA_ALLOW_HTTP");
	if (allow && !strcmp(allow, "1")) {
		hb_info("WARNING: LAVA server %s is plain HTTP to another machine: the token crosses "
			"the network in clear text ($HILBENCH_LAVA_ALLOW_HTTP=1)", url);
		return 0;
	}
	hb_errbuf(err, errlen, "LAVA server %s is plain HTTP to another machine: the token would "
		"cross the network in clear text; use https://, or set HILBENCH_LAVA_ALLOW_HTTP=1 "
		"if that network is yours alone", url);
	return -1;
}

struct lava_client *lava_client_new(const char *url, const char *token,
				    const struct lava_client_opts *o, char *err, size_t errlen)
{
	static int global_done;
	if (url_allowed(url, err, errlen) < 0)
		return NULL;
	if (!global_done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		global_done = 1;
	}
	struct lava_client *c = xcalloc(1, sizeof(*c));
	size_t n = strlen(url);
	while (n > 0 && url[n - 1] == '/')
		n--;
	c->url = xasprintf("%.*s", (int)n, url);
	if (token) {
		static const char prefix[] = "Authorization: Token ";
		size_t tl = strlen(token);
		c->auth = xmalloc(sizeof(prefix) + tl);
		memcpy(c->auth, prefix, sizeof(prefix) - 1);
		memcpy(c->auth + sizeof(prefix) - 1, token, tl + 1);
	}
	if (o)
		c->o = *o;
	if (c->o.attempts < 1)
		c->o.attempts = 5;
	if (c->o.backoff_s <= 0)
		c->o.backoff_s = 1;
	if (c->o.timeout_s <= 0)
		c->o.timeout_s = 30;
	c->curl = curl_easy_init();
	if (!c->curl)
		abort();
	return c;
}

void lava_client_free(struct lava_client *c)
{
	if (!c)
		return;
	curl_easy_cleanup(c->curl);
	/* the token does not outlive the client in freed memory */
	lava_token_free(c->auth);
	free(c->url);
	free(c);
}

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	b->data = xrealloc(b->data, b->len + size * n + 1);
	memcpy(b->data + b->len, p, size * n);
	b->len += size * n;
	b->data[b->len] = '\0';
	return size * n;
}

static int interrupted(const struct lava_client *c)
{
	return hb_interrupted && !c->o.uninterruptible;
}

/* Ctrl-C ends a transfer at once. */
static int progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	return interrupted(arg);
}

/* The server's message from a 4xx body: Django REST framework's "detail",
 * else the JSON itself (field errors), else the text; printable only. */
static void server_message(const struct body *b, char *out, size_t outlen)
{
	cJSON *j = b->data ? cJSON_Parse(b->data) : NULL;
	const cJSON *detail = cJSON_GetObjectItemCaseSensitive(j, "detail");
	const cJSON *message = cJSON_GetObjectItemCaseSensitive(j, "message");
	char *text = NULL;
	if (cJSON_IsString(detail))
		text = xstrdup(detail->valuestring);
	else if (cJSON_IsString(message))
		text = xstrdup(message->valuestring);
	else if (j)
		text = cJSON_PrintUnformatted(j);
	else
		text = xstrdup(b->data ? b->data : "");
	cJSON_Delete(j);
	size_t n = 0;
	for (const char *p = text; *p && n + 1 < outlen && n < MESSAGE_MAX; p++)
		out[n++] = isprint((unsigned char)*p) ? *p : ' ';
	out[n] = '\0';
	if (!n)
		snprintf(out, outlen, "(no message)");
	free(text);
}

/* What went wrong below HTTP, in words: curl's message, and the system's
 * reason when it has one (7.88 says "Couldn't connect to server" for a
 * refused connection). */
static void transport_problem(struct lava_client *c, CURLcode cc, const char *curl_err,
			      char *out, size_t outlen)
{
	long os_errno = 0;
	curl_easy_getinfo(c->curl, CURLINFO_OS_ERRNO, &os_errno);
	const char *what = curl_err[0] ? curl_err : curl_easy_strerror(cc);
	if (cc == CURLE_GOT_NOTHING)
		snprintf(out, outlen, "%s (the server closed the connection without answering)", what);
	else if (os_errno)
		snprintf(out, outlen, "%s (%s)", what, strerror((int)os_errno));
	else
		snprintf(out, outlen, "%s", what);
}

static void nap(const struct lava_client *c, double s)
{
	double end = monotonic_s() + s;
	while (!interrupted(c) && monotonic_s() < end)
		usleep(20000);
}

/*
 * One request with the retry policy. method "GET" or "POST" (json_body
 * set). 2xx: 0 with the body in *out (caller frees). The body of a
 * POST is resent on a retry: LAVA might then see a job twice if a 5xx came
 * after it stored the first, which beats losing it.
 */
static int request(struct lava_client *c, const char *method, const char *path,
		   const char *json_body, struct body *out, char *err, size_t errlen)
{
	char *url = xasprintf("%s%s", c->url, path);
	struct curl_slist *h = NULL;
	if (c->auth)
		h = curl_slist_append(h, c->auth);
	h = curl_slist_append(h, "Accept: application/json");
	if (json_body)
		h = curl_slist_append(h, "Content-Type: application/json");
	double wait = c->o.backoff_s;
	int rc = HB_FAIL_LAB;
	char last[256] = "";
	for (int attempt = 1; attempt <= c->o.attempts && !interrupted(c); attempt++) {
		struct body b = { NULL, 0 };
		char curl_err[CURL_ERROR_SIZE] = "";
		curl_easy_reset(c->curl);
		curl_easy_setopt(c->curl, CURLOPT_URL, url);
		curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, collect);
		curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &b);
		curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, curl_err);
		curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, c->o.timeout_s);
		curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, c->o.timeout_s);
		curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, progress);
		curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, c);
		/* A redirect would resend the token elsewhere: not followed. */
		curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
		if (json_body) {
			curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
			curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, json_body);
		} else if (strcmp(method, "GET")) {
			curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
		}
		CURLcode cc = curl_easy_perform(c->curl);
		long status = 0;
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
		if (cc == CURLE_OK && status >= 200 && status < 300) {
			*out = b;
			rc = 0;
			break;
		}
		if (cc == CURLE_OK && status >= 400 && status < 500) {
			char msg[MESSAGE_MAX + 1];
			server_message(&b, msg, sizeof(msg));
			hb_errbuf(err, errlen, "%s %s: HTTP %ld: %s", method, url, status, msg);
			free(b.data);
			rc = HB_FAIL_INPUT;
			break;
		}
		if (cc == CURLE_OK)
			snprintf(last, sizeof(last), "HTTP %ld", status);
		else
			transport_problem(c, cc, curl_err, last, sizeof(last));
		free(b.data);
		if (attempt < c->o.attempts) {
			hb_info("LAVA: %s %s: %s; retrying in %.1f s (attempt %d of %d)", method, url,
				last, wait, attempt + 1, c->o.attempts);
			nap(c, wait);
			wait *= 2;
		}
	}
	if (rc == HB_FAIL_LAB)
		hb_errbuf(err, errlen, "%s %s: %s%s", method, url,
			interrupted(c) ? "interrupted" : last,
			interrupted(c) ? "" : " (gave up after the retries; is the server up?)");
	/* curl's copy of the Authorization header is wiped like ours */
	for (struct curl_slist *e = h; e; e = e->next)
		explicit_bzero(e->data, strlen(e->data));
	curl_slist_free_all(h);
	free(url);
	return rc;
}

static cJSON *get_json(struct lava_client *c, const char *path, int *rc, char *err,
		       size_t errlen)
{
	struct body b = { NULL, 0 };
	*rc = request(c, "GET", path, NULL, &b, err, errlen);
	if (*rc != 0)
		return NULL;
	cJSON *j = cJSON_Parse(b.data ? b.data : "");
	free(b.data);
	if (!j) {
		hb_errbuf(err, errlen, "GET %s%s: the answer is not JSON", c->url, path);
		*rc = HB_FAIL_LAB;
	}
	return j;
}

static const char *jstr(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	return cJSON_IsString(v) ? v->valuestring : "";
}

int lava_device_check(struct lava_client *c, const char *hostname, char *err, size_t errlen)
{
	static const char *const unusable[] = { "Bad", "Maintenance", "Retired" };
	char *esc = curl_easy_escape(c->curl, hostname, 0);
	char *path = xasprintf("/api/v0.2/devices/%s/", esc);
	curl_free(esc);
	int rc;
	cJSON *j = get_json(c, path, &rc, err, errlen);
	free(path);
	if (!j)
		return rc;
	const char *health = jstr(j, "health");
	for (size_t i = 0; i < HB_ARRAY_SIZE(unusable); i++)
		if (!strcmp(health, unusable[i])) {
			hb_errbuf(err, errlen, "LAVA device %s is %s (state %s): not submitting; a lab "
				"admin must bring it back to Good", hostname, health, jstr(j, "state"));
			rc = HB_FAIL_INPUT;
		}
	cJSON_Delete(j);
	return rc;
}

/* Appends "name (health)" to the list of unusable devices, printable
 * characters only, while it fits. */
static void note_unusable(struct lava_devices *d, const char *name, const char *health)
{
	size_t n = strlen(d->unusable), cap = sizeof(d->unusable);
	char item[96];
	size_t k = 0;
	for (const char *p = name; *p && k < 40; p++)
		item[k++] = isprint((unsigned char)*p) ? *p : '?';
	k += (size_t)snprintf(item + k, sizeof(item) - k, " (");
	for (const char *p = health; *p && k < 80; p++)
		item[k++] = isprint((unsigned char)*p) ? *p : '?';
	item[k++] = ')';
	item[k] = '\0';
	if (n + k + 3 < cap)
		snprintf(d->unusable + n, cap - n, "%s%s", n ? ", " : "", item);
}

int lava_devices_parse(const char *json, const char *device_type, struct lava_devices *d,
		       int *count, char *err, size_t errlen)
{
	cJSON *j = cJSON_Parse(json);
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "count");
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(j, "results");
	int rc = -1;
	if (!cJSON_IsNumber(n) || !(n->valuedouble >= 0 && n->valuedouble <= LAVA_DEVICES_MAX) ||
	    n->valuedouble != (double)(int)n->valuedouble) {
		hb_errbuf(err, errlen, "no device count from 0 to %d in the answer", LAVA_DEVICES_MAX);
		goto out;
	}
	if (!cJSON_IsArray(results) || cJSON_GetArraySize(results) > LAVA_DEVICES_PAGE) {
		hb_errbuf(err, errlen, "no list of at most %d devices in the answer",
			  LAVA_DEVICES_PAGE);
		goto out;
	}
	*count = (int)n->valuedouble;
	int page = 0;
	const cJSON *dev;
	cJSON_ArrayForEach(dev, results) {
		page++;
		if (strcmp(jstr(dev, "device_type"), device_type))
			continue;
		const char *health = jstr(dev, "health");
		int usable = !strcmp(health, "Good") || !strcmp(health, "Unknown");
		d->total++;
		d->usable += usable;
		d->idle += usable && !strcmp(jstr(dev, "state"), "Idle");
		if (!usable)
			note_unusable(d, jstr(dev, "hostname"), health);
	}
	rc = page;
out:
	cJSON_Delete(j);
	return rc;
}

int lava_device_type_check(struct lava_client *c, const char *device_type,
			   struct lava_devices *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	size_t len = strspn(device_type, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789._-");
	if (!device_type[0] || device_type[len]) {
		hb_errbuf(err, errlen, "LAVA device type '%.100s': letters, digits and ._- only",
			  device_type);
		return HB_FAIL_INPUT;
	}
	int seen = 0, count = 0;
	for (int page = 0; page < LAVA_DEVICES_PAGES; page++) {
		char path[256];
		snprintf(path, sizeof(path), "/api/v0.2/devices/?device_type=%s&limit=%d&offset=%d",
			 device_type, LAVA_DEVICES_PAGE, seen);
		struct body b = { NULL, 0 };
		int rc = request(c, "GET", path, NULL, &b, err, errlen);
		if (rc != 0)
			return rc;
		char why[200];
		int got = lava_devices_parse(b.data ? b.data : "", device_type, d, &count, why,
					     sizeof(why));
		free(b.data);
		if (got < 0) {
			hb_errbuf(err, errlen, "GET %s%s: %s", c->url, path, why);
			return HB_FAIL_LAB;
		}
		seen += got;
		if (got == 0 || seen >= count)
			break;
	}
	if (!d->usable) {
		hb_errbuf(err, errlen, "LAVA device type %s has no device in health Good or Unknown "
			"(%d device(s)%s%s): not submitting; a lab admin must bring one back to Good",
			device_type, d->total, d->unusable[0] ? ": " : "", d->unusable);
		return HB_FAIL_INPUT;
	}
	return 0;
}

int lava_submit(struct lava_client *c, const char *job_yaml, long *job_id, char *err,
		size_t errlen)
{
	cJSON *req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "definition", job_yaml);
	char *body = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	struct body b = { NULL, 0 };
	int rc = request(c, "POST", "/api/v0.2/jobs/", body, &b, err, errlen);
	free(body);
	if (rc != 0)
		return rc;
	cJSON *j = cJSON_Parse(b.data ? b.data : "");
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(j, "job_ids");
	const cJSON *first = cJSON_IsArray(ids) ? cJSON_GetArrayItem(ids, 0) : NULL;
	if (cJSON_IsNumber(first)) {
		*job_id = (long)first->valuedouble;
	} else {
		hb_errbuf(err, errlen, "POST %s/api/v0.2/jobs/: no job_ids in the answer", c->url);
		rc = HB_FAIL_LAB;
	}
	cJSON_Delete(j);
	free(b.data);
	return rc;
}

int lava_job_status(struct lava_client *c, long job_id, char state[32], char health[32],
		    char *err, size_t errlen)
{
	char path[64];
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/", job_id);
	int rc;
	cJSON *j = get_json(c, path, &rc, err, errlen);
	if (!j)
		return rc;
	snprintf(state, 32, "%s", jstr(j, "state"));
	snprintf(health, 32, "%s", jstr(j, "health"));
	cJSON_Delete(j);
	return 0;
}

int lava_job_device(struct lava_client *c, long job_id, char device[64], char *err,
		    size_t errlen)
{
	char path[64];
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/", job_id);
	device[0] = '\0';
	int rc;
	cJSON *j = get_json(c, path, &rc, err, errlen);
	if (!j)
		return rc;
	const char *name = jstr(j, "actual_device");
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
	if (!name[n] && n < 64)
		memcpy(device, name, n + 1);
	cJSON_Delete(j);
	return 0;
}

int lava_job_logs(struct lava_client *c, long job_id, long start, char **text, char *err,
		  size_t errlen)
{
	char path[96];
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/logs/?start=%ld", job_id, start);
	struct body b = { NULL, 0 };
	int rc = request(c, "GET", path, NULL, &b, err, errlen);
	if (rc == 0)
		*text = b.data ? b.data : xstrdup("");
	return rc;
}

int lava_job_cancel(struct lava_client *c, long job_id, char *err, size_t errlen)
{
	char path[64];
	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/cancel/", job_id);
	struct body b = { NULL, 0 };
	int rc = request(c, "GET", path, NULL, &b, err, errlen);
	free(b.data);
	return rc;
}
