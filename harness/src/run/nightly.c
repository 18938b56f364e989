#include "run/nightly.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "config/board.h"
#include "config/catalog.h"
#include "deploy/dut.h"
#include "run/revision.h"
#include "util/proc.h"
#include "util/util.h"

int nightly_lock(struct store *s, int *busy)
{
	*busy = 0;
	char *path = path_join(store_dir(s), "nightly.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		hb_err("cannot open %s: %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			*busy = 1;
		else
			hb_err("cannot lock %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

void nightly_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

void nightly_key(const char *plan_path, const char *revision, char key[65])
{
	char plan_sha[65] = "unreadable";
	sha256_file_hex(plan_path, plan_sha);
	char *text = xasprintf("hilbench-nightly 1\nplan %s\nrevision %s\n", plan_sha, revision);
	sha256_hex(text, strlen(text), key);
	free(text);
}

static char *record_path(struct store *s, const char *key)
{
	char *name = xasprintf("nightly/%s.json", key);
	char *path = path_join(store_dir(s), name);
	free(name);
	return path;
}

static int count_row(const struct run_row *r, void *ctx)
{
	(void)r;
	++*(size_t *)ctx;
	return 1;	/* one is enough */
}

int nightly_find(struct store *s, const char *key, char *session, size_t len)
{
	char *path = record_path(s, key);
	char *text = read_file(path, NULL);
	int found = 0;
	if (text) {
		cJSON *j = cJSON_Parse(text);
		const cJSON *sess = cJSON_GetObjectItemCaseSensitive(j, "session");
		if (cJSON_IsString(sess)) {
			size_t rows = 0;
			struct selection sel = { .session = sess->valuestring, .all_classes = 1 };
			if (store_foreach(s, &sel, count_row, &rows) < 0)
				found = -1;
			else if (rows) {
				snprintf(session, len, "%s", sess->valuestring);
				found = 1;
			}
		} else {
			hb_info("%s is not a nightly record (no session); running again", path);
		}
		cJSON_Delete(j);
	}
	free(text);
	free(path);
	return found;
}

int nightly_record(struct store *s, const char *key, const char *plan, const char *revision,
		   const char *session)
{
	char *dir = path_join(store_dir(s), "nightly");
	char *path = record_path(s, key);
	char now[32];
	utc_now(now);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "key", key);
	cJSON_AddStringToObject(j, "plan", plan);
	cJSON_AddStringToObject(j, "revision", revision);
	cJSON_AddStringToObject(j, "session", session);
	cJSON_AddStringToObject(j, "finished", now);
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	int rc = mkdir_p(dir, 0755) == 0 && write_file_atomic(path, text, strlen(text)) == 0 ? 0 : -1;
	if (rc < 0)
		hb_err("cannot write %s: %s", path, strerror(errno));
	free(text);
	free(path);
	free(dir);
	return rc;
}

/* What the kernel source is tonight: the Debian package version per series. */
static char *debian_revision(const struct plan *p)
{
	struct strlist parts = { 0 };
	for (size_t i = 0; i < p->boards.n; i++) {
		struct board b = { 0 };
		if (catalog_board(p->boards.v[i], &b) < 0) {
			strlist_free(&parts);
			return NULL;
		}
		char *pkg = xasprintf("linux-source-%s", b.series.v[0]);
		char *q[] = { "dpkg-query", "-W", "-f", "${Version}", pkg, NULL };
		char *v = proc_output(q);
		strlist_pushf(&parts, "%s=%s", pkg, v && *v ? v : "not-installed");
		free(v);
		free(pkg);
		board_free(&b);
	}
	strlist_sort(&parts);
	char *out = argv_join(&parts, " ");
	strlist_free(&parts);
	return out;
}

struct class_count {
	size_t *n;		/* by enum run_class */
	char last[40];		/* rows come per run and metric: count a run once */
};

static int count_class(const struct run_row *r, void *ctx)
{
	struct class_count *k = ctx;
	enum run_class cls;
	if (!strcmp(k->last, r->id))
		return 0;
	snprintf(k->last, sizeof(k->last), "%s", r->id);
	if (run_class_parse(r->cls, &cls) == 0)
		k->n[cls]++;
	return 0;
}

/* The plan's session for tonight's revision: the recorded one, or a new
 * run of the plan, recorded when all its runs finished. */
static int find_or_run(struct nightly *n, struct store *s, struct exec_opts *o)
{
	char key[65];
	nightly_key(n->plan->path, n->revision, key);
	n->found = nightly_find(s, key, n->session, sizeof(n->session));
	if (n->found < 0)
		return HB_FAIL;
	n->run_rc = 0;
	if (n->found) {
		hb_info("nightly: plan %s against %s already measured in session %s; not rerun",
			n->plan->name, n->revision, n->session);
		return 0;
	}
	hb_install_interrupt_handlers();	/* a run stopped by Ctrl-C is stored, not lost */
	char id[40];
	n->run_rc = executor_run_plan(n->plan, s, o, id);
	snprintf(n->session, sizeof(n->session), "%s", id);
	if (n->run_rc == 0 && !hb_interrupted)
		nightly_record(s, key, n->plan->name, n->revision, n->session);
	return 0;
}

int nightly_run(struct nightly *n, struct store *s)
{
	int busy = 0;
	if ((n->lock = nightly_lock(s, &busy)) < 0) {
		if (busy)
			hb_err("another hilbench nightly is running on %s (it holds nightly.lock); "
			       "this one does nothing", store_dir(s));
		return HB_FAIL;
	}
	struct exec_opts o = { .stages = n->stages };
	int rc = HB_FAIL_INPUT;
	if (n->repo) {
		if (exec_opts_use_revision(&o, n->repo, n->rev, n->base, &n->gr) < 0)
			goto out;
		n->revision = xasprintf("git %s (base %.12s)", n->gr.commit, n->gr.base);
	} else if (!(n->revision = debian_revision(n->plan))) {
		goto out;
	}
	rc = find_or_run(n, s, &o);
	struct class_count k = { .n = n->classes };
	struct selection mine = { .session = n->session, .all_classes = 1 };
	if (rc == 0 && store_foreach(s, &mine, count_class, &k) < 0)
		rc = HB_FAIL;
out:
	strlist_free(&o.user_patches);
	return rc;
}

void nightly_free(struct nightly *n)
{
	nightly_unlock(n->lock);
	free(n->revision);
	git_revision_free(&n->gr);
}
