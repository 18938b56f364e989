/*
 * The artifact host (deploy/lava_artifacts.c): content-addressed, read-only
 * publishing, the addresses a server may bind, and a job for a lab's
 * worker that fetches everything over HTTP with its SHA-256 and has no
 * file:// URL. With root and Debian's lighttpd installed, a real lighttpd
 * on loopback serves a published file, refuses writes and listings, and
 * is gone after lava_artifacts_close(); without them that case is skipped
 * (tests/lava/local.sh runs it under lava-run either way).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/board.h"
#include "config/workload.h"
#include "deploy/lava_artifacts.h"
#include "deploy/lava_job.h"
#include "util/util.h"

static const char hex64[] = "8d74beec1be996322ad76813bafb92d40839895d6dd7ee808b17ca201eac98be";

static void test_bind_addresses(void **state)
{
	(void)state;
	char err[512];
	const char *ok[] = { "127.0.0.1", "127.255.0.9", "198.18.0.1", "198.19.255.254" };
	const char *refused[] = { "0.0.0.0", "10.0.0.1", "198.17.255.255", "198.20.0.1",
				  "192.168.1.1", "198.18.0.1/24", "localhost", "", "::1" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(ok); i++)
		assert_int_equal(lava_artifacts_bind_ok(ok[i], err, sizeof(err)), 0);
	for (size_t i = 0; i < HB_ARRAY_SIZE(refused); i++) {
		err[0] = '\0';
		assert_int_equal(lava_artifacts_bind_ok(refused[i], err, sizeof(err)), -1);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(lava_artifacts_bind_ok(NULL, err, sizeof(err)), -1);
}

static void test_paths(void **state)
{
	(void)state;
	char out[256], err[512], small[20];
	assert_int_equal(lava_artifacts_path(hex64, "zImage", out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "sha256/8d74beec1be996322ad76813bafb92d40839895d6dd7ee808b17ca201eac98be/zImage");
	const char *bad_names[] = { "", ".", "..", "a/b", "x y", "k?", "k%20", "k#", "\xc3\xa9" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad_names); i++)
		assert_int_equal(lava_artifacts_path(hex64, bad_names[i], out, sizeof(out), err,
						     sizeof(err)), -1);
	assert_int_equal(lava_artifacts_path("ABCD", "k", out, sizeof(out), err, sizeof(err)), -1);
	char upper[65];
	snprintf(upper, sizeof(upper), "%s", hex64);
	upper[0] = 'A';
	assert_int_equal(lava_artifacts_path(upper, "k", out, sizeof(out), err, sizeof(err)), -1);
	/* too long for the buffer: refused, never cut */
	assert_int_equal(lava_artifacts_path(hex64, "zImage", small, sizeof(small), err,
					     sizeof(err)), -1);
}

static void test_artifact_url_check(void **state)
{
	(void)state;
	char err[512], longurl[ARTIFACT_URL_MAX + 16];
	assert_int_equal(board_artifact_url_ok("http://lab.example:8080/hb", err, sizeof(err)), 0);
	assert_int_equal(board_artifact_url_ok("https://lab.example/a/b/", err, sizeof(err)), 0);
	const char *bad[] = { "file:///srv/a", "ftp://x/", "http://", "http:///x", "https://:80/",
			      "http://h/a?b", "http://h/a#b", "http://h/a%20b", "http://h/a b",
			      "http://h/\"x" };
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++)
		assert_int_equal(board_artifact_url_ok(bad[i], err, sizeof(err)), -1);
	memset(longurl, 'a', sizeof(longurl) - 1);
	memcpy(longurl, "http://", 7);
	longurl[sizeof(longurl) - 1] = '\0';
	assert_int_equal(board_artifact_url_ok(longurl, err, sizeof(err)), -1);
}

struct fixture {
	char dir[64];
	struct board b;
	struct workload w;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char err[512];
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/hb-test-art-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	char *bp = path_join(getenv("HILBENCH_HOME"), "boards/qemu-orangepi-pc-lava.yaml");
	char *wp = path_join(getenv("HILBENCH_HOME"), "workloads/udp64-dut-tx.yaml");
	int rc = board_load(bp, &fx->b, err, sizeof(err)) ||
		 workload_load(wp, &fx->w, err, sizeof(err));
	if (rc)
		print_error("%s\n", err);
	free(bp);
	free(wp);
	fx->b.lava.artifact_dir = path_join(fx->dir, "published");
	*state = fx;
	return rc;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	board_free(&fx->b);
	workload_free(&fx->w);
	rm_rf(fx->dir);
	free(fx);
	return 0;
}

static char *make_file(const struct fixture *fx, const char *name, const char *content)
{
	char *p = path_join(fx->dir, name);
	assert_int_equal(write_file_atomic(p, content, strlen(content)), 0);
	return p;
}

/* A board on a lab's workers: the files go to its artifact directory under
 * their hash, read-only, and the job fetches each over HTTP with its sum. */
static void test_publish_for_a_lab(void **state)
{
	struct fixture *fx = *state;
	struct lava_artifacts a;
	char sums[3][65], err[512], want[65];
	char *urls[3] = { NULL, NULL, NULL };
	const char *names[3] = { "zImage", "sun8i-h3-orangepi-pc.dtb", "initramfs.cpio.gz" };
	const char *contents[3] = { "kernel bytes", "dtb bytes", "ramdisk bytes" };

	fx->b.lava.artifact_url = xstrdup("http://artifacts.lab.example:8080/hb");
	assert_int_equal(lava_artifacts_open(&a, &fx->b, NULL, fx->dir), 0);
	assert_true(a.lab_server);
	assert_int_equal(a.server_pid, 0);
	for (int i = 0; i < 3; i++) {
		char *src = make_file(fx, names[i], contents[i]);
		assert_int_equal(lava_artifacts_publish(&a, src, &urls[i], sums[i]), 0);
		sha256_hex(contents[i], strlen(contents[i]), want);
		assert_string_equal(sums[i], want);
		char *expect = xasprintf("http://artifacts.lab.example:8080/hb/sha256/%s/%s", want,
					 names[i]);
		assert_string_equal(urls[i], expect);
		char *pub = xasprintf("%s/sha256/%s/%s", fx->b.lava.artifact_dir, want, names[i]);
		struct stat st;
		assert_int_equal(stat(pub, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0444);
		size_t len;
		char *got = read_file(pub, &len);
		assert_non_null(got);
		assert_string_equal(got, contents[i]);
		/* Published again (another job, the same build): the same URL. */
		char *again = NULL, sum2[65];
		assert_int_equal(lava_artifacts_publish(&a, src, &again, sum2), 0);
		assert_string_equal(again, urls[i]);
		free(again);
		free(got);
		free(pub);
		free(expect);
		free(src);
	}
	/* Changed content is another path: the first is never overwritten. */
	char *src = make_file(fx, "zImage", "a newer kernel");
	char *newer = NULL, sum[65];
	assert_int_equal(lava_artifacts_publish(&a, src, &newer, sum), 0);
	assert_string_not_equal(newer, urls[0]);
	free(newer);
	free(src);

	/* The job: every image over HTTP with its SHA-256, no file:// at all. */
	struct lava_job_spec spec = {
		.board = &fx->b, .series = "6.1", .strategy = "baseline", .workload = &fx->w,
		.kernel = { urls[0], sums[0] }, .dtb = { urls[1], sums[1] },
		.ramdisk = { urls[2], sums[2] }, .kernel_args = "console=ttyS0,115200",
		.report_awk = "{ }\n", .remote_worker = 1,
	};
	char *job = lava_job_render(&spec, err, sizeof(err));
	if (!job)
		print_error("%s\n", err);
	assert_non_null(job);
	assert_null(strstr(job, "file://"));
	for (int i = 0; i < 3; i++) {
		char *line = xasprintf("url: \"%s\"\n      sha256sum: \"%s\"\n", urls[i], sums[i]);
		assert_non_null(strstr(job, line));
		free(line);
	}
	free(job);

	/* A file:// URL, or an HTTP one without its sum, is refused for a
	 * remote worker; lava-run here may still read files. */
	spec.dtb.url = "file:///c/k/x.dtb";
	assert_null(lava_job_render(&spec, err, sizeof(err)));
	assert_non_null(strstr(err, "worker elsewhere"));
	spec.dtb.url = urls[1];
	spec.ramdisk.sha256 = NULL;
	assert_null(lava_job_render(&spec, err, sizeof(err)));
	assert_non_null(strstr(err, "without a SHA-256"));
	spec.remote_worker = 0;
	spec.kernel.url = "file:///c/k/zImage";
	job = lava_job_render(&spec, err, sizeof(err));
	assert_non_null(job);
	free(job);
	spec.kernel.url = "ftp://lab/zImage";
	assert_null(lava_job_render(&spec, err, sizeof(err)));
	assert_non_null(strstr(err, "neither http(s):// nor file:///"));

	lava_artifacts_close(&a);
	lava_artifacts_close(&a);	/* idempotent */
	for (int i = 0; i < 3; i++)
		free(urls[i]);
}

static void test_open_refuses(void **state)
{
	struct fixture *fx = *state;
	struct lava_artifacts a;

	/* No lab URL and no address to serve on: a message, no server. */
	assert_int_equal(lava_artifacts_open(&a, &fx->b, NULL, fx->dir), -1);
	assert_int_equal(a.server_pid, 0);
	/* An address outside loopback and the benchmark range. */
	assert_int_equal(lava_artifacts_open(&a, &fx->b, "192.168.7.1", fx->dir), -1);
	assert_int_equal(a.server_pid, 0);
	/* A directory lighttpd's configuration could not carry as written. */
	free(fx->b.lava.artifact_dir);
	fx->b.lava.artifact_dir = xstrdup("/tmp/a \"dir\"");
	assert_int_equal(lava_artifacts_open(&a, &fx->b, "127.0.0.1", fx->dir), -1);
	lava_artifacts_close(&a);
}

/* One HTTP/1.0 request to ip:port; the reply's status code, the body in
 * *body (malloc'd) when asked. */
static int http(const char *base, const char *method, const char *path, char **body)
{
	char ip[64];
	int port;
	assert_int_equal(sscanf(base, "http://%63[0-9.]:%d/", ip, &port), 2);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	assert_int_equal(inet_pton(AF_INET, ip, &sa.sin_addr), 1);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s >= 0);
	assert_int_equal(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	char req[512];
	int n = snprintf(req, sizeof(req), "%s %s HTTP/1.0\r\nHost: %s\r\nContent-Length: 0\r\n\r\n",
			 method, path, ip);
	assert_int_equal(write(s, req, (size_t)n), n);
	char reply[8192];
	size_t len = 0;
	ssize_t got;
	while (len < sizeof(reply) - 1 && (got = read(s, reply + len, sizeof(reply) - 1 - len)) > 0)
		len += (size_t)got;
	reply[len] = '\0';
	close(s);
	int code = 0;
	assert_int_equal(sscanf(reply, "HTTP/1.%*d %d", &code), 1);
	if (body) {
		char *sep = strstr(reply, "\r\n\r\n");
		*body = xstrdup(sep ? sep + 4 : "");
	}
	return code;
}

static void test_local_server(void **state)
{
	struct fixture *fx = *state;
	if (geteuid() != 0 || access("/usr/sbin/lighttpd", X_OK) != 0)
		skip();	/* the chroot needs root; make deps installs lighttpd */
	struct lava_artifacts a;
	char sum[65], *url = NULL, *body = NULL;

	assert_int_equal(lava_artifacts_open(&a, &fx->b, "127.0.0.1", fx->dir), 0);
	assert_false(a.lab_server);
	assert_true(a.server_pid > 0);
	assert_int_equal(strncmp(a.base, "http://127.0.0.1:", 17), 0);
	char *src = make_file(fx, "zImage", "served bytes");
	assert_int_equal(lava_artifacts_publish(&a, src, &url, sum), 0);
	assert_int_equal(strncmp(url, a.base, strlen(a.base)), 0);
	const char *path = url + strlen(a.base) - 1;	/* "/sha256/..." */

	assert_int_equal(http(a.base, "GET", path, &body), 200);
	assert_string_equal(body, "served bytes");
	free(body);
	assert_int_equal(http(a.base, "HEAD", path, NULL), 200);
	/* read-only: no writes, no deletes, no listings, nothing outside */
	assert_int_equal(http(a.base, "PUT", path, NULL), 501);
	assert_true(http(a.base, "PUT", "/sha256/new", NULL) >= 400);
	char *created = path_join(fx->b.lava.artifact_dir, "sha256/new");
	assert_false(path_exists(created));
	free(created);
	assert_int_equal(http(a.base, "DELETE", path, NULL), 501);
	assert_int_equal(http(a.base, "GET", path, &body), 200);
	free(body);
	assert_int_equal(http(a.base, "GET", "/sha256/", NULL), 403);
	int outside = http(a.base, "GET", "/../../../../etc/passwd", NULL);
	assert_true(outside >= 400);
	char *conf = path_join(fx->dir, "lighttpd.conf");
	char *text = read_file(conf, NULL);
	assert_non_null(strstr(text, "server.bind = \"127.0.0.1\"\n"));
	free(text);
	free(conf);

	pid_t pid = a.server_pid;
	lava_artifacts_close(&a);
	assert_int_equal(a.server_pid, 0);
	assert_int_equal(kill(pid, 0), -1);	/* reaped: no such process */
	assert_int_equal(errno, ESRCH);
	free(url);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bind_addresses),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_artifact_url_check),
		cmocka_unit_test_setup_teardown(test_publish_for_a_lab, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_server, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
