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

static const char *const directions[] = {
	[HIGHER_IS_BETTER] = "higher", [LOWER_IS_BETTER] = "lower", NULL
};

static const char *const protocols[] = {
	[GATE_ANY_PROTOCOL] = "any", [GATE_UDP] = "udp", [GATE_TCP] = "tcp", NULL
};

_Static_assert(sizeof(enum timing_mode) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum metric_direction) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum gate_protocol) == sizeof(int), "YF_ENUM stores an int");

#define M(f) offsetof(struct gate_metric, f)

static const struct yfield threshold_fields[] = {
	{ .key = "virtual", .type = YF_DOUBLE, .required = 1,
	  .off = M(threshold_pct[TIMING_VIRTUAL]), .fmin = 0, .fmax = 1000 },
	{ .key = "realtime", .type = YF_DOUBLE, .required = 1,
	  .off = M(threshold_pct[TIMING_REALTIME]), .fmin = 0, .fmax = 1000 },
	{ 0 }
};

static const struct yfield gate_metric_fields[] = {
	{ .key = "metric", .type = YF_STRING, .required = 1, .off = M(metric), .is_name = 1 },
	{ .key = "better", .type = YF_ENUM, .required = 1, .off = M(better), .choices = directions },
	{ .key = "protocol", .type = YF_ENUM, .off = M(protocol), .choices = protocols },
	{ .key = "threshold_pct", .type = YF_MAP, .required = 1, .sub = threshold_fields },
	{ 0 }
};

static const struct yfield gate_fields[] = {
	{ .key = "alpha", .type = YF_DOUBLE, .required = 1, .off = P(gate.alpha),
	  .fmin = 1e-6, .fmax = 0.5 },
	{ .key = "first_repetitions", .type = YF_INT, .off = P(gate.first_repetitions),
	  .min = 1, .max = 100 },
	{ .key = "max_repetitions", .type = YF_INT, .required = 1, .off = P(gate.max_repetitions),
	  .min = 2, .max = 100 },
	{ .key = "metrics", .type = YF_TABLE, .required = 1, .off = P(gate.metrics),
	  .sub = gate_metric_fields, .elem_size = sizeof(struct gate_metric) },
	{ 0 }
};
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
	{ .key = "gate", .type = YF_MAP, .sub = gate_fields },
	{ 0 }
};

static int check_gate(const struct ydoc *d, const struct ynode *at, struct gate_policy *g,
		      int repetitions, char *err, size_t errlen)
{
	const struct ynode *metrics = ynode_get(at, "metrics");
	g->present = 1;
	if (!g->first_repetitions)
		g->first_repetitions = 1;
	if (!g->metrics.n)
		return ydoc_err(d, metrics, err, errlen,
				"'gate.metrics' is empty; list at least one metric to judge");
	if (g->max_repetitions < repetitions || g->max_repetitions < g->first_repetitions)
		return ydoc_err(d, ynode_get(at, "max_repetitions"), err, errlen,
				"'gate.max_repetitions' (%d) is below 'repetitions' (%d) or "
				"'gate.first_repetitions' (%d); raise it", g->max_repetitions,
				repetitions, g->first_repetitions);
	return 0;
}

int plan_load(const char *path, struct plan *p, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(p, 0, sizeof *p);
	if (!d)
		return -1;
	int rc = ydoc_apply(d, plan_fields, p, err, errlen);
	if (!rc)
		rc = ydoc_check_basename(d, p->name, err, errlen);
	const struct ynode *gate = ynode_get(d->root, "gate");
	if (!rc && gate)
		rc = check_gate(d, gate, &p->gate, p->repetitions, err, errlen);
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
	struct gate_metric *m = p->gate.metrics.v;
	for (size_t i = 0; i < p->gate.metrics.n; i++)
		free(m[i].metric);
	free(m);
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
