/*
 * lava backend: the board's LAVA job, submitted to a LAVA server over its
 * REST API (lava_client.h), on the lab's device the board file names.
 *
 * One boot is one LAVA job serving one run, as with lava-local: the job's
 * agent takes the runner's command on a TCP port, so this machine must be
 * the DUT's traffic peer (dut.host_addr on one of its interfaces, wired to
 * the DUT); hilbench drives and counts traffic there as on every backend.
 * A board whose devices each have a peer of their own (lava.peers) has that
 * interface in one network namespace per device: once the job runs, the
 * run's thread joins the namespace of the device LAVA chose, so traffic,
 * capture and the agent's connection (made there, netns_socket()) go over
 * that device's link, while the poller stays where the server is reached.
 * The console is LAVA's log, polled (GET .../logs/?start=N); LAVA's results
 * lines are kept beside it. The job is canceled when the run is
 * interrupted or the boot fails. The server is $HILBENCH_LAVA_URL or the
 * board's lava.server; the token $HILBENCH_LAVA_TOKEN_FILE or
 * $HILBENCH_LAVA_TOKEN (never printed). The kernel, dtb and initramfs are
 * http(s):// URLs with their SHA-256 (lava_artifacts.h): the lab's artifact
 * host (lava.artifact_url), or for a server on this machine a lighttpd on
 * loopback that lives as long as the job.
 *
 * Files in the boot directory: lava-job.yaml, lava-job-id, lava.log,
 * lava-results.yaml, lighttpd.conf and lighttpd.log (a server started here).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deploy/dut.h"
#include "deploy/lava_artifacts.h"
#include "deploy/lava_client.h"
#include "deploy/lava_job.h"
#include "deploy/lava_session.h"
#include "deploy/netns.h"
#include "util/ipv4.h"
#include "util/util.h"

#define CONTROL_PORT 5300
#define POLL_S 1.0
/* From the agent's END, or a cancel, to the job's Finished. */
#define FINISH_TIMEOUT_S 180

struct lava_rest {
	struct lava_client *client;
	struct lava_session s;
	struct lava_artifacts art;	/* the job's files over HTTP */
	struct netns peer;	/* the device's peer namespace, once joined */
	long job_id;
	int cmd_out;		/* what the runner writes to the console */
	pthread_t poller;
	int poller_started;
	_Atomic int cancel;	/* stop() asks the poller to cancel the job */
	char state[32];		/* written by the poller, read after it ended */
	char health[32];
	char url[512];
	char version[800];
};

static void *poller_main(void *arg)
{
	struct lava_rest *r = arg;
	char *state = r->state, err[1024], cbuf[4096];
	size_t clen = 0;
	long next = 0;
	int cmd_open = 1, canceled = 0;
	double last_poll = 0, cancel_deadline = 0;

	/* started after the run joined its device's peer: the server is
	 * reached from where hilbench started */
	if (netns_thread_return(&r->peer) < 0)
		r->cancel = 1;
	for (;;) {
		struct pollfd p = { .fd = cmd_open ? r->cmd_out : -1, .events = POLLIN };
		if (poll(&p, 1, 200) > 0 &&
		    !lava_session_pump(r->cmd_out, cbuf, sizeof(cbuf), &clen, &r->s,
				       lava_session_command))
			cmd_open = 0;
		if (r->cancel && !canceled) {
			canceled = 1;
			cancel_deadline = monotonic_s() + FINISH_TIMEOUT_S;
			if (lava_job_cancel(r->client, r->job_id, err, sizeof(err)) < 0)
				hb_err("LAVA job %ld: cannot cancel: %s", r->job_id, err);
		}
		if (monotonic_s() - last_poll < POLL_S)
			continue;
		last_poll = monotonic_s();
		char *text = NULL;
		if (lava_job_status(r->client, r->job_id, r->state, r->health, err, sizeof(err)) < 0) {
			hb_err("LAVA job %ld: %s", r->job_id, err);
			break;
		}
		/* Queued jobs have no log yet; the server answers 404 for it
		 * until the worker sends the first lines. */
		int queued = !strcmp(state, "Submitted") || !strcmp(state, "Scheduling") ||
			     !strcmp(state, "Scheduled");
		int lrc = queued ? HB_FAIL_INPUT
				 : lava_job_logs(r->client, r->job_id, next, &text, err, sizeof(err));
		if (lrc == HB_FAIL_LAB || (lrc != 0 && !strcmp(state, "Finished") &&
						 next == 0 && !queued)) {
			hb_err("LAVA job %ld: %s", r->job_id, err);
			break;
		}
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			if (!nl)
				break;	/* a partial line: read again from here */
			*nl = '\0';
			next++;
			lava_session_log_line(&r->s, line);
			line = nl + 1;
		}
		free(text);
		if (!strcmp(state, "Finished"))
			break;
		if (canceled && monotonic_s() > cancel_deadline) {
			hb_err("LAVA job %ld still %s %d s after its cancel", r->job_id, state,
			       FINISH_TIMEOUT_S);
			break;
		}
	}
	lava_session_end_console(&r->s);
	return NULL;
}

/* The lab's server could not be reached after the client's retries, or it
 * refused the device or the job: a new boot would meet the same (run/executor.c
 * stops the plan instead of retrying). err names the request's URL, never
 * the token; the caller of dut_boot() prints it. Returns HB_FAIL_LAB. */
static int lab_unavailable(struct dut *d, const char *err)
{
	snprintf(d->health, sizeof(d->health), "%.500s", err);
	return HB_FAIL_LAB;
}

/* The job for this boot, its files published where the worker fetches
 * them over HTTP (the lab's artifact host, or, for a server on this
 * machine, whose workers may be here too, one on loopback) and written to
 * the boot's directory; NULL with *rc -1 or HB_FAIL_LAB (said). */
static char *render_job(struct dut *d, const struct dut_image *img, struct lava_rest *r, int *rc)
{
	const struct board *b = d->board;
	char err[1024], sums[3][65];
	char *urls[3] = { NULL, NULL, NULL }, *awk = NULL, *job = NULL;
	const char *files[3] = { img->kernel, img->dtb, img->initrd };
	*rc = -1;
	int local = lava_url_is_loopback(r->url);
	if (!b->lava.artifact_url && !local) {
		/* Every boot would meet the same: stop the plan, as for a server
		 * that refuses the job. */
		snprintf(err, sizeof(err), "%s: LAVA server %s is not on this machine, so its "
			 "workers need the job's files over HTTP: set lava.artifact_url (docs/lava.md, "
			 "\"The artifact host\")", b->path, r->url);
		*rc = lab_unavailable(d, err);
		return NULL;
	}
	if (lava_artifacts_open(&r->art, b, local ? "127.0.0.1" : NULL, d->workdir) < 0)
		return NULL;
	for (int i = 0; i < 3; i++)
		if (lava_artifacts_publish(&r->art, files[i], &urls[i], sums[i]) < 0)
			goto out;
	char *awk_path = hb_agent_file("lava-report.awk");
	awk = read_file(awk_path, NULL);
	if (!awk)
		hb_err("cannot read %s: %s", awk_path, strerror(errno));
	free(awk_path);
	if (!awk)
		goto out;
	struct lava_job_spec spec = {
		.board = b, .series = img->series, .strategy = img->strategy,
		.workload = img->workload, .kernel = { urls[0], sums[0] },
		.dtb = { urls[1], sums[1] }, .ramdisk = { urls[2], sums[2] },
		.kernel_args = img->cmdline, .report_awk = awk,
		.tx_timer = img->driver ? img->driver->tx_timer : NULL,
		.run_id = img->run_id, .control_port = CONTROL_PORT, .remote_worker = 1,
	};
	if (!(job = lava_job_render(&spec, err, sizeof(err)))) {
		hb_err("%s", err);
		goto out;
	}
	char *job_path = path_join(d->workdir, "lava-job.yaml");
	if (write_file_atomic(job_path, job, strlen(job)) < 0)
		hb_err("cannot write %s: %s", job_path, strerror(errno));
	free(job_path);
out:
	for (int i = 0; i < 3; i++)
		free(urls[i]);
	free(awk);
	return job;
}

/* Until a worker takes the job (the board's boot_timeout_s must not count
 * the time in LAVA's queue), or Ctrl-C: 0, or 1 when the job's state could
 * not be read (said in d->health). r->state is the last state; health its
 * health. */
static int wait_for_worker(struct dut *d, struct lava_rest *r, const struct lava_devices *devs,
			   char health[32])
{
	char err[1024];
	hb_info("LAVA job %ld: waiting for a device of type %s (%d of %d idle)", r->job_id,
		d->board->lava.device_type, devs->idle, devs->total);
	for (;;) {
		if (lava_job_status(r->client, r->job_id, r->state, health, err, sizeof(err)) < 0) {
			char msg[1200];
			snprintf(msg, sizeof(msg), "LAVA job %ld: %s", r->job_id, err);
			lab_unavailable(d, msg);
			return 1;
		}
		if (strcmp(r->state, "Submitted") && strcmp(r->state, "Scheduling") &&
		    strcmp(r->state, "Scheduled"))
			return 0;
		if (hb_interrupted)
			return 0;
		usleep(500000);
	}
}

/* Is dut.host_addr on an interface here (in the device's peer namespace,
 * when it has one)? 0, or -1 with the message printed. */
static int peer_check(const struct board *b)
{
	char ifname[32];
	if (ipv4_iface_of(b->host_addr, ifname, sizeof(ifname)) == 0)
		return 0;
	hb_err("%s: dut.host_addr %s is on no interface %s; the lava backend drives the DUT's "
	       "traffic from here, so this host must be its wired peer (docs/lava.md)", b->path,
	       b->host_addr, b->lava.peers.n ? "in the device's peer namespace" : "of this machine");
	return -1;
}

/* The run goes over the link of the device LAVA gave the job: its peer's
 * namespace (lava.peers), with dut.host_addr on it. 0; HB_FAIL_LAB when
 * the board names no peer for the device, which every later job may meet
 * too; -1 when the namespace cannot be used (said). */
static int join_peer(struct dut *d, struct lava_rest *r, const char *device)
{
	const struct board *b = d->board;
	if (!device[0]) {
		snprintf(d->health, sizeof(d->health), "LAVA job %ld: the server did not say which "
			 "device runs it, so its traffic peer is unknown", r->job_id);
		return -1;
	}
	const char *ns = board_lava_peer(b, device);
	if (!ns) {
		char msg[400];
		snprintf(msg, sizeof(msg), "%s: LAVA job %ld runs on device %s, which has no "
			 "traffic peer in lava.peers: add one (docs/lava.md, \"A lab\")", b->path,
			 r->job_id, device);
		return lab_unavailable(d, msg);
	}
	if (netns_join(&r->peer, ns) < 0 || peer_check(b) < 0) {
		snprintf(d->health, sizeof(d->health), "device %s: its traffic peer %s is not usable",
			 device, ns);
		return -1;
	}
	r->s.peer = &r->peer;	/* the poller hands the agent its commands */
	hb_info("LAVA job %ld: traffic over device %s's link, in network namespace %s", r->job_id,
		device, ns);
	return 0;
}

/* The device named, the job rendered and submitted, the poller running;
 * 0, -1 or HB_FAIL_LAB (deploy_ops.start). */
static int submit(struct dut *d, const struct dut_image *img, struct lava_rest *r)
{
	const struct board *b = d->board;
	char err[1024], dut_ip[64];
	char *job = NULL, *token = NULL;
	int rc = -1;

	board_ip(b->dut_addr, dut_ip, sizeof(dut_ip));
	if (!b->lava.peers.n && peer_check(b) < 0)
		return -1;
	if (lava_token_load(&token, err, sizeof(err)) < 0) {
		hb_err("%s", err);
		return -1;
	}
	/* Nothing retries forever: Ctrl-C must still reach the server's
	 * cancel and the last log lines, so this client is not interrupted. */
	struct lava_client_opts o = { .uninterruptible = 1 };
	r->client = lava_client_new(r->url, token, &o, err, sizeof(err));
	lava_token_free(token);
	if (!r->client)
		return lab_unavailable(d, err);	/* every boot would meet the same URL */
	if (!(job = render_job(d, img, r, &rc)))
		return rc;
	rc = -1;
	if (lava_session_open(&r->s, d->workdir, dut_ip, CONTROL_PORT) < 0)
		goto out;
	/* LAVA gives a job for the type to any of its usable devices, so one
	 * that went Bad leaves the job to the others; only a type with none
	 * left stops the plan. */
	struct lava_devices devs;
	if (lava_device_type_check(r->client, b->lava.device_type, &devs, err, sizeof(err)) < 0 ||
	    lava_submit(r->client, job, &r->job_id, err, sizeof(err)) < 0) {
		rc = lab_unavailable(d, err);
		goto out;
	}
	char health[32] = "";
	int lost = wait_for_worker(d, r, &devs, health);
	/* which of the type's devices measured: the run's provenance */
	char device[64] = "";
	if (!lost && !strcmp(r->state, "Running") &&
	    lava_job_device(r->client, r->job_id, device, err, sizeof(err)) == 0 && device[0])
		snprintf(r->version, sizeof(r->version), "LAVA server %.500s, device %s (type %.100s)",
			 r->url, device, b->lava.device_type);
	char *id_path = path_join(d->workdir, "lava-job-id");
	char *id = xasprintf("%s/scheduler/job/%ld\n", r->url, r->job_id);
	write_file_atomic(id_path, id, strlen(id));
	hb_info("LAVA job %ld on %s: %s/scheduler/job/%ld", r->job_id,
		device[0] ? device : "a device of its type", r->url, r->job_id);
	if (d->log)
		fprintf(d->log, "# hilbench: LAVA job %s", id);
	free(id);
	free(id_path);
	rc = lost ? HB_FAIL_LAB : hb_interrupted || strcmp(r->state, "Running") ? -1 : 0;
	if (!rc && b->lava.peers.n)
		rc = join_peer(d, r, device);
	if (rc && !lost && !hb_interrupted && !d->health[0])
		snprintf(d->health, sizeof(d->health), "LAVA job %ld is %s%s%s, not Running",
			 r->job_id, r->state, health[0] ? " " : "", health);
out:
	free(job);
	return rc;
}

/* The server's URL for board b, without trailing slashes; "" if none. */
static void server_url(const struct board *b, char *out, size_t len)
{
	const char *url = getenv("HILBENCH_LAVA_URL");
	if (!url || !url[0])
		url = b->lava.server;
	snprintf(out, len, "%s", url ? url : "");
	while (strlen(out) > 0 && out[strlen(out) - 1] == '/')
		out[strlen(out) - 1] = '\0';
}

/* How many of b's jobs start at once: the type's idle devices (Good or
 * Unknown, and Idle) when each device has a traffic peer of its own
 * (lava.peers, at most as many as it names), else 1; *cap: 1 when several
 * usable devices (Good or Unknown, as the plan starts) would share this
 * host's one peer, so two jobs must never run at once, else no bound (one
 * usable device queues the jobs; a device without a peer fails its run,
 * join_peer()). 1 when the server cannot say (the boot that follows
 * reports why). */
static int lava_rest_slots(const struct board *b, int *cap)
{
	char url[512], err[1024];
	char *token = NULL;
	*cap = b->lava.peers.n ? INT_MAX : 1;
	server_url(b, url, sizeof(url));
	if (!url[0] || lava_token_load(&token, err, sizeof(err)) < 0)
		return 1;
	struct lava_client_opts o = { .attempts = 2 };
	struct lava_client *c = lava_client_new(url, token, &o, err, sizeof(err));
	lava_token_free(token);
	struct lava_devices devs = { 0 };
	int rc = c ? lava_device_type_check(c, b->lava.device_type, &devs, err, sizeof(err)) : -1;
	lava_client_free(c);
	if (rc != 0) {
		hb_info("LAVA: cannot count the idle devices of type %s (%s): one job at a time",
			b->lava.device_type, err);
		return 1;
	}
	hb_info("LAVA server %s: %d of %d device(s) of type %s idle%s%s", url, devs.idle,
		devs.total, b->lava.device_type, devs.unusable[0] ? "; not usable: " : "",
		devs.unusable);
	if (!b->lava.peers.n) {
		if (devs.usable <= 1)
			*cap = INT_MAX;
		else
			hb_info("%s: the %d usable devices of type %s share this host's one traffic peer "
				"(the board names no lava.peers): one job at a time (docs/lava.md, \"A lab\")",
				b->name, devs.usable, b->lava.device_type);
		return 1;
	}
	int n = devs.idle < (int)b->lava.peers.n ? devs.idle : (int)b->lava.peers.n;
	return n > 1 ? n : 1;
}

static int lava_rest_start(struct dut *d, const struct dut_image *img)
{
	const struct board *b = d->board;
	struct lava_rest *r = xcalloc(1, sizeof(*r));
	int to[2] = { -1, -1 }, con[2] = { -1, -1 };

	r->cmd_out = -1;
	r->s.con_in = -1;
	r->peer.orig_fd = r->peer.joined_fd = -1;
	d->priv = r;
	server_url(b, r->url, sizeof(r->url));
	snprintf(r->version, sizeof(r->version), "LAVA server %.500s, device type %.100s", r->url,
		 b->lava.device_type);
	if (!r->url[0]) {
		hb_err("%s: no LAVA server: set $HILBENCH_LAVA_URL or lava.server in the board file",
		       b->path);
		return -1;
	}
	if (!img->workload || !img->run_id) {
		hb_err("%s: the lava backend boots once per run and needs the run to boot for",
		       b->path);
		return -1;
	}
	if (d->timing == TIMING_VIRTUAL) {
		hb_err("%s: a LAVA device runs in real time; run it with --timing realtime "
		       "(or timing: realtime in the plan)", b->path);
		return -1;
	}
	int submitted = submit(d, img, r);
	if (submitted < 0)
		return submitted;
	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(con, O_CLOEXEC) < 0) {
		hb_err("pipe: %s", strerror(errno));
		r->cancel = 1;
		goto fail;
	}
	r->cmd_out = to[0];
	r->s.con_in = con[1];
	if (pthread_create(&r->poller, NULL, poller_main, r) != 0) {
		hb_err("cannot start the LAVA poller");
		goto fail;
	}
	r->poller_started = 1;
	d->con_wr = to[1];
	d->con_rd = con[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0 && to[i] != r->cmd_out)
			close(to[i]);
		if (con[i] >= 0 && con[i] != r->s.con_in)
			close(con[i]);
	}
	return -1;
}

static void lava_rest_stop(struct dut *d)
{
	struct lava_rest *r = d->priv;
	if (!r)
		return;
	if (r->poller_started) {
		/* A run that reached the agent ends the job by itself; a boot
		 * that failed or was interrupted is canceled. */
		if (!r->s.run_sent || hb_interrupted)
			r->cancel = 1;
		lava_session_drain(d, 2 * FINISH_TIMEOUT_S);
		pthread_join(r->poller, NULL);
		if (d->log)
			fprintf(d->log, "\n# hilbench: LAVA job %ld %s; %d result(s), %d not passed "
				"(lava-results.yaml)%s%s\n", r->job_id, r->health[0] ? r->health :
				"(health unknown)", r->s.n_results, r->s.n_failed,
				r->s.job_error[0] ? "; LAVA: " : "", r->s.job_error);
		if (strcmp(r->health, "Complete") && r->s.run_sent && !hb_interrupted)
			hb_err("LAVA job %ld is %s%s%s", r->job_id, r->health[0] ? r->health : "unknown",
			       r->s.job_error[0] ? ": " : "", r->s.job_error);
	}
	netns_leave(&r->peer);
	/* A job the poller could not follow, or one that never started
	 * running here, must not hold the lab's device. */
	if (r->job_id && strcmp(r->state, "Finished") && (!r->s.run_sent || hb_interrupted ||
							   !r->poller_started)) {
		char err[1024];
		if (lava_job_cancel(r->client, r->job_id, err, sizeof(err)) < 0)
			hb_err("LAVA job %ld: cannot cancel: %s; cancel %s/scheduler/job/%ld by hand "
			       "if it still holds the device", r->job_id, err, r->url, r->job_id);
		else
			hb_info("LAVA job %ld canceled", r->job_id);
	}
	if (r->cmd_out >= 0)
		close(r->cmd_out);
	lava_artifacts_close(&r->art);
	lava_session_close(&r->s);
	lava_client_free(r->client);
	free(r);
	d->priv = NULL;
}

static const char *lava_rest_version(struct dut *d)
{
	struct lava_rest *r = d->priv;
	return r ? r->version : "unknown";
}

static const struct deploy_ops lava_rest_ops = {
	.name = "lava",
	.start = lava_rest_start,
	.stop = lava_rest_stop,
	.version = lava_rest_version,
	.slots = lava_rest_slots,
	.one_run_per_boot = 1,
};
DEPLOY_BACKEND(lava_rest_ops)
