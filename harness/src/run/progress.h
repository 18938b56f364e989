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
 * Contract: no function fails; progress_eta_s() is -1 while nothing of
 * what is left has been measured yet.
 */
#ifndef HB_PROGRESS_H
#define HB_PROGRESS_H

struct progress {
	int runs_total, runs_done;	/* runs: done = stored, not retried */
	int runs_timed;			/* of them, run (not stored as not run) */
	int builds_total, builds_done;
	double run_s, build_s;		/* the time measured for the done ones */
	double t0, mark;		/* started; the end of the last step */
	int lines_only;			/* a part of a plan another process draws the bar of */
};

void progress_start(struct progress *p);
/* The totals expected now (done ones included). */
void progress_expect(struct progress *p, int runs, int builds);
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
