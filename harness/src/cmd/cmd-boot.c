#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "run/images.h"
#include "util/util.h"

static const char usage[] =
	"usage: hilbench boot --board B --strategy S [--timing realtime|virtual] [--hold]\n"
	"                     [--with-perf]\n"
	"Builds (cached), boots, waits for the agent's READY and reports what came\n"
	"up; with --hold, keeps the board up until Ctrl-C. Then powers off and\n"
	"removes the private network. The console is kept in <store>/boots/.\n"
	"--with-perf boots the initramfs with the board's perf_packages (perf).\n";

int cmd_boot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "strategy", required_argument, NULL, 's' },
		{ "timing", required_argument, NULL, 't' },
		{ "hold", no_argument, NULL, 'H' },
		{ "with-perf", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *board = "qemu-orangepi-pc", *strategy = "baseline";
	enum timing_mode timing = TIMING_REALTIME;
	int hold = 0, with_perf = 0, c;
	while ((c = getopt_long(argc, argv, "b:s:t:HPh", opts, NULL)) != -1) {
		if (c == 'b')
			board = optarg;
		else if (c == 's')
			strategy = optarg;
		else if (c == 'H')
			hold = 1;
		else if (c == 'P')
			with_perf = 1;
		else if (c == 't' && timing_mode_parse(optarg, &timing) == 0)
			continue;
		else {
			if (c == 't')
				hb_err("--timing %s: choose realtime or virtual", optarg);
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? HB_EXIT_OK : HB_EXIT_USAGE;
		}
	}
	struct board b;
	if (catalog_board(board, &b) < 0)
		return HB_EXIT_USAGE;
	struct exec_opts o = { .perf_userland = with_perf };
	struct build_result k;
	struct userland_result u;
	struct emulator_result e;
	int rc = hb_exit_of(images_prepare(&b, b.series.v[0], strategy, &o, &k, &u, &e));
	if (rc) {
		board_free(&b);
		return rc;
	}
	hb_install_interrupt_handlers();
	char id[40];
	store_new_id(id);
	char *dir = xasprintf("%s/boots/%s", hb_store_dir(), id);
	char *console = path_join(dir, "console.log");
	char *cmdline = images_cmdline(&b);
	struct dut_image img = { .kernel = k.image, .dtb = k.dtb, .initrd = u.initramfs,
				 .cmdline = cmdline, .emulator = e.binary,
				 .emulator_provenance = e.provenance, .insn_plugin = e.insn_plugin,
				 .system_map = k.system_map };
	struct dut d;
	mkdir_p(dir, 0755);
	int boot = dut_boot(&d, &b, &img, timing, dir, console);
	if (boot == 0) {
		printf("board      %s (%s)\nkernel     %s\ninterface  %s: %s, %d Mb/s, %s\n"
		       "console    %s\n", b.name, d.ops->version(&d), d.kernel_release,
		       b.dut_interface, d.driver, d.speed, b.dut_addr, console);
		fflush(stdout);
		char line[1024];
		while (hold && !hb_interrupted)
			if (dut_read_line(&d, line, sizeof(line), 1) < 0 && !hb_interrupted) {
				hb_err("the board went away: %s", d.health[0] ? d.health : "console closed");
				break;
			}
		rc = HB_EXIT_OK;
	} else {
		hb_err("boot failed: %s; console: %s", d.health[0] ? d.health : "see the console", console);
		rc = boot == HB_FAIL_DUT ? HB_EXIT_FAIL : hb_exit_of(boot);
	}
	dut_shutdown(&d);
	free(cmdline);
	free(console);
	free(dir);
	build_result_free(&k);
	userland_result_free(&u);
	emulator_result_free(&e);
	board_free(&b);
	return rc;
}
