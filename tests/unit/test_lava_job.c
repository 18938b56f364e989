/*
 * LAVA job rendering: the quoting helpers write what a YAML parser (libyaml,
 * through yamldoc) and a shell read back unchanged, and a rendered job puts
 * every hostile value back where it came from. tests/lava/validate.sh checks
 * the same jobs against LAVA's own schema.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_proto.h"
#include "config/board.h"
#include "config/workload.h"
#include "config/yamldoc.h"
#include "deploy/lava_job.h"
#include "util/quote.h"
#include "util/util.h"

static char *home_path(const char *rel)
{
	const char *home = getenv("HILBENCH_HOME");
	assert_non_null(home);
	return path_join(home, rel);
}

/* What yaml_quote() (indent 0) or yaml_text() (indent > 0) writes. */
static char *yaml_of(const char *s, int indent)
{
	char *out;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	if (indent)
		yaml_text(f, s, indent);
	else
		yaml_quote(f, s);
	fclose(f);
	return out;
}

/* A YAML document from text, through a file as yamldoc reads them. */
static struct ydoc *parse(const char *text)
{
	char path[] = "/tmp/hb-test-lava-XXXXXX";
	char err[512];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct ydoc *d = ydoc_load(path, err, sizeof(err));
	unlink(path);
	if (!d)
		print_error("%s\n", err);
	assert_non_null(d);
	return d;
}

/* The value of key "k" after "k: " + what yaml_of(s, indent) writes. */
static void assert_reads_back(const char *s, int indent, const char *want)
{
	char *value = yaml_of(s, indent);
	char *doc = xasprintf("k: %s%s", value, indent ? "" : "\n");
	struct ydoc *d = parse(doc);
	const struct ynode *k = ynode_get(d->root, "k");
	assert_non_null(k);
	assert_int_equal(k->kind, YN_SCALAR);
	assert_string_equal(k->str, want);
	ydoc_free(d);
	free(doc);
	free(value);
}

/* ---- yaml_quote ---- */

static const struct {
	const char *in, *quoted, *back;	/* back: NULL = the input */
} quote_cases[] = {
	{ "plain", "\"plain\"", NULL },
	{ "", "\"\"", NULL },
	{ "a\"b\\c", "\"a\\\"b\\\\c\"", NULL },
	{ "tab\tnl\ncr\r", "\"tab\\tnl\\ncr\\r\"", NULL },
	{ "\x01\x1b\x7f", "\"\\x01\\x1b\\x7f\"", NULL },
	/* YAML's indicators mean nothing inside double quotes */
	{ "- [x]: {y} # &a *b !t %d @e `f' |>", "\"- [x]: {y} # &a *b !t %d @e `f' |>\"", NULL },
	/* valid UTF-8 passes as it is */
	{ "caf\xc3\xa9 \xf0\x9f\x93\xa6", "\"caf\xc3\xa9 \xf0\x9f\x93\xa6\"", NULL },
	/* line breaks and non-printables to YAML, though valid UTF-8 */
	{ "nel\xc2\x85", "\"nel\\x85\"", NULL },
	{ "c1\xc2\x9f", "\"c1\\x9f\"", NULL },
	{ "ls\xe2\x80\xa8ps\xe2\x80\xa9", "\"ls\\u2028ps\\u2029\"", NULL },
	{ "bom\xef\xbb\xbf", "\"bom\\ufeff\"", NULL },
	/* bytes that are not UTF-8 come back as the code point of their value */
	{ "bad\xff", "\"bad\\xff\"", "bad\xc3\xbf" },
	{ "overlong\xc0\xaf", "\"overlong\\xc0\\xaf\"", "overlong\xc3\x80\xc2\xaf" },
	{ "surrogate\xed\xa0\x80", "\"surrogate\\xed\\xa0\\x80\"",
	  "surrogate\xc3\xad\xc2\xa0\xc2\x80" },
	{ "cut\xe2\x82", "\"cut\\xe2\\x82\"", "cut\xc3\xa2\xc2\x82" },
	{ "big\xf4\x90\x80\x80", "\"big\\xf4\\x90\\x80\\x80\"",
	  "big\xc3\xb4\xc2\x90\xc2\x80\xc2\x80" },
};

static void test_yaml_quote(void **state)
{
	(void)state;
	for (size_t i = 0; i < HB_ARRAY_SIZE(quote_cases); i++) {
		char *got = yaml_of(quote_cases[i].in, 0);
		assert_string_equal(got, quote_cases[i].quoted);
		free(got);
		assert_reads_back(quote_cases[i].in, 0,
				  quote_cases[i].back ? quote_cases[i].back : quote_cases[i].in);
	}
}

/* ---- yaml_text ---- */

static const struct {
	const char *in, *out;
} text_cases[] = {
	{ "a\n\tb $'x' \"y\"\n", "|\n    a\n    \tb $'x' \"y\"\n" },
	{ "a\n\n# not a comment\nb", "|-\n    a\n\n    # not a comment\n    b\n" },
	{ "one line", "|-\n    one line\n" },
	/* no exact literal block: quoted instead */
	{ " leading blank", "\" leading blank\"\n" },
	{ "\tleading tab", "\"\\tleading tab\"\n" },
	{ "trailing blank \nx", "\"trailing blank \\nx\"\n" },
	{ "trailing tab\t", "\"trailing tab\\t\"\n" },
	{ "two newlines\n\n", "\"two newlines\\n\\n\"\n" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"\n" },
	{ "cr\r\n", "\"cr\\r\\n\"\n" },
	{ "", "\"\"\n" },
};

static void test_yaml_text(void **state)
{
	(void)state;
	for (size_t i = 0; i < HB_ARRAY_SIZE(text_cases); i++) {
		char *got = yaml_of(text_cases[i].in, 4);
		assert_string_equal(got, text_cases[i].out);
		free(got);
		assert_reads_back(text_cases[i].in, 4, text_cases[i].in);
	}
}

/* ---- sh_quote ---- */

static void test_sh_quote(void **state)
{
	static const char *const words[] = {
		"abc", "", "it's", "''", "$(reboot) `reboot` \"$HOME\" \\n; | & > *",
		"a\nb", "-n",
	};
	(void)state;
	char *got = NULL;
	size_t len;
	FILE *f = open_memstream(&got, &len);
	sh_quote(f, "it's");
	fclose(f);
	assert_string_equal(got, "'it'\\''s'");
	free(got);

	/* What a shell makes of each word: the word itself. */
	for (size_t i = 0; i < HB_ARRAY_SIZE(words); i++) {
		char *cmd;
		f = open_memstream(&cmd, &len);
		fputs("printf %s ", f);
		sh_quote(f, words[i]);
		fclose(f);
		FILE *p = popen(cmd, "r");
		assert_non_null(p);
		char out[256];
		size_t n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		assert_int_equal(pclose(p), 0);
		assert_string_equal(out, words[i]);
		free(cmd);
	}
}

/* ---- xml_escape, html_escape ---- */

static void test_markup_escape(void **state)
{
	(void)state;
	static const char text[] = "<a href=\"x\">it's & \x01\tok\n</a>";
	void (*const escape[])(FILE *, const char *) = { xml_escape, html_escape };
	static const char *const want[] = {
		"&lt;a href=&quot;x&quot;&gt;it&apos;s &amp; \xef\xbf\xbd&#9;ok&#10;&lt;/a&gt;",
		"&lt;a href=&quot;x&quot;&gt;it&#39;s &amp; \x01\tok\n&lt;/a&gt;",
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(escape); i++) {
		char *got = NULL;
		size_t len;
		FILE *f = open_memstream(&got, &len);
		escape[i](f, text);
		escape[i](f, NULL);	/* nothing */
		fclose(f);
		assert_string_equal(got, want[i]);
		free(got);
	}
}

/* ---- lava_file_url ---- */

static void test_file_url(void **state)
{
	char err[256];
	(void)state;
	char *url = lava_file_url("/var/cache/hb/kernels/ab12/zImage", err, sizeof(err));
	assert_string_equal(url, "file:///var/cache/hb/kernels/ab12/zImage");
	free(url);
	assert_null(lava_file_url("kernels/zImage", err, sizeof(err)));
	assert_non_null(strstr(err, "not an absolute path"));
	assert_null(lava_file_url("/my cache/zImage", err, sizeof(err)));
	assert_non_null(strstr(err, "(byte 4)"));
	assert_null(lava_file_url("/cache/z?Image", err, sizeof(err)));
}

/* ---- rendering ---- */

struct fixture {
	struct board b;
	struct workload w;
	struct lava_job_spec spec;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	char *bp = home_path("boards/qemu-orangepi-pc.yaml");
	char *wp = home_path("workloads/udp64-dut-tx.yaml");
	char err[512];
	int rc = board_load(bp, &fx->b, err, sizeof(err)) ||
		 workload_load(wp, &fx->w, err, sizeof(err));
	if (rc)
		print_error("%s\n", err);
	free(bp);
	free(wp);
	fx->spec = (struct lava_job_spec){
		.board = &fx->b, .series = "6.1", .strategy = "baseline", .workload = &fx->w,
		.kernel = { "file:///c/k/zImage", "0123" },
		.dtb = { "file:///c/k/sun8i-h3-orangepi-pc.dtb", NULL },
		.ramdisk = { "http://lab.example/initramfs.cpio.gz", NULL },
		.kernel_args = "console=ttyS0,115200 hb.iface=eth0 hb.addr=198.18.0.2/24",
		.kernel_key = "ab12",
		.report_awk = "{ print \"m\", 1, \"u\" } # the host's\n",
		.tx_timer = "stmmac_tx_timer",
	};
	*state = fx;
	return rc;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	board_free(&fx->b);
	workload_free(&fx->w);
	free(fx);
	return 0;
}

/* The scalar at a path like "actions/0/deploy/to" (keys may hold dots);
 * a number indexes a sequence. */
static const char *at(const struct ynode *n, const char *path)
{
	char *copy = xstrdup(path), *save = NULL;
	for (char *seg = strtok_r(copy, "/", &save); seg && n; seg = strtok_r(NULL, "/", &save)) {
		if (n->kind == YN_SEQ) {
			size_t i = strtoul(seg, NULL, 10);
			n = i < n->nkid ? n->kid[i] : NULL;
		} else {
			n = ynode_get(n, seg);
		}
	}
	free(copy);
	if (!n || n->kind != YN_SCALAR)
		fail_msg("no scalar at %s", path);
	return n->str;
}

static const struct ynode *steps_of(const struct ydoc *d)
{
	const struct ynode *n = ynode_get(d->root, "actions");
	n = ynode_get(n->kid[2], "test");
	n = ynode_get(n, "definitions")->kid[0];
	n = ynode_get(ynode_get(n, "repository"), "run");
	return ynode_get(n, "steps");
}

static void test_render(void **state)
{
	struct fixture *fx = *state;
	char err[512];
	char *job = lava_job_render(&fx->spec, err, sizeof(err));
	assert_non_null(job);
	struct ydoc *d = parse(job);
	const struct ynode *r = d->root;

	assert_string_equal(at(r, "job_name"), "hilbench qemu-orangepi-pc baseline udp64-dut-tx");
	assert_string_equal(at(r, "device_type"), "hilbench-qemu-orangepi-pc");
	/* deploy 300 + boot 120 + test (10 + 1 + 120) + margin 60 */
	assert_string_equal(at(r, "timeouts/job/seconds"), "611");
	assert_string_equal(at(r, "metadata/hilbench.kernel_key"), "ab12");
	assert_string_equal(at(r, "context/extra_kernel_args"),
			    "console=ttyS0,115200 hb.iface=eth0 hb.addr=198.18.0.2/24 rdinit=/bin/sh");
	assert_string_equal(at(r, "actions/0/deploy/to"), "tftp");
	assert_string_equal(at(r, "actions/0/deploy/kernel/type"), "zimage");
	assert_string_equal(at(r, "actions/0/deploy/kernel/sha256sum"), "0123");
	assert_string_equal(at(r, "actions/0/deploy/ramdisk/url"),
			    "http://lab.example/initramfs.cpio.gz");
	assert_string_equal(at(r, "actions/0/deploy/ramdisk/compression"), "gz");
	assert_string_equal(at(r, "actions/1/boot/method"), "u-boot");
	assert_string_equal(at(r, "actions/1/boot/commands"), "ramdisk");
	assert_string_equal(at(r, "actions/1/boot/prompts/0"), "/ #");
	assert_string_equal(at(r, "actions/1/boot/timeout/seconds"), "120");
	assert_string_equal(at(r, "actions/2/test/timeout/seconds"), "131");
	assert_string_equal(at(r, "actions/2/test/definitions/0/name"), "hilbench-udp64-dut-tx");

	const struct ynode *steps = steps_of(d);
	assert_non_null(steps);
	int agent = 0, awk = 0;
	for (size_t i = 0; i < steps->nkid; i++) {
		const char *s = steps->kid[i]->str;
		agent += !strcmp(s, "/sbin/hb-agent run proto=udp dir=tx len=64 rate=0 time=10 "
				 "omit=1 streams=1 port=5201 profile=none 'id=udp64-dut-tx' | tee /tmp/hb.out");
		awk += !strcmp(s, "awk -v proto=udp -v dir=tx -v 'tx_timer=stmmac_tx_timer' "
			       "'{ print \"m\", 1, \"u\" } "
			       "# the host'\\''s\n' /tmp/hb.json /tmp/hb.out > /tmp/hb.metrics");
	}
	assert_int_equal(agent, 1);
	assert_int_equal(awk, 1);
	ydoc_free(d);
	free(job);
}

/* The lava-local/lava variant: the agent serves the host's commands from a
 * TCP port under the run's id, and sets up its own link. */
static void test_render_host_driven(void **state)
{
	struct fixture *fx = *state;
	char err[512];
	fx->spec.control_port = 5300;
	fx->spec.run_id = "20261130T074139Z-5a22e6";
	char *job = lava_job_render(&fx->spec, err, sizeof(err));
	assert_non_null(job);
	struct ydoc *d = parse(job);
	const struct ynode *steps = steps_of(d);
	int serve = 0, flush = 0, oneshot = 0, end = 0;
	for (size_t i = 0; i < steps->nkid; i++) {
		const char *s = steps->kid[i]->str;
		serve += !strcmp(s, "nc -l -p 5300 | /sbin/hb-agent | tee /tmp/hb.out");
		flush += !strcmp(s, "ip addr flush dev 'eth0'");
		oneshot += strstr(s, "hb-agent run") != NULL || strstr(s, "ip addr add") != NULL;
		end += strstr(s, "'HB END id=20261130T074139Z-5a22e6 status=ok'") != NULL;
	}
	assert_int_equal(serve, 1);
	assert_int_equal(flush, 1);
	assert_int_equal(oneshot, 0);
	assert_int_equal(end, 1);
	ydoc_free(d);
	free(job);

	fx->spec.run_id = "id with spaces";
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "run id"));
	fx->spec.run_id = "ok";
	fx->spec.control_port = IPERF_PORT;
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "control port"));
}

static void replace(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

/* Values from files and the command line cannot add keys, actions or shell
 * commands: each comes back as the one value it was. */
static void test_render_hostile(void **state)
{
	struct fixture *fx = *state;
	const char *desc = "x\"\n- boot: {method: evil}\n# \xe2\x80\xa8 '\\";
	char err[512];

	replace(&fx->w.description, desc);
	replace(&fx->b.dut_interface, "eth0'; reboot; '");
	replace(&fx->b.lava.prompts.v[0], "\"]\n  - evil: [");
	fx->spec.job_name = "a: b # c\n- x";
	char *job = lava_job_render(&fx->spec, err, sizeof(err));
	assert_non_null(job);
	struct ydoc *d = parse(job);
	const struct ynode *r = d->root;

	assert_string_equal(at(r, "job_name"), "a: b # c\n- x");
	assert_string_equal(at(r, "actions/2/test/definitions/0/repository/metadata/description"),
			    desc);
	assert_string_equal(at(r, "actions/1/boot/prompts/0"), "\"]\n  - evil: [");
	assert_int_equal(ynode_get(r, "actions")->nkid, 3);
	const struct ynode *steps = steps_of(d);
	int quoted = 0;
	for (size_t i = 0; i < steps->nkid; i++)
		quoted += strstr(steps->kid[i]->str, "ip link set 'eth0'\\''; reboot; '\\''' up") != NULL;
	assert_int_equal(quoted, 1);
	ydoc_free(d);
	free(job);
}

static void test_render_rejects(void **state)
{
	struct fixture *fx = *state;
	char err[512], name[RUN_ID_MAX + 8];

	fx->spec.kernel_args = "console=ttyS0 x='y'";
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "has '''"));
	fx->spec.kernel_args = "x=$bootargs";
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot carry"));
	fx->spec.kernel_args = "console=ttyS0";

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	fx->spec.job_name = name;
	char *job = lava_job_render(&fx->spec, err, sizeof(err));
	assert_non_null(job);	/* long for a run id, fine for a job */
	free(job);
	fx->spec.job_name = "";
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "1 to 200 characters"));
	fx->spec.job_name = NULL;

	replace(&fx->w.name, name);
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "run ids"));

	free(fx->b.lava.device_type);
	fx->b.lava.device_type = NULL;
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "has no lava: section"));
}

/* A job for a worker elsewhere (the lava backend, a lab's board) never
 * carries a file:// URL: the renderer refuses one, and an HTTP image
 * without its SHA-256 (test_lava_artifacts publishes real ones). */
static void test_render_remote_worker(void **state)
{
	struct fixture *fx = *state;
	char err[512];
	const char *sum = "8d74beec1be996322ad76813bafb92d40839895d6dd7ee808b17ca201eac98be";

	fx->spec.remote_worker = 1;
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "file:///c/k/zImage for a LAVA worker elsewhere"));
	fx->spec.kernel = (struct lava_artifact){ "https://lab.example/sha256/a/zImage", sum };
	fx->spec.dtb = (struct lava_artifact){ "https://lab.example/sha256/b/x.dtb", sum };
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "the ramdisk is without a SHA-256"));
	fx->spec.ramdisk.sha256 = sum;
	char *job = lava_job_render(&fx->spec, err, sizeof(err));
	assert_non_null(job);
	assert_null(strstr(job, "file://"));
	struct ydoc *d = parse(job);
	const char *keys[] = { "kernel", "dtb", "ramdisk" };
	for (int i = 0; i < 3; i++) {
		char path[64];
		snprintf(path, sizeof(path), "actions/0/deploy/%s/sha256sum", keys[i]);
		assert_string_equal(at(d->root, path), sum);
		snprintf(path, sizeof(path), "actions/0/deploy/%s/url", keys[i]);
		assert_int_equal(strncmp(at(d->root, path), "http", 4), 0);
	}
	ydoc_free(d);
	free(job);
}

/* A lab job applies the strategy's runtime settings through the agent
 * before the run and checks each read-back; an ftrace workload profiles
 * the driver's functions. */
static void test_render_settings(void **state)
{
	struct fixture *fx = *state;
	char err[512];
	const struct lava_job_setting set[] = {
		{ "tx-usecs", "ethtool-coalesce", "tx-usecs", "5000", LAVA_READ_BACK_NUMBER },
		{ "rps-cpus", "sysfs-net", "queues/rx-0/rps_cpus", "f", LAVA_READ_BACK_AGENT },
	};
	fx->spec.settings = set;
	fx->spec.n_settings = 2;
	fx->spec.functions = "stmmac_xmit,stmmac_tx_timer";
	fx->w.profile = WL_PROFILE_FTRACE;
	char *job = lava_job_render(&fx->spec, err, sizeof(err));
	if (!job)
		print_error("%s\n", err);
	assert_non_null(job);
	struct ydoc *d = parse(job);
	const struct ynode *steps = steps_of(d);
	int pipe = 0, num = 0, agent = 0, run = 0;
	size_t at_pipe = 0, at_run = 0;
	for (size_t i = 0; i < steps->nkid; i++) {
		const char *s = steps->kid[i]->str;
		if (!strcmp(s, "printf '%s\\n' 'hbcmd set id=udp64-dut-tx-s1 method=ethtool-coalesce "
			       "key=tx-usecs value=5000' 'hbcmd set id=udp64-dut-tx-s2 method=sysfs-net "
			       "key=queues/rx-0/rps_cpus value=f' | /sbin/hb-agent | tee /tmp/hb.set")) {
			pipe++;
			at_pipe = i;
		}
		num += strstr(s, "[ \"$v\" -eq '5000' ]") != NULL &&
		       strstr(s, "lava-test-case 'hb-setting-tx-usecs' --result fail; exit 1") != NULL;
		agent += strstr(s, "grep -qxF 'HB END id=udp64-dut-tx-s2 status=ok' /tmp/hb.set; then "
				   "lava-test-case 'hb-setting-rps-cpus' --result pass") != NULL;
		if (strstr(s, "/sbin/hb-agent run ") &&
		    strstr(s, " profile=ftrace 'functions=stmmac_xmit,stmmac_tx_timer' ")) {
			run++;
			at_run = i;
		}
	}
	assert_int_equal(pipe, 1);
	assert_int_equal(num, 1);
	assert_int_equal(agent, 1);
	assert_int_equal(run, 1);
	assert_true(at_pipe < at_run);	/* applied before the run */
	ydoc_free(d);
	free(job);

	/* Values go into the agent's tokens: no spaces, quotes or newlines. */
	const struct lava_job_setting bad = { "tx-usecs", "ethtool-coalesce", "tx-usecs",
					      "5000 x", LAVA_READ_BACK_NUMBER };
	fx->spec.settings = &bad;
	fx->spec.n_settings = 1;
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "'5000 x' is not 1 to"));
	/* hilbench sends the settings itself to a job that takes commands */
	fx->spec.settings = set;
	fx->spec.control_port = 5300;
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "gets its settings from hilbench"));
	fx->spec.control_port = 0;
	fx->spec.n_settings = 0;
	fx->spec.functions = "a b";
	assert_null(lava_job_render(&fx->spec, err, sizeof(err)));
	assert_non_null(strstr(err, "profile functions"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml_quote),
		cmocka_unit_test(test_yaml_text),
		cmocka_unit_test(test_sh_quote),
		cmocka_unit_test(test_markup_escape),
		cmocka_unit_test(test_file_url),
		cmocka_unit_test_setup_teardown(test_render, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_host_driven, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_remote_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_settings, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
