/*
 * emulator: one emulators/<name>.yaml file: an emulator hilbench builds
 * from a Debian source package plus its own patches (build/emulator.h).
 *
 * Contract: as board_load(): complete and valid, or -1 with
 * "FILE:LINE:COL: what is wrong; what to do" in err; unknown keys rejected.
 * patches is resolved against the file's directory to an absolute path of a
 * directory holding a series file.
 */
#ifndef HB_EMULATOR_H
#define HB_EMULATOR_H

#include <stddef.h>

#include "util/util.h"

struct emulator {
	char *path;
	char *name;
	char *description;
	char *package;		/* Debian source package: qemu */
	char *version;		/* the verified version: 1:7.2+dfsg-7+deb12u18 */
	char *patches;		/* absolute: a directory with a series file */
	char *target;		/* arm-softmmu */
	char *binary;		/* what the build makes: qemu-system-arm */
	struct strlist devices;	/* CONFIG_<x>=y of the target's device config */
	struct strlist configure;	/* configure's options */
};

int emulator_load(const char *path, struct emulator *e, char *err, size_t errlen);
void emulator_free(struct emulator *e);

#endif
