/*
 * plan: one plans/<name>.yaml file: boards x strategies x workloads x
 * repetitions in one timing mode.
 *
 * Contract: as board_load(). Names are checked for shape here; whether a
 * named board/strategy/workload exists is checked by the caller, which knows
 * where they live.
 */
#ifndef HB_PLAN_H
#define HB_PLAN_H

#include <stddef.h>

#include "util/util.h"

enum timing_mode { TIMING_REALTIME, TIMING_VIRTUAL };
/* One boot for all repetitions of a (board, strategy) cell, or a fresh boot
 * for each: in virtual time the first run after a boot and the runs after
 * it are not alike (docs/measurements.md), so a gate wants one per boot. */
enum boot_policy { BOOTS_PER_CELL, BOOTS_PER_REPETITION };

struct plan {
	char *path;
	char *name;
	char *description;
	struct strlist boards;
	struct strlist strategies;
	struct strlist workloads;
	int repetitions;	/* 1..100 */
	enum timing_mode timing;
	enum boot_policy boots;	/* optional key, default per-cell */
};

int plan_load(const char *path, struct plan *p, char *err, size_t errlen);
void plan_free(struct plan *p);
const char *timing_mode_name(enum timing_mode m);	/* realtime | virtual */
int timing_mode_parse(const char *s, enum timing_mode *m);

#endif
