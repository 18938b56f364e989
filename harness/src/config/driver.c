#include "config/driver.h"

#include <stdlib.h>
#include <string.h>

#include "agent_proto.h"

#define D(f) offsetof(struct driver, f)
#define S(f) offsetof(struct driver_stat, f)

static const char *const per_names[] = { "tx", "rx", NULL };

static const struct yfield stat_fields[] = {
	{ .key = "stat", .type = YF_STRING, .required = 1, .off = S(stat) },
	{ .key = "metric", .type = YF_STRING, .required = 1, .off = S(metric) },
	{ .key = "per", .type = YF_ENUM, .required = 1, .off = S(per), .choices = per_names },
	{ .key = "counts", .type = YF_STRING, .required = 1, .off = S(counts) },
	{ 0 }
};

static const struct yfield driver_fields[] = {
	{ .key = "name", .type = YF_STRING, .required = 1, .off = D(name), .is_name = 1 },
	{ .key = "description", .type = YF_STRING, .required = 1, .off = D(description) },
	{ .key = "tx_timer", .type = YF_STRING, .required = 1, .off = D(tx_timer) },
	{ .key = "tx_napi_poll", .type = YF_STRING, .required = 1, .off = D(tx_napi_poll) },
	{ .key = "xmit", .type = YF_STRING, .required = 1, .off = D(xmit) },
	{ .key = "rx_napi_poll", .type = YF_STRING, .off = D(rx_napi_poll) },
	{ .key = "source", .type = YF_STRING, .off = D(source) },
	{ .key = "profile", .type = YF_STRLIST, .required = 1, .off = D(profile), .min = 1 },
	{ .key = "inclusive", .type = YF_STRLIST, .off = D(inclusive) },
	{ .key = "calls", .type = YF_STRLIST, .off = D(calls) },
	{ .key = "stats", .type = YF_TABLE, .required = 1, .off = D(stats), .sub = stat_fields,
	  .elem_size = sizeof(struct driver_stat) },
	{ 0 }
};

/* The agent's rule for functions= (agent_proto.c), on one name or a list. */
static int check_functions(const struct ydoc *d, const struct ynode *at, const char *list,
			   const char *key, char *err, size_t errlen)
{
	char why[256];
	if (run_functions_check(list, why, sizeof(why)) == 0)
		return 0;
	return ydoc_err(d, at, err, errlen, "'%s' is no list the agent can profile (%s); give "
			"kernel function names as System.map spells them, at most %d",
			key, why, RUN_FUNCTIONS_MAX);
}

/* [a-z0-9_]: a metric name's part that is not a family's placeholder. */
static int is_metric_name(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

/* What the agent sends as HB DSTAT name= (printable, no space or '='),
 * within the host's 40 bytes of a name. */
static int is_stat_name(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 39)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == '=')
			return 0;
	return 1;
}

static int check_stats(const struct ydoc *d, const struct driver *dr, char *err, size_t errlen)
{
	const struct ynode *seq = ynode_get(d->root, "stats");
	const struct driver_stat *st = dr->stats.v;
	for (size_t i = 0; i < dr->stats.n; i++) {
		const struct ynode *item = seq->kid[i];
		if (!is_stat_name(st[i].stat))
			return ydoc_err(d, ynode_get(item, "stat"), err, errlen,
					"'stats[%zu].stat' '%s' is no ethtool -S name; give it as "
					"`ethtool -S` prints it, 1-39 characters without spaces or '='",
					i + 1, st[i].stat);
		if (!is_metric_name(st[i].metric))
			return ydoc_err(d, ynode_get(item, "metric"), err, errlen,
					"'stats[%zu].metric' '%s' is no metric name; use [a-z0-9_], a "
					"row of `hilbench list metrics`", i + 1, st[i].metric);
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(st[i].stat, st[j].stat))
				return ydoc_err(d, ynode_get(item, "stat"), err, errlen,
						"stat '%s' is listed twice (stats[%zu]); keep one",
						st[i].stat, j + 1);
			if (!strcmp(st[i].metric, st[j].metric))
				return ydoc_err(d, ynode_get(item, "metric"), err, errlen,
						"metric '%s' comes from two stats (stats[%zu]); "
						"give each its own", st[i].metric, j + 1);
		}
	}
	return 0;
}

/* A directory of the kernel tree, as its Makefiles name it: relative,
 * [A-Za-z0-9_./-] in parts that are neither empty nor "." or "..". */
static int is_tree_dir(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 200 || *s == '/' || s[n - 1] == '/' ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/") != n)
		return 0;
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, "/");
		if (!len || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += len;
		p += *p == '/';
	}
	return 1;
}

static int check(const struct ydoc *d, struct driver *dr, char *err, size_t errlen)
{
	if (ydoc_check_basename(d, dr->name, err, errlen))
		return -1;
	if (dr->source && !is_tree_dir(dr->source))
		return ydoc_err(d, ynode_get(d->root, "source"), err, errlen,
				"'source' '%s' is no directory of the kernel tree; give it as "
				"the kernel's Makefiles do, e.g. drivers/net/ethernet/stmicro/stmmac "
				"(relative, no '..')", dr->source);
	const struct { const char *key, *value; } fns[] = {
		{ "tx_timer", dr->tx_timer }, { "tx_napi_poll", dr->tx_napi_poll },
		{ "xmit", dr->xmit }, { "rx_napi_poll", dr->rx_napi_poll },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(fns); i++)
		if (fns[i].value && check_functions(d, ynode_get(d->root, fns[i].key), fns[i].value, fns[i].key,
				    err, errlen))
			return -1;
	const struct { const char *key; const struct strlist *l; } lists[] = {
		{ "profile", &dr->profile }, { "inclusive", &dr->inclusive }, { "calls", &dr->calls },
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(lists); i++) {
		if (!lists[i].l->n)
			continue;
		char *list = argv_join(lists[i].l, ",");
		int rc = check_functions(d, ynode_get(d->root, lists[i].key), list, lists[i].key,
					 err, errlen);
		free(list);
		if (rc)
			return rc;
	}
	return check_stats(d, dr, err, errlen);
}

int driver_load(const char *path, struct driver *dr, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(dr, 0, sizeof *dr);
	if (!d)
		return -1;
	int rc = ydoc_apply(d, driver_fields, dr, err, errlen);
	if (!rc)
		rc = check(d, dr, err, errlen);
	ydoc_free(d);
	if (rc) {
		driver_free(dr);
		return -1;
	}
	dr->path = xstrdup(path);
	return 0;
}

void driver_free(struct driver *dr)
{
	char **s[] = { &dr->path, &dr->name, &dr->description, &dr->tx_timer,
		       &dr->tx_napi_poll, &dr->xmit, &dr->rx_napi_poll, &dr->source };
	for (size_t i = 0; i < HB_ARRAY_SIZE(s); i++)
		free(*s[i]);
	strlist_free(&dr->profile);
	strlist_free(&dr->inclusive);
	strlist_free(&dr->calls);
	struct driver_stat *st = dr->stats.v;
	for (size_t i = 0; i < dr->stats.n; i++) {
		free(st[i].stat);
		free(st[i].metric);
		free(st[i].counts);
	}
	free(st);
	memset(dr, 0, sizeof *dr);
}
