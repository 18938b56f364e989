/*
 * lava_artifacts: the files a LAVA job deploys (kernel, dtb, ramdisk),
 * published under content-addressed paths and reached over HTTP, so that
 * a worker anywhere can fetch them and LAVA checks their SHA-256
 * (docs/lava.md, "The artifact host").
 *
 * A file is published as <dir>/sha256/<hex>/<name>, mode 0444, written
 * whole (write_file_atomic) from the bytes its hash was computed from:
 * the path names the content, so a published file never changes and any
 * number of hilbench processes may publish into one directory. <dir> is
 * the board's lava.artifact_dir, else $HILBENCH_CACHE/artifacts.
 *
 * Where the URLs point: the board's lava.artifact_url (a web server the
 * lab runs over <dir>), or a lighttpd hilbench starts for the job, bound
 * to one address of this machine's loopback (127.0.0.0/8) or of the
 * benchmark range inside hilbench's namespace (198.18.0.0/15), never any
 * other. It serves <dir> read-only from a chroot (static files, GET and
 * HEAD, no listings, no symlinks) and stays root inside it, so the
 * parent-death signal proc_spawn() sets stops it even when hilbench is
 * SIGKILLed (the kernel clears that signal when a process changes its
 * user); lava_artifacts_close() stops it on every other path.
 *
 * Contract: the functions return 0 or -1 with the message printed
 * (docs/design.md, "Errors"); lava_artifacts_close() is idempotent and
 * safe on a zeroed or failed struct. The pure checks below return 0 or -1
 * with the reason in err.
 */
#ifndef HB_LAVA_ARTIFACTS_H
#define HB_LAVA_ARTIFACTS_H

#include <stddef.h>
#include <sys/types.h>

#include "config/board.h"

struct lava_artifacts {
	char dir[1024];		/* where files are published */
	char base[512];		/* the URL of dir, ending in '/' */
	int lab_server;		/* base is the lab's (lava.artifact_url) */
	pid_t server_pid;	/* the lighttpd started here, or 0 */
};

/* Opens the artifact host for board b: its lava.artifact_url, or else a
 * lighttpd on bind_ip (NULL: no server may be started here, and the board
 * must name a URL). workdir gets lighttpd.conf and lighttpd.log. */
int lava_artifacts_open(struct lava_artifacts *a, const struct board *b, const char *bind_ip,
			const char *workdir);
/* Publishes the file at path; *url (malloc'd) is where the job fetches it,
 * sha256 its hash. */
int lava_artifacts_publish(struct lava_artifacts *a, const char *path, char **url,
			   char sha256[65]);
/* Stops the server, if one was started (SIGTERM, then SIGKILL). */
void lava_artifacts_close(struct lava_artifacts *a);

/* May hilbench bind a server to ip: 127.0.0.0/8 or 198.18.0.0/15 only. */
int lava_artifacts_bind_ok(const char *ip, char *err, size_t errlen);
/* "sha256/<hex>/<name>" into out; -1 unless hex is 64 lowercase hex digits
 * and name a plain file name (letters, digits, ._+-; not . or ..). */
int lava_artifacts_path(const char *hex, const char *name, char *out, size_t outlen,
			char *err, size_t errlen);

#endif
