/*
 * qmp: the QEMU Machine Protocol, as far as the qemu backend needs it: save
 * a running guest into a file and start a guest from such a file (QEMU's
 * migration to and from a file descriptor passed over the QMP socket).
 *
 * Contract: qmp_open() takes one end of a connected socket whose other end
 * QEMU has as its control monitor (-chardev socket,fd=N -mon ...,mode=control),
 * reads the greeting and enables commands. qmp_save() migrates the running
 * guest into state_fd and lets it run on from where it was saved;
 * qmp_load() fills a guest started with -incoming defer from state_fd and
 * returns once it runs. Each returns 0, or -1 with the reason in err; each
 * waits at most timeout_s. What QEMU sends is read as untrusted input: a
 * line longer than QMP_LINE_MAX or not a JSON object fails the call, and
 * only the fields named here are read. qmp_close() closes the socket;
 * idempotent.
 */
#ifndef HB_QMP_H
#define HB_QMP_H

#include <stddef.h>

#define QMP_LINE_MAX 65536

struct qmp {
	int fd;
	size_t len;
	char buf[QMP_LINE_MAX];
};

int qmp_open(struct qmp *q, int fd, double timeout_s, char *err, size_t errlen);
int qmp_save(struct qmp *q, int state_fd, double timeout_s, char *err, size_t errlen);
int qmp_load(struct qmp *q, int state_fd, double timeout_s, char *err, size_t errlen);
void qmp_close(struct qmp *q);

#endif
