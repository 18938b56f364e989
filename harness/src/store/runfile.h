/*
 * runfile: a finished run's row kept as a file in its own directory,
 * runs/<id>/unstored-run.json, when the store could not take the row
 * (locked by another process past the timeout, docs/faults.md). Nothing
 * measured is lost: `hilbench run --resume` imports it as the row it would
 * have been, with its class, metrics and provenance, instead of measuring
 * the run again.
 *
 * Contract: runfile_write() writes the file atomically, after the run's
 * other files: it is there whole or not at all, and its presence is the
 * mark of a complete run directory. 0, or -1 with the message printed.
 * runfile_import_all() stores the run of every such file under the store's
 * runs/ unless the store has that run already, and then removes the file;
 * a run directory without the file is not imported (its run is measured
 * again), nor one whose file does not describe that directory's run (the
 * message names it). Returns how many runs it stored, -1 when the store
 * cannot take them (the files stay for the next --resume).
 */
#ifndef HB_RUNFILE_H
#define HB_RUNFILE_H

#include "store/store.h"

#define RUNFILE_NAME "unstored-run.json"

int runfile_write(const char *dir, const struct run_record *r);
int runfile_import_all(struct store *s);

#endif
