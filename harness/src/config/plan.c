#include "config/plan.h"

#include <stdlib.h>
#include <string.h>

#include "config/yamldoc.h"

#define P(f) offsetof(struct plan, f)

/* Indexed by the enum: YF_ENUM stores the index. */
static const char *const timings[] = {
	[TIMING_REALTIME] = "realtime", [TIMING_VIRTUAL] = "virtual", NULL
};

static const char *const boot_policies[] = {
	[BOOTS_PER_CELL] = "per-cell", [BOOTS_PER_REPETITION] = "per-repetition", NULL
};

_Static_assert(sizeof(enum timing_mode) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum boot_policy) == sizeof(int), "YF_ENUM stores an int");

static const struct yfield plan_fields[] = {
	{ .key = "name", .type = YF_STRING, .required = 1, .off = P(name), .is_name = 1 },
	{ .key = "description", .type = YF_STRING, .required = 1, .off = P(description) },
	{ .key = "boards", .type = YF_STRLIST, .required = 1, .off = P(boards),
	  .min = 1, .is_name = 1 },
	{ .key = "strategies", .type = YF_STRLIST, .required = 1, .off = P(strategies),
	  .min = 1, .is_name = 1 },
	{ .key = "workloads", .type = YF_STRLIST, .required = 1, .off = P(workloads),
	  .min = 1, .is_name = 1 },
	{ .key = "repetitions", .type = YF_INT, .required = 1, .off = P(repetitions),
	  .min = 1, .max = 100 },
	{ .key = "timing", .type = YF_ENUM, .required = 1, .off = P(timing),
	  .choices = timings },
	{ .key = "boots", .type = YF_ENUM, .off = P(boots), .choices = boot_policies },
	{ 0 }
};

int plan_load(const char *path, struct plan *p, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(p, 0, sizeof *p);
	if (!d)
		return -1;
	int rc = ydoc_apply(d, plan_fields, p, err, errlen);
	if (!rc)
		rc = ydoc_check_basename(d, p->name, err, errlen);
	ydoc_free(d);
	if (rc) {
		plan_free(p);
		return -1;
	}
	p->path = xstrdup(path);
	return 0;
}

void plan_free(struct plan *p)
{
	free(p->path);
	free(p->name);
	free(p->description);
	strlist_free(&p->boards);
	strlist_free(&p->strategies);
	strlist_free(&p->workloads);
	memset(p, 0, sizeof *p);
}

const char *timing_mode_name(enum timing_mode m)
{
	return timings[m];
}

int timing_mode_parse(const char *s, enum timing_mode *m)
{
	for (int i = 0; timings[i]; i++) {
		if (!strcmp(timings[i], s)) {
			*m = (enum timing_mode)i;
			return 0;
		}
	}
	return -1;
}
