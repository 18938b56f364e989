#include "analyze/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int sweep_label_parse(const char *label, char *strategy, size_t slen, char *setting,
		      size_t setlen, double *value)
{
	const char *at = strchr(label, '@');
	const char *eq = at ? strchr(at, '=') : NULL;
	if (!at || !eq || at == label || eq == at + 1 || !eq[1] || (size_t)(at - label) >= slen ||
	    (size_t)(eq - at - 1) >= setlen)
		return -1;
	char *end;
	double v = strtod(eq + 1, &end);
	if (*end || !isfinite(v) || !((eq[1] >= '0' && eq[1] <= '9')))
		return -1;
	memcpy(strategy, label, (size_t)(at - label));
	strategy[at - label] = '\0';
	memcpy(setting, at + 1, (size_t)(eq - at - 1));
	setting[eq - at - 1] = '\0';
	*value = v;
	return 0;
}

static struct sweep_plot *plot_for(struct sweep_set *ss, const struct series *s,
				   const struct metric_def *m, const char *setting)
{
	for (size_t i = 0; i < ss->n; i++) {
		struct sweep_plot *p = &ss->plots[i];
		if (!strcmp(p->workload, s->workload) && !strcmp(p->metric, s->metric) &&
		    !strcmp(p->setting, setting))
			return p;
	}
	ss->plots = xrealloc(ss->plots, (ss->n + 1) * sizeof(*ss->plots));
	struct sweep_plot *p = &ss->plots[ss->n++];
	*p = (struct sweep_plot){ .workload = s->workload, .metric = s->metric, .unit = s->unit,
				  .higher_is_better = m->better == BETTER_HIGHER,
				  .setting = xstrdup(setting) };
	return p;
}

static struct sweep_curve *curve_for(struct sweep_plot *p, const char *strategy)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->c[i].strategy, strategy))
			return &p->c[i];
	p->c = xrealloc(p->c, (p->n + 1) * sizeof(*p->c));
	struct sweep_curve *c = &p->c[p->n++];
	*c = (struct sweep_curve){ .strategy = xstrdup(strategy) };
	return c;
}

static int by_x(const void *a, const void *b)
{
	double x = ((const struct sweep_point *)a)->x, y = ((const struct sweep_point *)b)->x;
	return (x > y) - (x < y);
}

void sweep_collect(const struct dataset *d, struct sweep_set *ss)
{
	memset(ss, 0, sizeof(*ss));
	/* in the order reports show: workload, then metric */
	for (size_t w = 0; w < d->workloads.n; w++) {
		for (size_t m = 0; m < n_metric_defs; m++) {
			if (!metric_in_reports(&metric_defs[m]))
				continue;
			for (size_t i = 0; i < d->n; i++) {
				const struct series *s = &d->s[i];
				char strategy[128], setting[128];
				double x;
				if (strcmp(s->workload, d->workloads.v[w]) ||
				    strcmp(s->metric, metric_defs[m].name) || !s->n ||
				    sweep_label_parse(s->strategy, strategy, sizeof(strategy), setting,
						      sizeof(setting), &x) < 0)
					continue;
				struct sweep_plot *p = plot_for(ss, s, &metric_defs[m], setting);
				struct sweep_curve *c = curve_for(p, strategy);
				c->p = xrealloc(c->p, (c->n + 1) * sizeof(*c->p));
				struct sweep_point *pt = &c->p[c->n++];
				pt->x = x;
				pt->label = s->strategy;
				summarize(s->v, s->n, &pt->sum);
			}
		}
	}
	for (size_t i = 0; i < ss->n; i++) {
		struct sweep_plot *p = &ss->plots[i];
		for (size_t k = 0; k < p->n; k++) {
			struct sweep_curve *c = &p->c[k];
			qsort(c->p, c->n, sizeof(*c->p), by_x);
			for (size_t j = 1; j < c->n; j++) {
				double a = c->p[j].sum.mean, b = c->p[c->best].sum.mean;
				if (p->higher_is_better ? a > b : a < b)
					c->best = j;
			}
		}
	}
}

void sweep_set_free(struct sweep_set *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		struct sweep_plot *p = &ss->plots[i];
		for (size_t k = 0; k < p->n; k++) {
			free(p->c[k].strategy);
			free(p->c[k].p);
		}
		free(p->c);
		free(p->setting);
	}
	free(ss->plots);
	memset(ss, 0, sizeof(*ss));
}

/* Markdown tables break on '|'; labels are names, but a store is input. */
static void md_text(FILE *out, const char *s, int md)
{
	for (; *s; s++) {
		if (md && (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_'))
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void ci_text(FILE *out, const struct summary *s)
{
	if (s->n >= 2 && isfinite(s->ci95))
		fprintf(out, " ± %.4g", s->ci95);
	fprintf(out, " (n=%zu)", s->n);
}

void sweep_write_text(const struct sweep_set *ss, FILE *out, int md)
{
	if (!ss->n)
		return;
	fputs(md ? "\n## Sweeps: best setting per metric\n\n"
		 "| workload | metric | setting | strategy | best value | mean ± 95 % CI | points |\n"
		 "| --- | --- | --- | --- | --- | --- | --- |\n"
		 : "\nSweeps: best setting per metric (mean ± 95 % CI of the mean)\n", out);
	for (size_t i = 0; i < ss->n; i++) {
		const struct sweep_plot *p = &ss->plots[i];
		for (size_t k = 0; k < p->n; k++) {
			const struct sweep_curve *c = &p->c[k];
			const struct sweep_point *b = &c->p[c->best];
			const char *eq = strchr(b->label, '=');
			fputs(md ? "| " : "  ", out);
			md_text(out, p->workload, md);
			fputs(md ? " | " : " / ", out);
			md_text(out, p->metric, md);
			fputs(md ? " | " : p->higher_is_better ? " (higher is better) / " :
				  " (lower is better) / ", out);
			md_text(out, p->setting, md);
			fputs(md ? " | " : ": ", out);
			md_text(out, c->strategy, md);
			/* a tie everywhere has no best setting; say so */
			int flat = 1;
			for (size_t j = 1; j < c->n; j++)
				flat &= c->p[j].sum.mean == c->p[0].sum.mean;
			fputs(md ? " | " : flat ? " all points alike" : " best at ", out);
			if (flat)
				fputs(md ? "(all alike)" : "", out);
			else
				md_text(out, eq ? eq + 1 : b->label, md);
			fprintf(out, md ? " | %.6g" : ": %.6g", b->sum.mean);
			fputc(' ', out);
			md_text(out, p->unit ? p->unit : "", md);
			ci_text(out, &b->sum);
			fprintf(out, md ? " | %zu |\n" : ", of %zu points\n", c->n);
		}
	}
}

static void json_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

void sweep_add_json(const struct sweep_set *ss, cJSON *root)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "sweeps");
	for (size_t i = 0; i < ss->n; i++) {
		const struct sweep_plot *p = &ss->plots[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "workload", p->workload);
		cJSON_AddStringToObject(o, "metric", p->metric);
		cJSON_AddStringToObject(o, "unit", p->unit ? p->unit : "");
		cJSON_AddBoolToObject(o, "higher_is_better", p->higher_is_better);
		cJSON_AddStringToObject(o, "setting", p->setting);
		cJSON *curves = cJSON_AddArrayToObject(o, "curves");
		for (size_t k = 0; k < p->n; k++) {
			const struct sweep_curve *c = &p->c[k];
			cJSON *co = cJSON_CreateObject();
			cJSON_AddStringToObject(co, "strategy", c->strategy);
			cJSON *pts = cJSON_AddArrayToObject(co, "points");
			for (size_t j = 0; j < c->n; j++) {
				cJSON *po = cJSON_CreateObject();
				cJSON_AddStringToObject(po, "cell", c->p[j].label);
				json_num(po, "value", c->p[j].x);
				cJSON_AddNumberToObject(po, "n", (double)c->p[j].sum.n);
				json_num(po, "mean", c->p[j].sum.mean);
				json_num(po, "ci95", c->p[j].sum.ci95);
				cJSON_AddItemToArray(pts, po);
			}
			cJSON_AddStringToObject(co, "best", c->p[c->best].label);
			cJSON_AddItemToArray(curves, co);
		}
		cJSON_AddItemToArray(arr, o);
	}
}
