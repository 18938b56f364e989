/*
 * strategy: a quilt-style patch stack, driver-patches/<series>/<name>/series.
 *
 * The series file lists patch files (relative to its directory), one a line;
 * '#' starts a comment, and the first comment line is the strategy's one-line
 * description. Every kernel series has a `base` layer applied under every
 * strategy (prerequisite fixes). `setting: <name> <value>` lines are runtime
 * settings (config/setting.h) the DUT gets before every workload; a
 * strategy with settings and no patches runs the baseline kernel.
 * `driver: <name>` names the driver under test, drivers/<name>.yaml
 * (config/driver.h): what the strategy's patches change. Every strategy
 * has one; `base` (under every strategy) and a user's series have none.
 *
 * Contract: strategy_load() returns 0 with every listed patch present, or -1
 * with "FILE:LINE: what is wrong; what to do" in err.
 */
#ifndef HB_STRATEGY_H
#define HB_STRATEGY_H

#include <stddef.h>

#include "util/util.h"

struct strategy {
	char *name;
	char *series;		/* kernel series, e.g. "6.1" */
	char *dir;		/* driver-patches/<series>/<name> */
	char *description;	/* first comment line of the series file */
	char *driver;		/* drivers/<driver>.yaml; NULL for base */
	struct strlist patches;	/* absolute paths, in order */
	struct strlist upstream; /* what the baseline already contains */
	struct strlist settings; /* "name=value", in file order */
};

int strategy_load(const char *series, const char *name, struct strategy *s,
		  char *err, size_t errlen);
void strategy_free(struct strategy *s);
/* Appends the patches a quilt series file lists (paths relative to its
 * directory) to patches; the first comment line goes to *description if
 * that is non-NULL and still NULL; "upstream:" lines go to *upstream,
 * "setting:" lines (checked against settings/) to *settings and the
 * "driver:" line (a file of drivers/) to *driver; each is an error where
 * its pointer is NULL (a user's series has nothing to declare, sets
 * nothing and changes its strategy's driver). -1 with "FILE:LINE: ..." in
 * err. */
int series_file_load(const char *file, struct strlist *patches, char **description,
		     struct strlist *upstream, struct strlist *settings, char **driver,
		     char *err, size_t errlen);
/* Names of the strategies of a series (sorted, without `base`), each once
 * over the data search path (util/paths.h), -1 when no directory has the
 * series; strategy_dir_list() one data directory's. A strategy loads from
 * the first directory that has it. */
int strategy_list(const char *series, struct strlist *names);
int strategy_dir_list(const char *data_dir, const char *series, struct strlist *names);

#endif
