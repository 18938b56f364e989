/*
 * movers: where the instructions went between a reference and a candidate
 * (method emulator-insn, docs/metrics.md): per function, the change of the
 * mean of its own instructions per packet (insn_self_per_pkt.<fn>) and of
 * its calls per packet (calls_per_pkt.<fn>). The gate's verdict names them:
 * "+240 instructions/packet in stmmac_xmit; +1.00 hrtimer_try_to_cancel/packet".
 *
 * Contract: movers_find() is pure over two datasets loaded with
 * MOVERS_PREFIXES (dataset_load() with selection.metric_prefixes). Runs
 * keep the 20 functions with the most instructions: a function kept on one
 * side only is compared with the other side's smallest kept value, which
 * bounds it from above, and shown only when that makes its change certain
 * (a new function's rise, a gone one's fall: at least that much), so a
 * function that only fell out of the top 20 does not look gone. Instruction movers come
 * first, largest change first, those of at least MOVERS_MIN_INSN; then calls
 * that changed by at least MOVERS_MIN_CALLS per packet. It fills at most
 * max and returns how many. movers_format() joins n of them with "; ".
 *
 * movers_between() is what every verdict prints (the gate's, bisect's,
 * history's at a change point, the commit summary's): it loads each side
 * from the store, its selections pooled into one side (a bisect revision's
 * sessions, a history segment's runs over several nightly kernels: per
 * function, every value of every run), and formats the MOVERS_SHOWN
 * largest of movers_find(). Returns 0 with buf "" when a side has none of
 * the emulator's counts, or -1 when the store cannot be read (said).
 */
#ifndef HB_MOVERS_H
#define HB_MOVERS_H

#include <stddef.h>

#include "analyze/dataset.h"

#define MOVERS_SELF "insn_self_per_pkt."
#define MOVERS_CALLS "calls_per_pkt."
#define MOVERS_MIN_INSN 1.0
#define MOVERS_MIN_CALLS 0.01
#define MOVERS_SHOWN 4

struct mover {
	char function[64];
	int calls;		/* 1: calls per packet, 0: own instructions per packet */
	double ref, cand, delta;
};

/* The prefixes to load: { MOVERS_SELF, MOVERS_CALLS }. */
void movers_prefixes(struct strlist *out);
size_t movers_find(const struct dataset *ref, const char *ref_strategy,
		   const struct dataset *cand, const char *cand_strategy, const char *workload,
		   struct mover *out, size_t max);
/* "" for none. */
void movers_format(const struct mover *m, size_t n, char *buf, size_t len);
/* The selection's runs, only the movers' metrics, into d (dataset_load()). */
int movers_load(struct store *st, const struct selection *sel, struct dataset *d);
/* Each side's selections, restricted to workload; n of them a side. */
int movers_between(struct store *st, const struct selection *ref, size_t nref,
		   const struct selection *cand, size_t ncand, const char *workload, char *buf,
		   size_t len);

#endif
