/*
 * settings_apply: puts a cell's runtime settings ("name=value", see
 * config/setting.h) on a booted DUT before a run, one `hbcmd set` each, and
 * records what the DUT read back (docs/knobs.md).
 *
 * Contract: settings_apply() returns RUN_PASS when every setting was applied
 * and reads back as requested; RUN_FAIL when the DUT refused one (reason
 * holds the driver's message) or reads back another value; RUN_ERROR when
 * the agent did not answer or a setting is unknown. *json (always set,
 * caller frees) lists every setting tried: name, requested, read_back,
 * status (ok | refused | mismatch | no-answer), msg.
 */
#ifndef HB_SETTINGS_APPLY_H
#define HB_SETTINGS_APPLY_H

#include <stdio.h>

#include "deploy/dut.h"
#include "store/store.h"
#include "util/util.h"

enum run_class settings_apply(struct dut *d, const struct strlist *settings,
			      const char *run_id, FILE *trace, char **json, char *reason,
			      size_t reasonlen);

#endif
