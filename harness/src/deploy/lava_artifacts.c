#include "deploy/lava_artifacts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "util/ipv4.h"
#include "util/proc.h"
#include "util/util.h"

#define LIGHTTPD "/usr/sbin/lighttpd"
#define START_TRIES 3		/* a port picked free may be taken before lighttpd binds it */
#define LISTEN_TIMEOUT_S 10.0
#define STOP_TIMEOUT_S 5.0

static const char name_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";
/* What a path may hold to go into lighttpd's configuration between double
 * quotes (its strings have escapes; these need none). */
static const char conf_path_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-,=@~";

int lava_artifacts_bind_ok(const char *ip, char *err, size_t errlen)
{
	struct in_addr in;
	if (!ip || strchr(ip, '/') || ipv4_parse(ip, &in) < 0)
		return hb_errbuf(err, errlen, "'%s' is not an IPv4 address", ip ? ip : "(none)");
	uint32_t a = ntohl(in.s_addr);
	if ((a >> 24) == 127 || (a & 0xfffe0000u) == 0xc6120000u)
		return 0;
	return hb_errbuf(err, errlen, "hilbench serves artifacts only on loopback (127.0.0.0/8) or "
		    "in its benchmark network (198.18.0.0/15), not on %s; give the board a "
		    "lava.artifact_url for a lab's own web server", ip);
}

int lava_artifacts_path(const char *hex, const char *name, char *out, size_t outlen,
			char *err, size_t errlen)
{
	if (strlen(hex) != 64 || hex[strspn(hex, "0123456789abcdef")])
		return hb_errbuf(err, errlen, "'%s' is not a SHA-256 in lowercase hex", hex);
	if (!name[0] || name[strspn(name, name_chars)] || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return hb_errbuf(err, errlen, "'%s' cannot name a published file; use letters, digits "
			    "and ._+-", name);
	int n = snprintf(out, outlen, "sha256/%s/%s", hex, name);
	if (n < 0 || (size_t)n >= outlen)
		return hb_errbuf(err, errlen, "the artifact path of '%s' is too long", name);
	return 0;
}

/* A port of ip that nothing listens on now; 0 when none could be had. */
static int free_port(const char *ip)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int port = 0;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		goto out;
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(s, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
out:
	if (s >= 0)
		close(s);
	return port;
}

/* Does something accept connections on ip:port? */
static int accepts(const char *ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ok = s >= 0 && inet_pton(AF_INET, ip, &sa.sin_addr) == 1 &&
		 connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (s >= 0)
		close(s);
	return ok;
}

/* lighttpd.conf for dir on ip:port. Root, in a chroot of dir: see the
 * header for why it keeps its user. Only mod_staticfile's defaults: GET
 * and HEAD of plain files, 403 for a directory, 501 for PUT or DELETE. */
static char *server_conf(const char *dir, const char *ip, int port)
{
	return xasprintf("# hilbench's artifact host for one LAVA job (docs/lava.md)\n"
			 "server.chroot = \"%s\"\n"
			 "server.document-root = \"/\"\n"
			 "server.upload-dirs = ( \"/\" )\n"
			 "server.bind = \"%s\"\n"
			 "server.port = %d\n"
			 "server.follow-symlink = \"disable\"\n"
			 "server.max-connections = 64\n"
			 "server.max-request-size = 1\n"
			 "mimetype.assign = ( \"\" => \"application/octet-stream\" )\n",
			 dir, ip, port);
}

/* Stops pid: SIGTERM (lighttpd ends its transfers and exits), SIGKILL
 * after STOP_TIMEOUT_S. */
static void stop_server(pid_t pid)
{
	double deadline = monotonic_s() + STOP_TIMEOUT_S;
	kill(pid, SIGTERM);
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (monotonic_s() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		usleep(20000);
	}
}

static int start_server(struct lava_artifacts *a, const char *ip, const char *workdir)
{
	char *conf_path = path_join(workdir, "lighttpd.conf");
	char *log = path_join(workdir, "lighttpd.log");
	int rc = -1;

	for (int attempt = 0; attempt < START_TRIES && rc < 0 && !hb_interrupted; attempt++) {
		int port = free_port(ip);
		if (!port) {
			hb_err("artifact host: no free TCP port on %s: %s", ip, strerror(errno));
			break;
		}
		char *conf = server_conf(a->dir, ip, port);
		int w = write_file_atomic(conf_path, conf, strlen(conf));
		free(conf);
		if (w < 0) {
			hb_err("cannot write %s: %s", conf_path, strerror(errno));
			break;
		}
		char *argv[] = { LIGHTTPD, "-D", "-f", conf_path, NULL };
		struct proc_opts o = PROC_OPTS_DEFAULT;
		o.log = log;
		pid_t pid = proc_spawn(argv, &o);
		if (pid < 0) {
			hb_err("cannot start %s: %s (install lighttpd: make deps)", LIGHTTPD,
			       strerror(errno));
			break;
		}
		double deadline = monotonic_s() + LISTEN_TIMEOUT_S;
		int exited = 0;
		while (!accepts(ip, port) && !(exited = waitpid(pid, NULL, WNOHANG) == pid)) {
			if (monotonic_s() > deadline || hb_interrupted) {
				stop_server(pid);
				exited = 1;
				break;
			}
			usleep(20000);
		}
		if (exited) {
			hb_info("artifact host: lighttpd did not listen on %s:%d (try %d of %d; "
				"see %s)", ip, port, attempt + 1, START_TRIES, log);
			continue;
		}
		a->server_pid = pid;
		snprintf(a->base, sizeof(a->base), "http://%s:%d/", ip, port);
		rc = 0;
	}
	if (rc < 0 && !hb_interrupted)
		hb_err("artifact host: lighttpd did not start on %s; see %s", ip, log);
	free(conf_path);
	free(log);
	return rc;
}

int lava_artifacts_open(struct lava_artifacts *a, const struct board *b, const char *bind_ip,
			const char *workdir)
{
	char err[512];

	memset(a, 0, sizeof(*a));
	int n = b->lava.artifact_dir
			? snprintf(a->dir, sizeof(a->dir), "%s", b->lava.artifact_dir)
			: snprintf(a->dir, sizeof(a->dir), "%s/artifacts", hb_cache_dir());
	if (n < 0 || (size_t)n >= sizeof(a->dir) || a->dir[0] != '/' ||
	    a->dir[strspn(a->dir, conf_path_chars)]) {
		hb_err("artifact directory '%s' is not an absolute path of letters, digits and "
		       "/._+-,=@~ (set lava.artifact_dir, or another HILBENCH_CACHE)", a->dir);
		a->dir[0] = '\0';
		return -1;
	}
	if (mkdir_p(a->dir, 0755) < 0) {
		hb_err("cannot create the artifact directory %s: %s", a->dir, strerror(errno));
		return -1;
	}
	if (b->lava.artifact_url) {
		/* board.c checked it; the job's URLs are base + relative path. */
		if (board_artifact_url_ok(b->lava.artifact_url, err, sizeof(err)) < 0) {
			hb_err("%s: %s", b->path, err);
			return -1;
		}
		size_t len = strlen(b->lava.artifact_url);
		snprintf(a->base, sizeof(a->base), "%s%s", b->lava.artifact_url,
			 b->lava.artifact_url[len - 1] == '/' ? "" : "/");
		a->lab_server = 1;
		return 0;
	}
	if (!bind_ip) {
		hb_err("%s: the LAVA worker is not on this machine, so it needs the job's files "
		       "over HTTP: set lava.artifact_url (and lava.artifact_dir) to a web server "
		       "the lab runs (docs/lava.md, \"The artifact host\")", b->path);
		return -1;
	}
	if (lava_artifacts_bind_ok(bind_ip, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return -1;
	}
	return start_server(a, bind_ip, workdir);
}

int lava_artifacts_publish(struct lava_artifacts *a, const char *path, char **url,
			   char sha256[65])
{
	char rel[512], err[512];
	size_t len;
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	*url = NULL;
	char *data = read_file(path, &len);
	if (!data) {
		hb_err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* The hash of the bytes written, not of a file that may change
	 * between hashing and copying. */
	sha256_hex(data, len, sha256);
	if (lava_artifacts_path(sha256, name, rel, sizeof(rel), err, sizeof(err)) < 0) {
		hb_err("%s: %s", path, err);
		free(data);
		return -1;
	}
	char *dest = path_join(a->dir, rel);
	char *hexdir = path_dirname(dest);
	struct stat st;
	int rc = 0;
	/* Already there: the same name and hash are the same bytes (a file of
	 * another size was cut short by a crash before rename, which
	 * write_file_atomic rules out, or changed by hand). */
	if (stat(dest, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len)
		goto done;
	if (mkdir_p(hexdir, 0755) < 0 || write_file_atomic(dest, data, len) < 0 ||
	    chmod(dest, 0444) < 0) {
		hb_err("cannot publish %s as %s: %s", path, dest, strerror(errno));
		rc = -1;
	}
done:
	if (rc == 0)
		*url = xasprintf("%s%s", a->base, rel);
	free(hexdir);
	free(dest);
	free(data);
	return rc;
}

void lava_artifacts_close(struct lava_artifacts *a)
{
	if (a->server_pid > 0)
		stop_server(a->server_pid);
	a->server_pid = 0;
}
