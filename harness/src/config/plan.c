#include "config/plan.h"

#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "config/setting.h"
#include "config/strategy.h"
#include "config/yamldoc.h"

#define P(f) offsetof(struct plan, f)

/* Indexed by the enum: YF_ENUM stores the index. */
static const char *const timings[] = {
	[TIMING_REALTIME] = "realtime", [TIMING_VIRTUAL] = "virtual", NULL
};

static const char *const boot_policies[] = {
	[BOOTS_PER_CELL] = "per-cell", [BOOTS_PER_REPETITION] = "per-repetition", NULL
};

static const char *const repeat_rules[] = {
	[REPEAT_FIXED] = "fixed", [REPEAT_UNTIL_DECIDED] = "until-decided", NULL
};

static const char *const protocols[] = {
	[GATE_ANY_PROTOCOL] = "any", [GATE_UDP] = "udp", [GATE_TCP] = "tcp", NULL
};

static const char *const traffics[] = {
	[GATE_ANY_TRAFFIC] = "any", [GATE_DUT_TX] = "dut-tx", [GATE_DUT_RX] = "dut-rx",
	[GATE_BIDIR] = "bidir", NULL
};

static const char *const gate_profiles[] = {
	[GATE_ANY_PROFILE] = "any", [GATE_NO_PROFILE] = "none", [GATE_FTRACE] = "ftrace",
	[GATE_PERF] = "perf", NULL
};

static const char *const pass_rules[] = {
	[PASS_NO_REGRESSION] = "no-regression", [PASS_NO_CHANGE] = "no-change", NULL
};

_Static_assert(sizeof(enum timing_mode) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum gate_pass_rule) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum repeat_rule) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum gate_protocol) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum gate_traffic) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum gate_profile) == sizeof(int), "YF_ENUM stores an int");

#define M(f) offsetof(struct gate_metric, f)

/* A mode left out is one the metric is not judged in (check_gate()). */
static const struct yfield threshold_fields[] = {
	{ .key = "virtual", .type = YF_DOUBLE, .off = M(threshold_pct[TIMING_VIRTUAL]), .fmin = 0,
	  .fmax = 1000 },
	{ .key = "realtime", .type = YF_DOUBLE, .off = M(threshold_pct[TIMING_REALTIME]), .fmin = 0,
	  .fmax = 1000 },
	{ 0 }
};

static const struct yfield spread_floor_fields[] = {
	{ .key = "virtual", .type = YF_DOUBLE, .off = M(spread_floor_pct[TIMING_VIRTUAL]),
	  .fmin = 0, .fmax = 100 },
	{ .key = "realtime", .type = YF_DOUBLE, .off = M(spread_floor_pct[TIMING_REALTIME]),
	  .fmin = 0, .fmax = 100 },
	{ 0 }
};

/* 2 at least: a reference of one run has no spread to judge against */
static const struct yfield reference_runs_fields[] = {
	{ .key = "virtual", .type = YF_INT, .off = M(reference_repetitions[TIMING_VIRTUAL]),
	  .min = 2, .max = 100 },
	{ .key = "realtime", .type = YF_INT, .off = M(reference_repetitions[TIMING_REALTIME]),
	  .min = 2, .max = 100 },
	{ 0 }
};

static const struct yfield gate_metric_fields[] = {
	{ .key = "metric", .type = YF_STRING, .required = 1, .off = M(metric), .is_name = 1 },
	{ .key = "protocol", .type = YF_ENUM, .off = M(protocol), .choices = protocols },
	{ .key = "direction", .type = YF_ENUM, .off = M(traffic), .choices = traffics },
	{ .key = "profile", .type = YF_ENUM, .off = M(profile), .choices = gate_profiles },
	{ .key = "threshold_pct", .type = YF_MAP, .required = 1, .sub = threshold_fields },
	{ .key = "spread_floor_pct", .type = YF_MAP, .sub = spread_floor_fields },
	{ .key = "change_repetitions", .type = YF_INT, .off = M(change_repetitions), .min = 1,
	  .max = 100 },
	{ .key = "reference_repetitions", .type = YF_MAP, .sub = reference_runs_fields },
	{ 0 }
};

static const struct yfield gate_fields[] = {
	{ .key = "alpha", .type = YF_DOUBLE, .required = 1, .off = P(gate.alpha),
	  .fmin = 1e-6, .fmax = 0.5 },
	{ .key = "reference_repetitions", .type = YF_INT, .off = P(gate.reference_repetitions),
	  .min = 1, .max = 100 },
	{ .key = "first_repetitions", .type = YF_INT, .off = P(gate.first_repetitions),
	  .min = 1, .max = 100 },
	{ .key = "max_repetitions", .type = YF_INT, .required = 1, .off = P(gate.max_repetitions),
	  .min = 2, .max = 100 },
	{ .key = "futility", .type = YF_DOUBLE, .off = P(gate.futility), .fmin = 0, .fmax = 0.5 },
	{ .key = "pass", .type = YF_ENUM, .off = P(gate.pass), .choices = pass_rules },
	{ .key = "metrics", .type = YF_TABLE, .off = P(gate.metrics),
	  .sub = gate_metric_fields, .elem_size = sizeof(struct gate_metric) },
	{ .key = "metrics_from", .type = YF_STRING, .off = P(gate.metrics_from), .is_name = 1 },
	{ .key = "metrics_only", .type = YF_STRLIST, .off = P(gate.metrics_only), .min = 1,
	  .is_name = 1 },
	{ 0 }
};
_Static_assert(sizeof(enum boot_policy) == sizeof(int), "YF_ENUM stores an int");

#define SW(f) offsetof(struct sweep, f)

static const struct yfield range_fields[] = {
	{ .key = "from", .type = YF_DOUBLE, .required = 1, .off = SW(from), .fmin = 0, .fmax = 1e12 },
	{ .key = "to", .type = YF_DOUBLE, .required = 1, .off = SW(to), .fmin = 0, .fmax = 1e12 },
	{ .key = "step", .type = YF_DOUBLE, .off = SW(step), .fmin = 1, .fmax = 1e12 },
	{ .key = "factor", .type = YF_DOUBLE, .off = SW(factor), .fmin = 1.01, .fmax = 1000 },
	{ 0 }
};

static const struct yfield sweep_fields[] = {
	{ .key = "setting", .type = YF_STRING, .required = 1, .off = SW(setting), .is_name = 1 },
	{ .key = "values", .type = YF_STRLIST, .off = SW(values), .min = 1 },
	{ .key = "range", .type = YF_MAP, .sub = range_fields },
	{ .key = "strategies", .type = YF_STRLIST, .off = SW(strategies), .min = 1, .is_name = 1 },
	{ 0 }
};

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
	{ .key = "repeat", .type = YF_ENUM, .off = P(repeat), .choices = repeat_rules },
	{ .key = "gate", .type = YF_MAP, .sub = gate_fields },
	{ .key = "sweeps", .type = YF_TABLE, .off = P(sweeps), .sub = sweep_fields,
	  .elem_size = sizeof(struct sweep) },
	{ 0 }
};

static void free_gate_metrics(struct ytable *t)
{
	struct gate_metric *m = t->v;
	for (size_t i = 0; i < t->n; i++) {
		free(m[i].metric);
		free(m[i].where);
	}
	free(m);
	memset(t, 0, sizeof(*t));
}

static int load_plan(const char *path, struct plan *p, int nested, char *err, size_t errlen);

/* metrics_from: PLAN: that plan's gate metrics (the ones metrics_only
 * names, if given) become this plan's, each with its own file's place. */
static int take_metrics(const struct ydoc *d, const struct ynode *at, struct gate_policy *g,
			char *err, size_t errlen)
{
	const struct ynode *from = ynode_get(at, "metrics_from");
	char *path = catalog_path("plan", g->metrics_from), why[1024];
	struct plan other;
	int rc = load_plan(path, &other, 1, why, sizeof(why));
	free(path);
	if (rc < 0)
		return ydoc_err(d, from, err, errlen, "'metrics_from: %s' does not load: %s",
				g->metrics_from, why);
	if (!other.gate.present) {
		rc = ydoc_err(d, from, err, errlen, "plan %s has no gate section to take metrics "
			      "from; name a plan that has one (plans/gate.yaml)", other.path);
		plan_free(&other);
		return rc;
	}
	const struct ynode *only = ynode_get(at, "metrics_only");
	for (size_t k = 0; k < g->metrics_only.n; k++) {
		size_t found = 0;
		const struct gate_metric *om = other.gate.metrics.v;
		for (size_t i = 0; i < other.gate.metrics.n; i++)
			found += !strcmp(om[i].metric, g->metrics_only.v[k]);
		if (!found) {
			rc = ydoc_err(d, only->kid[k], err, errlen, "plan %s does not gate '%s'; "
				      "name one of its gate.metrics", other.path,
				      g->metrics_only.v[k]);
			plan_free(&other);
			return rc;
		}
	}
	struct gate_metric *om = other.gate.metrics.v, *mine = xcalloc(other.gate.metrics.n,
									   sizeof(*mine));
	size_t n = 0;
	for (size_t i = 0; i < other.gate.metrics.n; i++) {
		int taken = !g->metrics_only.n;
		for (size_t k = 0; k < g->metrics_only.n; k++)
			taken |= !strcmp(om[i].metric, g->metrics_only.v[k]);
		if (taken) {
			mine[n++] = om[i];
			om[i].metric = om[i].where = NULL;	/* moved */
		}
	}
	g->metrics.v = mine;
	g->metrics.n = n;
	plan_free(&other);
	return 0;
}

static int check_gate(const struct ydoc *d, const struct ynode *at, struct gate_policy *g,
		      int repetitions, int nested, char *err, size_t errlen)
{
	const struct ynode *metrics = ynode_get(at, "metrics");
	g->present = 1;
	if (!g->first_repetitions)
		g->first_repetitions = 1;
	if (g->reference_repetitions)
		repetitions = g->reference_repetitions;
	else
		g->reference_repetitions = repetitions;
	if (!metrics == !g->metrics_from)
		return ydoc_err(d, metrics ? metrics : at, err, errlen, "the gate section needs "
				"exactly one of 'metrics' (a list of metrics and thresholds) or "
				"'metrics_from' (a plan whose list to take)");
	if (g->metrics_only.n && !g->metrics_from)
		return ydoc_err(d, ynode_get(at, "metrics_only"), err, errlen, "'metrics_only' "
				"picks from the plan 'metrics_from' names; add that or drop it");
	if (g->metrics_from && nested)
		return ydoc_err(d, ynode_get(at, "metrics_from"), err, errlen, "a plan whose "
				"metrics another plan takes lists them itself; give 'metrics'");
	if (g->metrics_from) {
		if (take_metrics(d, at, g, err, errlen) < 0)
			return -1;
	} else if (!g->metrics.n) {
		return ydoc_err(d, metrics, err, errlen,
				"'gate.metrics' is empty; list at least one metric to judge");
	} else {
		struct gate_metric *m = g->metrics.v;
		for (size_t i = 0; i < g->metrics.n; i++) {
			const struct ynode *name = ynode_get(metrics->kid[i], "metric");
			const struct ynode *th = ynode_get(metrics->kid[i], "threshold_pct");
			m[i].where = xasprintf("%s:%d:%d: ", d->path, name->line, name->col);
			int modes = 0;
			for (int t = 0; t < 2; t++) {
				if (ynode_get(th, timings[t]))
					modes++;
				else
					m[i].threshold_pct[t] = -1;
			}
			if (!modes)
				return ydoc_err(d, th, err, errlen, "'threshold_pct' of metric '%s' "
						"names no timing mode; give 'virtual', 'realtime' "
						"or both", m[i].metric);
		}
	}
	if (g->max_repetitions < repetitions || g->max_repetitions < g->first_repetitions)
		return ydoc_err(d, ynode_get(at, "max_repetitions"), err, errlen,
				"'gate.max_repetitions' (%d) is below the reference's repetitions "
				"(%d) or 'gate.first_repetitions' (%d); raise it", g->max_repetitions,
				repetitions, g->first_repetitions);
	struct gate_metric *m = g->metrics.v;
	for (size_t i = 0; i < g->metrics.n; i++) {
		if (!m[i].change_repetitions)
			m[i].change_repetitions = 1;
		if (m[i].change_repetitions > g->max_repetitions) {
			snprintf(err, errlen, "%s'change_repetitions' (%d) of metric '%s' is above "
				 "'gate.max_repetitions' (%d) of %s: no change could ever be called; "
				 "lower it", m[i].where, m[i].change_repetitions, m[i].metric,
				 g->max_repetitions, d->path);
			return -1;
		}
	}
	return 0;
}

/* `better:` in a gate metric: the plans before the metric table said it
 * there; the table says it now, and the error says so. */
static int check_no_better(const struct ydoc *d, char *err, size_t errlen)
{
	const struct ynode *gate = d->root && d->root->kind == YN_MAP ? ynode_get(d->root, "gate")
								     : NULL;
	const struct ynode *metrics = gate && gate->kind == YN_MAP ? ynode_get(gate, "metrics")
								   : NULL;
	for (size_t i = 0; metrics && metrics->kind == YN_SEQ && i < metrics->nkid; i++) {
		const struct ynode *m = metrics->kid[i];
		const struct ynode *better = m->kind == YN_MAP ? ynode_get(m, "better") : NULL;
		if (better)
			return ydoc_err(d, better, err, errlen, "'gate.metrics[%zu].better': a "
					"metric's better direction is the metric table's (`hilbench "
					"list metrics`), not the plan's; delete the line", i + 1);
	}
	return 0;
}

/* range -> values: from, from+step (or *factor), ... up to to, rounded to
 * integers (every swept setting is an integer; masks are not swept). */
static int expand_range(const struct ydoc *d, const struct ynode *range, struct sweep *sw,
			char *err, size_t errlen)
{
	int by_step = ynode_get(range, "step") != NULL, by_factor = ynode_get(range, "factor") != NULL;
	if (by_step == by_factor)
		return ydoc_err(d, range, err, errlen, "a range needs exactly one of 'step' "
				"(from, from+step, ...) or 'factor' (from, from*factor, ...)");
	if (sw->to < sw->from)
		return ydoc_err(d, ynode_get(range, "to"), err, errlen, "'to' (%g) is below "
				"'from' (%g); swap them", sw->to, sw->from);
	if (by_factor && sw->from <= 0)
		return ydoc_err(d, ynode_get(range, "from"), err, errlen, "a range by 'factor' "
				"must start above 0; use values: [0, ...] to include 0");
	long long last = -1;
	for (double v = sw->from; v <= sw->to * (1 + 1e-9);
	     v = by_step ? v + sw->step : v * sw->factor) {
		long long r = (long long)(v + 0.5);
		if (r == last)
			continue;
		if (sw->values.n == SWEEP_MAX_POINTS)
			return ydoc_err(d, range, err, errlen, "the range has more than %d points; "
					"use a larger step or factor", SWEEP_MAX_POINTS);
		strlist_pushf(&sw->values, "%lld", r);
		last = r;
	}
	return 0;
}

static int check_sweeps(const struct ydoc *d, const struct ynode *at, struct plan *p,
			char *err, size_t errlen)
{
	struct sweep *sw = p->sweeps.v;
	for (size_t i = 0; i < p->sweeps.n; i++) {
		const struct ynode *n = at->kid[i], *range = ynode_get(n, "range");
		const struct ynode *values = ynode_get(n, "values");
		char why[1024];
		struct setting_def def;
		if (setting_find(sw[i].setting, &def, why, sizeof(why)) < 0)
			return ydoc_err(d, ynode_get(n, "setting"), err, errlen, "%s", why);
		int rc = 0;
		if (!values == !range)
			rc = ydoc_err(d, n, err, errlen, "a sweep needs exactly one of 'values' "
				      "(a list) or 'range' (from, to, step or factor)");
		else if (range && def.read_back != SR_INTEGER)
			rc = ydoc_err(d, range, err, errlen, "%s is a %s; list its 'values'",
				      def.name, def.read_back == SR_MASK ? "mask" : "name");
		else if (range)
			rc = expand_range(d, range, &sw[i], err, errlen);
		else if (sw[i].values.n > SWEEP_MAX_POINTS)
			rc = ydoc_err(d, values, err, errlen, "more than %d values; sweep fewer",
				      SWEEP_MAX_POINTS);
		for (size_t v = 0; !rc && v < sw[i].values.n; v++) {
			const struct ynode *vn = values ? values->kid[v] : range;
			if (setting_check_value(&def, sw[i].values.v[v], why, sizeof(why)) < 0)
				rc = ydoc_err(d, vn, err, errlen, "%s", why);
			for (size_t w = 0; !rc && w < v; w++)
				if (!strcmp(sw[i].values.v[w], sw[i].values.v[v]))
					rc = ydoc_err(d, vn, err, errlen, "%s is listed twice",
						      sw[i].values.v[v]);
		}
		setting_free(&def);
		if (rc)
			return rc;
	}
	return 0;
}

static int load_plan(const char *path, struct plan *p, int nested, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(p, 0, sizeof *p);
	if (!d)
		return -1;
	int rc = check_no_better(d, err, errlen);
	if (!rc)
		rc = ydoc_apply(d, plan_fields, p, err, errlen);
	if (!rc)
		rc = ydoc_check_basename(d, p->name, err, errlen);
	const struct ynode *gate = ynode_get(d->root, "gate");
	if (!rc && gate)
		rc = check_gate(d, gate, &p->gate, p->repetitions, nested, err, errlen);
	const struct ynode *sweeps = ynode_get(d->root, "sweeps");
	if (!rc && sweeps)
		rc = check_sweeps(d, sweeps, p, err, errlen);
	const struct ynode *repeat = ynode_get(d->root, "repeat");
	if (!rc && p->repeat == REPEAT_UNTIL_DECIDED && (!gate || sweeps))
		rc = ydoc_err(d, repeat, err, errlen, "'repeat: until-decided' %s; %s",
			      gate ? "does not plan sweeps (their points are curves, not "
				     "verdicts against a reference)"
				   : "decides each metric to a threshold the plan's gate section "
				     "gives",
			      gate ? "give 'repeat: fixed' or move the sweeps to a plan of their own"
				   : "add one (copy plans/gate.yaml's) or give 'repeat: fixed'");
	ydoc_free(d);
	if (rc) {
		plan_free(p);
		return -1;
	}
	p->path = xstrdup(path);
	return 0;
}

int plan_load(const char *path, struct plan *p, char *err, size_t errlen)
{
	return load_plan(path, p, 0, err, errlen);
}

/* Item index of the list under key in map m, or NULL. */
static const struct ynode *list_item(const struct ynode *m, const char *key, size_t index)
{
	const struct ynode *list = m && m->kind == YN_MAP ? ynode_get(m, key) : NULL;
	return list && list->kind == YN_SEQ && index < list->nkid ? list->kid[index] : NULL;
}

static char *where_of(const struct plan *p, const struct ynode *n, char *out, size_t len)
{
	if (n)
		snprintf(out, len, "%s:%d:%d: ", p->path, n->line, n->col);
	else
		snprintf(out, len, "%s: ", p->path ? p->path : "plan");
	return out;
}

char *plan_where(const struct plan *p, const char *key, size_t index, char *out, size_t len)
{
	char err[512];
	struct ydoc *d = p->path ? ydoc_load(p->path, err, sizeof(err)) : NULL;
	where_of(p, d ? list_item(d->root, key, index) : NULL, out, len);
	ydoc_free(d);
	return out;
}

/* One strategy name of the plan: loads for series, else err with the
 * name's place in the file. A list replaced on the command line
 * (--strategies) no longer matches the file: no place then. */
static int check_strategy(const struct plan *p, const struct ynode *at, const char *name,
			  const char *series, const char *board, char *err, size_t errlen)
{
	struct strategy st;
	char why[1024], where[512] = "";
	if (strategy_load(series, name, &st, why, sizeof(why)) == 0) {
		strategy_free(&st);
		return 0;
	}
	if (at && at->str && !strcmp(at->str, name))
		where_of(p, at, where, sizeof(where));
	snprintf(err, errlen, "%s%s%s%s%s", where, why, board ? " (for board " : "",
		 board ? board : "", board ? ")" : "");
	return -1;
}

int plan_check_strategies(const struct plan *p, const char *series, const char *board,
			  char *err, size_t errlen)
{
	char why[512];
	struct ydoc *d = p->path ? ydoc_load(p->path, why, sizeof(why)) : NULL;
	const struct ynode *root = d ? d->root : NULL, *sweeps = root ? ynode_get(root, "sweeps") : NULL;
	int rc = 0;
	for (size_t i = 0; !rc && i < p->strategies.n; i++)
		rc = check_strategy(p, list_item(root, "strategies", i), p->strategies.v[i], series,
				    board, err, errlen);
	const struct sweep *sw = p->sweeps.v;
	for (size_t s = 0; !rc && s < p->sweeps.n; s++) {
		const struct ynode *node = sweeps && sweeps->kind == YN_SEQ && s < sweeps->nkid
					   ? sweeps->kid[s] : NULL;
		for (size_t i = 0; !rc && i < sw[s].strategies.n; i++)
			rc = check_strategy(p, list_item(node, "strategies", i),
					    sw[s].strategies.v[i], series, board, err, errlen);
	}
	ydoc_free(d);
	return rc;
}

size_t plan_gate_for_timing(struct plan *p)
{
	struct gate_metric *m = p->gate.metrics.v;
	size_t kept = 0;
	for (size_t i = 0; i < p->gate.metrics.n; i++) {
		if (m[i].threshold_pct[p->timing] >= 0) {
			m[kept++] = m[i];
			continue;
		}
		free(m[i].metric);
		free(m[i].where);
	}
	p->gate.metrics.n = kept;
	return kept;
}

void plan_free(struct plan *p)
{
	free(p->path);
	free(p->name);
	free(p->description);
	strlist_free(&p->boards);
	strlist_free(&p->strategies);
	strlist_free(&p->workloads);
	free_gate_metrics(&p->gate.metrics);
	free(p->gate.metrics_from);
	strlist_free(&p->gate.metrics_only);
	struct sweep *sw = p->sweeps.v;
	for (size_t i = 0; i < p->sweeps.n; i++) {
		free(sw[i].setting);
		strlist_free(&sw[i].values);
		strlist_free(&sw[i].strategies);
	}
	free(sw);
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
