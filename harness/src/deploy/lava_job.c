#include "deploy/lava_job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_proto.h"
#include "util/quote.h"
#include "util/util.h"

/* LAVA downloads the three files, unpacks the initramfs, adds its test
 * overlay and packs it again; a lab fetching over HTTP takes longer than
 * lava-run reading local files (seconds, shared/notes/lava.md). */
#define DEPLOY_TIMEOUT_S 300
/* Beyond the workload's own seconds: mounts, up to 30 s waiting for carrier
 * (as the agent does when it is init), the agent's 30 s grace for iperf3,
 * and reporting each metric. */
#define TEST_OVERHEAD_S 120
/* Beyond the sum of the actions: LAVA's own work between them. */
#define JOB_MARGIN_S 60
#define JOB_NAME_MAX 200	/* what LAVA's job schema accepts */

/*
 * The kernel arguments travel in the job's context into a single-quoted
 * U-Boot `setenv bootargs '...'`, which LAVA's device templates write into
 * a double-quoted YAML string without escaping: quotes, backslashes, `$`,
 * `;` and braces (LAVA's {PLACEHOLDERS}) would break one or the other.
 */
static const char kernel_arg_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,._:=/+-@%";
/* What the agent accepts in a run id (it names files on the DUT). */
static const char run_id_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
/* What a setting's name, method, key and value and a profile's function
 * list may hold: the agent's tokens (agent_proto.h, hbcmd set). */
static const char setting_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,._-/";
/* Bytes a file URL can carry as they are: LAVA opens urlparse(url).path. */
static const char url_path_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-,=@~";

/* A string built with stdio; aborts on OOM like xmalloc(). */
static FILE *mem_open(char **s, size_t *n)
{
	FILE *f = open_memstream(s, n);
	if (!f)
		abort();
	return f;
}

char *lava_file_url(const char *path, char *err, size_t errlen)
{
	if (path[0] != '/') {
		hb_errbuf(err, errlen, "'%s' is not an absolute path; LAVA needs one", path);
		return NULL;
	}
	size_t ok = strspn(path, url_path_chars);
	if (path[ok]) {
		hb_errbuf(err, errlen,
			  "'%s' has a character LAVA cannot read in a file URL (byte %zu); "
			  "use a path of letters, digits and /._+-,=@~ (e.g. another "
			  "HILBENCH_CACHE) or give --kernel/--dtb/--ramdisk URLs",
			  path, ok + 1);
		return NULL;
	}
	return xasprintf("file://%s", path);
}

static void timeout(FILE *f, int indent, int seconds)
{
	fprintf(f, "%*stimeout:\n%*s  seconds: %d\n", indent, "", indent, "", seconds);
}

static void kv(FILE *f, int indent, const char *key, const char *value)
{
	fprintf(f, "%*s%s: ", indent, "", key);
	yaml_quote(f, value);
	fputc('\n', f);
}

static void artifact(FILE *f, const char *name, const struct lava_artifact *a)
{
	fprintf(f, "    %s:\n", name);
	kv(f, 6, "url", a->url);
	if (a->sha256)
		kv(f, 6, "sha256sum", a->sha256);
}

/* One line of the test's run.sh (LAVA runs it with `set -e`). */
static void step(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void step(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		abort();
	va_end(ap);
	fputs("          - ", f);
	yaml_text(f, text, 12);
	free(text);
}

/* The formatted string as one shell word, kept in words (which owns it). */
static const char *word(struct strlist *words, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *word(struct strlist *words, const char *fmt, ...)
{
	va_list ap;
	char *raw, *quoted;
	size_t len;

	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		abort();
	va_end(ap);
	FILE *t = mem_open(&quoted, &len);
	sh_quote(t, raw);
	fclose(t);
	strlist_push(words, quoted);
	free(quoted);
	free(raw);
	return words->v[words->n - 1];
}

/* A lab job's runtime settings: the agent, serving commands from a pipe,
 * sets up the link (HELLO, READY) and applies each setting (`hbcmd set`);
 * they stay applied when it exits at the pipe's end. Each answer is a
 * test case, and the first that failed ends the test before the run. */
static void setting_steps(FILE *f, const struct lava_job_spec *s, struct strlist *words,
			  const char *ifc)
{
	const char *id = s->run_id ? s->run_id : s->workload->name;
	char *cmds;
	size_t len;
	FILE *c = mem_open(&cmds, &len);

	for (size_t i = 0; i < s->n_settings; i++) {
		const struct lava_job_setting *set = &s->settings[i];
		fprintf(c, " %s", word(words, "hbcmd set id=%.40s-s%zu method=%s key=%s value=%s",
				      id, i + 1, set->method, set->key, set->value));
	}
	fclose(c);
	step(f, "ip addr flush dev %s", ifc);
	step(f, "printf '%%s\\n'%s | /sbin/hb-agent | tee /tmp/hb.set", cmds);
	free(cmds);
	for (size_t i = 0; i < s->n_settings; i++) {
		const struct lava_job_setting *set = &s->settings[i];
		const char *tc = word(words, "hb-setting-%s", set->name);
		const char *end = word(words, "HB END id=%.40s-s%zu status=ok", id, i + 1);
		const char *line = word(words, "^HB SETTING id=%.40s-s%zu ", id, i + 1);
		if (set->compare != LAVA_READ_BACK_AGENT)
			step(f, "v=$(grep %s /tmp/hb.set | sed -n 's/.* value=//p'); "
				"if grep -qxF %s /tmp/hb.set && [ \"$v\" %s %s ] 2>/dev/null; then "
				"lava-test-case %s --result pass; else lava-test-case %s --result fail; "
				"exit 1; fi", line, end,
			     set->compare == LAVA_READ_BACK_NUMBER ? "-eq" : "=",
			     word(words, "%s", set->value), tc, tc);
		else
			step(f, "if grep -qxF %s /tmp/hb.set; then lava-test-case %s --result pass; "
				"else lava-test-case %s --result fail; exit 1; fi", end, tc, tc);
	}
}

/* The test definition's steps. The initramfs's /init makes the agent the
 * console's only reader, and a LAVA test shell needs a shell there instead:
 * LAVA_SHELL_INIT boots BusyBox ash, so the steps set up what /init would
 * have (the mounts), run the agent once with its output on the console
 * (where hilbench reads the HB lines) and in a file, then report the run
 * and its metrics to LAVA. */
static void test_steps(FILE *f, const struct lava_job_spec *s)
{
	const struct board *b = s->board;
	const struct workload *w = s->workload;
	const char *proto = wl_proto_name(w->proto);
	const char *dir = w->dir == WL_DUT_TX ? "tx" : w->dir == WL_DUT_RX ? "rx" : "bidir";
	const char *id = s->run_id ? s->run_id : w->name;
	struct strlist words = { 0 };
	const char *ifc = word(&words, "%s", b->dut_interface);

	step(f, "for m in proc:/proc sysfs:/sys devtmpfs:/dev tracefs:/sys/kernel/tracing; do "
		"grep -q \" ${m#*:} \" /proc/mounts 2>/dev/null || mount -t ${m%%%%:*} ${m%%%%:*} "
		"${m#*:}; done");
	if (s->control_port) {
		/* The agent's own start-up (HELLO, link and address, READY, a
		 * quiet console), then the commands hilbench sends: one TCP
		 * connection, and the agent exits when it closes. The agent
		 * sets up the link itself: the address the kernel's ip= (from
		 * the device type) gave it goes first. */
		step(f, "ip addr flush dev %s", ifc);
		step(f, "nc -l -p %d | /sbin/hb-agent | tee /tmp/hb.out", s->control_port);
	} else {
		if (s->n_settings)
			setting_steps(f, s, &words, ifc);
		/* Kernel messages must not split the HB lines (the agent does
		 * the same when it runs as init). */
		step(f, "echo 1 > /proc/sys/kernel/printk");
		step(f, "ip link set %s up && { ip -4 addr show dev %s | grep -qF %s || "
			"ip addr add %s dev %s; }", ifc, ifc, word(&words, "inet %s ", b->dut_addr),
		     word(&words, "%s", b->dut_addr), ifc);
		step(f, "i=0; until [ \"$(cat /sys/class/net/%s/carrier 2>/dev/null)\" = 1 ] || "
			"[ $i -ge 30 ]; do sleep 1; i=$((i + 1)); done", ifc);
		step(f, "/sbin/hb-agent run proto=%s dir=%s len=%d rate=%llu time=%d omit=%d "
			"streams=%d port=%d profile=%s%s%s %s | tee /tmp/hb.out", proto, dir,
		     w->length, (unsigned long long)w->rate_bps, w->duration_s, w->omit_s,
		     w->streams, IPERF_PORT, wl_profile_name(w->profile),
		     s->functions ? " " : "",
		     s->functions ? word(&words, "functions=%s", s->functions) : "",
		     word(&words, "id=%s", id));
	}
	step(f, "if grep -qxF %s /tmp/hb.out; then r=pass; else r=fail; fi; "
		"lava-test-case hb-agent-run --result $r",
	     word(&words, "HB END id=%s status=ok", id));
	step(f, "sed -n 's/^HB B64 //p' /tmp/hb.out | base64 -d > /tmp/hb.json");
	step(f, "awk -v proto=%s -v dir=%s %s%s%s%s /tmp/hb.json /tmp/hb.out > /tmp/hb.metrics",
	     proto, dir, s->tx_timer ? "-v " : "",
	     s->tx_timer ? word(&words, "tx_timer=%s", s->tx_timer) : "", s->tx_timer ? " " : "",
	     word(&words, "%s", s->report_awk));
	step(f, "while read -r name value unit; do lava-test-case \"$name\" --result pass "
		"--measurement \"$value\" --units \"$unit\"; done < /tmp/hb.metrics");
	strlist_free(&words);
}

/* -1 with the reason in err when the spec cannot be written as a job. */
static int check_spec(const struct lava_job_spec *s, char *err, size_t errlen)
{
	const struct board *b = s->board;

	if (!b->lava.device_type)
		return hb_errbuf(err, errlen, "board %s has no lava: section; add one "
				 "(docs/lava.md)", b->name);
	size_t ok = strspn(s->kernel_args, kernel_arg_chars);
	if (s->kernel_args[ok])
		return hb_errbuf(err, errlen, "the kernel command line of board %s has '%c', "
				 "which U-Boot's setenv and LAVA's device templates cannot "
				 "carry; use letters, digits, spaces and ,._:=/+-@%%", b->name,
				 s->kernel_args[ok]);
	/* The agent takes the workload's name as its run id. */
	if (!s->run_id && strlen(s->workload->name) >= RUN_ID_MAX)
		return hb_errbuf(err, errlen, "workload name %s is longer than the agent's "
				 "%d-character run ids; shorten it", s->workload->name,
				 RUN_ID_MAX - 1);
	if (s->run_id && (!s->run_id[0] || strlen(s->run_id) >= RUN_ID_MAX ||
			  s->run_id[strspn(s->run_id, run_id_chars)]))
		return hb_errbuf(err, errlen, "run id '%s' is not 1 to %d letters, digits and "
				 "._- (what the agent accepts)", s->run_id, RUN_ID_MAX - 1);
	const struct lava_artifact *files[] = { &s->kernel, &s->dtb, &s->ramdisk };
	const char *names[] = { "kernel", "dtb", "ramdisk" };
	for (int i = 0; i < 3; i++) {
		const char *url = files[i]->url;
		int http = url && (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8));
		if (!url || (!http && strncmp(url, "file:///", 8)))
			return hb_errbuf(err, errlen, "the %s's URL '%s' is neither http(s):// "
					 "nor file:///", names[i], url ? url : "(none)");
		if (s->remote_worker && (!http || !files[i]->sha256))
			return hb_errbuf(err, errlen, "the %s is %s for a LAVA worker elsewhere, "
					 "which fetches only http(s):// URLs with their SHA-256; "
					 "publish it on an artifact host (lava.artifact_url, "
					 "docs/lava.md)", names[i],
					 http ? "without a SHA-256" : url);
	}
	if (s->control_port && s->n_settings)
		return hb_errbuf(err, errlen, "a job whose agent takes hilbench's commands gets "
				 "its settings from hilbench, not from the job");
	for (size_t i = 0; i < s->n_settings; i++) {
		const struct lava_job_setting *set = &s->settings[i];
		const char *v[] = { set->name, set->method, set->key, set->value };
		for (int k = 0; k < 4; k++)
			if (!v[k] || !v[k][0] || strlen(v[k]) >= SET_TOKEN_MAX ||
			    v[k][strspn(v[k], setting_chars)])
				return hb_errbuf(err, errlen, "setting %zu: '%s' is not 1 to %d of "
						 "the characters the agent takes (%s)", i + 1,
						 v[k] ? v[k] : "(none)", SET_TOKEN_MAX - 1,
						 setting_chars);
	}
	if (s->functions && (!s->functions[0] || s->functions[strspn(s->functions, setting_chars)]))
		return hb_errbuf(err, errlen, "profile functions '%s' are not names separated by "
				 "commas", s->functions);
	if (s->control_port < 0 || s->control_port > 65535 ||
	    s->control_port == IPERF_PORT)
		return hb_errbuf(err, errlen, "control port %d is not a TCP port other than "
				 "iperf3's %d", s->control_port, IPERF_PORT);
	return 0;
}

char *lava_job_render(const struct lava_job_spec *s, char *err, size_t errlen)
{
	const struct board *b = s->board;
	const struct workload *w = s->workload;

	if (check_spec(s, err, errlen) < 0)
		return NULL;
	char *name = s->job_name ? xstrdup(s->job_name)
				 : xasprintf("hilbench %s %s %s", b->name, s->strategy, w->name);
	if (!name[0] || strlen(name) > JOB_NAME_MAX) {
		free(name);
		hb_errbuf(err, errlen, "a LAVA job name must have 1 to %d characters",
			  JOB_NAME_MAX);
		return NULL;
	}
	int test_s = w->duration_s + w->omit_s + TEST_OVERHEAD_S;
	int job_s = DEPLOY_TIMEOUT_S + b->boot_timeout_s + test_s + JOB_MARGIN_S;
	char *testname = xasprintf("hilbench-%s", w->name);
	char *args = xasprintf("%s %s", s->kernel_args, LAVA_SHELL_INIT);
	char *text;
	size_t len;
	FILE *f = mem_open(&text, &len);

	fputs("# A hilbench cell as a LAVA job (docs/lava.md).\n", f);
	kv(f, 0, "job_name", name);
	kv(f, 0, "device_type", b->lava.device_type);
	fputs("visibility: public\n", f);
	fprintf(f, "timeouts:\n  job:\n    seconds: %d\n", job_s);
	fputs("metadata:\n", f);
	kv(f, 2, "hilbench.board", b->name);
	kv(f, 2, "hilbench.series", s->series);
	kv(f, 2, "hilbench.strategy", s->strategy);
	kv(f, 2, "hilbench.workload", w->name);
	if (s->kernel_key)
		kv(f, 2, "hilbench.kernel_key", s->kernel_key);
	fputs("context:\n", f);
	kv(f, 2, "extra_kernel_args", args);

	fputs("actions:\n- deploy:\n", f);
	kv(f, 4, "to", b->lava.deploy_to);
	/* "oe" runs LAVA's test shell with /bin/sh, which is BusyBox here
	 * (LAVA's "debian" would want bash). */
	fputs("    os: oe\n", f);
	timeout(f, 4, DEPLOY_TIMEOUT_S);
	artifact(f, "kernel", &s->kernel);
	kv(f, 6, "type", b->lava.kernel_type);
	artifact(f, "dtb", &s->dtb);
	artifact(f, "ramdisk", &s->ramdisk);
	fputs("      compression: gz\n", f);

	fputs("- boot:\n", f);
	kv(f, 4, "method", b->lava.boot_method);
	kv(f, 4, "commands", b->lava.boot_commands);
	fputs("    prompts:\n", f);
	for (size_t i = 0; i < b->lava.prompts.n; i++) {
		fputs("    - ", f);
		yaml_quote(f, b->lava.prompts.v[i]);
		fputc('\n', f);
	}
	timeout(f, 4, b->boot_timeout_s);

	fputs("- test:\n", f);
	timeout(f, 4, test_s);
	fputs("    definitions:\n    - from: inline\n", f);
	kv(f, 6, "name", testname);
	fprintf(f, "      path: inline/%s.yaml\n", testname);
	fputs("      repository:\n        metadata:\n"
	      "          format: Lava-Test Test Definition 1.0\n", f);
	kv(f, 10, "name", testname);
	kv(f, 10, "description", w->description);
	fputs("        run:\n          steps:\n", f);
	test_steps(f, s);
	fclose(f);
	free(args);
	free(testname);
	free(name);
	return text;
}
