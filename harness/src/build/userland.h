/*
 * userland: the DUT initramfs (Debian packages for the board's Debian
 * architecture + the hilbench agent), cached under
 * $HILBENCH_CACHE/userland/<key>/ where <key> hashes the architecture, the
 * package list, the agent binary and the script that packs it.
 *
 * Contract: 0 with res filled (initramfs path and its SHA-256), or -1
 * with the message printed (every failure here is infrastructure). The
 * path is the file the board boots: initramfs.cpio.gz, or for a board
 * QEMU boots directly (backend qemu) initramfs.cpio, the same archive
 * gunzipped; the manifest is the .cpio.gz's either way.
 */
#ifndef HB_USERLAND_H
#define HB_USERLAND_H

#include "config/board.h"

struct userland_result {
	char *initramfs;
	char *manifest;		/* package name version arch sha256, a line each */
	char sha256[65];
};

int userland_build(const struct board *b, struct userland_result *res);
void userland_result_free(struct userland_result *res);

#endif
