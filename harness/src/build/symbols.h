/*
 * symbols: the functions a directory of a kernel build defines, e.g. the
 * driver under test's (drivers/<name>.yaml `source`): what the emulator's
 * instruction counter adds up as the driver's own code (own= of
 * harness/plugin/hb-insn.c).
 *
 * Contract: kernel_dir_functions() gives in *path a file of the text
 * symbols (nm's t T w W) that the objects under <build>/src/hb-out/<dir>
 * define, a name a line, sorted, each once: made once per build, kept
 * beside it (kernels/<key>/functions-<dir, '/' as '-'>.txt) and written
 * atomically, so concurrent hilbench processes read a whole file. Returns
 * 0, or -1 said (no such directory in the build, no objects there, nm
 * failed). A name the build's System.map lacks (a module's) simply counts
 * nothing.
 */
#ifndef HB_SYMBOLS_H
#define HB_SYMBOLS_H

#include "build/kernel.h"
#include "config/board.h"

int kernel_dir_functions(const struct build_result *k, const struct board *b, const char *dir,
			 char **path);

#endif
