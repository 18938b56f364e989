#include "analyze/section.h"

#include "util/quote.h"

void section_text(FILE *out, const char *s, enum section_format f)
{
	if (f == SECTION_HTML)
		html_escape(out, s);
	else if (f == SECTION_MD)
		md_escape(out, s);
	else
		fputs(s, out);
}
