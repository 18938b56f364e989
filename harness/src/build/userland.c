#include "build/userland.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/lock.h"
#include "util/proc.h"
#include "util/util.h"

int userland_build(const struct board *b, int with_perf, struct userland_result *res)
{
	memset(res, 0, sizeof(*res));
	struct strlist packages = { 0 };
	for (size_t i = 0; i < b->packages.n; i++)
		strlist_push(&packages, b->packages.v[i]);
	for (size_t i = 0; with_perf && i < b->perf_packages.n; i++)
		strlist_push(&packages, b->perf_packages.v[i]);
	char *agent = hb_agent_binary(b->debian_arch);
	char *script = hb_script("mkinitramfs.sh");
	char agent_sha[65], script_sha[65];
	int rc = -1, lockfd = -1;
	char *key_text = NULL, *dir = NULL, *cache = NULL;
	if (sha256_file_hex(agent, agent_sha) < 0) {
		hb_err("no DUT agent for %s at %s; %s", b->debian_arch, agent,
		       hb_layout() == HB_LAYOUT_TREE ? "run `make`"
						     : "this installation lacks it: reinstall hilbench");
		goto out;
	}
	if (sha256_file_hex(script, script_sha) < 0) {
		hb_err("cannot read %s: %s", script, strerror(errno));
		goto out;
	}
	char *pkgs = argv_join(&packages, " ");
	key_text = xasprintf("hilbench-userland 1\narch %s\npackages %s\nagent %s\nscript %s\n",
			     b->debian_arch, pkgs, agent_sha, script_sha);
	free(pkgs);
	char key[65];
	sha256_hex(key_text, strlen(key_text), key);
	cache = xasprintf("%s/userland", hb_cache_dir());
	dir = xasprintf("%s/%s", cache, key);
	res->initramfs = path_join(dir, "initramfs.cpio.gz");
	res->manifest = xasprintf("%s.manifest", res->initramfs);
	/* One userland build at a time per cache: builds share the package
	 * downloads (debs/) and apt's view of each architecture (apt/), and
	 * two processes downloading one file corrupt it. The initramfs is
	 * renamed into place complete, so a reader needs no lock. */
	if (!path_exists(res->initramfs)) {
		mkdir_p(cache, 0755);
		char *lockpath = path_join(cache, "build.lock");
		lockfd = lock_wait(lockpath, "another hilbench building a DUT userland");
		free(lockpath);
		if (lockfd < 0)
			goto out;
	}
	if (!path_exists(res->initramfs)) {
		hb_info("building the %s DUT initramfs (%zu packages + agent)", b->debian_arch,
			packages.n);
		mkdir_p(dir, 0755);
		struct strlist a = { 0 };
		strlist_push(&a, "bash");
		strlist_push(&a, script);
		strlist_push(&a, "--arch");
		strlist_push(&a, b->debian_arch);
		strlist_push(&a, "--agent");
		strlist_push(&a, agent);
		strlist_push(&a, "--out");
		strlist_push(&a, res->initramfs);
		strlist_push(&a, "--cache");
		strlist_push(&a, cache);
		for (size_t i = 0; i < packages.n; i++)
			strlist_push(&a, packages.v[i]);
		struct proc_opts tree = PROC_OPTS_TREE;
		int st = proc_run(strlist_argv(&a), &tree);
		strlist_free(&a);
		if (st != 0 || !path_exists(res->initramfs)) {
			hb_err("building the DUT initramfs failed (exit %d); see the messages above", st);
			goto out;
		}
	}
	if (sha256_file_hex(res->initramfs, res->sha256) < 0)
		goto out;
	rc = 0;
out:
	if (lockfd >= 0)
		close(lockfd);
	strlist_free(&packages);
	free(agent);
	free(script);
	free(key_text);
	free(dir);
	free(cache);
	if (rc)
		userland_result_free(res);
	return rc;
}

void userland_result_free(struct userland_result *res)
{
	free(res->initramfs);
	free(res->manifest);
	res->initramfs = res->manifest = NULL;
}

/* Renamed into place whole: two hilbench processes making it at once
 * each write their own copy. */
int userland_uncompressed(struct userland_result *res)
{
	size_t len = strlen(res->initramfs);
	if (len < 3 || strcmp(res->initramfs + len - 3, ".gz"))
		return 0;	/* uncompressed already */
	char *raw = xasprintf("%.*s", (int)(len - 3), res->initramfs);
	int rc = 0;
	if (!path_exists(raw)) {
		char *tmp = xasprintf("%s.tmp.%ld", raw, (long)getpid());
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		char *const argv[] = { "gzip", "-dc", "--", res->initramfs, NULL };
		struct proc_opts o = PROC_OPTS_DEFAULT;
		o.stdout_fd = fd;
		int st = fd < 0 ? -1 : proc_run(argv, &o);
		if (fd >= 0 && close(fd) < 0)
			st = -1;
		if (st < 0 || (st == 0 && rename(tmp, raw) < 0))
			hb_err("cannot write %s for QEMU: %s", raw, strerror(errno));
		else if (st > 0)
			hb_err("gzip -dc %s exited %d; delete it and run again to rebuild it",
			       res->initramfs, st);
		unlink(tmp);	/* renamed already, or half-written */
		rc = st == 0 && path_exists(raw) ? 0 : -1;
		free(tmp);
	}
	if (!rc && sha256_file_hex(raw, res->sha256) < 0)
		rc = -1;
	if (!rc) {
		free(res->initramfs);
		res->initramfs = raw;
	} else {
		free(raw);
	}
	return rc;
}
