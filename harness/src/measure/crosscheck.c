#include "measure/crosscheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int crosscheck_counts(const long long *counts, size_t n, struct crosscheck *out)
{
	struct crosscheck r = { 0 };
	int pairs = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			if (counts[i] < 0 || counts[j] < 0)
				continue;
			long long hi = counts[i] > counts[j] ? counts[i] : counts[j];
			long long diff = hi - (counts[i] + counts[j] - hi);
			/* two zeros agree; one zero against a count is 100 % off */
			double pct = hi ? 100.0 * (double)diff / (double)hi : 0;
			if (!pairs++ || pct > r.max_pct) {
				r.max_pct = pct;
				r.worst_a = i;
				r.worst_b = j;
			}
			if (diff > CROSSCHECK_TOL_FRAMES && pct > CROSSCHECK_TOL_PCT)
				r.inconsistent = 1;
		}
	}
	if (!pairs)
		return -1;
	*out = r;
	return 0;
}

const char *crosscheck_pair_text(const struct crosscheck *cc, const long long *counts,
				 const char *const *names, char *buf, size_t len)
{
	snprintf(buf, len, "%s %lld vs %s %lld (%.3f %%)", names[cc->worst_a], counts[cc->worst_a],
		 names[cc->worst_b], counts[cc->worst_b], cc->max_pct);
	return buf;
}

/* The seconds of the test's data: the clocks less their outside seconds
 * where those are known. */
struct data_clocks {
	double dut_s, dut_idle_s, host_s;
	double dut_outside_s, host_outside_s, dut_waits_s;	/* 0: nothing left out */
};

static struct data_clocks data_seconds(const struct run_clocks *c)
{
	struct data_clocks d = { c->dut_s, c->dut_idle_s, c->host_s, 0, 0, 0 };
	if (c->dut_outside_s > 0 && c->dut_outside_s < c->dut_s) {
		d.dut_outside_s = c->dut_outside_s;
		d.dut_s -= d.dut_outside_s;
		/* what the DUT waited there was idle; the rest was its work */
		d.dut_waits_s = c->dut_waits_s < d.dut_outside_s ? c->dut_waits_s : d.dut_outside_s;
		if (d.dut_waits_s > d.dut_idle_s)
			d.dut_waits_s = d.dut_idle_s;
		d.dut_idle_s -= d.dut_waits_s;
	}
	if (c->host_outside_s > 0 && c->host_outside_s < c->host_s) {
		d.host_outside_s = c->host_outside_s;
		d.host_s -= d.host_outside_s;
	}
	return d;
}

/* How the two clocks ran, the start of the reasons that blame the host's
 * side: "the DUT's clock ran 11.5 s, 11.3 s of it idle, while 2.6 s passed
 * on the host's", and what was left out. */
static size_t clocks_text(const struct data_clocks *d, char *buf, size_t len)
{
	int n = snprintf(buf, len, "the DUT's clock ran %.1f s, %.1f s of it idle, while %.1f s "
			 "passed on the host's", d->dut_s, d->dut_idle_s, d->host_s);
	if (n >= 0 && (size_t)n < len && (d->dut_outside_s > 0 || d->host_outside_s > 0))
		n += snprintf(buf + n, len - (size_t)n, " over the test's data (its set-up and "
			      "teardown %.1f s more on the DUT's, %.1f s of it idle, %.1f s on the "
			      "host's)", d->dut_outside_s, d->dut_waits_s, d->host_outside_s);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;	/* where the rest goes */
}

int crosscheck_clocks(const struct run_clocks *c, struct clock_check *out)
{
	if (!(c->dut_s >= 0 && c->dut_idle_s >= 0 && c->host_s > 0 && c->host_wait_s >= 0 &&
	      c->dut_outside_s >= 0 && c->host_outside_s >= 0 && c->dut_waits_s >= 0))
		return -1;
	struct data_clocks d = data_seconds(c);
	struct clock_check r = { .idle_per_host_s = d.dut_idle_s / d.host_s,
				 .host_wait_pct = 100 * c->host_wait_s / c->host_s,
				 .dut_outside_s = d.dut_outside_s,
				 .dut_waits_s = d.dut_waits_s,
				 .host_outside_s = d.host_outside_s };
	int contended = r.host_wait_pct >= CROSSCHECK_MIN_HOST_WAIT_PCT;
	int waited = r.idle_per_host_s > CROSSCHECK_MAX_IDLE_PER_HOST_S;
	int tcp_waited = r.host_wait_pct >= CROSSCHECK_TCP_MIN_HOST_WAIT_PCT &&
			 r.idle_per_host_s > CROSSCHECK_TCP_MAX_IDLE_PER_HOST_S;
	if ((c->pacing == PACED_BY_DUT && contended && waited) ||
	    (c->pacing == PACED_BY_TCP && tcp_waited)) {
		r.host_behind = 1;
		size_t n = clocks_text(&d, r.reason, sizeof(r.reason));
		snprintf(r.reason + n, sizeof(r.reason) - n, ", whose CPUs were contended "
			 "%.0f %% of it: the DUT waited for a host that fell behind",
			 r.host_wait_pct);
	} else if (c->pacing == PACED_BY_HOST && contended) {
		r.host_behind = 1;
		snprintf(r.reason, sizeof(r.reason),
			 "the host paced this run (it sent the UDP), and its CPUs were contended "
			 "%.0f %% of the %.1f s passed on its clock (the DUT's ran %.1f s, %.1f s of "
			 "it idle): the rate measures how fast a loaded host sent",
			 r.host_wait_pct, c->host_s, c->dut_s, c->dut_idle_s);
	}
	if (!r.host_behind && (c->pacing == PACED_BY_TCP || c->pacing == PACED_BY_HOST) &&
	    waited) {
		r.waited_for_host = 1;
		size_t n = clocks_text(&d, r.reason, sizeof(r.reason));
		snprintf(r.reason + n, sizeof(r.reason) - n, ", whose ACKs or data the run "
			 "needed (TCP, or the host sending): the DUT waited for the host");
	}
	*out = r;
	return 0;
}

int crosscheck_tcp_received(double read_mbps, double acked_mbps, struct clock_check *cc)
{
	if (!(read_mbps >= 0 && acked_mbps > 0 && cc->idle_per_host_s >= 0 &&
	      cc->host_wait_pct >= 0))
		return -1;
	double gap_pct = 100 * (read_mbps - acked_mbps) / acked_mbps;
	int host_sign = cc->host_wait_pct >= CROSSCHECK_TCP_MIN_HOST_WAIT_PCT ||
			cc->idle_per_host_s > CROSSCHECK_TCP_MAX_IDLE_PER_HOST_S;
	if (fabs(gap_pct) < CROSSCHECK_TCP_RX_GAP_PCT || !host_sign)
		return 0;
	cc->host_behind = 1;
	snprintf(cc->reason, sizeof(cc->reason),
		 "the DUT's iperf3 read %.2f Mbit/s where its kernel acknowledged %.2f (%+.1f %%) "
		 "while the host's CPUs were contended %.0f %% of the run and the DUT idled %.2f s "
		 "per host second: the host's data came unevenly", read_mbps, acked_mbps, gap_pct,
		 cc->host_wait_pct, cc->idle_per_host_s);
	return 1;
}

int crosscheck_psi_some_us(const char *text, long long *us)
{
	/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345\nfull ..." */
	const char *t = strncmp(text, "some ", 5) ? NULL : strstr(text, " total=");
	const char *eol = strchr(text, '\n');
	if (!t || (eol && t > eol))
		return -1;
	char *end;
	long long v = strtoll(t + 7, &end, 10);
	if (end == t + 7 || v < 0)
		return -1;
	*us = v;
	return 0;
}

enum run_pacing crosscheck_pacing(const struct workload *w)
{
	if (w->proto == WL_TCP)
		return PACED_BY_TCP;
	if (w->dir != WL_DUT_TX)
		return PACED_BY_HOST;
	return w->rate_bps ? PACED_BY_RATE : PACED_BY_DUT;
}

int crosscheck_shares_host(const struct workload *w, int peer_held)
{
	enum run_pacing p = crosscheck_pacing(w);
	return p == PACED_BY_DUT || (p == PACED_BY_TCP && peer_held);
}
