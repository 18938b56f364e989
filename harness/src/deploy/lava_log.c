#include "deploy/lava_log.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

/* Where a scalar at depth 2 (inside "msg") goes, or NULL to drop it. */
static char *result_field(struct lava_log_entry *e, const char *key, size_t *len)
{
	static const struct {
		const char *key;
		size_t off, len;
	} fields[] = {
#define F(k, m) { k, offsetof(struct lava_log_entry, m), sizeof(((struct lava_log_entry *)0)->m) }
		F("definition", definition), F("case", test_case), F("result", result),
		F("measurement", measurement), F("units", units), F("error_msg", error_msg),
#undef F
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(key, fields[i].key)) {
			*len = fields[i].len;
			return (char *)e + fields[i].off;
		}
	return NULL;
}

static void copy(char *dst, size_t len, const yaml_event_t *ev)
{
	snprintf(dst, len, "%.*s", (int)ev->data.scalar.length, (const char *)ev->data.scalar.value);
}

/* Nesting this deep is not LAVA's log format. */
#define MAX_DEPTH 16

int lava_log_parse(const char *line, struct lava_log_entry *e)
{
	yaml_parser_t p;
	yaml_event_t ev;
	/* One frame per open collection: is it a mapping, and is its next
	 * scalar a key? keys[] holds the key of the value being read at
	 * depths 1 and 2, which is all the format needs. */
	int is_map[MAX_DEPTH], want_key[MAX_DEPTH];
	char keys[3][32] = { "", "", "" };
	int depth = 0, ok = 0, done = 0, docs = 0;

	memset(e, 0, sizeof(*e));
	if (!strncmp(line, "- ", 2))
		line += 2;
	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)line, strlen(line));
	while (!done && yaml_parser_parse(&p, &ev)) {
		int top = depth - 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			ok = docs == 1 && e->lvl[0];
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (depth == 0 && (docs++ || ev.type != YAML_MAPPING_START_EVENT)) {
				done = 1;	/* not one mapping */
				break;
			}
			if (depth == MAX_DEPTH) {
				done = 1;
				break;
			}
			is_map[depth] = ev.type == YAML_MAPPING_START_EVENT;
			want_key[depth] = 1;
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			/* the collection was a value: its parent's next scalar is a key */
			if (depth > 0 && is_map[depth - 1])
				want_key[depth - 1] = 1;
			break;
		case YAML_SCALAR_EVENT:
			if (depth == 0) {
				done = 1;	/* a bare scalar line */
			} else if (!is_map[top]) {
				/* a list item: no field of ours */
			} else if (want_key[top]) {
				if (depth <= 2)
					copy(keys[depth], sizeof(keys[0]), &ev);
				want_key[top] = 0;
			} else {
				want_key[top] = 1;
				if (depth == 1 && !strcmp(keys[1], "lvl")) {
					copy(e->lvl, sizeof(e->lvl), &ev);
				} else if (depth == 1 && !strcmp(keys[1], "msg")) {
					copy(e->msg, sizeof(e->msg), &ev);
				} else if (depth == 2 && !strcmp(keys[1], "msg")) {
					size_t len;
					char *dst = result_field(e, keys[2], &len);
					if (dst)
						snprintf(dst, len, "%.*s", (int)ev.data.scalar.length,
							 (const char *)ev.data.scalar.value);
				}
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return ok ? 0 : -1;
}
