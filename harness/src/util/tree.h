/*
 * tree: a copy of a directory tree (a user's kernel source, a cached build's
 * source and objects) that make sees as up to date as the original.
 *
 * Contract: copy_tree() fills directory `to` (made if missing) with every
 * top-level entry of `from` that list_dir() names, recursively, by cp -a:
 * symlinks stay symlinks, modes and timestamps are kept. Hidden top-level
 * entries (.git, the kernel's .gitignore, .mailmap, ...) are left out: they
 * play no part in a build. Returns 0, or -1 when something could not be
 * copied (cp says what on stderr); what was copied by then stays, for the
 * caller to remove.
 */
#ifndef HB_TREE_H
#define HB_TREE_H

/* How copy_tree() makes the files of the new tree. */
enum tree_copy_how {
	TREE_COPY,		/* files of their own (reflinks where the file system can) */
	TREE_HARD_LINK,		/* hard links: only for files replaced, never rewritten in
				 * place (patch(1) replaces what it changes) */
};

/* With TREE_HARD_LINK, the top-level entry named copy_anyway (NULL: none)
 * is copied all the same: a build's objects, which the compiler rewrites in
 * place and which would otherwise change the build they came from. */
int copy_tree(const char *from, const char *to, enum tree_copy_how how, const char *copy_anyway);

#endif
