#include "run/images.h"

#include <stdlib.h>
#include <string.h>

#include "build/insn_plugin.h"
#include "config/catalog.h"
#include "config/emulator.h"
#include "util/util.h"

int images_check_series(const struct board *b, const char *series)
{
	for (size_t i = 0; i < b->series.n; i++)
		if (!strcmp(b->series.v[i], series))
			return 0;
	char *known = argv_join(&b->series, ", ");
	hb_err("--kernel-series %s: %s lists only %s (its `series:` key); give one of those",
	       series, b->path, known);
	free(known);
	return -1;
}

int images_prepare(const struct board *b, const char *series, const char *strategy,
		   const struct exec_opts *o, struct build_result *k, struct userland_result *u,
		   struct emulator_result *e)
{
	/* A user's tree has a series of its own: the callers' default (the
	 * board's first) does not apply, only an explicit --kernel-series;
	 * the board's kernel.min_series is checked against the tree's. */
	if (!o->kernel_src && images_check_series(b, series) < 0)
		return HB_FAIL_INPUT;
	struct build_request req = { .board = b, .strategy = strategy,
				     .kernel_src = o->kernel_src,
				     .series = o->kernel_src ? o->series : series };
	req.user_patches = o->user_patches;
	req.from_scratch = o->from_scratch;
	int rc = kernel_build(&req, k);
	if (rc)
		return rc;
	if (userland_build(b, o->perf_userland, u) < 0) {
		build_result_free(k);
		return -1;
	}
	/* booted by QEMU here, not handed to a boot loader or LAVA job */
	if (e && !strcmp(b->backend, "qemu") && userland_uncompressed(u) < 0) {
		build_result_free(k);
		userland_result_free(u);
		return -1;
	}
	if (e && (rc = images_emulator(b, e)) != 0) {
		build_result_free(k);
		userland_result_free(u);
	}
	return rc;
}

int images_emulator(const struct board *b, struct emulator_result *e)
{
	memset(e, 0, sizeof(*e));
	if (!b->qemu.emulator)
		return 0;
	struct emulator emu;
	char *path = catalog_path("emulator", b->qemu.emulator);
	char err[1024];
	int rc = HB_FAIL_INPUT;
	if (emulator_load(path, &emu, err, sizeof(err)) < 0) {
		hb_err("%s (deploy.qemu.emulator of %s)", err, b->path);
	} else {
		rc = emulator_build(&emu, e) == 0 ? 0 : -1;
		if (!rc && b->qemu.insn_profile && !(e->insn_plugin = insn_plugin_build(e))) {
			emulator_result_free(e);
			rc = -1;
		}
		emulator_free(&emu);
	}
	free(path);
	return rc;
}

char *images_cmdline(const struct board *b)
{
	char peer[64];
	board_ip(b->host_addr, peer, sizeof(peer));
	return xasprintf("%s hb.iface=%s hb.addr=%s hb.peer=%s", b->cmdline, b->dut_interface,
			 b->dut_addr, peer);
}
