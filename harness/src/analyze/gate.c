#include "analyze/gate.h"

#include <math.h>
#include <string.h>

#include "util/util.h"

/*
 * Measured noise (docs/measurements.md): in virtual time UDP pps repeats to
 * about 0.01 % across boots, TCP varies 0.1 % (DUT receiving) to about 5 %
 * (DUT sending: the host's TCP runs in real time); in real time runs vary
 * 8-20 % between boots. Each threshold is well above its noise and, for
 * virtual-time UDP, below the 0.5 % the gate must catch.
 */
double gate_threshold_pct(enum wl_proto proto, bool virtual_time)
{
	if (!virtual_time)
		return 15.0;
	return proto == WL_UDP ? 0.25 : 10.0;
}

void gate_decide(const double *ref, size_t nref, const double *cand, size_t ncand,
		 bool higher_is_better, double alpha, double threshold_pct,
		 struct gate_decision *d)
{
	compare_samples(ref, nref, cand, ncand, alpha, higher_is_better, &d->cmp);
	d->threshold_pct = threshold_pct;
	int big = !isnan(d->cmp.delta_pct) && fabs(d->cmp.delta_pct) >= threshold_pct;
	switch (d->cmp.verdict) {
	case VERDICT_INCONCLUSIVE:
		d->outcome = GATE_INCONCLUSIVE;
		break;
	case VERDICT_WORSE:
		d->outcome = big ? GATE_REGRESSED : GATE_PASS;
		break;
	case VERDICT_BETTER:
		d->outcome = big ? GATE_IMPROVED : GATE_PASS;
		break;
	default:
		d->outcome = GATE_PASS;
	}
}

const char *gate_outcome_name(enum gate_outcome o)
{
	static const char *const names[] = { "pass", "improved", "REGRESSED", "inconclusive" };
	return names[o];
}

int gate_exit_code(const struct gate_decision *d, size_t n, int runs_missing)
{
	int inconclusive = runs_missing || n == 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i].outcome == GATE_REGRESSED)
			return HB_EXIT_FAIL;
		inconclusive |= d[i].outcome == GATE_INCONCLUSIVE;
	}
	return inconclusive ? HB_EXIT_INFRA : HB_EXIT_OK;
}

static void xml(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* XML 1.0 has no other control characters */
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, out);
		}
	}
}

void gate_write_junit(FILE *out, const char *name, const struct gate_decision *d, size_t n)
{
	size_t failures = 0, skipped = 0;
	for (size_t i = 0; i < n; i++) {
		failures += d[i].outcome == GATE_REGRESSED;
		skipped += d[i].outcome == GATE_INCONCLUSIVE;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"", out);
	xml(out, name);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", n, failures, skipped);
	for (size_t i = 0; i < n; i++) {
		const struct gate_decision *g = &d[i];
		char msg[256];
		snprintf(msg, sizeof(msg), "%s: %.6g -> %.6g %s (%+.2f %%, threshold %.2f %%, Welch p %.3g)",
			 gate_outcome_name(g->outcome), g->cmp.ref.mean, g->cmp.cand.mean, g->unit,
			 g->cmp.delta_pct, g->threshold_pct, g->cmp.welch.p);
		fputs("  <testcase classname=\"", out);
		xml(out, g->workload);
		fputs("\" name=\"", out);
		xml(out, g->metric);
		fputs("\">", out);
		if (g->outcome == GATE_REGRESSED || g->outcome == GATE_INCONCLUSIVE) {
			fputs(g->outcome == GATE_REGRESSED ? "<failure message=\"" : "<skipped message=\"", out);
			xml(out, msg);
			fputs("\"/>", out);
		} else {
			fputs("<system-out>", out);
			xml(out, msg);
			fputs("</system-out>", out);
		}
		fputs("</testcase>\n", out);
	}
	fputs("</testsuite>\n", out);
}
