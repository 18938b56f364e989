/*
 * catalog: finds boards, workloads, plans and drivers by name under hb_home().
 *
 * Contract: a name that contains '/' or ends in ".yaml" is taken as a path;
 * otherwise <home>/<kind>s/<name>.yaml. Loaders print their own errors and
 * return -1 (the message names the file, line and fix).
 */
#ifndef HB_CATALOG_H
#define HB_CATALOG_H

#include "config/board.h"
#include "config/driver.h"
#include "config/plan.h"
#include "config/workload.h"

char *catalog_path(const char *kind, const char *name);
int catalog_names(const char *kind, struct strlist *names);
int catalog_board(const char *name, struct board *b);
int catalog_workload(const char *name, struct workload *w);
int catalog_plan(const char *name, struct plan *p);
int catalog_driver(const char *name, struct driver *dr);

#endif
