#include "measure/nightly.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/util.h"

int nightly_lock(struct store *s, int *busy)
{
	*busy = 0;
	char *path = path_join(store_dir(s), "nightly.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		hb_err("cannot open %s: %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			*busy = 1;
		else
			hb_err("cannot lock %s: %s", path, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

void nightly_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

void nightly_key(const char *plan_path, const char *revision, char key[65])
{
	char plan_sha[65] = "unreadable";
	sha256_file_hex(plan_path, plan_sha);
	char *text = xasprintf("hilbench-nightly 1\nplan %s\nrevision %s\n", plan_sha, revision);
	sha256_hex(text, strlen(text), key);
	free(text);
}

static char *record_path(struct store *s, const char *key)
{
	char *name = xasprintf("nightly/%s.json", key);
	char *path = path_join(store_dir(s), name);
	free(name);
	return path;
}

static int count_row(const struct run_row *r, void *ctx)
{
	(void)r;
	++*(size_t *)ctx;
	return 1;	/* one is enough */
}

int nightly_find(struct store *s, const char *key, char *session, size_t len)
{
	char *path = record_path(s, key);
	char *text = read_file(path, NULL);
	int found = 0;
	if (text) {
		cJSON *j = cJSON_Parse(text);
		const cJSON *sess = cJSON_GetObjectItemCaseSensitive(j, "session");
		if (cJSON_IsString(sess)) {
			size_t rows = 0;
			struct selection sel = { .session = sess->valuestring, .all_classes = 1 };
			if (store_foreach(s, &sel, count_row, &rows) < 0)
				found = -1;
			else if (rows) {
				snprintf(session, len, "%s", sess->valuestring);
				found = 1;
			}
		} else {
			hb_info("%s is not a nightly record (no session); running again", path);
		}
		cJSON_Delete(j);
	}
	free(text);
	free(path);
	return found;
}

int nightly_record(struct store *s, const char *key, const char *plan, const char *revision,
		   const char *session)
{
	char *dir = path_join(store_dir(s), "nightly");
	char *path = record_path(s, key);
	char now[32];
	utc_now(now);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "key", key);
	cJSON_AddStringToObject(j, "plan", plan);
	cJSON_AddStringToObject(j, "revision", revision);
	cJSON_AddStringToObject(j, "session", session);
	cJSON_AddStringToObject(j, "finished", now);
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	int rc = mkdir_p(dir, 0755) == 0 && write_file_atomic(path, text, strlen(text)) == 0 ? 0 : -1;
	if (rc < 0)
		hb_err("cannot write %s: %s", path, strerror(errno));
	free(text);
	free(path);
	free(dir);
	return rc;
}
