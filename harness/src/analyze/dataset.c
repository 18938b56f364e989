#include "analyze/dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

const struct metric_info shown_metrics[] = {
	{ "pps", true },
	{ "mbps", true },
	{ "hrtimer_starts_per_pkt", false },
	{ "timer_list_starts_per_pkt", false },
	{ "cpu_busy_pct", false },
};
const size_t n_shown_metrics = HB_ARRAY_SIZE(shown_metrics);

static void add_unique(struct strlist *l, const char *v)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], v))
			return;
	strlist_push(l, v);
}

struct loader {
	struct dataset *d;
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
		add_unique(&d->sessions, r->session ? r->session : "-");
	}
	if (!r->metric)
		return 0;	/* a pass run without the selected metrics */
	add_unique(&d->workloads, r->workload);
	add_unique(&d->strategies, r->strategy);
	struct series *s = (struct series *)dataset_find(d, r->workload, r->strategy, r->metric);
	if (!s) {
		d->s = xrealloc(d->s, (d->n + 1) * sizeof(*d->s));
		s = &d->s[d->n++];
		*s = (struct series){ xstrdup(r->workload), xstrdup(r->strategy),
				      xstrdup(r->metric), xstrdup(r->unit), NULL, 0 };
	}
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = r->value;
	return 0;
}

int dataset_load(struct store *st, const struct selection *sel, struct dataset *d)
{
	memset(d, 0, sizeof(*d));
	struct loader l = { .d = d };
	struct selection all = *sel;
	struct strlist shown = { 0 };
	all.all_classes = 1;
	if (!all.metrics) {
		for (size_t k = 0; k < n_shown_metrics; k++)
			strlist_push(&shown, shown_metrics[k].name);
		all.metrics = &shown;
	}
	int rc = store_foreach(st, &all, take_row, &l);
	strlist_free(&shown);
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
		free(d->s[i].v);
	}
	free(d->s);
	strlist_free(&d->workloads);
	strlist_free(&d->strategies);
	strlist_free(&d->problems);
	strlist_free(&d->sessions);
	memset(d, 0, sizeof(*d));
}
