#include "config/setting.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "config/yamldoc.h"

#define S(f) offsetof(struct setting_def, f)

/* Indexed by the enums: YF_ENUM stores the index. */
static const char *const methods[] = {
	[SM_ETHTOOL_COALESCE] = "ethtool-coalesce", [SM_SYSFS_NET] = "sysfs-net",
	[SM_IRQ_AFFINITY] = "irq-affinity", [SM_QDISC] = "qdisc", NULL
};
static const char *const read_backs[] = { [SR_INTEGER] = "integer", [SR_MASK] = "mask",
					  [SR_NAME] = "name", NULL };

_Static_assert(sizeof(enum setting_method) == sizeof(int), "YF_ENUM stores an int");
_Static_assert(sizeof(enum setting_read_back) == sizeof(int), "YF_ENUM stores an int");

static const struct yfield setting_fields[] = {
	{ .key = "name", .type = YF_STRING, .required = 1, .off = S(name), .is_name = 1 },
	{ .key = "description", .type = YF_STRING, .required = 1, .off = S(description) },
	{ .key = "method", .type = YF_ENUM, .required = 1, .off = S(method), .choices = methods },
	{ .key = "key", .type = YF_STRING, .required = 1, .off = S(key) },
	{ .key = "read_back", .type = YF_ENUM, .required = 1, .off = S(read_back),
	  .choices = read_backs },
	{ 0 }
};

/* The agent takes the key as a path below /sys/class/net/<if>/ or as an
 * ethtool argument: lower-case words, '_', '-', and '/' between them. */
static int key_ok(const char *k)
{
	if (!*k || *k == '/' || strstr(k, "..") || strstr(k, "//") || k[strlen(k) - 1] == '/')
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_' ||
		      *k == '-' || *k == '/'))
			return 0;
	return 1;
}

int setting_load(const char *path, struct setting_def *s, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(s, 0, sizeof *s);
	if (!d)
		return -1;
	int rc = ydoc_apply(d, setting_fields, s, err, errlen);
	if (!rc)
		rc = ydoc_check_basename(d, s->name, err, errlen);
	if (!rc && !key_ok(s->key))
		rc = ydoc_err(d, ynode_get(d->root, "key"), err, errlen,
			      "'key' %s is not a relative path of [a-z0-9_-] words; write e.g. "
			      "tx-usecs or queues/rx-0/rps_cpus", s->key);
	/* The agent replaces the root qdisc only: a class or an ingress qdisc
	 * would need a parent handle, which nothing asks for yet. */
	if (!rc && s->method == SM_QDISC && strcmp(s->key, "root") != 0)
		rc = ydoc_err(d, ynode_get(d->root, "key"), err, errlen,
			      "'key' %s: a qdisc setting replaces the root qdisc; write key: root",
			      s->key);
	/* A qdisc is a name, anything else a number; the other pairings have no
	 * comparison that means anything. */
	if (!rc && (s->method == SM_QDISC) != (s->read_back == SR_NAME))
		rc = ydoc_err(d, ynode_get(d->root, "read_back"), err, errlen,
			      "'read_back' %s does not fit method %s; a qdisc reads back a "
			      "name, the other methods an integer or a mask",
			      read_backs[s->read_back], methods[s->method]);
	ydoc_free(d);
	if (rc) {
		setting_free(s);
		return -1;
	}
	s->path = xstrdup(path);
	return 0;
}

void setting_free(struct setting_def *s)
{
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->key);
	memset(s, 0, sizeof *s);
}

int setting_find(const char *name, struct setting_def *s, char *err, size_t errlen)
{
	if (!ydoc_name_ok(name)) {
		snprintf(err, errlen, "'%s' is not a setting name", name);
		return -1;
	}
	char *path = catalog_path("setting", name);
	int rc;
	if (!path_exists(path)) {
		struct strlist known = { 0 };
		catalog_names("setting", &known);
		char *list = known.n ? argv_join(&known, ", ") : xstrdup("(none)");
		snprintf(err, errlen, "no setting '%s' (%s); known settings: %s", name, path, list);
		free(list);
		strlist_free(&known);
		rc = -1;
	} else {
		rc = setting_load(path, s, err, errlen);
	}
	free(path);
	return rc;
}

const char *setting_method_name(enum setting_method m)
{
	return methods[m];
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* A mask as the kernel prints it ("00000001", "ff,ffffffff"), commas gone. */
static int parse_mask(const char *s, uint64_t *out)
{
	char buf[SETTING_VALUE_MAX + 1];
	size_t n = 0;
	for (; *s; s++) {
		if (*s == ',')
			continue;
		if (n + 1 == sizeof(buf))
			return -1;
		buf[n++] = *s;
	}
	buf[n] = '\0';
	return n > 16 ? -1 : parse_u64(buf, 16, out);
}

/* A qdisc kind as the kernel names them (TCA_KIND: "fq_codel", "pfifo_fast").
 * Never '@' or '=', so a sweep label stays unambiguous. */
static int name_ok(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') || *v == '_'))
			return 0;
	return 1;
}

int setting_check_value(const struct setting_def *s, const char *value, char *err,
			size_t errlen)
{
	uint64_t v;
	if (strlen(value) > SETTING_VALUE_MAX) {
		snprintf(err, errlen, "value '%.20s...' of %s is longer than %d characters",
			 value, s->name, SETTING_VALUE_MAX);
		return -1;
	}
	if (s->read_back == SR_INTEGER && parse_u64(value, 10, &v) < 0) {
		snprintf(err, errlen, "%s wants a decimal integer, got '%s'", s->name, value);
		return -1;
	}
	if (s->read_back == SR_MASK && parse_mask(value, &v) < 0) {
		snprintf(err, errlen, "%s wants a hex CPU mask (e.g. 1 or 3), got '%s'", s->name,
			 value);
		return -1;
	}
	if (s->read_back == SR_NAME && !name_ok(value)) {
		snprintf(err, errlen, "%s wants a name of [a-z0-9_] (e.g. fq_codel), got '%s'",
			 s->name, value);
		return -1;
	}
	return 0;
}

int setting_same_value(const struct setting_def *s, const char *requested,
		       const char *read_back)
{
	uint64_t a, b;
	if (s->read_back == SR_INTEGER)
		return parse_u64(requested, 10, &a) == 0 && parse_u64(read_back, 10, &b) == 0 &&
		       a == b;
	if (s->read_back == SR_NAME)
		return strcmp(requested, read_back) == 0;
	return parse_mask(requested, &a) == 0 && parse_mask(read_back, &b) == 0 && a == b;
}

int setting_split(const char *entry, char *name, size_t namelen, const char **value)
{
	const char *eq = strchr(entry, '=');
	if (!eq || (size_t)(eq - entry) >= namelen)
		return -1;
	memcpy(name, entry, (size_t)(eq - entry));
	name[eq - entry] = '\0';
	*value = eq + 1;
	return 0;
}

void setting_put(struct strlist *list, const char *name, const char *value)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < list->n; i++) {
		if (!strncmp(list->v[i], name, n) && list->v[i][n] == '=') {
			free(list->v[i]);
			list->v[i] = xasprintf("%s=%s", name, value);
			return;
		}
	}
	strlist_pushf(list, "%s=%s", name, value);
}
