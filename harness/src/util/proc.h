/*
 * proc: start programs with argv arrays (never a shell string).
 *
 * Contract: proc_run() waits and returns the exit status (0..255), 128+N when
 * killed by signal N, or -1 when the program could not be started (errno set).
 * stderr goes to `log` (appended) when given, else is inherited; stdout
 * goes to stdout_fd, else to `log`, else is inherited. Children get
 * PR_SET_PDEATHSIG=SIGKILL so nothing outlives a hilbench that was SIGKILLed;
 * with kill_tree, make's children do not either.
 */
#ifndef HB_PROC_H
#define HB_PROC_H

#include <sys/types.h>

struct proc_opts {
	const char *cwd;	/* NULL = inherit */
	const char *log;	/* append stderr (and stdout) here; NULL = inherit */
	char *const *env_add;	/* NAME=VALUE entries added to the environment */
	int stdin_fd;		/* -1 = /dev/null */
	int stdout_fd;		/* -1 = log or inherit */
	int new_pgrp;		/* own process group, so a kill reaches helpers */
	int merge_stderr;	/* stderr goes where stdout goes */
	/* A program that starts its own (make: the sub-make, compilers) runs
	 * in its own process group and gets SIGTERM, which make passes on,
	 * when hilbench dies (even by SIGKILL); a handled signal interrupting
	 * proc_run() sends the group SIGTERM. */
	int kill_tree;
	/* The child's anonymous memory in base pages (PR_SET_THP_DISABLE): an
	 * emulator's guest RAM is touched here and there by a boot, and the
	 * first touch of a transparent huge page zeroes all 2 MB of it
	 * (docs/measurements.md, "The main loop woken a frame"). */
	int no_huge_pages;
};

#define PROC_OPTS_DEFAULT { .stdin_fd = -1, .stdout_fd = -1 }
/* For programs that start their own (make, tar and xz, a script). */
#define PROC_OPTS_TREE { .stdin_fd = -1, .stdout_fd = -1, .kill_tree = 1 }

pid_t proc_spawn(char *const argv[], const struct proc_opts *o);
int proc_wait(pid_t pid);
int proc_run(char *const argv[], const struct proc_opts *o);
/* Run and capture stdout (trimmed of trailing newlines; stderr discarded);
 * NULL on failure. */
char *proc_output(char *const argv[]);
/* "a b c" for messages only; never executed. */
char *argv_display(char *const argv[]);

#endif
