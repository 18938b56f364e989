#include "analyze/dataset.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

static void add_unique(struct strlist *l, const char *v)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], v))
			return;
	strlist_push(l, v);
}

/* One strategy's kernel on one board: what a series belongs to. */
struct build {
	char *board, *strategy, *build_key, *label;
};

/* (workload, build, metric) -> index in d->s: a store of 100,000 runs
 * streams half a million rows through here. Open addressing, FNV-1a. */
struct series_index {
	size_t *slot;		/* index + 1; 0 = empty */
	size_t size;		/* a power of two, from 64 */
};

struct loader {
	struct dataset *d;
	struct series_index index;
	size_t *cap;		/* allocated values of each series */
	size_t *build_of;	/* each series' build */
	size_t *problem_build;	/* each problem's */
	struct build *builds;
	size_t n_builds, last_build;
	char last[40];		/* the run of the previous row: count runs once */
	const char *store_dir;
};

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;	/* a separator between fields */
}

static uint64_t series_hash(const char *workload, size_t build, const char *metric)
{
	return fnv1a(fnv1a(14695981039346656037ULL, workload), metric) ^ (build * 0x9e3779b97f4a7c15ULL);
}

static size_t *index_slot(const struct series_index *ix, const struct loader *l,
			  const char *workload, size_t build, const char *metric)
{
	size_t mask = ix->size - 1;
	for (size_t i = series_hash(workload, build, metric) & mask;; i = (i + 1) & mask) {
		size_t *slot = &ix->slot[i];
		if (!*slot)
			return slot;
		const struct series *s = &l->d->s[*slot - 1];
		if (l->build_of[*slot - 1] == build && !strcmp(s->metric, metric) &&
		    !strcmp(s->workload, workload))
			return slot;
	}
}

/* Keeps the table at most half full. */
static void index_add(struct loader *l, size_t idx)
{
	struct series_index *ix = &l->index;
	if (2 * (l->d->n + 1) > ix->size) {
		struct series_index bigger = { xcalloc(2 * ix->size, sizeof(size_t)), 2 * ix->size };
		for (size_t i = 0; i < ix->size; i++)
			if (ix->slot[i]) {
				size_t k = ix->slot[i] - 1;
				const struct series *s = &l->d->s[k];
				*index_slot(&bigger, l, s->workload, l->build_of[k], s->metric) =
					ix->slot[i];
			}
		free(ix->slot);
		*ix = bigger;
	}
	const struct series *s = &l->d->s[idx];
	*index_slot(ix, l, s->workload, l->build_of[idx], s->metric) = idx + 1;
}

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The strategy plus the basenames of the user's patches (the patches
 * column: [{layer, path, sha256}]) without .patch or .diff. */
static char *build_label(const char *strategy, const char *patches)
{
	char *label = xstrdup(strategy);
	cJSON *list = patches ? cJSON_Parse(patches) : NULL;
	const cJSON *p;
	cJSON_ArrayForEach(p, list) {
		const char *layer = cJSON_GetStringValue(cJSON_GetObjectItem(p, "layer"));
		const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(p, "path"));
		if (!layer || !path || strcmp(layer, "user"))
			continue;
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t n = strlen(base);
		if (n > 6 && (!strcmp(base + n - 6, ".patch")))
			n -= 6;
		else if (n > 5 && !strcmp(base + n - 5, ".diff"))
			n -= 5;
		char *more = xasprintf("%s+%.*s", label, (int)n, base);
		free(label);
		label = more;
	}
	cJSON_Delete(list);
	return label;
}

static size_t build_for(struct loader *l, const struct run_row *r)
{
	for (size_t k = 0; k < l->n_builds; k++) {
		/* the rows of one run come together: the last build first */
		size_t i = (l->last_build + k) % l->n_builds;
		const struct build *b = &l->builds[i];
		if (same(b->board, r->board) && same(b->strategy, r->strategy) &&
		    same(b->build_key, r->build_key))
			return l->last_build = i;
	}
	l->builds = xrealloc(l->builds, (l->n_builds + 1) * sizeof(*l->builds));
	l->builds[l->n_builds] = (struct build){ xstrdup(r->board), xstrdup(r->strategy),
						 xstrdup(r->build_key ? r->build_key : ""),
						 build_label(r->strategy, r->patches) };
	return l->last_build = l->n_builds++;
}

/* Two builds of one board and label: tell them apart by their keys. */
static void disambiguate(struct loader *l)
{
	int *clash = xcalloc(l->n_builds + 1, sizeof(int));
	for (size_t i = 0; i < l->n_builds; i++)
		for (size_t k = 0; k < l->n_builds; k++)
			clash[i] |= k != i && !strcmp(l->builds[i].board, l->builds[k].board) &&
				    !strcmp(l->builds[i].label, l->builds[k].label) &&
				    strcmp(l->builds[i].build_key, l->builds[k].build_key);
	for (size_t i = 0; i < l->n_builds; i++)
		if (clash[i]) {
			char *label = xasprintf("%s #%.8s", l->builds[i].label,
						*l->builds[i].build_key ? l->builds[i].build_key
									: "none");
			free(l->builds[i].label);
			l->builds[i].label = label;
		}
	free(clash);
}

/* Where a run's log is kept: its boot's console, else its own directory. */
static char *run_log(const char *store_dir, const struct run_row *r)
{
	if (r->boot_id) {
		char *console = xasprintf("%s/boots/%s/console.log", store_dir, r->boot_id);
		if (access(console, R_OK) == 0)
			return console;
		free(console);
	}
	char *dir = xasprintf("%s/runs/%s", store_dir, r->id);
	if (access(dir, R_OK) == 0)
		return dir;
	free(dir);
	return NULL;
}

static int take_row(const struct run_row *r, void *ctx)
{
	struct loader *l = ctx;
	struct dataset *d = l->d;
	size_t build = build_for(l, r);
	if (strcmp(r->cls, "pass")) {
		d->problems = xrealloc(d->problems, (d->n_problems + 1) * sizeof(*d->problems));
		l->problem_build = xrealloc(l->problem_build,
					    (d->n_problems + 1) * sizeof(*l->problem_build));
		l->problem_build[d->n_problems] = build;
		/* the label is set once every build is known */
		d->problems[d->n_problems++] = (struct problem){
			xstrdup(r->id), xstrdup(r->board), NULL,
			xstrdup(r->workload), xstrdup(r->cls), xstrdup(r->reason ? r->reason : ""),
			run_log(l->store_dir, r), r->repetition,
		};
		return 0;
	}
	if (!d->timing[0])
		snprintf(d->timing, sizeof(d->timing), "%s", r->timing);
	if (strcmp(d->timing, r->timing)) {
		d->mixed_timing++;
		return 0;
	}
	if (strcmp(l->last, r->id)) {
		snprintf(l->last, sizeof(l->last), "%s", r->id);
		d->runs++;
		const char *session = r->session ? r->session : "-";
		if (!d->sessions.n || strcmp(d->sessions.v[d->sessions.n - 1], session))
			add_unique(&d->sessions, session);
	}
	if (!r->metric)
		return 0;	/* a pass run without the selected metrics */
	size_t *slot = index_slot(&l->index, l, r->workload, build, r->metric);
	if (!*slot) {
		d->s = xrealloc(d->s, (d->n + 1) * sizeof(*d->s));
		l->cap = xrealloc(l->cap, (d->n + 1) * sizeof(*l->cap));
		l->build_of = xrealloc(l->build_of, (d->n + 1) * sizeof(*l->build_of));
		l->cap[d->n] = 0;
		l->build_of[d->n] = build;
		d->s[d->n] = (struct series){ xstrdup(r->workload), xstrdup(r->board), NULL,
					      xstrdup(r->metric), xstrdup(r->unit), xstrdup(r->id),
					      NULL, 0 };
		index_add(l, d->n++);
		slot = index_slot(&l->index, l, r->workload, build, r->metric);
	}
	size_t i = *slot - 1;
	struct series *s = &d->s[i];
	if (s->n == l->cap[i]) {
		l->cap[i] = l->cap[i] ? 2 * l->cap[i] : 8;
		s->v = xrealloc(s->v, l->cap[i] * sizeof(*s->v));
	}
	s->v[s->n++] = r->value;
	return 0;
}

/* The label of the session's one build of a strategy on the board; NULL
 * when it has none here, or more than one (then a decision cannot say
 * which it was about). */
static const char *label_of(const struct loader *l, const char *strategy)
{
	const char *label = NULL;
	for (size_t i = 0; i < l->n_builds; i++) {
		if (strcmp(l->builds[i].strategy, strategy))
			continue;
		if (label)
			return NULL;
		label = l->builds[i].label;
	}
	return label;
}

static int take_decision(const struct decision_record *r, void *ctx)
{
	const struct loader *l = ctx;
	struct dataset *d = l->d;
	const char *strategy = label_of(l, r->strategy), *reference = label_of(l, r->reference);
	if (!strategy || !reference)
		return 0;
	d->decided = xrealloc(d->decided, (d->n_decided + 1) * sizeof(*d->decided));
	d->decided[d->n_decided++] = (struct decided){
		.strategy = xstrdup(strategy), .reference = xstrdup(reference),
		.workload = xstrdup(r->workload), .metric = xstrdup(r->metric),
		.outcome = xstrdup(r->outcome), .why = xstrdup(r->why ? r->why : ""),
		.reference_runs = r->reference_runs, .candidate_runs = r->candidate_runs,
		.delta_pct = r->delta_pct, .lo_pct = r->lo_pct, .hi_pct = r->hi_pct,
		.threshold_pct = r->threshold_pct,
	};
	return 0;
}

int dataset_load(struct store *st, const struct selection *sel, struct dataset *d)
{
	memset(d, 0, sizeof(*d));
	struct loader l = { .d = d, .index = { xcalloc(64, sizeof(size_t)), 64 },
			    .store_dir = store_dir(st) };
	struct selection all = *sel;
	struct strlist shown = { 0 };
	all.all_classes = 1;
	all.no_provenance = 1;
	if (!all.metrics) {
		for (size_t k = 0; k < n_metric_defs; k++)
			if (metric_in_reports(&metric_defs[k]))
				strlist_push(&shown, metric_defs[k].name);
		all.metrics = &shown;
	}
	int rc = store_foreach(st, &all, take_row, &l);
	strlist_free(&shown);
	disambiguate(&l);
	for (size_t i = 0; i < d->n; i++) {
		d->s[i].strategy = xstrdup(l.builds[l.build_of[i]].label);
		add_unique(&d->workloads, d->s[i].workload);
		add_unique(&d->boards, d->s[i].board);
		add_unique(&d->strategies, d->s[i].strategy);
	}
	for (size_t i = 0; i < d->n_problems; i++) {
		struct problem *p = &d->problems[i];
		p->strategy = xstrdup(l.builds[l.problem_build[i]].label);
		/* a strategy whose runs all failed is still in the selection: it
		 * stays the reference, and its failures read as failures */
		add_unique(&d->strategies, p->strategy);
	}
	if (rc == 0 && sel->session && d->boards.n == 1 &&
	    store_each_decision(st, sel->session, take_decision, &l) < 0)
		rc = -1;
	for (size_t i = 0; i < l.n_builds; i++) {
		free(l.builds[i].board);
		free(l.builds[i].strategy);
		free(l.builds[i].build_key);
		free(l.builds[i].label);
	}
	free(l.builds);
	free(l.index.slot);
	free(l.cap);
	free(l.build_of);
	free(l.problem_build);
	if (dataset_set_reference(d, "baseline", "baseline, the default") < 0 && d->strategies.n)
		d->reference_why = "the first strategy run: the selection has no baseline";
	return rc;
}

int dataset_set_reference(struct dataset *d, const char *name, const char *why)
{
	for (size_t i = 0; i < d->strategies.n; i++)
		if (!strcmp(d->strategies.v[i], name)) {
			char *ref = d->strategies.v[i];
			memmove(&d->strategies.v[1], &d->strategies.v[0], i * sizeof(char *));
			d->strategies.v[0] = ref;
			d->reference_why = why;
			return 0;
		}
	return -1;
}

const struct decided *dataset_decided(const struct dataset *d, const char *strategy,
				      const char *reference, const char *workload,
				      const char *metric)
{
	for (size_t i = 0; i < d->n_decided; i++) {
		const struct decided *x = &d->decided[i];
		if (!strcmp(x->strategy, strategy) && !strcmp(x->reference, reference) &&
		    !strcmp(x->workload, workload) && !strcmp(x->metric, metric))
			return x;
	}
	return NULL;
}

const struct series *dataset_find(const struct dataset *d, const char *workload,
				  const char *board, const char *strategy, const char *metric)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].workload, workload) &&
		    (!strategy || !strcmp(d->s[i].strategy, strategy)) &&
		    !strcmp(d->s[i].metric, metric) && (!board || !strcmp(d->s[i].board, board)))
			return &d->s[i];
	return NULL;
}

char *problem_line(const struct problem *p)
{
	return xasprintf("%s %s/%s/%s rep %d: %s: %s%s%s%s", p->id, p->board, p->strategy,
			 p->workload, p->repetition, p->cls, p->reason, p->log ? " (log: " : "",
			 p->log ? p->log : "", p->log ? ")" : "");
}

void dataset_free(struct dataset *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->s[i].workload);
		free(d->s[i].board);
		free(d->s[i].strategy);
		free(d->s[i].metric);
		free(d->s[i].unit);
		free(d->s[i].first_run);
		free(d->s[i].v);
	}
	free(d->s);
	for (size_t i = 0; i < d->n_problems; i++) {
		struct problem *p = &d->problems[i];
		free(p->id);
		free(p->board);
		free(p->strategy);
		free(p->workload);
		free(p->cls);
		free(p->reason);
		free(p->log);
	}
	free(d->problems);
	for (size_t i = 0; i < d->n_decided; i++) {
		struct decided *x = &d->decided[i];
		free(x->strategy);
		free(x->reference);
		free(x->workload);
		free(x->metric);
		free(x->outcome);
		free(x->why);
	}
	free(d->decided);
	strlist_free(&d->workloads);
	strlist_free(&d->boards);
	strlist_free(&d->strategies);
	strlist_free(&d->sessions);
	memset(d, 0, sizeof(*d));
}
