/*
 * driver: one drivers/<name>.yaml file, the driver under test as data: the
 * functions and statistics by which its strategies are told apart
 * (docs/design.md, "Adding a driver"). The runner's metrics and the agent's
 * profiler read it; strategies name it (`driver:` in their series file).
 *
 * Contract: as board_load(): complete and valid, or -1 with
 * "FILE:LINE:COL: what is wrong; what to do" in err; unknown keys rejected.
 * Every function name is a C identifier and the profile list fits the
 * agent's `functions=` token (agent_proto.h); stat and metric names are
 * unique.
 */
#ifndef HB_DRIVER_H
#define HB_DRIVER_H

#include <stddef.h>

#include "config/yamldoc.h"
#include "util/util.h"

enum driver_per { DRIVER_PER_TX, DRIVER_PER_RX };

/* A driver statistic (ethtool -S) kept as ethtool.<stat> and divided by
 * the packets of one direction into metric. */
struct driver_stat {
	char *stat;		/* tx_normal_irq_n */
	char *metric;		/* tx_irqs_per_pkt, a row of store/metrics.c */
	int per;		/* enum driver_per */
	char *counts;		/* what the driver counts in it: "TX interrupts" */
};

struct driver {
	char *path;
	char *name;
	char *description;
	char *tx_timer;		/* the TX coalescing timer's callback */
	char *tx_napi_poll;	/* the TX NAPI poll function */
	char *xmit;		/* ndo_start_xmit */
	char *rx_napi_poll;	/* the RX NAPI poll function; NULL: not named */
	/* The driver's directory in the kernel tree: the functions its objects
	 * define are the driver's own code (build/symbols.h); NULL: none. */
	char *source;
	struct strlist profile;	/* the function profiler's filter */
	/* The emulator's instruction counter (harness/plugin/hb-insn.c): the
	 * functions counted with their callees, and those whose calls per
	 * packet tell the strategies apart; both may be empty. */
	struct strlist inclusive, calls;
	struct ytable stats;	/* of struct driver_stat */
};

int driver_load(const char *path, struct driver *dr, char *err, size_t errlen);
void driver_free(struct driver *dr);

#endif
