/*
 * progress: how far a plan is and when it will be done, from what its own
 * builds and runs have cost so far. On a terminal a bar with the ETA stays
 * below the messages (util's status line); elsewhere each step's line
 * starts with the same numbers.
 *
 * The ETA is the builds left times the mean of the builds measured plus
 * the runs left times the mean wall time of a run measured: a run's time
 * is from the end of the step before it (its cell's build, or the run
 * before) to its end, so a boot, a retry and storing the run are in it,
 * a build is not. A plan whose number of runs is not known before it ends
 * (compare's sequential plan, run/planner.h) says what it expects with
 * progress_expect() and revises it as it learns.
 *
 * Runs that cost unalike go in lanes (compare's: the reference's runs, a
 * boot shared by every workload; the DUT-paced ones, several boards at
 * once, so less wall time each; those that need the host alone, one at a
 * time): once a lane is given its runs left
 * (progress_lane_expect()), the ETA sums each lane's runs left at that
 * lane's own mean, or while it has none at the guess given with it, else
 * at the mean of every run. One mean for all
 * was 30-45 % off at the middle of compare's plan (docs/measurements.md).
 *
 * Contract: no function fails; progress_eta_s() is -1 while nothing of
 * what is left has been measured yet.
 */
#ifndef HB_PROGRESS_H
#define HB_PROGRESS_H

#define PROGRESS_LANES 3

struct progress_lane {
	int left;		/* runs expected still */
	int done;		/* runs stored in it */
	int timed;		/* of them, run (the others took no time) */
	double s;		/* their time */
	double guess_s;		/* a run's time until one is measured; <= 0: none */
	/* what a run left costs against one measured, as the caller prices
	 * them (a lane whose runs are of kinds that cost unalike, the cheap
	 * ones first); <= 0: alike */
	double mix;
};

struct progress {
	int runs_total, runs_done;	/* runs: done = stored, not retried */
	int runs_timed;			/* of them, run (not stored as not run) */
	int builds_total, builds_done;
	double run_s, build_s;		/* the time measured for the done ones */
	double t0, mark;		/* started; the end of the last step */
	int lines_only;			/* a part of a plan another process draws the bar of */
	int lane;			/* where progress_run_end() counts */
	int laned;			/* lanes were given: the ETA is theirs */
	struct progress_lane lanes[PROGRESS_LANES];
};

void progress_start(struct progress *p);
/* The totals expected now (done ones included). */
void progress_expect(struct progress *p, int runs, int builds);
/* The runs lane (0 .. PROGRESS_LANES - 1) still expects, and the time of
 * one of them to assume until the lane has measured its own. */
void progress_lane_expect(struct progress *p, int lane, int runs_left, double guess_s);
/* The runs left in lane cost `mix` times its measured ones (their mean);
 * <= 0: alike, as until it is said. */
void progress_lane_mix(struct progress *p, int lane, double mix);
/* The lane the next runs are counted in. */
void progress_lane(struct progress *p, int lane);
/* A lane's mean run time so far; -1 when it has measured none. */
double progress_lane_mean_s(const struct progress *p, int lane);
void progress_build_begin(struct progress *p);
void progress_build_end(struct progress *p);
/* A run is stored; ran = 0 for one stored as not run (a failed build or
 * boot, an earlier failure), which took no time of its own. */
void progress_run_end(struct progress *p, int ran);
double progress_eta_s(const struct progress *p);
/* A step's line ("[12/40 runs, about 3 min left] what") and the bar. */
void progress_say(const struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The bar again, with no line (the counts changed); nothing off a terminal. */
void progress_draw(const struct progress *p);
/* The bar is taken down (the plan is over). */
void progress_end(struct progress *p);

#endif
