/*
 * emulator (build): the emulator an emulators/<name>.yaml describes, built
 * once per cache (harness/scripts/build-emulator.sh does the work).
 *
 * Contract: emulator_build() fills *res with the binary's absolute path and
 * a one-line provenance (name, source package and version, whether that is
 * the verified version, the .dsc's and every patch's SHA-256, the key), or
 * returns -1 with a message. The cache key is the SHA-256 of everything
 * that goes into the build: the file's fields, every patch's content in
 * series order, and the script. <cache>/emulators/<key>/ exists only
 * complete; a per-key lock serialises processes wanting the same build, and
 * the cache's compile lock keeps it from running beside a full kernel
 * build (each takes every core).
 */
#ifndef HB_BUILD_EMULATOR_H
#define HB_BUILD_EMULATOR_H

#include "config/emulator.h"

struct emulator_result {
	char key[65];
	char *dir;		/* <cache>/emulators/<key> */
	char *binary;		/* dir/bin/<binary> */
	char *plugin_header;	/* dir/include/qemu-plugin.h */
	char *provenance;	/* for each run's record */
	char *insn_plugin;	/* build/insn_plugin.h's, when the board counts instructions */
	int cached;		/* 1: found built */
};

int emulator_build(const struct emulator *e, struct emulator_result *res);
void emulator_result_free(struct emulator_result *res);

#endif
