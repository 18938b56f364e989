/*
 * options: the command-line options several commands share: the
 * plan-selecting ones of `run` and `compare`, the run-selecting ones of
 * `report` and `history`, and the change-point detector's of `history` and
 * `nightly`. (The kernel revision `nightly` and `bisect` measure is
 * run/revision.h's.)
 *
 * Contract (docs/design.md, "Errors"; a command maps both functions'
 * results with hb_exit_of()): run_options_parse() returns 0 when the
 * command should go on, 1 when it printed the help, HB_FAIL_INPUT for a
 * usage error (reported). The resulting plan is either a plan file with
 * overrides applied, or an ad-hoc plan made of --board/--strategy/--workload.
 */
#ifndef HB_OPTIONS_H
#define HB_OPTIONS_H

#include <getopt.h>

#include "analyze/changepoint.h"
#include "run/executor.h"
#include "run/planner.h"
#include "store/store.h"

struct run_options {
	struct plan plan;
	struct exec_opts exec;
};

int run_options_parse(int argc, char **argv, const char *usage, const char *default_plan,
		      struct run_options *o);
/* --patch FILE (a patch or an mbox) or --series FILE (quilt): appends the
 * patches to b->user_patches; prints the error and returns -1 on bad input. */
int add_user_patches(struct exec_opts *b, int is_series, const char *path);
/* A decimal integer option in lo..hi into *out; else prints what to give
 * (naming the option) and returns -1. */
int parse_int_option(const char *option, const char *arg, int lo, int hi, int *out);
/* Opens the store, runs the plan: the executor's fixed repetitions, or with
 * `repeat: until-decided` the planner's (into pl, which the caller frees
 * with planner_free(); NULL: its table is printed to stdout). The session
 * id goes to session if given. 0, HB_FAIL_INPUT (nothing ran), or -1 (the
 * store, runs not measured, interrupted). */
int run_options_execute(struct run_options *o, char session[40], struct planner *pl);
void run_options_free(struct run_options *o);
/* The options that select stored runs (a usage's "selection"), entries of a
 * getopt_long table; their short codes S, P, b, s, w and d are used for
 * nothing else where they are. */
#define SELECTION_OPTIONS                                       \
	{ "session", required_argument, NULL, 'S' },            \
	{ "plan", required_argument, NULL, 'P' },               \
	{ "board", required_argument, NULL, 'b' },              \
	{ "strategy", required_argument, NULL, 's' },           \
	{ "workload", required_argument, NULL, 'w' },           \
	{ "since", required_argument, NULL, 'd' }
/* c and arg as getopt_long gives them: 1 when c is a selection option and
 * arg (kept, not copied) is now in *sel, 0 when c is another option, -1
 * when --since is not an ISO 8601 date or UTC time (said). */
int selection_option(int c, const char *arg, struct selection *sel);

/* The change-point detector's options (docs/history.md). A command puts the
 * ones it offers into its getopt_long table (their short codes are n, A, R
 * and x, which it uses for nothing else) and hands every option to
 * changepoint_option() first. */
#define CP_OPTION_MIN_SEGMENT { "min-segment", required_argument, NULL, 'n' }
#define CP_OPTION_ALPHA { "alpha", required_argument, NULL, 'A' }
#define CP_OPTION_PERMUTATIONS { "permutations", required_argument, NULL, 'R' }
#define CP_OPTION_SEED { "seed", required_argument, NULL, 'x' }
/* c and arg as getopt_long gives them: 1 when c is a change-point option and
 * its value is now in *cp, 0 when c is another option, -1 when the value is
 * bad (the message names the option and what to give). */
int changepoint_option(int c, const char *arg, struct cp_params *cp);

#endif
