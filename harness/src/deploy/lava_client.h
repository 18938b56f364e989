/*
 * lava_client: LAVA's REST API (v0.2) over libcurl, for the lava backend
 * and `hilbench lava submit` (docs/lava.md).
 *
 * Contract (util.h's enum hb_fail): every call returns 0, or
 * HB_FAIL_INPUT when the server answered 4xx (err carries the status and
 * the server's own message: a bad job, a wrong token: the user's to fix),
 * or HB_FAIL_LAB when it could not be reached or kept failing (connection
 * refused, timeouts, 5xx) after the retries, each retry waiting twice as
 * long as the one before. A run interrupted by SIGINT/SIGTERM
 * (hb_interrupted) stops retrying and returns HB_FAIL_LAB, unless the
 * client is uninterruptible. The token is sent in the Authorization header only and
 * never appears in a message, a log or err.
 */
#ifndef HB_LAVA_CLIENT_H
#define HB_LAVA_CLIENT_H

#include <stddef.h>

#define LAVA_TOKEN_ENV "HILBENCH_LAVA_TOKEN"
#define LAVA_TOKEN_FILE_ENV "HILBENCH_LAVA_TOKEN_FILE"

struct lava_client;

struct lava_client_opts {
	int attempts;		/* per request, >= 1; 0: 5 */
	double backoff_s;	/* first wait between attempts; 0: 1 s */
	long timeout_s;		/* per attempt; 0: 30 s */
	/* Ctrl-C does not end this client's requests (each still ends after
	 * its retries): for the cancel and the last logs after an interrupt. */
	int uninterruptible;
};

/* Moves $HILBENCH_LAVA_TOKEN out of the environment into this process's
 * memory, the environment's copy wiped: no child started after it (QEMU,
 * make, lava-run) inherits the token. main() calls it before anything
 * else; lava_token_load() calls it too. */
void lava_token_take_env(void);
/* The token from $HILBENCH_LAVA_TOKEN_FILE (a file holding it) or else
 * $HILBENCH_LAVA_TOKEN; *token is NULL when neither is set. -1 with the
 * reason in err when the file cannot be read or is empty. Free it with
 * lava_token_free(). */
int lava_token_load(char **token, char *err, size_t errlen);
/* Wipes the token, then frees it; NULL is fine. */
void lava_token_free(char *token);

/* url: the server's root, e.g. https://lava.example.org/. The token goes
 * in a header, so url must be https://, or http:// to this machine
 * (localhost, 127.0.0.0/8, [::1]; with a warning), or http:// with
 * $HILBENCH_LAVA_ALLOW_HTTP=1 (a louder one); else NULL with the reason in
 * err. token may be NULL (anonymous: reading public jobs works, submitting
 * does not). */
struct lava_client *lava_client_new(const char *url, const char *token,
				    const struct lava_client_opts *o, char *err, size_t errlen);
void lava_client_free(struct lava_client *c);
/* Is url's host this machine (localhost, 127.0.0.0/8, [::1])? Then its
 * workers may be here too, and reach an artifact host on loopback. */
int lava_url_is_loopback(const char *url);

/* Is the device there and usable? HB_FAIL_INPUT with the reason when its
 * health is Bad, Maintenance or Retired, or it does not exist. */
int lava_device_check(struct lava_client *c, const char *hostname, char *err, size_t errlen);

/* The devices of one device type, as the server lists them: LAVA
 * schedules a job for the type on any of them that is usable and idle. */
struct lava_devices {
	int total;		/* devices of the type */
	int usable;		/* health Good or Unknown: the scheduler may give them jobs */
	int idle;		/* usable and state Idle: a job for the type starts at once */
	char unusable[256];	/* "r7800-02 (Bad), ..." (printable, cut), for messages */
};
/* Upper bounds on what a server's answer may claim: one page's results,
 * the pages read (LAVA pages by limit and offset), a device count. */
#define LAVA_DEVICES_PAGE 100
#define LAVA_DEVICES_PAGES 20
#define LAVA_DEVICES_MAX (LAVA_DEVICES_PAGE * LAVA_DEVICES_PAGES)
/* One page of GET /api/v0.2/devices/?device_type=T (hostile input: JSON
 * with count and results[], each with hostname, device_type, health and
 * state) added to *d; devices of another type are not counted. Returns the
 * page's number of results (0 .. LAVA_DEVICES_PAGE) with *count the
 * server's total (0 .. LAVA_DEVICES_MAX), or -1 with the reason in err
 * for anything else. */
int lava_devices_parse(const char *json, const char *device_type, struct lava_devices *d,
		       int *count, char *err, size_t errlen);
/* Every device of the type into *d; HB_FAIL_INPUT with the reason when the
 * type has none that is usable (or a name that is no URL path segment). */
int lava_device_type_check(struct lava_client *c, const char *device_type,
			   struct lava_devices *d, char *err, size_t errlen);
int lava_submit(struct lava_client *c, const char *job_yaml, long *job_id, char *err,
		size_t errlen);
/* state: Submitted, Scheduling, Scheduled, Running, Canceling, Finished;
 * health: Unknown, Complete, Incomplete, Canceled. */
int lava_job_status(struct lava_client *c, long job_id, char state[32], char health[32],
		    char *err, size_t errlen);
/* The hostname of the device the job runs on (its actual_device); "" while
 * it has none, or when the name is not letters, digits and ._- (hostile
 * input: never copied then). */
int lava_job_device(struct lava_client *c, long job_id, char device[64], char *err,
		    size_t errlen);
/* Log lines from line `start` on (YAML, one entry per line as lava-run
 * prints them); *text is a new string, maybe empty. */
int lava_job_logs(struct lava_client *c, long job_id, long start, char **text, char *err,
		  size_t errlen);
int lava_job_cancel(struct lava_client *c, long job_id, char *err, size_t errlen);

#endif
