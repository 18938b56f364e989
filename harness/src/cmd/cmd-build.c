#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/image.h"
#include "cmd/builtin.h"
#include "config/catalog.h"
#include "cmd/options.h"
#include "measure/bench.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench build --board B --strategy S [--patch FILE]... [--series FILE]\n"
	"                      [--kernel-series S] [--from-scratch]\n"
	"Builds the patched kernel (base layer + strategy + your patches, in that\n"
	"order) and the DUT initramfs; both are cached under $HILBENCH_CACHE.\n"
	"--patch takes a patch or an mbox (git format-patch output; one patch per\n"
	"mail); --series takes a quilt series file. Both may repeat, in order.\n"
	"A new build starts from the nearest cached one (same inputs, a prefix of\n"
	"its patches); --from-scratch builds it from the pristine source instead.\n"
	"Then makes the files the board's boot loader takes (boot.format: zImage +\n"
	"DTB, uImage or FIT) and the U-Boot commands that load them over TFTP.\n"
	"Prints where everything is; the manifest says exactly what went in.\n";

int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "strategy", required_argument, NULL, 's' },
		{ "patch", required_argument, NULL, 'p' },
		{ "series", required_argument, NULL, 'q' },
		{ "kernel-series", required_argument, NULL, 'S' },
		{ "from-scratch", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *board = "qemu-orangepi-pc", *strategy = "baseline";
	struct bench_opts o = { 0 };
	int c, rc = HB_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "b:s:p:q:S:Fh", opts, NULL)) != -1) {
		switch (c) {
		case 'b': board = optarg; break;
		case 's': strategy = optarg; break;
		case 'S': o.series = optarg; break;
		case 'F': o.from_scratch = 1; break;
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
	rc = bench_prepare(&b, o.series ? o.series : b.series.v[0], strategy, &o, &k, &u);
	if (rc == 0) {
		char *cmdline = bench_cmdline(&b);
		struct boot_images im;
		rc = boot_images_build(&b, &k, &u, cmdline, &im);
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
