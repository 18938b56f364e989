#include "measure/settings_apply.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "agent_proto.h"
#include "config/setting.h"

/* ethtool and sysfs answer at once; the agent's own limit is 10 s. */
#define SET_TIMEOUT_S 20

/* The agent's answer to one hbcmd set: 1 with the read-back value, 0 with
 * the refusal in msg, -1 without an answer. */
static int await_answer(struct dut *d, const char *id, FILE *trace, char *value, size_t vlen,
			char *msg, size_t msglen)
{
	char line[1024], got[RUN_ID_MAX];
	double deadline = monotonic_s() + SET_TIMEOUT_S;
	value[0] = '\0';
	for (;;) {
		double left = deadline - monotonic_s();
		if (left <= 0 || dut_read_line(d, line, sizeof(line), left) != 1)
			return -1;
		if (trace)
			fprintf(trace, "%s\n", line);
		if (!proto_get(line, "id", got, sizeof(got)) || strcmp(got, id))
			continue;
		if (!strncmp(line, "SETTING ", 8)) {
			proto_get(line, "value", value, vlen);
		} else if (!strncmp(line, "END ", 4)) {
			char st[16] = "";
			proto_get(line, "status", st, sizeof(st));
			if (!strcmp(st, "ok") && value[0])
				return 1;
			if (!proto_get(line, "msg", msg, msglen))
				snprintf(msg, msglen, "refused without a message");
			return 0;
		}
	}
}

static void add_entry(cJSON *arr, const char *name, const char *requested,
		      const char *read_back, const char *status, const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "requested", requested);
	if (read_back)
		cJSON_AddStringToObject(o, "read_back", read_back);
	cJSON_AddStringToObject(o, "status", status);
	if (msg)
		cJSON_AddStringToObject(o, "msg", msg);
	cJSON_AddItemToArray(arr, o);
}

enum run_class settings_apply(struct dut *d, const struct strlist *settings,
			      const char *run_id, FILE *trace, char **json, char *reason,
			      size_t reasonlen)
{
	cJSON *arr = cJSON_CreateArray();
	enum run_class cls = RUN_PASS;
	for (size_t i = 0; i < settings->n && cls == RUN_PASS; i++) {
		char name[128], id[RUN_ID_MAX], got[SET_TOKEN_MAX + 1], msg[400], why[1024];
		const char *value;
		struct setting_def def;
		snprintf(why, sizeof(why), "not name=value");
		if (setting_split(settings->v[i], name, sizeof(name), &value) < 0 ||
		    setting_find(name, &def, why, sizeof(why)) < 0) {
			snprintf(reason, reasonlen, "setting '%s': %s", settings->v[i], why);
			cls = RUN_ERROR;
			break;
		}
		snprintf(id, sizeof(id), "%.40s-s%u", run_id, (unsigned)(i + 1) % 1000);
		dut_send(d, "hbcmd set id=%s method=%s key=%s value=%s", id,
			 setting_method_name(def.method), def.key, value);
		int answer = await_answer(d, id, trace, got, sizeof(got), msg, sizeof(msg));
		if (answer < 0) {
			snprintf(reason, reasonlen, "%s=%s: the agent did not answer within %d s%s",
				 name, value, SET_TIMEOUT_S, d->health[0] ? " (the DUT died)" : "");
			add_entry(arr, name, value, NULL, "no-answer", NULL);
			cls = d->health[0] ? RUN_FAIL : RUN_ERROR;
		} else if (answer == 0) {
			snprintf(reason, reasonlen, "setting %s=%s refused by the DUT: %s", name,
				 value, msg);
			add_entry(arr, name, value, NULL, "refused", msg);
			cls = RUN_FAIL;
		} else if (!setting_same_value(&def, value, got)) {
			snprintf(reason, reasonlen, "setting %s=%s: the DUT accepted it but reads "
				 "back %s", name, value, got);
			add_entry(arr, name, value, got, "mismatch", NULL);
			cls = RUN_FAIL;
		} else {
			add_entry(arr, name, value, got, "ok", NULL);
		}
		setting_free(&def);
	}
	*json = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	return cls;
}
