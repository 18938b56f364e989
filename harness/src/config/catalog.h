/*
 * catalog: finds boards, workloads, plans and drivers by name in the data
 * search path (util/paths.h: the lab's directories, then the default).
 *
 * Contract: a name that contains '/' or ends in ".yaml" is taken as a path;
 * otherwise <dir>/<kind>s/<name>.yaml of the first directory that has it
 * (the default directory's path when none has). catalog_names() gives each
 * name once, sorted, and -1 when no directory has <kind>s/;
 * catalog_dir_names() one directory's. Loaders print their own errors and
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
int catalog_dir_names(const char *kind, const char *dir, struct strlist *names);
int catalog_board(const char *name, struct board *b);
int catalog_workload(const char *name, struct workload *w);
int catalog_plan(const char *name, struct plan *p);
int catalog_driver(const char *name, struct driver *dr);

#endif
