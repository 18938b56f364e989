/*
 * setting: a runtime knob of the DUT, settings/<name>.yaml: how the agent
 * applies it (ethtool coalescing, a sysfs file of the interface, the NIC's
 * IRQ affinity, the interface's root qdisc) and how its read-back value
 * compares with the request.
 *
 * A requested setting is "name=value" (struct strlist entries): strategies
 * carry them in their series file (`setting: <name> <value>`), plan sweeps
 * generate them. docs/knobs.md lists what exists and why.
 *
 * Contract: setting_load() as board_load(); setting_check_value() returns 0
 * or -1 with a reason fit to follow "FILE:LINE: " in err.
 */
#ifndef HB_SETTING_H
#define HB_SETTING_H

#include <stddef.h>

#include "util/util.h"

/* The agent's apply/read-back methods (docs/agent-protocol.md, hbcmd set). */
enum setting_method { SM_ETHTOOL_COALESCE, SM_SYSFS_NET, SM_IRQ_AFFINITY, SM_QDISC };
/* How a read-back value is compared with the request: as numbers, as hex
 * masks, or as a name (a qdisc kind: [a-z0-9_] only, compared exactly). */
enum setting_read_back { SR_INTEGER, SR_MASK, SR_NAME };

struct setting_def {
	char *path;
	char *name;
	char *description;
	enum setting_method method;
	char *key;		/* ethtool -C parameter, a path under /sys/class/net/<if>/,
				 * or where a qdisc goes ("root") */
	enum setting_read_back read_back;
};

/* Longest value the protocol carries (a token of `hbcmd set`). */
#define SETTING_VALUE_MAX 63

int setting_load(const char *path, struct setting_def *s, char *err, size_t errlen);
void setting_free(struct setting_def *s);
/* settings/<name>.yaml; -1 with the known names in err when there is none. */
int setting_find(const char *name, struct setting_def *s, char *err, size_t errlen);
const char *setting_method_name(enum setting_method m);

/* A value the setting accepts: a decimal integer, a hex mask, or a name. */
int setting_check_value(const struct setting_def *s, const char *value, char *err,
			size_t errlen);
/* 1 if the read-back value means what was requested (integers compared as
 * numbers, masks as hex numbers without the kernel's ',' separators, names
 * as strings). */
int setting_same_value(const struct setting_def *s, const char *requested,
		       const char *read_back);

/* "name=value" -> name and value (value points into entry). */
int setting_split(const char *entry, char *name, size_t namelen, const char **value);
/* Replaces name's entry in list or appends "name=value". */
void setting_put(struct strlist *list, const char *name, const char *value);

#endif
