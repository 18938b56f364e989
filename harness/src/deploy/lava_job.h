/*
 * lava_job: the LAVA job (YAML) for one cell: a board with a lava: section,
 * one strategy, one workload (docs/lava.md).
 *
 * The job deploys the cell's kernel, dtb and initramfs, boots the initramfs
 * into a shell, and runs one inline test definition: it starts the agent
 * once (`hb-agent run ...`, or serving the commands hilbench sends to
 * control_port), leaves its HB lines on the console for hilbench, and
 * reports the run and each metric as a lava-test-case.
 *
 * Contract: lava_job_render() returns the job as a new string, or NULL with
 * a one-line reason in err when the cell cannot be written as a job (no
 * lava: section, a value U-Boot's setenv or LAVA's device templates cannot
 * carry, a file:// artifact for a remote worker). Every value that comes from a file or the command line is written
 * with the quote.h helpers, never pasted. The result validates with LAVA's
 * own schema (lava_common.schemas.validate, strict): tests/lava/validate.sh.
 */
#ifndef HB_LAVA_JOB_H
#define HB_LAVA_JOB_H

#include <stddef.h>

#include "config/board.h"
#include "config/workload.h"

/* Added to the kernel arguments: LAVA's test shell needs a shell where the
 * initramfs's /init would start the agent (docs/lava.md). */
#define LAVA_SHELL_INIT "rdinit=/bin/sh"

struct lava_artifact {
	const char *url;	/* file:///abs/path (lava-run) or http(s):// */
	const char *sha256;	/* NULL: LAVA does not check the download */
};

/* A runtime setting the lab job's agent applies before the run
 * (docs/knobs.md; `hbcmd set` of docs/agent-protocol.md). */
struct lava_job_setting {
	const char *name;	/* settings/<name>.yaml: the test case is hb-setting-<name> */
	const char *method, *key, *value;
	/* How the read-back must match value, as the host compares it
	 * (setting_same_value): as numbers, as text (qdisc names), or only
	 * the agent's status=ok (masks, which the kernel writes with commas). */
	enum { LAVA_READ_BACK_NUMBER, LAVA_READ_BACK_TEXT, LAVA_READ_BACK_AGENT } compare;
};

struct lava_job_spec {
	const struct board *board;
	const char *series;		/* kernel series, e.g. "6.1" */
	const char *strategy;
	const struct workload *workload;
	struct lava_artifact kernel, dtb, ramdisk;	/* ramdisk: gzip'ed cpio */
	const char *kernel_args;	/* the board's cmdline with the hb.* parameters */
	const char *kernel_key;		/* build key for the metadata; NULL: unknown */
	const char *job_name;		/* NULL: "hilbench BOARD STRATEGY WORKLOAD" */
	const char *report_awk;		/* text of harness/agent/lava-report.awk */
	/* The driver's TX timer callback (drivers/<name>.yaml tx_timer), whose
	 * hist buckets make the per-packet timer metrics; NULL: a strategy
	 * without a driver under test, and the job reports none of them. */
	const char *tx_timer;
	const char *run_id;		/* the agent's run id; NULL: the workload's name */
	/* 0: the agent runs the workload once by itself (a lab's job). A TCP
	 * port: the agent serves hilbench's commands (docs/agent-protocol.md)
	 * that arrive there, so hilbench on the host side drives the run as it
	 * does on the qemu backend (the lava-local backend). */
	int control_port;
	/* A lab job's (control_port 0) runtime settings: the agent applies
	 * each and reads it back before the run, each reported as a test case,
	 * and a setting that fails ends the test before the run (as a failed
	 * setting stops the run on every backend). With a control port,
	 * hilbench sends them itself and these must be empty. */
	const struct lava_job_setting *settings;
	size_t n_settings;
	/* The ftrace profiler's functions, comma-separated (the driver's
	 * profile:), for a workload with profile: ftrace; NULL otherwise. */
	const char *functions;
	/* The worker is not this machine (the lava backend, a lab's job): it
	 * can fetch only over the network, so every artifact must be an
	 * http(s):// URL with its SHA-256, and a file:// URL is refused. */
	int remote_worker;
};

char *lava_job_render(const struct lava_job_spec *s, char *err, size_t errlen);

/* "file://" + path, for an absolute path that LAVA opens as written (it does
 * not unescape file URLs, so no byte can be escaped), or NULL with the
 * reason in err. */
char *lava_file_url(const char *path, char *err, size_t errlen);

#endif
