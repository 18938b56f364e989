#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"

/* kill_tree: SIGTERM, not SIGKILL, when hilbench dies, because GNU make
 * passes a SIGTERM on to its children (kbuild's sub-make, the compilers)
 * and deletes the targets they had half written; a SIGKILLed top make
 * left its sub-make compiling, reparented to init, in a build tree the
 * next build resumes in. */
static void child(char *const argv[], const struct proc_opts *o, int errpipe, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, o->kill_tree ? SIGTERM : SIGKILL);
	if (getppid() != parent)	/* hilbench died before the prctl */
		_exit(127);
	if (o->new_pgrp || o->kill_tree)
		setpgid(0, 0);
	if (o->no_huge_pages && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0)
		goto fail;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	int in = o->stdin_fd >= 0 ? o->stdin_fd : open("/dev/null", O_RDONLY);
	int log = o->log ? open(o->log, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
	if (in < 0 || (o->log && log < 0))
		goto fail;
	int out = o->stdout_fd >= 0 ? o->stdout_fd : log;
	dup2(in, STDIN_FILENO);
	if (out >= 0)
		dup2(out, STDOUT_FILENO);
	if (log >= 0)
		dup2(log, STDERR_FILENO);
	if (o->merge_stderr)
		dup2(STDOUT_FILENO, STDERR_FILENO);
	if (o->cwd && chdir(o->cwd) < 0)
		goto fail;
	for (char *const *e = o->env_add; e && *e; e++)
		putenv(*e);
	execvp(argv[0], argv);
fail:;
	int e = errno;
	if (write(errpipe, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

pid_t proc_spawn(char *const argv[], const struct proc_opts *o)
{
	static const struct proc_opts defaults = PROC_OPTS_DEFAULT;
	if (!o)
		o = &defaults;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0)
		child(argv, o, p[1], parent);
	if (o->new_pgrp || o->kill_tree)
		setpgid(pid, pid);	/* before any kill(-pid): no race with the child's own */
	close(p[1]);
	int e = 0;
	ssize_t n;
	do
		n = read(p[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == sizeof(e)) {
		waitpid(pid, NULL, 0);
		errno = e;
		return -1;
	}
	return pid;
}

/* The shell's convention: the exit status, or 128 + the killing signal. */
static int exit_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int proc_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return exit_code(st);
}

int proc_run(char *const argv[], const struct proc_opts *o)
{
	pid_t pid = proc_spawn(argv, o);
	if (pid < 0)
		return -1;
	if (!o || !o->kill_tree)
		return proc_wait(pid);
	/* A signal hilbench handles (SIGINT, SIGTERM: no SA_RESTART) interrupts
	 * the wait: the program's whole group stops with it. */
	int st;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
		kill(-pid, SIGTERM);
	}
	return exit_code(st);
}

char *proc_output(char *const argv[])
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return NULL;
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.stdout_fd = p[1];
	o.log = "/dev/null";	/* a failed query says so by its exit status */
	pid_t pid = proc_spawn(argv, &o);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return NULL;
	}
	size_t cap = 256, n = 0;
	char *buf = xmalloc(cap);
	ssize_t got;
	while ((got = read(p[0], buf + n, cap - n - 1)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)got;
		if (n + 1 == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	close(p[0]);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	if (proc_wait(pid) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *argv_display(char *const argv[])
{
	size_t len = 1;
	for (char *const *a = argv; *a; a++)
		len += strlen(*a) + 1;
	char *s = xmalloc(len);
	s[0] = '\0';
	for (char *const *a = argv; *a; a++) {
		if (a != argv)
			strcat(s, " ");
		strcat(s, *a);
	}
	return s;
}
