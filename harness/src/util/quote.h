/*
 * quote: values written into YAML documents, shell command lines, XML and
 * HTML and Markdown that other programs parse (LAVA jobs, the scripts they run on a DUT,
 * JUnit files, reports).
 *
 * Contract: whatever the input bytes, the output parses back as exactly one
 * value: one YAML scalar, one shell word. Valid UTF-8 comes back unchanged;
 * a byte that is not part of valid UTF-8 comes back as the code point of the
 * same number (YAML text is Unicode, so it cannot carry raw bytes), or in
 * XML as U+FFFD. Nothing is ever dropped silently.
 */
#ifndef HB_QUOTE_H
#define HB_QUOTE_H

#include <stdio.h>

/* s as a YAML double-quoted scalar: always valid, any position, any key. */
void yaml_quote(FILE *out, const char *s);

/*
 * s as a YAML literal block scalar ("|" or "|-", lines indented by indent
 * spaces) where that reads back exactly: printable ASCII, tabs and
 * newlines, no trailing blanks, at most one final newline. Anything else is
 * written with yaml_quote(). The caller has already written "key: " or "- ";
 * either way the line is ended.
 */
void yaml_text(FILE *out, const char *s, int indent);

/* s as one POSIX shell word: single quotes, each ' written as '\''. */
void sh_quote(FILE *out, const char *s);

/* s as XML 1.0 text or attribute value, whatever the bytes: the five
 * entities; tab, newline and CR as character references (so that they read
 * back as they were, in attributes too); each byte that is not part of
 * valid UTF-8, and each character XML 1.0 cannot carry (C0 controls,
 * U+FFFE, U+FFFF), as U+FFFD. */
void xml_escape(FILE *out, const char *s);
/* s as HTML text or attribute value (double- or single-quoted): the five
 * characters as entities (' as &#39;), everything else as it is. */
void html_escape(FILE *out, const char *s);
/* s as the text of a Markdown table cell or line: | < * _ ` escaped with a
 * backslash, a newline as a space (a cell is one line). */
void md_escape(FILE *out, const char *s);

#endif
