/*
 * kernel: patched, cross-compiled, cached kernel builds.
 *
 * Layout under $HILBENCH_CACHE:
 *   src/...                                    pristine trees (build/source.h)
 *   kernels/<key>/src/                         hard-linked copy + patches
 *   kernels/<key>/src/hb-out/                  O= build dir (srctree is "..",
 *                                              so ccache hits across keys)
 *   kernels/<key>/{zImage,<dtb>,config,build.log,manifest.json}
 *   ccache/
 * <key> is a SHA-256 over (source version and identity, arch, toolchain,
 * defconfig, config fragment, every patch of base + strategy + user, in
 * order). The series is the source's; a board's kernel.min_series is
 * checked against it before anything is built.
 * kernels/build.lock lets one full compile run at a time per cache
 * (incremental builds, below, do not wait for it).
 *
 * A new key starts from the cached build whose patch stack is the longest
 * prefix of its own (e.g. baseline for baseline + a user's patch): source
 * hard-linked, objects copied with their timestamps, then only the missing
 * patches applied, so make recompiles what they touch. The manifest names
 * that build (incremental_from); the key does not depend on it. Its .config
 * is kept, not made again (defconfig, fragment, olddefconfig: 7.6 s of a
 * 34 s incremental build on a 2-core host), unless a missing patch changes
 * a configuration input (kernel_config_input()).
 *
 * Contract: kernel_build() returns 0 with artifacts and a manifest that says
 * exactly what went in; the pristine tree is never modified (GNU patch
 * replaces a patched file with a new inode, breaking the hard link). On
 * failure it returns HB_FAIL_INPUT for input the user must fix (a patch that
 * does not apply, a config symbol that cannot be set) or HB_FAIL for
 * the rest, with the message already printed.
 */
#ifndef HB_KERNEL_H
#define HB_KERNEL_H

#include "config/board.h"
#include "util/util.h"

struct build_request {
	const struct board *board;
	const char *kernel_src;		/* a user's tree or tarball; NULL = Debian's
					 * linux-source-<series> (build/source.h) */
	const char *series;		/* kernel series, e.g. "6.1"; NULL with
					 * kernel_src = the tree's own */
	const char *strategy;		/* driver-patches/<series>/<strategy> */
	const char *objects_dir;	/* build only this directory's objects (and the
					 * DTB, where the series has the board's DTS),
					 * e.g. drivers/net/ethernet/stmicro/stmmac;
					 * NULL = the image and the DTB */
	struct strlist user_patches;	/* applied last, in order */
	int from_scratch;		/* not from the nearest cached build */
};

struct build_result {
	char key[65];
	char *series;		/* the series built: asked for, or the tree's */
	char *dir;		/* kernels/<key> */
	char *image;		/* with objects_dir: the directory of the objects */
	char *dtb;		/* NULL when an objects build has no DTB */
	char *manifest;		/* manifest.json path */
	char *system_map;	/* the build's System.map (src/hb-out/), its symbols */
	char *kernel_release;	/* uname -r of the built kernel */
	char config_sha256[65];
	int cached;		/* 1 when nothing had to be built */
};

int kernel_build(const struct build_request *req, struct build_result *res);
void build_result_free(struct build_result *res);
/* Whether a file of the tree (a path as `patch -p1` takes it) is an input
 * of the kernel's configuration: a Kconfig file, a defconfig, the scripts
 * Kconfig runs, or the top Makefile, whose version heads the .config. */
int kernel_config_input(const char *path);
/* What make runs with besides the inherited environment: ccache's
 * directories (CCACHE_BASEDIR=srcdir) and a fixed build identity, as
 * NAME=VALUE entries appended to env. */
void kernel_make_env(const char *srcdir, struct strlist *env);

#endif
