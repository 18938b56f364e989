/*
 * section: the formats a report's sections are written in by the writers
 * that serve several of them (cycles.h, decisions.h): the text and
 * Markdown reports and the HTML page. Each writer escapes what it writes
 * for the format (util/quote.h).
 */
#ifndef HB_SECTION_H
#define HB_SECTION_H

#include <stdio.h>

enum section_format { SECTION_TEXT, SECTION_MD, SECTION_HTML };

/* s as text in format f: as it is, md_escape()d or html_escape()d. */
void section_text(FILE *out, const char *s, enum section_format f);

#endif
