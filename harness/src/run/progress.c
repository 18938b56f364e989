#include "run/progress.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/util.h"

void progress_start(struct progress *p)
{
	*p = (struct progress){ .t0 = monotonic_s() };
	p->mark = p->t0;
}

void progress_expect(struct progress *p, int runs, int builds)
{
	p->runs_total = runs > p->runs_done ? runs : p->runs_done;
	p->builds_total = builds > p->builds_done ? builds : p->builds_done;
}

static int lane_index(int lane)
{
	return lane < 0 ? 0 : lane >= PROGRESS_LANES ? PROGRESS_LANES - 1 : lane;
}

void progress_lane_expect(struct progress *p, int lane, int runs_left, double guess_s)
{
	struct progress_lane *l = &p->lanes[lane_index(lane)];
	l->left = runs_left > 0 ? runs_left : 0;
	l->guess_s = guess_s;
	p->laned = 1;
}

void progress_lane_mix(struct progress *p, int lane, double mix)
{
	p->lanes[lane_index(lane)].mix = mix;
}

void progress_lane(struct progress *p, int lane)
{
	p->lane = lane_index(lane);
}

double progress_lane_mean_s(const struct progress *p, int lane)
{
	const struct progress_lane *l = &p->lanes[lane_index(lane)];
	return l->timed ? l->s / l->timed : -1;
}

void progress_build_begin(struct progress *p)
{
	p->mark = monotonic_s();
}

void progress_build_end(struct progress *p)
{
	double now = monotonic_s();
	p->build_s += now - p->mark;
	p->builds_done++;
	if (p->builds_total < p->builds_done)
		p->builds_total = p->builds_done;
	p->mark = now;
}

void progress_run_end(struct progress *p, int ran)
{
	double now = monotonic_s();
	struct progress_lane *l = &p->lanes[p->lane];
	p->runs_done++;
	l->done++;
	if (l->left > 0)
		l->left--;
	if (ran) {
		p->run_s += now - p->mark;
		p->runs_timed++;
		l->s += now - p->mark;
		l->timed++;
		p->mark = now;
	}
	if (p->runs_total < p->runs_done)
		p->runs_total = p->runs_done;
}

double progress_eta_s(const struct progress *p)
{
	int runs_left = p->runs_total - p->runs_done, builds_left = p->builds_total - p->builds_done;
	if ((runs_left > 0 && !p->runs_timed) || (builds_left > 0 && !p->builds_done))
		return -1;
	double eta = 0;
	if (runs_left > 0 && !p->laned)
		eta += runs_left * p->run_s / p->runs_timed;
	for (int i = 0; p->laned && i < PROGRESS_LANES; i++) {
		const struct progress_lane *l = &p->lanes[i];
		double per = l->timed ? l->s / l->timed * (l->mix > 0 ? l->mix : 1)
			     : l->guess_s > 0 ? l->guess_s
			     : p->runs_timed ? p->run_s / p->runs_timed : -1;
		if (l->left > 0 && per < 0)
			return -1;
		if (l->left > 0)
			eta += l->left * per;
	}
	if (builds_left > 0)
		eta += builds_left * p->build_s / p->builds_done;
	return eta;
}

/* "about 3 min 20 s left", or that it is not known yet. */
static void eta_text(const struct progress *p, char *out, size_t len)
{
	double eta = progress_eta_s(p);
	int s = (int)(eta + 0.5);
	if (eta < 0)
		snprintf(out, len, "time left not known yet");
	else if (s >= 60)
		snprintf(out, len, "about %d min %02d s left", s / 60, s % 60);
	else
		snprintf(out, len, "about %d s left", s);
}

void progress_draw(const struct progress *p)
{
	if (p->lines_only || !hb_status_shown())
		return;
	enum { WIDTH = 24 };
	int fill = p->runs_total ? p->runs_done * WIDTH / p->runs_total : 0;
	char bar[WIDTH + 1], eta[64], line[256];
	for (int i = 0; i < WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[WIDTH] = '\0';
	eta_text(p, eta, sizeof(eta));
	int el = (int)(monotonic_s() - p->t0);
	snprintf(line, sizeof(line), "[%s] %d/%d runs, %d/%d builds, %d:%02d so far, %s", bar,
		 p->runs_done, p->runs_total, p->builds_done, p->builds_total, el / 60, el % 60,
		 eta);
	hb_status(line);
}

void progress_say(const struct progress *p, const char *fmt, ...)
{
	char what[400], eta[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (p->lines_only || hb_status_shown()) {
		hb_info("%s", what);
		progress_draw(p);
		return;
	}
	eta_text(p, eta, sizeof(eta));
	hb_info("[%d/%d runs, %s] %s", p->runs_done, p->runs_total, eta, what);
}

void progress_end(struct progress *p)
{
	(void)p;
	hb_status(NULL);
}
