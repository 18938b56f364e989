#include "store/runfile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* The text columns of a run, by their store names. */
static const struct {
	const char *key;
	size_t off;
	int required;
} text_fields[] = {
#define F(f, req) { #f, offsetof(struct run_record, f), req }
	F(session, 1), F(plan, 0), F(board, 1), F(strategy, 1), F(workload, 1),
	F(boot_id, 0), F(reason, 0), F(timing, 1), F(started, 1), F(ended, 1),
	F(kernel_version, 0), F(kernel_release, 0), F(build_key, 0), F(config_sha256, 0),
	F(build_manifest, 0), F(patches, 0), F(initramfs_sha256, 0), F(emulator, 0),
	F(hilbench_commit, 0), F(host, 0), F(artifacts, 0), F(settings, 0),
	F(workload_sha256, 0), F(resumed_from, 0),
#undef F
};

static const char **text_field(struct run_record *r, size_t i)
{
	return (const char **)((char *)r + text_fields[i].off);
}

int runfile_write(const char *dir, const struct run_record *r)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "id", r->id);
	for (size_t i = 0; i < HB_ARRAY_SIZE(text_fields); i++) {
		const char *v = *text_field((struct run_record *)r, i);
		if (v)
			cJSON_AddStringToObject(j, text_fields[i].key, v);
	}
	cJSON_AddNumberToObject(j, "repetition", r->repetition);
	cJSON_AddNumberToObject(j, "attempt", r->attempt > 0 ? r->attempt : 1);
	cJSON_AddStringToObject(j, "class", run_class_name(r->cls));
	cJSON *ms = cJSON_AddArrayToObject(j, "metrics");
	for (size_t i = 0; i < r->n_metrics; i++) {
		cJSON *m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "name", r->metrics[i].name);
		cJSON_AddNumberToObject(m, "value", r->metrics[i].value);
		cJSON_AddStringToObject(m, "unit", r->metrics[i].unit);
		cJSON_AddStringToObject(m, "source", r->metrics[i].source);
		cJSON_AddItemToArray(ms, m);
	}
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	char *path = path_join(dir, RUNFILE_NAME);
	int rc = write_file_atomic(path, text, strlen(text));
	if (rc < 0)
		hb_err("cannot write %s: %s", path, strerror(errno));
	free(text);
	free(path);
	return rc;
}

/* A run read back: the record's strings point into json. */
struct runfile {
	cJSON *json;
	struct run_record r;
	struct metric *metrics;
};

static const char *jstr(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int jint(const cJSON *j, const char *key, int *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e6)
		return -1;
	*out = (int)v->valuedouble;
	return 0;
}

/* The run of runs/<dir_id>/RUNFILE_NAME; -1 with what is wrong in err. */
static int runfile_read(const char *path, const char *dir_id, struct runfile *f, char *err,
			size_t errlen)
{
	memset(f, 0, sizeof(*f));
	char *text = read_file(path, NULL);
	if (!text) {
		snprintf(err, errlen, "cannot read it: %s", strerror(errno));
		return -1;
	}
	f->json = cJSON_Parse(text);
	free(text);
	const char *id = jstr(f->json, "id"), *cls = jstr(f->json, "class");
	if (!f->json) {
		snprintf(err, errlen, "it is not JSON (cut short?)");
		return -1;
	}
	if (!id || strcmp(id, dir_id)) {
		snprintf(err, errlen, "it is not the record of run %s", dir_id);
		return -1;
	}
	snprintf(f->r.id, sizeof(f->r.id), "%s", id);
	for (size_t i = 0; i < HB_ARRAY_SIZE(text_fields); i++) {
		*text_field(&f->r, i) = jstr(f->json, text_fields[i].key);
		if (text_fields[i].required && !*text_field(&f->r, i)) {
			snprintf(err, errlen, "it has no '%s'", text_fields[i].key);
			return -1;
		}
	}
	if (!cls || run_class_parse(cls, &f->r.cls) < 0 ||
	    jint(f->json, "repetition", &f->r.repetition) < 0 ||
	    jint(f->json, "attempt", &f->r.attempt) < 0) {
		snprintf(err, errlen, "its class, repetition or attempt is missing or wrong");
		return -1;
	}
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(f->json, "metrics");
	int n = cJSON_GetArraySize(ms);
	f->metrics = xcalloc((size_t)n + 1, sizeof(*f->metrics));
	for (int i = 0; i < n; i++) {
		const cJSON *m = cJSON_GetArrayItem(ms, i);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "value");
		struct metric *x = &f->metrics[i];
		x->name = jstr(m, "name");
		x->unit = jstr(m, "unit");
		x->source = jstr(m, "source");
		if (!x->name || !x->unit || !x->source || !cJSON_IsNumber(v)) {
			snprintf(err, errlen, "its metric %d is incomplete", i + 1);
			return -1;
		}
		x->value = v->valuedouble;
	}
	f->r.metrics = f->metrics;
	f->r.n_metrics = (size_t)n;
	return 0;
}

static void runfile_free(struct runfile *f)
{
	cJSON_Delete(f->json);
	free(f->metrics);
}

int runfile_import_all(struct store *s)
{
	char *runs = path_join(store_dir(s), "runs");
	struct strlist ids = { 0 };
	list_dir(runs, &ids);	/* hidden names (unfinished .tmp-*) are not listed */
	int imported = 0;
	for (size_t i = 0; i < ids.n && imported >= 0; i++) {
		char *dir = path_join(runs, ids.v[i]);
		char *path = path_join(dir, RUNFILE_NAME);
		struct runfile f = { 0 };
		char err[512];
		if (!path_exists(path)) {
			/* stored, or never finished */
		} else if (runfile_read(path, ids.v[i], &f, err, sizeof(err)) < 0) {
			hb_err("%s: %s; not imported, so --resume measures the run again "
			       "(remove the file to silence this)", path, err);
		} else {
			int rc = store_import_run(s, &f.r);
			if (rc > 0) {
				hb_info("run %s (%s, session %s): imported from %s; it finished "
					"when the store could not take it", f.r.id,
					run_class_name(f.r.cls), f.r.session, path);
				imported++;
			}
			if (rc >= 0 && unlink(path) < 0)
				hb_err("cannot remove %s: %s", path, strerror(errno));
			if (rc < 0) {
				hb_err("%s stays for the next --resume", path);
				imported = -1;
			}
		}
		runfile_free(&f);
		free(path);
		free(dir);
	}
	strlist_free(&ids);
	free(runs);
	return imported;
}
