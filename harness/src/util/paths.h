/*
 * paths: where hilbench finds its own files, in a clone or installed.
 *
 * Two layouts, told apart by where the running binary is:
 *  - the source tree (build/hilbench, or $HILBENCH_HOME): data and program
 *    files are where the clone has them;
 *  - installed (<prefix>/bin/hilbench beside <prefix>/share/hilbench/):
 *    data under <prefix>/share/hilbench/, program files (scripts, the DUT
 *    agents) under <prefix>/lib/hilbench/. The prefix
 *    comes from the binary's own path, so `make install prefix=P` needs no
 *    rebuild and a DESTDIR staging tree runs as it will once installed.
 *
 * Data (boards/, workloads/, plans/, settings/, drivers/, emulators/,
 * emulator-patches/, driver-patches/) is searched in order: the lab's own
 * directories (`--data-dir DIR`, then $HILBENCH_DATA, ':'-separated), then
 * the default one, hb_home(). The first directory that has a file wins.
 */
#ifndef HB_PATHS_H
#define HB_PATHS_H

#include <stddef.h>

struct strlist;

enum hb_layout { HB_LAYOUT_TREE, HB_LAYOUT_INSTALLED };
enum hb_layout hb_layout(void);

/* The default data directory: the clone's root, or <prefix>/share/hilbench. */
const char *hb_home(void);

/* A lab's data directory given on the command line (--data-dir): put
 * before $HILBENCH_DATA's, in $HILBENCH_DATA itself (absolute), so the
 * processes hilbench starts see the same path. 0, or -1 with err filled
 * when dir is no directory. */
int hb_data_dir_add(const char *dir, char *err, size_t errlen);
/* The search path, lab directories first, hb_home() last; never empty. */
const struct strlist *hb_data_dirs(void);
/* <dir>/<rel> of the first directory in the search path where it exists
 * (malloc'd), or NULL. */
char *hb_data_find(const char *rel);

/* Program files, by what they are: a script of harness/scripts/
 * (mkinitramfs.sh), a file of the DUT agent's (lava-report.awk), the
 * agent binary for a Debian architecture. Each malloc'd; the file may not
 * exist (callers say what is missing). */
char *hb_script(const char *name);
char *hb_agent_file(const char *name);
char *hb_agent_binary(const char *debian_arch);
/* The source of an emulator plugin (hb-insn.c), compiled against the
 * emulator hilbench builds. */
char *hb_plugin_source(const char *name);

/* What built this hilbench, for a run's provenance: the clone's commit
 * (with -dirty), or the VERSION file `make install` wrote. Malloc'd. */
char *hb_version(void);

/* The result store: $HILBENCH_STORE, else <clone>/results, or installed
 * $XDG_DATA_HOME/hilbench/results (~/.local/share/hilbench/results). */
const char *hb_store_dir(void);

#endif
