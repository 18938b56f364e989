/* report: hostile strings from the store come out escaped in every format,
 * and a clear difference gets its verdict. Uses a real store in a temp dir. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report.h"
#include "config/catalog.h"
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

/* A run as the executor stores it, with the provenance reports group by. */
struct fixture {
	const char *session, *board, *strategy, *workload, *build_key, *patches, *boot_id;
	const char *cls, *reason;
	int rep;
	const struct metric *m;
	size_t n_metrics;
};

static void put(const struct fixture *f)
{
	enum run_class cls = RUN_PASS;
	assert_int_equal(run_class_parse(f->cls ? f->cls : "pass", &cls), 0);
	struct run_record r = {
		.session = f->session, .plan = "p", .board = f->board ? f->board : "b",
		.strategy = f->strategy, .workload = f->workload ? f->workload : "udp",
		.repetition = f->rep, .cls = cls, .reason = f->reason, .timing = "virtual",
		.started = "2026-11-30T00:00:00Z", .ended = "2026-11-30T00:00:01Z",
		.build_key = f->build_key, .patches = f->patches, .boot_id = f->boot_id,
		.metrics = f->m, .n_metrics = cls == RUN_PASS ? f->n_metrics : 0,
	};
	store_new_id(r.id);
	assert_int_equal(store_add_run(st, &r), 0);
}

/* n pass runs of pps around mean, 0.1 % apart. */
static void put_pps(const char *session, const char *board, const char *strategy,
		    const char *build_key, const char *patches, double mean, int n)
{
	for (int i = 0; i < n; i++) {
		struct metric m = { "pps", mean * (1 + 0.001 * (i % 3 - 1)), "packets/s", "test" };
		put(&(struct fixture){ .session = session, .board = board, .strategy = strategy,
				       .build_key = build_key, .patches = patches, .rep = i + 1,
				       .m = &m, .n_metrics = 1 });
	}
}

/* "nan" as a word (a NaN printed), not inside one */
static int has_nan(const char *s)
{
	for (const char *p = s; (p = strstr(p, "nan")); p++)
		if ((p == s || !isalpha((unsigned char)p[-1])) && !isalpha((unsigned char)p[3]))
			return 1;
	return 0;
}

static char *render_sel(const struct selection *sel, const char *reference, enum report_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_int_equal(report_write(st, sel, reference, f, out), 0);
	fclose(out);
	return buf;
}

static char *render_session(const char *session, enum report_format f)
{
	struct selection sel = { .session = session };
	return render_sel(&sel, NULL, f);
}

/* The text report wraps its paragraphs: one line of them, for searching. */
static char *flat(char *text)
{
	char *o = text;
	for (const char *i = text; *i; i++) {
		if (*i == '\n' && i[1] == ' ') {
			while (i[1] == ' ')
				i++;
			*o++ = ' ';
		} else
			*o++ = *i;
	}
	*o = '\0';
	return text;
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
	assert_int_equal(report_write(st, &sel, "nonesuch", REPORT_TEXT, out), HB_FAIL_INPUT);
	assert_int_equal(report_write(st, &sel, "faster", REPORT_TEXT, out), 0);
	fclose(out);
	/* an output path in a directory that does not exist is the user's to fix */
	assert_int_equal(report_write_file(st, &sel, NULL, REPORT_TEXT, "/nonexistent-hb/r.txt"),
			 HB_FAIL_INPUT);
}

static void commit_block_has_before_and_after(void **state)
{
	(void)state;
	char *text = render(REPORT_COMMIT);
	/* the setup and the method, then before and after with n and the CI */
	assert_non_null(strstr(text, "reference baseline (baseline, the default)"));
	assert_non_null(strstr(text, "Welch's t-test"));
	assert_non_null(strstr(text, "    baseline             n=3        1000 +- 2.484\n"));
	assert_non_null(strstr(text, "    faster               n=3        1100 +- 2.484\n"
				     "      +10.0 % (CI +9.8..+10.2 %), p "));
	assert_non_null(strstr(text, "better\n"));
	assert_false(has_nan(text));
	/* a mail's body: every line fits 72 columns */
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		assert_true(strcspn(l, "\n") <= 72 || strstr(l, "<script>"));
	free(text);
}

static void text_lists_runs_that_are_not_measurements(void **state)
{
	(void)state;
	char *text = render(REPORT_TEXT);
	assert_non_null(strstr(text, "FAILED: 1 runs where the DUT misbehaved (class fail):"));
	assert_non_null(strstr(text, "fail: watchdog <b>"));
	free(text);
}

/* What report_visit_problems() called, in order, as one string. */
static void note_group(void *ctx, bool fail, size_t n)
{
	fprintf(ctx, "[%s %zu]", fail ? "fail" : "lost", n);
}

static void note_problem(void *ctx, const char *line)
{
	fprintf(ctx, "(%.2s)", line);
}

static void note_group_end(void *ctx, bool fail)
{
	fprintf(ctx, "[/%s]", fail ? "fail" : "lost");
}

static char *visited(const struct dataset *d, int with_group_end)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct report_problem_visitor v = { note_group, note_problem,
					    with_group_end ? note_group_end : NULL, out };

	assert_non_null(out);
	report_visit_problems(d, &v);
	fclose(out);
	return text;
}

static void problems_are_visited_failures_first(void **state)
{
	(void)state;
	struct problem p[] = {
		{ "e1", "b", "s", "w", "error", "QEMU died", NULL, 1 },
		{ "f1", "b", "s", "w", "fail", "panic", NULL, 1 },
		{ "m1", "b", "s", "w", "miss", "no result", "/x/console.log", 2 },
		{ "f2", "b", "s", "w", "fail", "watchdog", NULL, 2 },
	};
	struct dataset d = { .problems = p, .n_problems = 4 };
	char *text = visited(&d, 1);
	assert_string_equal(text, "[fail 2](f1)(f2)[/fail][lost 2](e1)(m1)[/lost]");
	free(text);
	/* a group with no runs is not visited; group_end is optional */
	d.problems = p + 2;
	d.n_problems = 1;
	text = visited(&d, 0);
	assert_string_equal(text, "[lost 1](m1)");
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
	 * run that failed (the DUT misbehaved: a failure, as KCIDB's FAIL) */
	assert_non_null(strstr(x, "<testsuite name=\"hilbench report\" tests=\"3\" failures=\"1\" "
				  "errors=\"0\" skipped=\"0\">"));
	assert_non_null(strstr(x, "<testcase classname=\"udp.pps\" name=\"faster\"><system-out>better: "));
	assert_non_null(strstr(x, "name=\"&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;|&quot;a&quot;,b\""));
	assert_non_null(strstr(x, "<failure type=\"fail\" message=\"fail on b: watchdog &lt;b&gt;"));
	assert_false(has_nan(x));
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
	assert_non_null(strstr(buf, "failures=\"3\""));	/* two worse, one failed run */
	assert_non_null(strstr(buf, "name=\"baseline\"><failure type=\"regression\" "
				    "message=\"worse: 1100 -&gt; 1000"));
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
		"m = d.getElementsByTagName('failure')[0].getAttribute('message')\n"
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

/* The reference failed (its kernel panicked in every run): it stays the
 * reference, nothing is compared with another strategy instead, and the
 * summary says so. */
static void a_missing_reference_is_never_replaced(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++)
		put(&(struct fixture){ .session = "ref-failed", .strategy = "baseline", .rep = i + 1,
				       .cls = "fail", .reason = "DUT: kernel BUG at x.c:1!" });
	put_pps("ref-failed", NULL, "gating", NULL, NULL, 1000, 3);
	put_pps("ref-failed", NULL, "is-queued", NULL, NULL, 1200, 3);
	char *text = render_session("ref-failed", REPORT_JSON);
	cJSON *j = cJSON_Parse(text);
	assert_string_equal(cJSON_GetObjectItem(j, "reference")->valuestring, "baseline");
	const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "workloads"), 0);
	const cJSON *rows = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(w, "metrics"), 0),
						"strategies");
	assert_int_equal(cJSON_GetArraySize(rows), 2);
	for (int i = 0; i < 2; i++) {
		const cJSON *r = cJSON_GetArrayItem(rows, i);
		/* is-queued is 20 % above gating, but gating is not the reference */
		assert_false(cJSON_IsTrue(cJSON_GetObjectItem(r, "reference")));
		assert_string_equal(cJSON_GetObjectItem(r, "verdict_text")->valuestring,
				    "inconclusive: no reference runs");
		assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "delta_pct")));
	}
	cJSON_Delete(j);
	free(text);
	text = flat(render_session("ref-failed", REPORT_TEXT));
	assert_non_null(strstr(text, "Reference: baseline (baseline, the default)"));
	assert_non_null(strstr(text, "udp, pps: baseline has no pass runs here, so nothing is "
				     "compared; baseline FAILED in 3 runs: DUT: kernel BUG at x.c:1!"));
	assert_false(has_nan(text));
	free(text);
}

/* One strategy name, three kernels (a gate's two candidates' patches and
 * the plain build) and two boards: five rows, none pooled, each board
 * compared with its own reference. */
static void kernels_and_boards_are_never_pooled(void **state)
{
	(void)state;
	static const char fix[] = "[{\"layer\":\"base\",\"path\":\"/p/base/0001-x.patch\",\"sha256\":\"a\"},"
				  "{\"layer\":\"user\",\"path\":\"/p/fix-timer.patch\",\"sha256\":\"b\"}]";
	put_pps("pooled", "b1", "baseline", "k1", NULL, 1000, 3);
	put_pps("pooled", "b1", "baseline", "k2", fix, 900, 3);
	put_pps("pooled", "b1", "gating", "k3", NULL, 1000, 2);
	put_pps("pooled", "b1", "gating", "k4", NULL, 1100, 3);
	put_pps("pooled", "b2", "baseline", "k1", NULL, 2000, 3);
	char *text = render_session("pooled", REPORT_JSON);
	cJSON *j = cJSON_Parse(text);
	const cJSON *ws = cJSON_GetObjectItem(j, "workloads");
	assert_int_equal(cJSON_GetArraySize(ws), 2);	/* udp on b1, udp on b2 */
	const cJSON *b1 = cJSON_GetArrayItem(ws, 0), *b2 = cJSON_GetArrayItem(ws, 1);
	assert_string_equal(cJSON_GetObjectItem(b1, "board")->valuestring, "b1");
	assert_string_equal(cJSON_GetObjectItem(b2, "board")->valuestring, "b2");
	const cJSON *rows = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(b1, "metrics"), 0),
						"strategies");
	assert_int_equal(cJSON_GetArraySize(rows), 4);
	static const char *const labels[] = { "baseline", "baseline+fix-timer", "gating #k3",
					      "gating #k4" };
	static const int n[] = { 3, 3, 2, 3 };
	for (int i = 0; i < 4; i++) {
		const cJSON *r = cJSON_GetArrayItem(rows, i);
		assert_string_equal(cJSON_GetObjectItem(r, "strategy")->valuestring, labels[i]);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "values")), n[i]);
	}
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "verdict")->valuestring,
			    "worse");
	/* b2's baseline is its own reference, 2000 and not compared with b1's */
	rows = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(b2, "metrics"), 0),
				   "strategies");
	assert_int_equal(cJSON_GetArraySize(rows), 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "reference")));
	cJSON_Delete(j);
	free(text);
	text = flat(render_session("pooled", REPORT_TEXT));
	assert_non_null(strstr(text, "== udp on b1 =="));
	assert_non_null(strstr(text, "== udp on b2 =="));
	assert_non_null(strstr(text, "never pooled"));
	free(text);
}

/* Two runs a side, significant by Welch, read "inconclusive" because of
 * the minimum-n rule: the cell says which rule, and the header states it. */
static void the_minimum_n_rule_is_stated(void **state)
{
	(void)state;
	put_pps("two-runs", NULL, "baseline", NULL, NULL, 1000, 2);
	put_pps("two-runs", NULL, "knob-irq-coalescing", NULL, NULL, 584, 2);
	char *text = flat(render_session("two-runs", REPORT_TEXT));
	assert_non_null(strstr(text, "inconclusive: n 2/2, fewer than 3 (Welch p "));
	assert_non_null(strstr(text, "inconclusive when either side has fewer than 3 pass runs "
				     "(whatever p says; p is shown)"));
	free(text);
	text = render_session("two-runs", REPORT_HTML);
	assert_non_null(strstr(text, "inconclusive: n 2/2, fewer than 3 (Welch p "));
	assert_non_null(strstr(text, "<td class=\"s-inconclusive\""));
	free(text);
}

/* A candidate that panicked: every format says FAIL with the quoted line
 * and where its console is, never NaN. */
static void a_panicked_candidate_reads_as_a_failure(void **state)
{
	(void)state;
	char *boot = xasprintf("%s/boots/boot-1", dir);
	assert_int_equal(mkdir_p(boot, 0755), 0);
	char *console = xasprintf("%s/console.log", boot);
	static const char log[] = "[ 5.1] kernel BUG at net/core/skbuff.c:2710!\n";
	assert_int_equal(write_file_atomic(console, log, strlen(log)), 0);
	put_pps("panic", NULL, "baseline", NULL, NULL, 3634, 3);
	for (int i = 0; i < 3; i++)
		put(&(struct fixture){ .session = "panic", .strategy = "gating", .rep = i + 1,
				       .boot_id = "boot-1", .cls = "fail",
				       .reason = "DUT: [ 5.1] kernel BUG at net/core/skbuff.c:2710!" });
	put(&(struct fixture){ .session = "panic", .strategy = "is-queued", .rep = 1,
			       .cls = "error", .reason = "not run: the lab is down" });
	for (int f = 0; f < REPORT_FORMATS; f++) {
		if (report_formats[f].input == REPORT_STREAMS)
			continue;
		char *out = render_session("panic", (enum report_format)f);
		assert_false(has_nan(out));
		assert_non_null(strstr(out, "kernel BUG at net/core/skbuff.c:2710!"));
		assert_non_null(strstr(out, console));
		free(out);
	}
	char *text = flat(render_session("panic", REPORT_TEXT));
	assert_non_null(strstr(text, "FAIL"));
	assert_non_null(strstr(text, "gating FAILED in 3 runs: DUT: [ 5.1] kernel BUG at"));
	free(text);
	text = render_session("panic", REPORT_COMMIT);
	assert_non_null(strstr(text, "  gating: FAILED in 3 of 3 runs: DUT: [ 5.1] kernel BUG"));
	assert_non_null(strstr(text, "    log: "));
	free(text);
	text = render_session("panic", REPORT_HTML);
	assert_non_null(strstr(text, "<td class=\"s-fail\""));
	assert_non_null(strstr(text, "<h2>Failed: 3 runs where the DUT misbehaved</h2>"));
	free(text);
	/* JUnit: the DUT's failure is a <failure>, the lab's an <error> */
	text = render_session("panic", REPORT_JUNIT);
	assert_non_null(strstr(text, "tests=\"4\" failures=\"3\" errors=\"1\" skipped=\"0\""));
	assert_non_null(strstr(text, "<failure type=\"fail\" message=\"fail on b: DUT: [ 5.1] kernel BUG"));
	assert_non_null(strstr(text, "<error type=\"error\" message=\"error on b: not run: the lab is down\""));
	free(text);
	free(console);
	free(boot);
}

/* The summary's metric is the workload file's headline (workloads/NAME.yaml),
 * not a list in code: the ftrace workload's is the hrtimer share, where
 * the table's first headline metric would be pps. */
static void the_headline_metric_is_the_workload_files(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++) {
		struct metric m[2] = { { "pps", 1000 + i, "packets/s", "test" },
				       { "hrtimer_share_ftrace_pct", 8 + 0.01 * i, "%", "test" } };
		struct metric c[2] = { { "pps", 1100 + i, "packets/s", "test" },
				       { "hrtimer_share_ftrace_pct", 0.6 + 0.01 * i, "%", "test" } };
		put(&(struct fixture){ .session = "headline", .strategy = "baseline",
				       .workload = "udp64-dut-tx-ftrace", .rep = i + 1, .m = m,
				       .n_metrics = 2 });
		put(&(struct fixture){ .session = "headline", .strategy = "hrtimer-active",
				       .workload = "udp64-dut-tx-ftrace", .rep = i + 1, .m = c,
				       .n_metrics = 2 });
	}
	char *text = flat(render_session("headline", REPORT_TEXT));
	assert_non_null(strstr(text, "udp64-dut-tx-ftrace, hrtimer_share_ftrace_pct (lower is better): "
				     "hrtimer-active is best, -92.4 % (CI "));
	free(text);
	/* every shipped workload names a metric of the table */
	struct strlist names = { 0 };
	assert_int_equal(catalog_names("workload", &names), 0);
	assert_true(names.n > 0);
	for (size_t i = 0; i < names.n; i++) {
		struct workload w;
		assert_int_equal(catalog_workload(names.v[i], &w), 0);
		assert_non_null(w.headline);
		assert_non_null(metric_find(w.headline));
		workload_free(&w);
	}
	strlist_free(&names);
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

/* A planned session's report says per candidate how many runs it took and
 * why it stopped, with the error rate, in text, Markdown and HTML (the
 * stored strings escaped); a session of a fixed plan has no such part. */
static void how_many_runs_it_took(void **state)
{
	(void)state;
	struct decision_record d = {
		.session = "planned", .reference = "baseline", .strategy = evil,
		.workload = "udp64-dut-tx", .metric = "pps", .reference_runs = 6,
		.candidate_runs = 1, .outcome = "improved", .delta_pct = 10.0, .lo_pct = 9.8,
		.hi_pct = 10.2, .threshold_pct = 1, .alpha = 0.05, .why = "decided at look 1 of 6",
	};
	put_pps("planned", NULL, "baseline", NULL, NULL, 1000, 6);
	put_pps("planned", NULL, evil, NULL, NULL, 1100, 1);
	assert_int_equal(store_put_decision(st, &d), 0);
	char *text = render_session("planned", REPORT_TEXT);
	assert_non_null(strstr(text, "== how many runs it took =="));
	assert_non_null(strstr(text, "| udp64-dut-tx | pps | 6/1 | improved | +10.00 % (+9.80..+10.20) "
				     "| 1 % | decided at look 1 of 6 |"));
	assert_non_null(strstr(text, "over these 1 decisions at most 0.05 false alarms"));
	free(text);
	char *md = render_session("planned", REPORT_MD);
	assert_non_null(strstr(md, "## How many runs it took"));
	assert_non_null(strstr(md, "\\<script>alert('x')\\</script>\\|"));
	free(md);
	char *html = render_session("planned", REPORT_HTML);
	assert_non_null(strstr(html, "<h2>How many runs it took</h2>"));
	assert_non_null(strstr(html, "<td class=\"s-better\">improved</td>"));
	assert_null(strstr(html, "<script>"));
	free(html);
	text = render_session("s1", REPORT_TEXT);
	assert_null(strstr(text, "how many runs it took"));
	free(text);
}

static void decide(const char *session, const char *strategy, const char *outcome, double delta,
		   double lo, double hi, const char *why)
{
	struct decision_record d = {
		.session = session, .reference = "baseline", .strategy = strategy,
		.workload = "udp", .metric = "pps", .reference_runs = 6, .candidate_runs = 1,
		.outcome = outcome, .delta_pct = delta, .lo_pct = lo, .hi_pct = hi,
		.threshold_pct = 1, .alpha = 0.05, .why = why,
	};
	assert_int_equal(store_put_decision(st, &d), 0);
}

/* A side whose runs fell in two modes is named under the table, with the
 * two groups: its verdict is a draw of how many fell in each. Runs of one
 * mode, and the other metrics' and sides', are not. */
static void runs_in_two_modes_are_named(void **state)
{
	(void)state;
	static const double modal[] = { 1059, 1121, 1060, 1119, 1061, 1120 };
	put_pps("modes", NULL, "baseline", NULL, NULL, 1000, 6);
	for (int i = 0; i < 6; i++) {
		struct metric m = { "pps", modal[i], "packets/s", "test" };
		put(&(struct fixture){ .session = "modes", .strategy = "bimodal", .rep = i + 1,
				       .m = &m, .n_metrics = 1 });
	}
	put_pps("modes", NULL, "steady", NULL, NULL, 1150, 6);
	decide("modes", "bimodal", "inconclusive", 9.0, 5.0, 13.0, "cap: 6 runs a side");
	decide("modes", "steady", "improved", 15.0, 14.9, 15.1, "decided at look 1 of 6");
	char *text = render_session("modes", REPORT_TEXT);
	assert_non_null(strstr(text, "bimodal, udp pps: its 6 runs fell in two modes, "
				     "3 at 1059-1061 and 3 at 1119-1121 (5.5 % apart)."));
	assert_null(strstr(text, "steady, udp pps: its"));
	assert_null(strstr(text, "baseline, udp pps: its"));
	free(text);
	char *html = render_session("modes", REPORT_HTML);
	assert_non_null(strstr(html, "<p>bimodal, udp pps: its 6 runs fell in two modes"));
	assert_non_null(strstr(html, "(docs/gate.md, &quot;Runs in two modes&quot;).</p>"));
	free(html);
}

/* Over several sessions, each series whose runs fell in two modes that
 * alternate is named, by the threshold their decisions judged it by, or
 * where none did by the gate's plan's (the shipped plans/gate.yaml: 1 %
 * for udp64-dut-tx's pps); a level that changed between the sessions is
 * not two modes. */
static void runs_in_two_modes_over_sessions_are_named(void **state)
{
	(void)state;
	static const double modal[2][3] = { { 1059, 1121, 1060 }, { 1119, 1061, 1120 } };
	static const char *const sessions[] = { "pool1", "pool2" };
	for (int k = 0; k < 2; k++) {
		put_pps(sessions[k], "pool-board", "baseline", NULL, NULL, 1000, 3);
		put_pps(sessions[k], "pool-board", "changed", NULL, NULL, k ? 1160 : 1100, 3);
		/* the same runs of workload "udp" (no file) and, on another
		 * board, of one the gate's plan judges */
		for (int i = 0; i < 3; i++) {
			struct metric m = { "pps", modal[k][i], "packets/s", "test" };
			put(&(struct fixture){ .session = sessions[k], .board = "pool-board",
					       .strategy = "bimodal", .rep = i + 1, .m = &m,
					       .n_metrics = 1 });
			put(&(struct fixture){ .session = sessions[k], .board = "pool-board-2",
					       .strategy = "bimodal", .workload = "udp64-dut-tx",
					       .rep = i + 1, .m = &m, .n_metrics = 1 });
		}
	}
	struct selection sel = { .board = "pool-board" };
	char *text = render_sel(&sel, NULL, REPORT_TEXT);
	/* no decision, and no file for workload "udp": no threshold */
	assert_null(strstr(text, "fell in two modes"));
	free(text);
	/* udp64-dut-tx: by the gate's plan's threshold */
	text = render_sel(&(struct selection){ .board = "pool-board-2" }, "bimodal", REPORT_TEXT);
	assert_non_null(strstr(text, "\nbimodal, udp64-dut-tx pps: its 6 runs fell in two modes, "
				     "3 at 1059-1061 and 3 at 1119-1121 (5.5 % apart)."));
	free(text);
	decide("pool1", "bimodal", "inconclusive", 9.0, 5.0, 13.0, "cap: 6 runs a side");
	text = render_sel(&sel, NULL, REPORT_TEXT);
	assert_non_null(strstr(text, "\nbimodal, udp pps: its 6 runs fell in two modes, "
				     "3 at 1059-1061 and 3 at 1119-1121 (5.5 % apart)."));
	assert_null(strstr(text, "changed, udp pps: its"));
	assert_null(strstr(text, "how many runs it took"));
	free(text);
	char *html = render_sel(&sel, NULL, REPORT_HTML);
	assert_non_null(strstr(html, "<p>bimodal, udp pps: its 6 runs fell in two modes"));
	free(html);
}

/* A session the planner ran is answered by its decisions, not by a test
 * of 6 against 1 run after the fact (which could only say "inconclusive,
 * fewer than 3 runs"): the summary's verdicts, changes and intervals, its
 * sentence, the tables, JSON, JUnit and the commit block are the
 * decisions', and the rules say so. Against another reference than the planner's, nothing was
 * decided and Welch's rule applies again. */
static void a_planned_session_is_answered_by_its_decisions(void **state)
{
	(void)state;
	put_pps("plan2", NULL, "baseline", NULL, NULL, 1000, 6);
	put_pps("plan2", NULL, "faster", NULL, NULL, 1100, 1);
	put_pps("plan2", NULL, "same", NULL, NULL, 1001, 1);
	put_pps("plan2", NULL, "slower", NULL, NULL, 900, 1);
	put_pps("plan2", NULL, "capped", NULL, NULL, 1005, 1);
	decide("plan2", "faster", "improved", 10.0, 9.8, 10.2, "decided at look 1 of 6");
	decide("plan2", "same", "pass", 0.1, -0.1, 0.3, "decided at look 1 of 6");
	decide("plan2", "slower", "REGRESSED", -10.0, -10.2, -9.8, "decided at look 1 of 6");
	decide("plan2", "capped", "inconclusive", 0.5, -1.5, 2.5, "cap: 6 runs a side");
	char *text = flat(render_session("plan2", REPORT_TEXT));
	assert_non_null(strstr(text, "faster is best, +10.0 % (interval +9.8..+10.2 %), decided at look 1 "
				     "of 6, threshold 1 %, n 6/1, against baseline"));
	assert_non_null(strstr(text, "worse: slower (-10.0%)"));
	assert_non_null(strstr(text, "no significant change: same"));
	assert_non_null(strstr(text, "inconclusive: capped (cap: 6 runs a side)"));
	assert_non_null(strstr(text, "the summary's verdict is that decision"));
	assert_non_null(strstr(text, "+10.0±0.2% B"));
	assert_non_null(strstr(text, "better: decided at look 1 of 6, threshold 1 %, n 6/1"));
	assert_null(strstr(text, "n 6/1, fewer than 3"));
	free(text);
	char *html = render_session("plan2", REPORT_HTML);
	assert_non_null(strstr(html, "<td class=\"s-better\" title=\"n 6/1, mean 1098.9 packets/s, "
				     "better: decided at look 1 of 6"));
	assert_non_null(strstr(html, "<td class=\"s-worse\""));
	free(html);
	char *json = render_session("plan2", REPORT_JSON);
	assert_non_null(strstr(json, "\"outcome\":\t\"REGRESSED\""));
	free(json);
	char *commit = render_session("plan2", REPORT_COMMIT);
	assert_non_null(strstr(commit, "+10.0 % (interval +9.8..+10.2 %), better: decided at look 1"));
	free(commit);
	struct selection sel = { .session = "plan2" };
	char *junit = render_sel(&sel, NULL, REPORT_JUNIT);
	assert_non_null(strstr(junit, "failures=\"1\""));
	free(junit);
	char *other = flat(render_sel(&sel, "same", REPORT_TEXT));
	assert_non_null(strstr(other, ", fewer than 3)"));
	assert_null(strstr(other, "threshold 1 %, n 6/1"));
	free(other);
}

/* A planned session is answered on the metric it decided: tcp-dut-tx's
 * file names the delivered rate (mbps_acked) as its headline, and in real
 * time the gate judges iperf3's count (mbps) instead; a summary of the
 * former could only say "inconclusive, fewer than 3 runs" beside a
 * decision on the latter (the details still show both). Against another
 * reference nothing was decided, and the file's headline is the row's. */
static void a_planned_workload_is_summed_up_by_the_metric_it_decided(void **state)
{
	(void)state;
	for (int i = 0; i < 6; i++) {
		struct metric m[2] = { { "mbps", 37 + 0.3 * (i % 3), "Mbit/s", "test" },
				       { "mbps_acked", 34 + 0.1 * (i % 3), "Mbit/s", "test" } };
		put(&(struct fixture){ .session = "plan3", .strategy = "baseline",
				       .workload = "tcp-dut-tx", .rep = i + 1, .m = m,
				       .n_metrics = 2 });
	}
	struct metric c[2] = { { "mbps", 41.5, "Mbit/s", "test" },
			       { "mbps_acked", 38, "Mbit/s", "test" } };
	put(&(struct fixture){ .session = "plan3", .strategy = "revert", .workload = "tcp-dut-tx",
			       .rep = 1, .m = c, .n_metrics = 2 });
	struct decision_record d = {
		.session = "plan3", .reference = "baseline", .strategy = "revert",
		.workload = "tcp-dut-tx", .metric = "mbps", .reference_runs = 6,
		.candidate_runs = 1, .outcome = "improved", .delta_pct = 11.3, .lo_pct = 10.2,
		.hi_pct = 12.4, .threshold_pct = 10, .alpha = 0.05, .why = "decided at look 1 of 6",
	};
	assert_int_equal(store_put_decision(st, &d), 0);
	char *text = flat(render_session("plan3", REPORT_TEXT));
	assert_non_null(strstr(text, "tcp-dut-tx, mbps (higher is better): revert is best, "
				     "+11.3 % (interval +10.2..+12.4 %), decided at look 1"));
	assert_non_null(strstr(text, "+11.3±1.1% B"));
	assert_null(strstr(text, "tcp-dut-tx, mbps_acked (higher"));
	free(text);
	struct selection sel = { .session = "plan3" };
	text = flat(render_sel(&sel, "revert", REPORT_TEXT));
	assert_non_null(strstr(text, "tcp-dut-tx, mbps_acked (higher"));
	assert_null(strstr(text, "tcp-dut-tx, mbps (higher"));
	free(text);
}

/* A whole plan's page, laid out by Chromium at 800 and 1400 px
 * (tests/report/geometry.sh): every plot's marks inside its box, no label
 * over another. The runs are a test double of a plan's results (made up
 * here, not measured) with the shapes that broke plots before: values far
 * from zero, a share near 100 %, a series of zeros, a candidate that
 * panicked, per-interval throughput, and five nightly sessions with a step
 * for "Over time". No boot, so it runs in check-unit. */
static void page_run(int night, const char *strategy, const char *workload, int rep,
		     const char *cls, const char *reason, const struct metric *m, size_t n)
{
	char session[24], started[48];
	snprintf(session, sizeof(session), "night-%d", night);
	snprintf(started, sizeof(started), "2026-11-%02dT02:%02d:00Z", 20 + night, rep);
	enum run_class c = RUN_PASS;
	assert_int_equal(run_class_parse(cls, &c), 0);
	struct run_record r = {
		.session = session, .plan = "page", .board = "qemu-orangepi-pc",
		.strategy = strategy, .workload = workload, .repetition = rep, .cls = c,
		.reason = reason, .timing = "virtual", .started = started, .ended = started,
		.metrics = m, .n_metrics = c == RUN_PASS ? n : 0,
	};
	store_new_id(r.id);
	assert_int_equal(store_add_run(st, &r), 0);
	if (night != 1 || rep != 1 || c != RUN_PASS)
		return;
	/* the first run's intervals, as the DUT's iperf3 writes them */
	char *d = xasprintf("%s/runs/%s", store_dir(st), r.id);
	assert_int_equal(mkdir_p(d, 0755), 0);
	char *json = xstrdup("{\"intervals\":[");
	for (int i = 0; i < 10; i++) {
		char *more = xasprintf("%s%s{\"sum\":{\"start\":%d,\"end\":%d,\"seconds\":1,"
				       "\"bits_per_second\":%.0f}}", json, i ? "," : "", i, i + 1,
				       m[0].value * 1e6 * (1 + 0.002 * (i % 3)));
		free(json);
		json = more;
	}
	char *whole = xasprintf("%s]}", json);
	char *path = path_join(d, "dut-iperf.json");
	assert_int_equal(write_file_atomic(path, whole, strlen(whole)), 0);
	free(path);
	free(whole);
	free(json);
	free(d);
}

static void the_page_lays_out_in_chromium(void **state)
{
	(void)state;
	static const struct { const char *name; double pps, share, mbps; } strategies[] = {
		{ "baseline", 4455.2, 99.1, 37.91 }, { "gating", 4522.8, 98.7, 38.02 },
		{ "hrtimer-active", 5215.4, 97.2, 38.11 }, { "is-queued", 5233.0, 97.3, 38.09 },
	};
	for (int night = 1; night <= 5; night++)
		for (size_t si = 0; si < 4; si++)
			for (int rep = 1; rep <= 3; rep++) {
				double step = night >= 4 && si == 1 ? 0.9 : 1;	/* gating drops */
				double jitter = 1 + 0.001 * (rep - 2);
				struct metric udp[] = {
					{ "pps", strategies[si].pps * step * jitter, "packets/s", "t" },
					{ "hrtimer_share_insn_pct", strategies[si].share, "%", "t" },
					{ "lost_pct", 0, "%", "t" },
				};
				struct metric tcp[] = {
					{ "mbps", strategies[si].mbps * jitter, "Mbit/s", "t" },
					{ "insn_rx_poll_per_pkt", 1822 + 40.0 * si, "instructions/packet",
					  "t" },
				};
				page_run(night, strategies[si].name, "udp64-dut-tx", rep, "pass", NULL,
					 udp, 3);
				page_run(night, strategies[si].name, "tcp-dut-rx", rep, "pass", NULL,
					 tcp, 2);
			}
	page_run(5, "broken", "udp64-dut-tx", 1, "fail",
		 "kernel panic: kernel BUG at drivers/net/ethernet/stmicro/stmmac/stmmac_main.c:2601!",
		 NULL, 0);
	struct selection sel = { .plan = "page" };
	char *html = render_sel(&sel, NULL, REPORT_HTML);
	assert_non_null(strstr(html, "Over time"));
	assert_non_null(strstr(html, "Mbit/s per interval"));
	char *path = path_join(dir, "page.html");
	assert_int_equal(write_file_atomic(path, html, strlen(html)), 0);
	const char *home = getenv("HILBENCH_HOME");
	char *script = path_join(home ? home : ".", "tests/report/geometry.sh");
	char *argv[] = { "bash", script, path, NULL };
	/* 2: Chromium gave no answer (not installed: `make deps` installs it) */
	assert_int_equal(proc_run(argv, NULL), 0);
	free(script);
	free(path);
	free(html);
}

/* The commit block names the functions that moved, one a line, under the
 * strategy's numbers; none without the emulator's counts. */
static void commit_block_names_the_movers(void **state)
{
	(void)state;
	char *text = render_session("s3", REPORT_COMMIT);
	assert_non_null(strstr(text, "  patched: where the instructions moved (emulator-insn):\n"
				     "    +240 instructions/packet in stmmac_xmit\n"));
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
		assert_true(strcspn(l, "\n") <= 72 || strstr(l, "<script>"));
	free(text);
	text = render_session("s1", REPORT_COMMIT);
	assert_null(strstr(text, "where the instructions moved"));
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
		cmocka_unit_test(problems_are_visited_failures_first),
		cmocka_unit_test(text_columns_fit_the_longest_label),
		cmocka_unit_test(an_unknown_reference_is_an_error),
		cmocka_unit_test(commit_block_has_before_and_after),
		cmocka_unit_test(junit_counts_and_escapes),
		cmocka_unit_test(junit_of_console_noise_is_well_formed_xml),
		cmocka_unit_test(a_selection_can_name_runs_and_metrics),
		cmocka_unit_test(where_the_cycles_go),
		cmocka_unit_test(the_page_lays_out_in_chromium),
		cmocka_unit_test(how_many_runs_it_took),
		cmocka_unit_test(runs_in_two_modes_are_named),
		cmocka_unit_test(runs_in_two_modes_over_sessions_are_named),
		cmocka_unit_test(a_planned_session_is_answered_by_its_decisions),
		cmocka_unit_test(commit_block_names_the_movers),
		cmocka_unit_test(a_missing_reference_is_never_replaced),
		cmocka_unit_test(kernels_and_boards_are_never_pooled),
		cmocka_unit_test(the_minimum_n_rule_is_stated),
		cmocka_unit_test(a_panicked_candidate_reads_as_a_failure),
		cmocka_unit_test(the_headline_metric_is_the_workload_files),
		cmocka_unit_test(a_planned_workload_is_summed_up_by_the_metric_it_decided),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
