/*
 * cycles: "Where the cycles go" in reports (method emulator-insn,
 * docs/metrics.md): per workload, the functions with the most instructions
 * of their own per packet, each strategy's mean, its share of that
 * strategy's insn_per_pkt, and its change against the reference.
 *
 * Contract: cycles_write() loads the selection's insn_self_per_pkt.<fn> and
 * insn_per_pkt series itself (the report's dataset holds only the metrics
 * reports compare) and writes nothing for a selection without them; rows
 * are the CYCLES_TOP functions with the most on the reference (or on the
 * first strategy that kept them). Text, Markdown (pipes escaped) or HTML
 * (every string escaped). Returns 0, or -1 when the store cannot be read
 * (said).
 */
#ifndef HB_CYCLES_H
#define HB_CYCLES_H

#include <stdio.h>

#include "analyze/section.h"
#include "store/store.h"

#define CYCLES_TOP 10

int cycles_write(struct store *st, const struct selection *sel, const char *reference,
		 enum section_format f, FILE *out);

#endif
