/*
 * report_formats: the one list of report formats (`hilbench report
 * --format`): name, emitter, what the emitter reads, one line of help.
 *
 * Contract: included only by analyze/report.h, which defines
 * REPORT_FORMAT(id, name, emitter, input, help) to turn each line into the
 * enum report_format constant REPORT_<id>, the emitter's declaration (a
 * report_emitter) and a row of report_formats[]. So a new format is a line
 * here plus its emitter in a file of its own (docs/design.md, "Adding a
 * report format or a metric"). input is REPORT_STREAMS for an emitter that
 * reads the store itself, REPORT_SUMMARIZES for one that gets the loaded
 * dataset. The order is the order of every list shown to the user.
 * No include guard: report.h includes it once per expansion.
 */
REPORT_FORMAT(TEXT, "text", report_emit_text, REPORT_SUMMARIZES,
	      "the summary, then the table per workload and metric, as compare prints")
REPORT_FORMAT(MD, "md", report_emit_md, REPORT_SUMMARIZES,
	      "the strategy table as Markdown")
REPORT_FORMAT(CSV, "csv", report_emit_csv, REPORT_STREAMS,
	      "the raw measurements, one line per run and metric, every class")
REPORT_FORMAT(JSON, "json", report_emit_json, REPORT_SUMMARIZES,
	      "the strategy table and sweeps as JSON (hilbench-report/1)")
REPORT_FORMAT(HTML, "html", report_emit_html, REPORT_SUMMARIZES,
	      "a self-contained page: summary, tables, SVG plots, throughput per run")
REPORT_FORMAT(JUNIT, "junit", report_emit_junit, REPORT_SUMMARIZES,
	      "JUnit XML: a test case per workload, metric and strategy; worse fails")
REPORT_FORMAT(COMMIT, "commit", report_emit_commit, REPORT_SUMMARIZES,
	      "a before/after block to paste into a patch's commit message")
REPORT_FORMAT(KCIDB, "kcidb", report_emit_kcidb, REPORT_STREAMS,
	      "KCIDB v5 JSON for KernelCI: a test per run and metric")
