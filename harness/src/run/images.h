/*
 * images: what one boot of a cell needs, from the build stage: the kernel
 * of a (board, series, strategy) with the user's patches, the board's
 * initramfs, the emulator the board names, and the kernel command line the
 * agent reads. Every command that builds or boots (build, boot, lava, gate,
 * the plan executor) gets them here, so they all build the same things.
 *
 * Contract: images_prepare() and images_emulator() return 0, or with the
 * message printed HB_FAIL_INPUT (a series the board does not list, a patch
 * that does not apply, a bad emulator file) or -1 (a build that failed);
 * on failure nothing is left to free. All builds are cached (build/kernel.h, userland.h, emulator.h).
 */
#ifndef HB_IMAGES_H
#define HB_IMAGES_H

#include "build/emulator.h"
#include "build/kernel.h"
#include "build/userland.h"
#include "config/board.h"
#include "run/executor.h"

/* 0 if the board lists this kernel series, else -1 with the message. */
int images_check_series(const struct board *b, const char *series);
/* Kernel + initramfs for one board/strategy, and with e the emulator the
 * board names; with e, a board of backend qemu gets the initramfs QEMU
 * boots (userland_uncompressed()), any other use the .cpio.gz. */
int images_prepare(const struct board *b, const char *series, const char *strategy,
		   const struct exec_opts *o, struct build_result *k, struct userland_result *u,
		   struct emulator_result *e);
/* The emulator of the board's deploy.qemu.emulator, built once per cache,
 * with its instruction-count plugin when the board's insn_profile is on;
 * e->binary NULL (and 0) for a board that runs an installed QEMU. */
int images_emulator(const struct board *b, struct emulator_result *e);
/* The kernel command line: the board's, plus what the agent needs. */
char *images_cmdline(const struct board *b);

#endif
