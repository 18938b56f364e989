/*
 * table: the strategy table, like the seeds' U/R/P table: per workload and
 * metric, one row per strategy with every repetition, mean, stddev, 95 % CI,
 * the change against the first strategy (the reference), Welch's p and the
 * verdict (better / worse / ~ / inconclusive, see stats.h) at alpha 0.05.
 *
 * Contract: reads pass runs from the store (a session, or everything when
 * session is NULL); prints to out; runs of other classes are listed below
 * the table with their reasons, never mixed into the numbers.
 */
#ifndef HB_TABLE_H
#define HB_TABLE_H

#include <stdio.h>

#include "store/store.h"

int table_print(struct store *s, const char *session, FILE *out);

#endif
