#include "analyze/dataset.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void add_unique(struct strlist *l, const char *v)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], v))
			return;
	strlist_push(l, v);
}

/* (workload, strategy, metric) -> index in d->s: a store of 100,000 runs
 * streams half a million rows through here. Open addressing, FNV-1a. */
struct series_index {
	size_t *slot;		/* index + 1; 0 = empty */
	size_t size;		/* a power of two, from 64 */
};

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;	/* a separator between fields */
}

static uint64_t series_hash(const char *workload, const char *strategy, const char *metric)
{
	return fnv1a(fnv1a(fnv1a(14695981039346656037ULL, workload), strategy), metric);
}

static size_t *index_slot(const struct series_index *ix, const struct dataset *d,
			  const char *workload, const char *strategy, const char *metric)
{
	size_t mask = ix->size - 1;
	for (size_t i = series_hash(workload, strategy, metric) & mask;; i = (i + 1) & mask) {
		size_t *slot = &ix->slot[i];
		if (!*slot)
			return slot;
		const struct series *s = &d->s[*slot - 1];
		if (!strcmp(s->metric, metric) && !strcmp(s->strategy, strategy) &&
		    !strcmp(s->workload, workload))
			return slot;
	}
}

/* Keeps the table at most half full. */
static void index_add(struct series_index *ix, const struct dataset *d, size_t idx)
{
	if (2 * (d->n + 1) > ix->size) {
		struct series_index bigger = { xcalloc(2 * ix->size, sizeof(size_t)), 2 * ix->size };
		for (size_t i = 0; i < ix->size; i++)
			if (ix->slot[i]) {
				const struct series *s = &d->s[ix->slot[i] - 1];
				*index_slot(&bigger, d, s->workload, s->strategy, s->metric) =
					ix->slot[i];
			}
		free(ix->slot);
		*ix = bigger;
	}
	const struct series *s = &d->s[idx];
	*index_slot(ix, d, s->workload, s->strategy, s->metric) = idx + 1;
}

struct loader {
	struct dataset *d;
	struct series_index index;
	size_t *cap;		/* allocated values of each series */
	char last[40];		/* the run of the previous row: count runs once */
};

static int take_row(const struct run_row *r, void *ctx)
{
	struct loader *l = ctx;
	struct dataset *d = l->d;
	if (strcmp(r->cls, "pass")) {
		strlist_pushf(&d->problems, "%s %s/%s/%s rep %d: %s: %s", r->id, r->board,
			      r->strategy, r->workload, r->repetition, r->cls,
			      r->reason ? r->reason : "");
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
	size_t *slot = index_slot(&l->index, d, r->workload, r->strategy, r->metric);
	if (!*slot) {
		add_unique(&d->workloads, r->workload);
		add_unique(&d->strategies, r->strategy);
		d->s = xrealloc(d->s, (d->n + 1) * sizeof(*d->s));
		l->cap = xrealloc(l->cap, (d->n + 1) * sizeof(*l->cap));
		l->cap[d->n] = 0;
		d->s[d->n] = (struct series){ xstrdup(r->workload), xstrdup(r->strategy),
					      xstrdup(r->metric), xstrdup(r->unit), xstrdup(r->id),
					      NULL, 0 };
		index_add(&l->index, d, d->n++);
		slot = index_slot(&l->index, d, r->workload, r->strategy, r->metric);
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

int dataset_load(struct store *st, const struct selection *sel, struct dataset *d)
{
	memset(d, 0, sizeof(*d));
	struct loader l = { .d = d, .index = { xcalloc(64, sizeof(size_t)), 64 } };
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
	free(l.index.slot);
	free(l.cap);
	dataset_set_reference(d, "baseline");
	return rc;
}

int dataset_set_reference(struct dataset *d, const char *name)
{
	for (size_t i = 0; i < d->strategies.n; i++)
		if (!strcmp(d->strategies.v[i], name)) {
			char *ref = d->strategies.v[i];
			memmove(&d->strategies.v[1], &d->strategies.v[0], i * sizeof(char *));
			d->strategies.v[0] = ref;
			return 0;
		}
	return -1;
}

const struct series *dataset_find(const struct dataset *d, const char *workload,
				  const char *strategy, const char *metric)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].workload, workload) && !strcmp(d->s[i].strategy, strategy) &&
		    !strcmp(d->s[i].metric, metric))
			return &d->s[i];
	return NULL;
}

void dataset_free(struct dataset *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->s[i].workload);
		free(d->s[i].strategy);
		free(d->s[i].metric);
		free(d->s[i].unit);
		free(d->s[i].first_run);
		free(d->s[i].v);
	}
	free(d->s);
	strlist_free(&d->workloads);
	strlist_free(&d->strategies);
	strlist_free(&d->problems);
	strlist_free(&d->sessions);
	memset(d, 0, sizeof(*d));
}
