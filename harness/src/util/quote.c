#include "util/quote.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (1-4) with its code point, or 0
 * for a byte that starts none: overlong forms, surrogates and values past
 * U+10FFFF are invalid, so every accepted sequence is one YAML character. */
static int utf8_next(const unsigned char *s, unsigned *cp)
{
	unsigned min;
	int n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, min = 0x80, *cp = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3, min = 0x800, *cp = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, min = 0x10000, *cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3fu);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

void yaml_quote(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		unsigned cp;
		int n = utf8_next(p, &cp);
		if (!n) {
			fprintf(out, "\\x%02x", *p++);
			continue;
		}
		switch (cp) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\t': fputs("\\t", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		/* Line and paragraph separators would be folded like newlines;
		 * the byte order mark and U+FFFE/U+FFFF are not printable. */
		case 0x2028: case 0x2029: case 0xfeff: case 0xfffe: case 0xffff:
			fprintf(out, "\\u%04x", cp);
			break;
		default:
			/* C0, DEL and C1 controls (NEL is a line break to YAML) */
			if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
				fprintf(out, "\\x%02x", cp);
			else
				fwrite(p, 1, (size_t)n, out);
		}
		p += n;
	}
	fputc('"', out);
}

/* Whether a literal block scalar reads back as exactly s (see the header). */
static int literal_ok(const char *s)
{
	size_t len = strlen(s);

	/* A leading blank would be taken as extra indentation. */
	if (!len || s[0] == ' ' || s[0] == '\t' || s[0] == '\n')
		return 0;
	if (len >= 2 && s[len - 1] == '\n' && s[len - 2] == '\n')
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c != '\n' && c != '\t' && (c < 0x20 || c > 0x7e))
			return 0;
		/* trailing blanks: invisible, and easily lost on the way */
		if ((c == ' ' || c == '\t') && (i + 1 == len || s[i + 1] == '\n'))
			return 0;
	}
	return 1;
}

void yaml_text(FILE *out, const char *s, int indent)
{
	if (indent < 1 || !literal_ok(s)) {
		yaml_quote(out, s);
		fputc('\n', out);
		return;
	}
	size_t len = strlen(s);
	fputs(s[len - 1] == '\n' ? "|\n" : "|-\n", out);
	for (const char *line = s; *line;) {
		size_t n = strcspn(line, "\n");
		if (n)
			fprintf(out, "%*s%.*s", indent, "", (int)n, line);
		fputc('\n', out);
		line += n + (line[n] == '\n');
	}
}

void sh_quote(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

/* The entity for one of the five markup characters, else NULL. */
static const char *entity(unsigned c, const char *apos)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return apos;
	default: return NULL;
	}
}

/* XML 1.0's Char production. */
static int xml_char(unsigned cp)
{
	return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
	       (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

void xml_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (p && *p) {
		unsigned cp;
		int n = utf8_next(p, &cp);
		const char *e = n ? entity(cp, "&apos;") : NULL;
		if (e)
			fputs(e, out);
		else if (!n || !xml_char(cp))
			fputs("\xef\xbf\xbd", out);	/* U+FFFD: one per bad byte or character */
		else if (cp == '\t' || cp == '\n' || cp == '\r')
			/* references: a parser keeps them as they are in attribute
			 * values too, and a literal CR would become a newline */
			fprintf(out, "&#%u;", cp);
		else
			fwrite(p, 1, (size_t)n, out);
		p += n ? n : 1;
	}
}

void html_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		const char *e = entity((unsigned char)*s, "&#39;");
		if (e)
			fputs(e, out);
		else
			fputc(*s, out);
	}
}

void md_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '<' || *s == '*' || *s == '_' || *s == '`')
			fputc('\\', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
}
