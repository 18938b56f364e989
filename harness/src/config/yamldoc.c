#include "config/yamldoc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/util.h"

/* No config file nests this deep; the limit keeps the recursive loader from
 * exhausting the stack on a hostile "[[[[[...". */
#define MAX_DEPTH 32

static int verr_at(char *err, size_t errlen, const char *path, int line,
		   int col, const char *fmt, va_list ap)
{
	int n = snprintf(err, errlen, "%s:%d:%d: ", path, line, col);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	return -1;
}

int ydoc_err(const struct ydoc *d, const struct ynode *at, char *err,
	     size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(err, errlen, d->path, at->line, at->col, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- loading ---- */

struct loader {
	yaml_parser_t parser;
	const char *path;
	const char *text;
	size_t len;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 4, 5)))
static int lerr(struct loader *L, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr_at(L->err, L->errlen, L->path, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

static int syntax_err(struct loader *L)
{
	const yaml_parser_t *p = &L->parser;
	size_t line = p->problem_mark.line, col = p->problem_mark.column;

	/* Reader errors (bad UTF-8, control characters) carry only a byte
	 * offset; count it out so every message has a line and column. */
	if (p->error == YAML_READER_ERROR) {
		line = col = 0;
		for (size_t i = 0; i < p->problem_offset && i < L->len; i++) {
			if (L->text[i] == '\n')
				line++, col = 0;
			else
				col++;
		}
	}
	const char *problem = p->problem ? p->problem : "cannot parse";
	if (p->context)
		return lerr(L, (int)line + 1, (int)col + 1,
			    "%s (%s at line %zu); fix the YAML syntax", problem,
			    p->context, p->context_mark.line + 1);
	return lerr(L, (int)line + 1, (int)col + 1, "%s; fix the YAML syntax",
		    problem);
}

static int next(struct loader *L, yaml_event_t *ev)
{
	return yaml_parser_parse(&L->parser, ev) ? 0 : syntax_err(L);
}

static void node_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkid; i++)
		node_free(n->kid[i]);
	free(n->kid);
	free(n->str);
	free(n);
}

/* The key just added to map must be a scalar not seen before in it. */
static int check_key(struct loader *L, const struct ynode *map)
{
	const struct ynode *k = map->kid[map->nkid - 1];

	if (k->kind != YN_SCALAR)
		return lerr(L, k->line, k->col,
			    "a mapping key must be a plain string; write 'key: value'");
	for (size_t i = 0; i + 1 < map->nkid; i += 2)
		if (!strcmp(map->kid[i]->str, k->str))
			return lerr(L, k->line, k->col,
				    "duplicate key '%s' (first at line %d); remove one of them",
				    k->str, map->kid[i]->line);
	return 0;
}

/* Builds the node that ev starts, consuming events up to its end. Takes
 * ownership of ev. */
static struct ynode *parse_node(struct loader *L, yaml_event_t *ev, int depth)
{
	int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
	yaml_char_t *anchor, *tag;
	enum ynode_kind kind;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		kind = YN_SCALAR;
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		kind = YN_SEQ;
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		kind = YN_MAP;
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
		break;
	default: /* an alias: the only other event where a node starts */
		lerr(L, line, col, "alias '*%s' is not supported; write the value out in full",
		     (char *)ev->data.alias.anchor);
		yaml_event_delete(ev);
		return NULL;
	}
	/* Shared and explicitly typed values make a file read differently to
	 * a human than to hilbench: plain data only. */
	if (anchor || tag) {
		if (anchor)
			lerr(L, line, col, "anchor '&%s' is not supported; write the value out in full",
			     (char *)anchor);
		else
			lerr(L, line, col, "tag '%s' is not supported; remove it",
			     (char *)tag);
		yaml_event_delete(ev);
		return NULL;
	}

	struct ynode *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->line = line;
	n->col = col;
	if (kind == YN_SCALAR) {
		n->str = xstrdup((char *)ev->data.scalar.value);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	}
	yaml_event_delete(ev);
	if (kind == YN_SCALAR)
		return n;
	if (depth >= MAX_DEPTH) {
		lerr(L, line, col, "nested deeper than %d levels; flatten the file", MAX_DEPTH);
		goto fail;
	}
	for (;;) {
		yaml_event_t kev;
		if (next(L, &kev))
			goto fail;
		if (kev.type == YAML_SEQUENCE_END_EVENT ||
		    kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return n;
		}
		struct ynode *k = parse_node(L, &kev, depth + 1);
		if (!k)
			goto fail;
		n->kid = xrealloc(n->kid, (n->nkid + 1) * sizeof *n->kid);
		n->kid[n->nkid++] = k;
		/* Mapping children alternate key, value: odd count = a key. */
		if (kind == YN_MAP && n->nkid % 2 && check_key(L, n))
			goto fail;
	}
fail:
	node_free(n);
	return NULL;
}

/* Exactly one document: stream-start, document-start, root node,
 * document-end, stream-end. */
static struct ynode *load_root(struct loader *L)
{
	struct ynode *root = NULL;
	yaml_event_t ev;

	if (next(L, &ev))
		return NULL;
	yaml_event_delete(&ev);
	if (next(L, &ev))
		return NULL;
	if (ev.type == YAML_STREAM_END_EVENT) {
		lerr(L, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
		     "the file holds no YAML document; write its keys as 'key: value' lines");
		yaml_event_delete(&ev);
		return NULL;
	}
	yaml_event_delete(&ev);
	if (next(L, &ev) || !(root = parse_node(L, &ev, 0)) || next(L, &ev))
		goto fail;
	yaml_event_delete(&ev);
	if (next(L, &ev))
		goto fail;
	if (ev.type == YAML_DOCUMENT_START_EVENT) {
		lerr(L, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
		     "a second YAML document starts here; keep one document per file");
		yaml_event_delete(&ev);
		goto fail;
	}
	yaml_event_delete(&ev);
	return root;
fail:
	node_free(root);
	return NULL;
}

struct ydoc *ydoc_load(const char *path, char *err, size_t errlen)
{
	struct loader L = { .path = path, .err = err, .errlen = errlen };
	char *text = read_file(path, &L.len);

	if (!text) {
		snprintf(err, errlen, "%s: cannot read: %s; check the path",
			 path, strerror(errno));
		return NULL;
	}
	L.text = text;
	if (!yaml_parser_initialize(&L.parser))
		abort();	/* only fails on OOM, as xmalloc would */
	yaml_parser_set_input_string(&L.parser, (const unsigned char *)text, L.len);
	struct ynode *root = load_root(&L);
	yaml_parser_delete(&L.parser);
	free(text);
	if (!root)
		return NULL;
	struct ydoc *d = xmalloc(sizeof *d);
	d->path = xstrdup(path);
	d->root = root;
	return d;
}

void ydoc_free(struct ydoc *d)
{
	if (!d)
		return;
	node_free(d->root);
	free(d->path);
	free(d);
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	for (size_t i = 0; map->kind == YN_MAP && i + 1 < map->nkid; i += 2)
		if (!strcmp(map->kid[i]->str, key))
			return map->kid[i + 1];
	return NULL;
}

int ydoc_name_ok(const char *s)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char rest[] = "abcdefghijklmnopqrstuvwxyz0123456789._-";
	return s[0] && strchr(first, s[0]) && strspn(s, rest) == strlen(s);
}

int ydoc_check_basename(const struct ydoc *d, const char *name, char *err,
			size_t errlen)
{
	const char *base = strrchr(d->path, '/');
	base = base ? base + 1 : d->path;
	size_t n = strlen(name);

	if (!strncmp(base, name, n) && !strcmp(base + n, ".yaml"))
		return 0;
	return ydoc_err(d, ynode_get(d->root, "name"), err, errlen,
			"name '%s' does not match the file name '%s'; "
			"rename the file to '%s.yaml' or change the name",
			name, base, name);
}

/* ---- schema ---- */

struct apply {
	const struct ydoc *d;
	char *out;
	char *err;
	size_t errlen;
};

static const char *const want_name[] = {
	[YF_STRING] = "a string", [YF_ENUM] = "a string",
	[YF_INT] = "an integer", [YF_UINT64] = "an integer",
	[YF_STRLIST] = "a list of strings", [YF_MAP] = "a mapping",
	[YF_DOUBLE] = "a number", [YF_TABLE] = "a list of mappings",
};

/* YAML's plain spellings of null: "key:" with nothing after it is one. */
static int is_null(const struct ynode *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	for (size_t i = 0; n->plain && i < HB_ARRAY_SIZE(nulls); i++)
		if (!strcmp(n->str, nulls[i]))
			return 1;
	return 0;
}

static int wrong_type(struct apply *A, const struct ynode *v, const char *key,
		      enum yf_type t)
{
	if (v->kind == YN_SCALAR && is_null(v))
		return ydoc_err(A->d, v, A->err, A->errlen,
				"'%s' has no value; give it %s", key, want_name[t]);
	if (v->kind == YN_SCALAR)
		return ydoc_err(A->d, v, A->err, A->errlen,
				"'%s' must be %s, got '%s'", key, want_name[t], v->str);
	return ydoc_err(A->d, v, A->err, A->errlen, "'%s' must be %s, got a %s",
			key, want_name[t], v->kind == YN_SEQ ? "list" : "mapping");
}

static int choice(const char *const *choices, const char *s)
{
	for (int i = 0; choices[i]; i++)
		if (!strcmp(choices[i], s))
			return i;
	return -1;
}

/* A string-like value (YF_STRING, YF_ENUM or a list item): returns its
 * index in f->choices, 0 without choices, -1 after reporting an error. */
static int check_string(struct apply *A, const struct yfield *f,
			const struct ynode *v, const char *key)
{
	if (v->kind != YN_SCALAR || is_null(v))
		return wrong_type(A, v, key, f->type);
	if (f->is_name && !ydoc_name_ok(v->str))
		return ydoc_err(A->d, v, A->err, A->errlen,
				"'%s' has '%s', which is not a valid name; use lower-case "
				"letters, digits, '.', '_' and '-', starting with a letter or digit",
				key, v->str);
	if (!f->choices)
		return 0;
	int i = choice(f->choices, v->str);
	if (i >= 0)
		return i;
	char list[256] = "";
	for (size_t j = 0, n = 0; f->choices[j]; j++) {
		int w = snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : "",
				 f->choices[j]);
		if (w < 0 || (size_t)w >= sizeof list - n)
			break;
		n += (size_t)w;
	}
	return ydoc_err(A->d, v, A->err, A->errlen,
			"'%s' must be one of %s, got '%s'", key, list, v->str);
}

static int check_number(struct apply *A, const struct yfield *f,
			const struct ynode *v, const char *key, void *dst)
{
	if (v->kind != YN_SCALAR || is_null(v))
		return wrong_type(A, v, key, f->type);
	/* Quoted digits are a string in YAML; say so rather than guess. */
	const char *s = v->str;
	int digits = s[s[0] == '-'] >= '0' && s[s[0] == '-'] <= '9';
	if (!v->plain || !digits)
		return ydoc_err(A->d, v, A->err, A->errlen,
				"'%s' must be an integer%s, got '%s'", key,
				v->plain ? "" : " (without quotes)", s);
	char *end;
	errno = 0;
	if (f->type == YF_UINT64) {
		unsigned long long u = strtoull(s, &end, 10);
		if (*end)
			return wrong_type(A, v, key, f->type);
		if (errno || s[0] == '-')
			return ydoc_err(A->d, v, A->err, A->errlen,
					"'%s' must be between 0 and %" PRIu64 ", got %s",
					key, UINT64_MAX, s);
		*(uint64_t *)dst = u;
		return 0;
	}
	long long x = strtoll(s, &end, 10);
	if (*end)
		return wrong_type(A, v, key, f->type);
	if (errno || x < f->min || x > f->max)
		return ydoc_err(A->d, v, A->err, A->errlen,
				"'%s' must be between %lld and %lld, got %s",
				key, f->min, f->max, s);
	*(int *)dst = (int)x;
	return 0;
}

static int check_double(struct apply *A, const struct yfield *f, const struct ynode *v,
			const char *key, double *dst)
{
	if (v->kind != YN_SCALAR || is_null(v))
		return wrong_type(A, v, key, f->type);
	char *end;
	double x = strtod(v->str, &end);
	if (!v->plain || *end || end == v->str || !isfinite(x))
		return ydoc_err(A->d, v, A->err, A->errlen, "'%s' must be a number%s, got '%s'",
				key, v->plain ? "" : " (without quotes)", v->str);
	if (x < f->fmin || x > f->fmax)
		return ydoc_err(A->d, v, A->err, A->errlen,
				"'%s' must be between %g and %g, got %s", key, f->fmin, f->fmax,
				v->str);
	*dst = x;
	return 0;
}

static int apply_map(struct apply *A, const struct ynode *map,
		     const struct yfield *fields, const char *where,
		     const struct ynode *at);

/* Each item is applied into its own zeroed elem_size struct. */
static int apply_table(struct apply *A, const struct yfield *f, const struct ynode *v,
		       const char *key, struct ytable *t)
{
	if (v->kind != YN_SEQ)
		return wrong_type(A, v, key, f->type);
	char *outer = A->out;
	int rc = 0;
	t->v = xcalloc(v->nkid ? v->nkid : 1, f->elem_size);
	for (size_t i = 0; i < v->nkid && !rc; i++) {
		const struct ynode *item = v->kid[i];
		char *where = xasprintf("%s[%zu]", key, i + 1);
		if (item->kind != YN_MAP) {
			rc = ydoc_err(A->d, item, A->err, A->errlen,
				      "'%s' must be a mapping of 'key: value' lines", where);
		} else {
			A->out = (char *)t->v + i * f->elem_size;
			t->n = i + 1;	/* the caller frees what this item got */
			rc = apply_map(A, item, f->sub, where, item);
			A->out = outer;
		}
		free(where);
	}
	return rc;
}

static int apply_field(struct apply *A, const struct yfield *f,
		       const struct ynode *k, const struct ynode *v,
		       const char *key)
{
	void *dst = A->out + f->off;
	int i;

	switch (f->type) {
	case YF_MAP:
		if (v->kind != YN_MAP)
			return wrong_type(A, v, key, f->type);
		return apply_map(A, v, f->sub, key, k);
	case YF_STRLIST:
		if (v->kind != YN_SEQ)
			return wrong_type(A, v, key, f->type);
		if ((long long)v->nkid < f->min)
			return ydoc_err(A->d, v, A->err, A->errlen,
					"'%s' must list at least %lld item(s); add some",
					key, f->min);
		for (size_t j = 0; j < v->nkid; j++) {
			if (check_string(A, f, v->kid[j], key) < 0)
				return -1;
			strlist_push(dst, v->kid[j]->str);
		}
		return 0;
	case YF_INT:
	case YF_UINT64:
		return check_number(A, f, v, key, dst);
	case YF_DOUBLE:
		return check_double(A, f, v, key, dst);
	case YF_TABLE:
		return apply_table(A, f, v, key, dst);
	case YF_ENUM:
		if ((i = check_string(A, f, v, key)) < 0)
			return -1;
		*(int *)dst = i;
		return 0;
	case YF_STRING:
		if (check_string(A, f, v, key) < 0)
			return -1;
		*(char **)dst = xstrdup(v->str);
		return 0;
	}
	abort();	/* every yf_type is handled above */
}

/* where: dotted path of the mapping ("deploy.qemu"), NULL at the top;
 * at: where a missing key is reported (the mapping's own key). */
static int apply_map(struct apply *A, const struct ynode *map,
		     const struct yfield *fields, const char *where,
		     const struct ynode *at)
{
	const struct yfield *f;

	for (size_t i = 0; i + 1 < map->nkid; i += 2) {
		const struct ynode *k = map->kid[i];
		for (f = fields; f->key && strcmp(f->key, k->str); f++)
			;
		if (!f->key) {
			char list[512] = "";
			size_t n = 0;
			for (f = fields; f->key; f++) {
				int w = snprintf(list + n, sizeof list - n, "%s%s",
						 n ? ", " : "", f->key);
				if (w < 0 || (size_t)w >= sizeof list - n)
					break;
				n += (size_t)w;
			}
			return ydoc_err(A->d, k, A->err, A->errlen,
					"unknown key '%s' %s%s%s; expected one of: %s",
					k->str, where ? "in '" : "at the top level",
					where ? where : "", where ? "'" : "", list);
		}
		char *key = where ? xasprintf("%s.%s", where, f->key) : xstrdup(f->key);
		int rc = apply_field(A, f, k, map->kid[i + 1], key);
		free(key);
		if (rc)
			return -1;
	}
	for (f = fields; f->key; f++) {
		if (!f->required || ynode_get(map, f->key))
			continue;
		if (where)
			return ydoc_err(A->d, at, A->err, A->errlen,
					"'%s' is missing required key '%s'; add it",
					where, f->key);
		return ydoc_err(A->d, at, A->err, A->errlen,
				"the file is missing required key '%s'; add it", f->key);
	}
	return 0;
}

int ydoc_apply(const struct ydoc *d, const struct yfield *fields, void *out,
	       char *err, size_t errlen)
{
	struct apply A = { .d = d, .out = out, .err = err, .errlen = errlen };

	if (d->root->kind != YN_MAP)
		return ydoc_err(d, d->root, err, errlen,
				"the file must be a mapping of 'key: value' lines, not %s",
				d->root->kind == YN_SEQ ? "a list" : "a single value");
	return apply_map(&A, d->root, fields, NULL, d->root);
}
