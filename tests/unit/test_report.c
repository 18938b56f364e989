/* report: hostile strings from the store come out escaped in every format,
 * and a clear difference gets its verdict. Uses a real store in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "store/store.h"
#include "util/proc.h"
#include "util/util.h"

static char dir[64];
static struct store *st;
static char first_id[40];

static const char evil[] = "<script>alert('x')</script>|\"a\",b";

static void add_to(const char *session, const char *strategy, int rep, double pps,
		   const char *cls, const char *reason)
{
	struct metric m = { "pps", pps, "packets/s", "test" };
	struct run_record r = {
		.session = session, .plan = "p", .board = "b", .strategy = strategy,
		.workload = "udp", .repetition = rep, .cls = !strcmp(cls, "pass") ? RUN_PASS : RUN_FAIL,
		.reason = reason, .timing = "virtual", .started = "2026-11-30T00:00:00Z",
		.ended = "2026-11-30T00:00:01Z", .metrics = &m, .n_metrics = reason ? 0 : 1,
	};
	store_new_id(r.id);
	snprintf(r.id + strlen(r.id), sizeof(r.id) - strlen(r.id), "-%s-%d", cls, rep);
	assert_int_equal(store_add_run(st, &r), 0);
	if (!first_id[0])
		snprintf(first_id, sizeof(first_id), "%s", r.id);
}

static void add(const char *strategy, int rep, double pps, const char *cls, const char *reason)
{
	add_to("s1", strategy, rep, pps, cls, reason);
}

static char *render(enum report_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct selection sel = { .session = "s1" };
	assert_int_equal(report_write(st, &sel, NULL, f, out), 0);
	fclose(out);
	return buf;
}

static void html_escapes_everything(void **state)
{
	(void)state;
	char *html = render(REPORT_HTML);
	assert_null(strstr(html, "<script>"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
	assert_non_null(strstr(html, "<svg class=\"plot\""));
	free(html);
}

static void csv_quotes_fields(void **state)
{
	(void)state;
	char *csv = render(REPORT_CSV);
	/* the quote inside the value is doubled, the comma stays inside quotes */
	assert_non_null(strstr(csv, "\"<script>alert('x')</script>|\"\"a\"\",b\""));
	free(csv);
}

static void markdown_escapes_pipes_and_tags(void **state)
{
	(void)state;
	char *md = render(REPORT_MD);
	/* CommonMark: a backslash makes '<' and '|' literal text */
	assert_non_null(strstr(md, "\\<script>alert('x')\\</script>\\|"));
	free(md);
}

static void json_is_valid_and_has_the_verdict(void **state)
{
	(void)state;
	char *text = render(REPORT_JSON);
	cJSON *j = cJSON_Parse(text);
	assert_non_null(j);
	const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "workloads"), 0);
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(w, "metrics"), 0);
	const cJSON *rows = cJSON_GetObjectItem(m, "strategies");
	assert_int_equal(cJSON_GetArraySize(rows), 3);
	/* baseline first (reference), then the faster one: better, then the
	 * hostile name with the same numbers as baseline: no change */
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "strategy")->valuestring,
			    "baseline");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "verdict")->valuestring,
			    "better");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 2), "verdict")->valuestring,
			    "~");
	const cJSON *nm = cJSON_GetObjectItem(j, "not_measured");
	assert_int_equal(cJSON_GetArraySize(nm), 1);
	assert_non_null(strstr(cJSON_GetArrayItem(nm, 0)->valuestring, "fail: watchdog <b>"));
	cJSON_Delete(j);
	free(text);
}

static void an_unknown_reference_is_an_error(void **state)
{
	(void)state;
	struct selection sel = { .session = "s1" };
	FILE *out = fopen("/dev/null", "w");
	assert_int_equal(report_write(st, &sel, "nonesuch", REPORT_TEXT, out), REPORT_BAD_INPUT);
	assert_int_equal(report_write(st, &sel, "faster", REPORT_TEXT, out), 0);
	fclose(out);
	/* an output path in a directory that does not exist is the user's to fix */
	assert_int_equal(report_write_file(st, &sel, NULL, REPORT_TEXT, "/nonexistent-hb/r.txt"),
			 REPORT_BAD_INPUT);
}

static void commit_block_has_before_and_after(void **state)
{
	(void)state;
	char *text = render(REPORT_COMMIT);
	assert_non_null(strstr(text, "against baseline"));
	assert_non_null(strstr(text, "1000 -> 1100"));
	assert_non_null(strstr(text, "+10.00 %"));
	free(text);
}

static void text_lists_runs_that_are_not_measurements(void **state)
{
	(void)state;
	char *text = render(REPORT_TEXT);
	assert_non_null(strstr(text, "not measured (1 runs):"));
	assert_non_null(strstr(text, "fail: watchdog <b>"));
	free(text);
}

/* The line of text that starts with prefix, as its own string. */
static char *line_starting(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, strlen(prefix)))
			return strndup(l, strcspn(l, "\n"));
	return NULL;
}

/* A label longer than the column's minimum (the hostile name here, a sweep
 * point's "<strategy>@<setting>=<value>" in real reports) widens the column:
 * every row's repetitions start under the heading, none is cut. */
static void text_columns_fit_the_longest_label(void **state)
{
	(void)state;
	char *text = render(REPORT_TEXT);
	char *head = line_starting(text, "  strategy ");
	assert_non_null(head);
	size_t col = (size_t)(strstr(head, "repetitions") - head);
	assert_true(col > strlen(evil));
	static const struct {
		const char *label, *reps;
	} rows[] = { { "baseline", "1000 1001 999" }, { "faster", "1100 1101 1099" },
		     { evil, "1000 1001 999" } };
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char prefix[128];
		snprintf(prefix, sizeof(prefix), "  %s ", rows[i].label);
		char *row = line_starting(text, prefix);
		assert_non_null(row);
		assert_true(strlen(row) > col);
		assert_int_equal(strncmp(row + col, rows[i].reps, strlen(rows[i].reps)), 0);
		assert_int_equal(row[col - 1], ' ');
		free(row);
	}
	free(head);
	free(text);
}

static void junit_counts_and_escapes(void **state)
{
	(void)state;
	char *x = render(REPORT_JUNIT);
	/* faster: better (a pass), the hostile name: no change (a pass), one
	 * run not measured (an error); pps is higher-is-better, so no failure */
	assert_non_null(strstr(x, "<testsuite name=\"hilbench report\" tests=\"3\" failures=\"0\" "
				  "errors=\"1\" skipped=\"0\">"));
	assert_non_null(strstr(x, "<testcase classname=\"udp.pps\" name=\"faster\"><system-out>better: "));
	assert_non_null(strstr(x, "name=\"&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;|&quot;a&quot;,b\""));
	assert_non_null(strstr(x, "<error message=\""));
	assert_non_null(strstr(x, "fail: watchdog &lt;b&gt;"));
	assert_null(strstr(x, "<script>"));
	assert_null(strstr(x, "<b>"));
	free(x);
	/* the other way round the faster strategy is the reference, and
	 * baseline is significantly worse: a failure */
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct selection sel = { .session = "s1" };
	assert_int_equal(report_write(st, &sel, "faster", REPORT_JUNIT, out), 0);
	fclose(out);
	assert_non_null(strstr(buf, "failures=\"2\""));
	assert_non_null(strstr(buf, "name=\"baseline\"><failure message=\"worse: 1100 -&gt; 1000"));
	free(buf);
}

/* What a console can put in a run's reason: C0 controls, CR, DEL, lone
 * continuation bytes, overlong forms, a surrogate, U+FFFE, past U+10FFFF,
 * a cut sequence, bytes that start nothing; and a euro sign, valid. */
static const char noise[] =
	"oops\r\n\x01\x08\x0b\x0c\x1b[0m\x1f\x7f|\x80|\xbf|\xc0\xaf|\xe0\x80\xaf|\xed\xa0\x80|"
	"\xef\xbf\xbe|\xf4\x90\x80\x80|\xe2\x82|\xf5\xff|\xe2\x82\xac";

/* Well-formed UTF-8 of XML 1.0 characters only (its Char production). */
static int xml_chars_only(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned cp, n = *p < 0x80 ? 1 : *p >= 0xc2 && *p < 0xe0 ? 2 : *p >= 0xe0 && *p < 0xf0 ? 3
			: *p >= 0xf0 && *p < 0xf5 ? 4 : 0;
		if (!n)
			return 0;
		cp = n == 1 ? *p : *p & (0x7fu >> n);
		for (unsigned i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i] & 0x3fu);
		}
		static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < min[n] || !(cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
				     (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)))
			return 0;
		p += n;
	}
	return 1;
}

/* JUnit files go to CI systems that reject a file that is not XML: a
 * reason full of console noise must still make one, and read back (by
 * Python's expat) with CR kept and each bad sequence one U+FFFD. */
static void junit_of_console_noise_is_well_formed_xml(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct selection sel = { .session = "s2", .all_classes = 1 };
	assert_int_equal(report_write(st, &sel, NULL, REPORT_JUNIT, out), 0);
	fclose(out);
	assert_true(xml_chars_only(buf));
	char *path = path_join(dir, "noise.xml");
	assert_int_equal(write_file_atomic(path, buf, len), 0);
	static const char check[] =
		"import sys, xml.dom.minidom\n"
		"d = xml.dom.minidom.parse(sys.argv[1])\n"
		"m = d.getElementsByTagName('error')[0].getAttribute('message')\n"
		"R = '\\ufffd'\n"
		"want = ('oops\\r\\n' + R * 5 + '[0m' + R + '\\x7f|' + R + '|' + R + '|' + R * 2 + '|' +\n"
		"        R * 3 + '|' + R * 3 + '|' + R + '|' + R * 4 + '|' + R * 2 + '|' + R * 2 +\n"
		"        '|\\u20ac')\n"
		"sys.exit(0 if m.endswith(want) else 'got %r' % m)\n";
	char *argv[] = { "python3", "-c", (char *)check, path, NULL };
	assert_int_equal(proc_run(argv, NULL), 0);
	free(path);
	free(buf);
}

static int count_row(const struct run_row *r, void *ctx)
{
	(void)r;
	++*(int *)ctx;
	return 0;
}

static void a_selection_can_name_runs_and_metrics(void **state)
{
	(void)state;
	struct strlist runs = { 0 }, metrics = { 0 };
	strlist_push(&runs, first_id);
	strlist_push(&runs, "no-such-run");
	strlist_push(&metrics, "pps");
	struct selection sel = { .runs = &runs, .metrics = &metrics };
	int rows = 0;
	assert_int_equal(store_foreach(st, &sel, count_row, &rows), 0);
	assert_int_equal(rows, 1);
	strlist_free(&metrics);
	strlist_push(&metrics, "mbps");	/* the run has no such metric */
	rows = 0;
	assert_int_equal(store_foreach(st, &sel, count_row, &rows), 0);
	assert_int_equal(rows, 0);
	strlist_free(&runs);
	strlist_free(&metrics);
}

/* A run with the emulator's counts (session s3): per packet, all and the
 * own instructions of two functions, one with a hostile name. */
static void add_counted(const char *strategy, int rep, double xmit, double other)
{
	char name[2][96];
	snprintf(name[0], sizeof(name[0]), "insn_self_per_pkt.stmmac_xmit");
	snprintf(name[1], sizeof(name[1]), "insn_self_per_pkt.%s", evil);
	struct metric m[] = {
		{ "pps", 4000, "packets/s", "test" },
		{ "insn_per_pkt", 10000, "instructions/packet", "emulator-insn: test" },
		{ name[0], xmit, "instructions/packet", "emulator-insn: test" },
		{ name[1], other, "instructions/packet", "emulator-insn: test" },
	};
	struct run_record r = {
		.session = "s3", .plan = "p", .board = "b", .strategy = strategy,
		.workload = "udp", .repetition = rep, .cls = RUN_PASS, .timing = "virtual",
		.started = "2026-11-30T00:00:00Z", .ended = "2026-11-30T00:00:01Z",
		.metrics = m, .n_metrics = HB_ARRAY_SIZE(m),
	};
	store_new_id(r.id);
	assert_int_equal(store_add_run(st, &r), 0);
}

static char *render_session(const char *session, enum report_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct selection sel = { .session = session };
	assert_int_equal(report_write(st, &sel, NULL, f, out), 0);
	fclose(out);
	return buf;
}

static void where_the_cycles_go(void **state)
{
	(void)state;
	char *text = render_session("s3", REPORT_TEXT);
	assert_non_null(strstr(text, "Where the cycles go"));
	/* the reference's value and share, the other's change against it */
	char *row = strstr(text, "  stmmac_xmit");
	assert_non_null(row);
	assert_non_null(strstr(row, "700 (7.0 %)"));
	assert_non_null(strstr(row, "940 (9.4 %) +240"));
	/* xmit has the most: its row comes first */
	assert_true(row < strstr(text, "  <script>"));
	free(text);
	char *html = render_session("s3", REPORT_HTML);
	assert_non_null(strstr(html, "<h2>Where the cycles go</h2>"));
	assert_null(strstr(html, "<script>"));
	assert_non_null(strstr(html, "<td>&lt;script&gt;"));
	free(html);
	char *md = render_session("s3", REPORT_MD);
	assert_non_null(strstr(md, "## Where the cycles go"));
	assert_non_null(strstr(md, "\\|"));
	free(md);
	/* runs without the counts: no such section */
	text = render_session("s1", REPORT_TEXT);
	assert_null(strstr(text, "Where the cycles go"));
	free(text);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hb-report.XXXXXX");
	if (!mkdtemp(dir) || !(st = store_open(dir)))
		return -1;
	static const double base[] = { 1000, 1001, 999 }, fast[] = { 1100, 1101, 1099 };
	for (int i = 0; i < 3; i++) {
		add("baseline", i + 1, base[i], "pass", NULL);
		add("faster", i + 1, fast[i], "pass", NULL);
		add(evil, i + 1, base[i], "pass", NULL);
	}
	add("faster", 4, 0, "fail", "watchdog <b>");
	add_to("s2", "baseline", 1, 1000, "pass", NULL);
	add_to("s2", "baseline", 2, 0, "fail", noise);
	for (int i = 1; i <= 2; i++) {
		add_counted("baseline", i, 700, 300);
		add_counted("patched", i, 940, 300);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(st);
	return rm_rf(dir);
}

/* The format table: every name parses to its own row, each row has an
 * emitter and help, and the lists shown to the user come from it. */
static void every_format_is_found_by_its_name(void **state)
{
	(void)state;
	for (size_t i = 0; i < REPORT_FORMATS; i++) {
		enum report_format f;
		assert_int_equal(report_format_parse(report_formats[i].name, &f), 0);
		assert_int_equal(f, i);
		assert_non_null(report_formats[i].emit);
		assert_true(strlen(report_formats[i].help) > 0);
		assert_true(strlen(report_formats[i].help) <= 72);	/* one line of --help */
	}
	enum report_format f = REPORT_MD;
	assert_int_equal(report_format_parse("nonesuch", &f), -1);
	assert_int_equal(report_format_parse("", &f), -1);
	assert_int_equal(f, REPORT_MD);
	assert_string_equal(report_formats[REPORT_HTML].name, "html");
	/* "text, md, ... or kcidb": every name once, in table order */
	char *names = report_format_names(", ", " or ");
	const char *at = names;
	for (size_t i = 0; i < REPORT_FORMATS; i++) {
		const char *sep = i == 0 ? "" : i + 1 == REPORT_FORMATS ? " or " : ", ";
		assert_memory_equal(at, sep, strlen(sep));
		at += strlen(sep);
		assert_memory_equal(at, report_formats[i].name, strlen(report_formats[i].name));
		at += strlen(report_formats[i].name);
	}
	assert_string_equal(at, "");
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_format_is_found_by_its_name),
		cmocka_unit_test(html_escapes_everything),
		cmocka_unit_test(csv_quotes_fields),
		cmocka_unit_test(markdown_escapes_pipes_and_tags),
		cmocka_unit_test(json_is_valid_and_has_the_verdict),
		cmocka_unit_test(text_lists_runs_that_are_not_measurements),
		cmocka_unit_test(text_columns_fit_the_longest_label),
		cmocka_unit_test(an_unknown_reference_is_an_error),
		cmocka_unit_test(commit_block_has_before_and_after),
		cmocka_unit_test(junit_counts_and_escapes),
		cmocka_unit_test(junit_of_console_noise_is_well_formed_xml),
		cmocka_unit_test(a_selection_can_name_runs_and_metrics),
		cmocka_unit_test(where_the_cycles_go),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
