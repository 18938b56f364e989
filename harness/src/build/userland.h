/*
 * userland: the DUT initramfs (Debian packages for the board's Debian
 * architecture + the hilbench agent), cached under
 * $HILBENCH_CACHE/userland/<key>/ where <key> hashes the architecture, the
 * package list, the agent binary and the script that packs it.
 *
 * with_perf adds the board's perf_packages (linux-perf: perf and the
 * libraries it links, 22 of the 29.6 MB), for plans that profile with perf:
 * every boot unpacks the whole archive, and without perf the emulated board
 * is ready sooner (docs/measurements.md, "A boot without perf").
 *
 * Contract: 0 with res filled (initramfs path and its SHA-256), or -1
 * with the message printed (every failure here is infrastructure).
 */
#ifndef HB_USERLAND_H
#define HB_USERLAND_H

#include "config/board.h"

struct userland_result {
	char *initramfs;
	char *manifest;		/* package name version arch sha256, a line each */
	char sha256[65];
};

int userland_build(const struct board *b, int with_perf, struct userland_result *res);
/* The initramfs QEMU boots: the same archive gunzipped once beside the
 * .cpio.gz (initramfs.cpio), res->initramfs and res->sha256 then that
 * file's (the manifest stays), so runs booted either way are never
 * pooled. The emulated CPU spent 16.5 s of virtual time, a fifth of a
 * boot's host time, inflating the .cpio.gz at every boot (docs/
 * measurements.md, "A new machine's cold main job, and boot time"). 0,
 * or -1 with the message printed. */
int userland_uncompressed(struct userland_result *res);
void userland_result_free(struct userland_result *res);

#endif
