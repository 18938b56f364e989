/*
 * yamldoc: a YAML file as a small tree, and a declarative schema to check
 * it against, so every config loader reports mistakes the same way.
 *
 * Contract: ydoc_load() returns a tree of plain scalars, sequences and
 * mappings, each with its 1-based line and column, or NULL with
 * "FILE:LINE:COL: what is wrong; what to do" in err. Anchors, aliases,
 * tags, multiple documents and duplicate keys are rejected: config files
 * stay plain data that reads the same to a human and to hilbench.
 */
#ifndef HB_YAMLDOC_H
#define HB_YAMLDOC_H

#include <stddef.h>

enum ynode_kind { YN_SCALAR, YN_SEQ, YN_MAP };

struct ynode {
	enum ynode_kind kind;
	int line, col;
	int plain;		/* scalar written without quotes: only those
				 * can be numbers or null */
	char *str;		/* YN_SCALAR */
	struct ynode **kid;	/* YN_SEQ: items; YN_MAP: key, value, ... */
	size_t nkid;
};

struct ydoc {
	char *path;
	struct ynode *root;
};

struct ydoc *ydoc_load(const char *path, char *err, size_t errlen);
void ydoc_free(struct ydoc *d);

/* The value under key in a mapping, or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);

/* Formats "FILE:LINE:COL: msg" at node `at` into err; returns -1. */
int ydoc_err(const struct ydoc *d, const struct ynode *at, char *err,
	     size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* True if s is a hilbench name: [a-z0-9][a-z0-9._-]* */
int ydoc_name_ok(const char *s);

/*
 * Schema: a table of keys, terminated by { 0 }. Offsets are into the struct
 * passed to ydoc_apply(), also for keys of nested mappings, so a loader can
 * keep a flat struct while the file groups keys by topic.
 */
enum yf_type {
	YF_STRING,	/* char *, xstrdup'ed */
	YF_ENUM,	/* int (an enum): index of the value in choices */
	YF_INT,		/* int, within [min, max] */
	YF_UINT64,	/* uint64_t */
	YF_STRLIST,	/* struct strlist of scalars, at least min items */
	YF_MAP,		/* nested mapping checked against sub */
	YF_DOUBLE,	/* double, within [fmin, fmax] */
	YF_TABLE,	/* struct ytable: a list of mappings, each checked
			 * against sub into an elem_size struct (offsets
			 * into that struct) */
};

struct ytable {
	void *v;
	size_t n;
};

struct yfield {
	const char *key;
	enum yf_type type;
	int required;
	size_t off;
	long long min, max;
	const char *const *choices;	/* NULL-terminated; optional for
					 * YF_STRING, required for YF_ENUM */
	const struct yfield *sub;	/* YF_MAP, YF_TABLE */
	size_t elem_size;		/* YF_TABLE */
	double fmin, fmax;		/* YF_DOUBLE */
	int is_name;			/* YF_STRING, YF_STRLIST: each value
					 * must pass ydoc_name_ok() */
};

/*
 * Checks the document's root mapping against fields and stores the values in
 * out. Reports the first problem in file order (unknown key, wrong type, out
 * of range, bad choice), then missing required keys. On failure out may hold
 * some values: the caller frees them as on success.
 */
int ydoc_apply(const struct ydoc *d, const struct yfield *fields, void *out,
	       char *err, size_t errlen);

/* The document's `name` must be its file's basename without ".yaml", so a
 * name on the command line always finds its file. */
int ydoc_check_basename(const struct ydoc *d, const char *name, char *err,
			size_t errlen);

#endif
