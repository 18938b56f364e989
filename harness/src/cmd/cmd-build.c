#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/image.h"
#include "cmd/builtin.h"
#include "config/catalog.h"
#include "cmd/options.h"
#include "run/images.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench build --board B --strategy S [--patch FILE]... [--series FILE]\n"
	"                      [--kernel-series S] [--from-scratch] [--kernel-src PATH]\n"
	"                      [--objects-only DIR]\n"
	"Builds the patched kernel (base layer + strategy + your patches, in that\n"
	"order) and the DUT initramfs; both are cached under $HILBENCH_CACHE.\n"
	"--patch takes a patch or an mbox (git format-patch output; one patch per\n"
	"mail); --series takes a quilt series file. Both may repeat, in order.\n"
	"A new build starts from the nearest cached one (same inputs, a prefix of\n"
	"its patches); --from-scratch builds it from the pristine source instead.\n"
	"--kernel-src builds from your tree (a git checkout or a release tarball)\n"
	"instead of Debian's linux-source-<series>; the series is read from its\n"
	"Makefile and picks driver-patches/<series>/.\n"
	"Then makes the files the board's boot loader takes (boot.format: zImage +\n"
	"DTB, uImage or FIT) and the U-Boot commands that load them over TFTP.\n"
	"--objects-only DIR builds just that directory's objects (and the DTB where\n"
	"the series has it), e.g. drivers/net/ethernet/stmicro/stmmac: a quick check\n"
	"that a strategy compiles for a board; no image, initramfs or boot files.\n"
	"Prints where everything is; the manifest says exactly what went in.\n";

/* --objects-only: the kernel build alone, no initramfs or boot files. */
static int build_objects(const struct board *b, const char *strategy, const char *dir,
			 const struct exec_opts *o)
{
	struct build_request req = { .board = b, .strategy = strategy, .objects_dir = dir,
				     .kernel_src = o->kernel_src,
				     .series = o->series || o->kernel_src ? o->series : b->series.v[0],
				     .user_patches = o->user_patches, .from_scratch = o->from_scratch };
	struct build_result k;
	int rc = hb_exit_of(kernel_build(&req, &k));
	if (rc == 0) {
		printf("kernel     %s (series %s)%s\n", k.kernel_release, k.series,
		       k.cached ? " (cached)" : "");
		printf("objects    %s\ndtb        %s\nmanifest   %s\n", k.image,
		       k.dtb ? k.dtb : "(none: the series predates the board's DTS)", k.manifest);
		build_result_free(&k);
	}
	return rc;
}

int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "strategy", required_argument, NULL, 's' },
		{ "patch", required_argument, NULL, 'p' },
		{ "series", required_argument, NULL, 'q' },
		{ "kernel-series", required_argument, NULL, 'S' },
		{ "from-scratch", no_argument, NULL, 'F' },
		{ "kernel-src", required_argument, NULL, 'K' },
		{ "objects-only", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *board = "qemu-orangepi-pc", *strategy = "baseline", *objects = NULL;
	struct exec_opts o = { 0 };
	int c, rc = HB_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "b:s:p:q:S:FK:O:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': board = optarg; break;
		case 's': strategy = optarg; break;
		case 'S': o.series = optarg; break;
		case 'F': o.from_scratch = 1; break;
		case 'K': o.kernel_src = optarg; break;
		case 'O': objects = optarg; break;
		case 'p':
		case 'q':
			if (add_user_patches(&o, c == 'q', optarg) < 0)
				goto out;
			break;
		default:
			fputs(usage, c == 'h' ? stdout : stderr);
			rc = c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
			goto out;
		}
	}
	struct board b;
	if (catalog_board(board, &b) < 0)
		goto out;
	struct build_result k;
	struct userland_result u;
	if (objects) {
		rc = build_objects(&b, strategy, objects, &o);
		board_free(&b);
		goto out;
	}
	rc = hb_exit_of(images_prepare(&b, o.series ? o.series : b.series.v[0], strategy, &o, &k,
				       &u, NULL));
	if (rc == 0) {
		char *cmdline = images_cmdline(&b);
		struct boot_images im;
		rc = hb_exit_of(boot_images_build(&b, &k, &u, cmdline, &im));
		free(cmdline);
		printf("kernel     %s%s\n", k.kernel_release, k.cached ? " (cached)" : "");
		printf("image      %s\ndtb        %s\ninitramfs  %s\nmanifest   %s\n", k.image, k.dtb,
		       u.initramfs, k.manifest);
		if (rc == 0) {
			printf("boot       %s (%s)\n", im.dir, boot_format_name(b.boot_format));
			printf("  kernel   %s\n", im.kernel);
			if (im.dtb)
				printf("  dtb      %s\n", im.dtb);
			if (im.ramdisk)
				printf("  ramdisk  %s\n", im.ramdisk);
			printf("  u-boot   %s\n", im.uboot);
			boot_images_free(&im);
		}
		build_result_free(&k);
		userland_result_free(&u);
	}
	board_free(&b);
out:
	strlist_free(&o.user_patches);
	return rc;
}
