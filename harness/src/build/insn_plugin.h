/*
 * insn_plugin (build): the emulator's instruction-count plugin
 * (harness/plugin/hb-insn.c), compiled against the qemu-plugin.h of the
 * emulator that loads it, once per cache.
 *
 * Contract: insn_plugin_build() returns the shared object's path
 * (<cache>/plugins/<key>/hb-insn.so, malloc'd), or NULL with a message.
 * The key is the SHA-256 of the emulator's key (so a new emulator patch
 * builds it again), the plugin's source, the compiler's version line and
 * the flags. The file exists only complete: it is compiled to a temporary
 * name and renamed; a per-key lock serialises two processes building it.
 */
#ifndef HB_BUILD_INSN_PLUGIN_H
#define HB_BUILD_INSN_PLUGIN_H

#include "build/emulator.h"

char *insn_plugin_build(const struct emulator_result *e);

#endif
