#include "analyze/gate.h"

#include <math.h>
#include <string.h>

#include "store/metrics.h"
#include "util/quote.h"
#include "util/util.h"

bool gate_metric_applies(const struct gate_metric *m, const struct workload *w)
{
	static const enum gate_traffic of[] = { [WL_DUT_TX] = GATE_DUT_TX,
						[WL_DUT_RX] = GATE_DUT_RX, [WL_BIDIR] = GATE_BIDIR };
	static const enum gate_profile by[] = { [WL_PROFILE_NONE] = GATE_NO_PROFILE,
						[WL_PROFILE_FTRACE] = GATE_FTRACE,
						[WL_PROFILE_PERF] = GATE_PERF };
	return (m->protocol == GATE_ANY_PROTOCOL || (m->protocol == GATE_UDP) == (w->proto == WL_UDP)) &&
	       (m->traffic == GATE_ANY_TRAFFIC || m->traffic == of[w->dir]) &&
	       (m->profile == GATE_ANY_PROFILE || m->profile == by[w->profile]);
}

const struct gate_metric *gate_metric_for(const struct gate_policy *g, const struct workload *w,
					  const char *metric, enum timing_mode t)
{
	const struct gate_metric *m = g->metrics.v;
	for (size_t i = 0; i < g->metrics.n; i++)
		if (!strcmp(m[i].metric, metric) && m[i].threshold_pct[t] >= 0 &&
		    gate_metric_applies(&m[i], w))
			return &m[i];
	return NULL;
}

bool gate_judges(const struct gate_policy *g, const struct workload *w)
{
	const struct gate_metric *m = g->metrics.v;
	for (size_t i = 0; i < g->metrics.n; i++)
		if (gate_metric_applies(&m[i], w))
			return true;
	return false;
}

int gate_reference_runs(const struct gate_policy *g, int plan_runs, const struct workload *w,
			enum timing_mode t)
{
	const struct gate_metric *m = g->metrics.v;
	int most = 0;
	for (size_t i = 0; i < g->metrics.n; i++) {
		if (!gate_metric_applies(&m[i], w))
			continue;
		int own = m[i].reference_repetitions[t];
		int n = own && own < plan_runs ? own : plan_runs;
		most = n > most ? n : most;
	}
	return most ? most : 1;
}

int gate_check_metrics(const struct gate_policy *g, char *err, size_t errlen)
{
	const struct gate_metric *m = g->metrics.v;
	for (size_t i = 0; i < g->metrics.n; i++) {
		const struct metric_def *def = metric_find(m[i].metric);
		if (!def) {
			snprintf(err, errlen, "%sno metric '%s'; `hilbench list metrics` names them",
				 m[i].where ? m[i].where : "", m[i].metric);
			return -1;
		}
		if (def->better == BETTER_NONE) {
			snprintf(err, errlen, "%s'%s' is neither better higher nor lower (`hilbench "
				 "list metrics`), so no change of it is a regression; gate on a "
				 "metric that has a direction", m[i].where ? m[i].where : "",
				 m[i].metric);
			return -1;
		}
	}
	return 0;
}

enum metric_better gate_metric_better(const struct gate_metric *m)
{
	const struct metric_def *def = metric_find(m->metric);
	return def ? def->better : BETTER_NONE;
}

struct gate_rule gate_metric_rule(const struct gate_metric *m, enum timing_mode t)
{
	return (struct gate_rule){ .threshold_pct = m->threshold_pct[t],
				   .spread_floor_pct = m->spread_floor_pct[t],
				   .change_runs = m->change_repetitions };
}

/* The rule's floor in the metric's unit: a share of the reference mean. */
static double floor_sd(const struct gate_rule *rule, double ref_mean)
{
	return rule->spread_floor_pct / 100 * fabs(ref_mean);
}

int gate_max_looks(const struct gate_policy *g, int ref_repetitions)
{
	return (g->max_repetitions - ref_repetitions) + (g->max_repetitions - g->first_repetitions) + 1;
}

double gate_look_alpha(const struct gate_policy *g, int ref_repetitions)
{
	return g->alpha / (double)gate_max_looks(g, ref_repetitions);
}

void gate_decide(const double *ref, size_t nref, const double *cand, size_t ncand,
		 enum metric_better better, enum gate_pass_rule pass, double look_alpha,
		 const struct gate_rule *rule, struct gate_decision *d)
{
	double threshold_pct = rule->threshold_pct;
	summarize(ref, nref, &d->ref);
	summarize(cand, ncand, &d->cand);
	mean_shift(ref, nref, cand, ncand, 1 - look_alpha, floor_sd(rule, d->ref.mean), &d->shift);
	d->threshold_pct = threshold_pct;
	d->look_alpha = look_alpha;
	double scale = 100 / fabs(d->ref.mean);
	d->delta_pct = d->shift.delta * scale;
	d->lo_pct = d->shift.lo * scale;
	d->hi_pct = d->shift.hi * scale;
	d->outcome = GATE_OPEN;
	d->decide_chance = NAN;
	d->futile = false;
	d->where[0] = '\0';	/* the gate loop names the movers after its last look */
	if (d->shift.method == SHIFT_NONE)
		return;
	if (d->ref.mean == 0) {
		/* no percentage of nothing: only "no change at all" can be judged */
		if (d->shift.lo == 0 && d->shift.hi == 0)
			d->outcome = GATE_PASS;
		return;
	}
	/* in the good direction, positive */
	double sign = better == BETTER_HIGHER ? 1 : -1;
	double gain = sign * d->delta_pct;
	double worst = sign > 0 ? d->lo_pct : -d->hi_pct;
	double best = sign > 0 ? d->hi_pct : -d->lo_pct;
	if (d->shift.p < look_alpha && fabs(gain) >= threshold_pct)
		d->outcome = gain < 0 ? GATE_REGRESSED : GATE_IMPROVED;
	else if (worst > -threshold_pct && (pass == PASS_NO_REGRESSION || best < threshold_pct))
		d->outcome = GATE_PASS;
}

/* P(lo <= X < hi) for X ~ N(mean, sd^2); sd 0: X is mean */
static double normal_between(double lo, double hi, double mean, double sd)
{
	if (!(lo < hi))
		return 0;
	if (sd == 0)
		return lo <= mean && mean < hi;
	double a = 0.5 * erfc(-(lo - mean) / (sd * M_SQRT2)), b = 0.5 * erfc(-(hi - mean) / (sd * M_SQRT2));
	return b - a;
}

/* The variance of a side's mean at the cap given its n runs so far: the
 * mean of those (uncertain by v/n, flat prior) and of cap - n runs to come. */
static double mean_at_cap_var(size_t n, size_t cap, double v)
{
	if (n >= cap)
		return 0;
	double rest = (double)(cap - n), c = (double)cap;
	return (rest / c) * (rest / c) * v / (double)n + rest * v / (c * c);
}

double gate_decide_chance(const double *ref, size_t nref, const double *cand, size_t ncand,
			  enum metric_better better, enum gate_pass_rule pass, double look_alpha,
			  const struct gate_rule *rule, size_t cap)
{
	double threshold_pct = rule->threshold_pct;
	struct summary r, c;
	summarize(ref, nref, &r);
	summarize(cand, ncand, &c);
	if (!nref || !ncand || nref + ncand < 3 || r.mean == 0 || cap < 2)
		return NAN;
	/* pooled: a side of one run has no variance of its own */
	double ssr = nref > 1 ? r.stddev * r.stddev * (double)(nref - 1) : 0;
	double ssc = ncand > 1 ? c.stddev * c.stddev * (double)(ncand - 1) : 0;
	double least = floor_sd(rule, r.mean);
	double v = fmax((ssr + ssc) / (double)(nref + ncand - 2), least * least);
	double scale = 100 / fabs(r.mean), sign = better == BETTER_HIGHER ? 1 : -1;
	/* in % of the reference, the good direction positive */
	double gain = sign * (c.mean - r.mean) * scale;
	double sd = sqrt(mean_at_cap_var(nref, cap, v) + mean_at_cap_var(ncand, cap, v)) * scale;
	double hw = t_quantile(1 - look_alpha / 2, 2 * (double)cap - 2) * sqrt(2 * v / (double)cap) *
		    scale;
	/* at the cap, gate_decide() reads a change where |gain| > hw (p <
	 * look_alpha) and >= the threshold, a pass where the interval [gain -
	 * hw, gain + hw] rules out the threshold (either way with
	 * PASS_NO_CHANGE), and leaves the rest open */
	double change = fmax(threshold_pct, hw);
	double open;
	if (pass == PASS_NO_CHANGE) {
		double inner = fmax(0, threshold_pct - hw);
		open = normal_between(inner, change, gain, sd) + normal_between(-change, -inner, gain, sd);
	} else {
		open = normal_between(-change, fmin(change, hw - threshold_pct), gain, sd);
	}
	return fmin(1, fmax(0, 1 - open));
}

void gate_look(const struct gate_policy *g, int ref_repetitions, struct gate_seq *s,
	       const double *ref, size_t nref, const double *cand, size_t ncand,
	       enum metric_better better, const struct gate_rule *rule, struct gate_decision *d)
{
	gate_decide(ref, nref, cand, ncand, better, g->pass, gate_look_alpha(g, ref_repetitions),
		    rule, d);
	int last = gate_max_looks(g, ref_repetitions);
	d->max_looks = last;
	if ((d->outcome == GATE_REGRESSED || d->outcome == GATE_IMPROVED) &&
	    (nref < (size_t)rule->change_runs || ncand < (size_t)rule->change_runs))
		d->outcome = GATE_OPEN;	/* the look counts; a run more is asked for */
	d->looks = s->looks;
	if (d->shift.method == SHIFT_NONE)
		return;
	if (nref != s->nref || ncand != s->ncand) {
		if (s->looks == last) {
			d->outcome = GATE_INCONCLUSIVE;	/* a test more would break the bound */
			return;
		}
		s->looks++;
		s->nref = nref;
		s->ncand = ncand;
	}
	d->looks = s->looks;
	if (d->outcome == GATE_OPEN && s->looks == last)
		d->outcome = GATE_INCONCLUSIVE;
	if (d->outcome != GATE_OPEN)
		return;
	if (gate_futile(g, ref, nref, cand, ncand, better, rule, d)) {
		d->outcome = GATE_INCONCLUSIVE;
		d->futile = true;
	}
}

bool gate_futile(const struct gate_policy *g, const double *ref, size_t nref, const double *cand,
		 size_t ncand, enum metric_better better, const struct gate_rule *rule,
		 struct gate_decision *d)
{
	d->decide_chance = gate_decide_chance(ref, nref, cand, ncand, better, g->pass,
					      d->look_alpha, rule,
					      (size_t)g->max_repetitions);
	return d->decide_chance < g->futility;	/* NaN: says nothing, never futile */
}

enum gate_next gate_next_run(const struct gate_policy *g, int ref_repetitions, size_t nref,
			     size_t ncand, bool open, int *reps)
{
	size_t cap = (size_t)g->max_repetitions;
	*reps = 1;
	if (nref < (size_t)ref_repetitions) {
		*reps = ref_repetitions - (int)nref;
		return GATE_NEXT_REFERENCE;
	}
	if (ncand < (size_t)g->first_repetitions) {
		*reps = g->first_repetitions - (int)ncand;
		return GATE_NEXT_CANDIDATE;
	}
	if (!open || (nref >= cap && ncand >= cap))
		return GATE_NEXT_NONE;
	if (ncand >= cap || (nref < ncand && nref < cap))
		return GATE_NEXT_REFERENCE;
	return GATE_NEXT_CANDIDATE;
}

static const char *const outcome_names[] = {
	[GATE_PASS] = "pass", [GATE_IMPROVED] = "improved", [GATE_REGRESSED] = "REGRESSED",
	[GATE_OPEN] = "open", [GATE_INCONCLUSIVE] = "inconclusive",
};

const char *gate_outcome_name(enum gate_outcome o)
{
	return outcome_names[o];
}

int gate_outcome_parse(const char *name, enum gate_outcome *o)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(outcome_names); i++)
		if (!strcmp(name, outcome_names[i])) {
			*o = (enum gate_outcome)i;
			return 0;
		}
	return -1;
}

enum gate_outcome gate_overall(const struct gate_decision *d, size_t n, int runs_missing)
{
	int inconclusive = runs_missing || n == 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i].outcome == GATE_REGRESSED)
			return GATE_REGRESSED;
		inconclusive |= d[i].outcome == GATE_INCONCLUSIVE || d[i].outcome == GATE_OPEN;
	}
	return inconclusive ? GATE_INCONCLUSIVE : GATE_PASS;
}

const char *gate_change_text(const struct gate_decision *d, char *buf, size_t len)
{
	char before[32] = "no pass runs of the reference", after[64] = "no pass runs of the candidate";
	if (d->ref.n)
		snprintf(before, sizeof(before), "%.6g", d->ref.mean);
	if (d->cand.n)
		snprintf(after, sizeof(after), "%.6g %s", d->cand.mean, d->unit);
	if (isnan(d->delta_pct))
		snprintf(buf, len, "%s -> %s", before, after);
	else if (isnan(d->lo_pct))
		snprintf(buf, len, "%s -> %s %+.3f %%", before, after, d->delta_pct);
	else
		snprintf(buf, len, "%s -> %s %+.3f %% (CI %+.3f..%+.3f %%)", before, after,
			 d->delta_pct, d->lo_pct, d->hi_pct);
	return buf;
}

void gate_write_junit(FILE *out, const char *name, const struct gate_decision *d, size_t n)
{
	size_t failures = 0, skipped = 0;
	for (size_t i = 0; i < n; i++) {
		failures += d[i].outcome == GATE_REGRESSED;
		skipped += d[i].outcome == GATE_INCONCLUSIVE || d[i].outcome == GATE_OPEN;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"", out);
	xml_escape(out, name);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", n, failures, skipped);
	for (size_t i = 0; i < n; i++) {
		const struct gate_decision *g = &d[i];
		char msg[640], change[200], p[64] = "";
		if (!isnan(g->shift.p))
			snprintf(p, sizeof(p), ", %s p %.3g at alpha %.3g",
				 shift_method_name(g->shift.method), g->shift.p, g->look_alpha);
		char futile[64] = "";
		if (g->futile)
			snprintf(futile, sizeof(futile), "; stopped early: %.0f %% chance the cap "
				 "decides", 100 * g->decide_chance);
		snprintf(msg, sizeof(msg), "%s: %s (threshold %.2f %%%s, runs %zu/%zu)%s%s%s",
			 gate_outcome_name(g->outcome), gate_change_text(g, change, sizeof(change)),
			 g->threshold_pct, p, g->ref.n, g->cand.n, futile,
			 g->where[0] ? "; where: " : "", g->where);
		fputs("  <testcase classname=\"", out);
		xml_escape(out, g->workload);
		fputs("\" name=\"", out);
		xml_escape(out, g->metric);
		fputs("\">", out);
		if (g->outcome == GATE_REGRESSED || g->outcome == GATE_INCONCLUSIVE ||
		    g->outcome == GATE_OPEN) {
			fputs(g->outcome == GATE_REGRESSED ? "<failure message=\"" : "<skipped message=\"", out);
			xml_escape(out, msg);
			fputs("\"/>", out);
		} else {
			fputs("<system-out>", out);
			xml_escape(out, msg);
			fputs("</system-out>", out);
		}
		fputs("</testcase>\n", out);
	}
	fputs("</testsuite>\n", out);
}
