/*
 * lava_log: one line of LAVA's job log, as lava-run prints it on stdout and
 * a server returns it from /api/v0.2/jobs/N/logs/: a YAML flow mapping
 * {"dt": ..., "lvl": ..., "msg": ...}. It looks like JSON but is YAML
 * (LAVA tags some values, `! "682"`), so it is read with libyaml.
 *
 * Contract: lava_log_parse() returns 0 and fills *e from a line (a leading
 * "- " of a YAML list item is accepted), or -1 when the line is not such a
 * mapping. For lvl "results", msg is a mapping and its scalar fields land in
 * the named members; for every other level, msg is its text. Strings are
 * truncated to their buffers, never overflowed.
 */
#ifndef HB_LAVA_LOG_H
#define HB_LAVA_LOG_H

struct lava_log_entry {
	char lvl[16];		/* target, results, info, debug, input, ... */
	char msg[4096];		/* the text, when msg is a scalar */
	/* lvl results: */
	char definition[128];	/* "lava", or "0_hilbench-<workload>" */
	char test_case[128];	/* "case" */
	char result[16];	/* pass | fail | skip | unknown */
	char measurement[64];	/* as LAVA wrote it; "" when absent */
	char units[32];
	char error_msg[256];	/* why LAVA failed the action or job */
};

int lava_log_parse(const char *line, struct lava_log_entry *e);

#endif
