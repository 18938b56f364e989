/*
 * pcapfile: count the frames between the host and the DUT in a window of a
 * pcap file that another program appends to while a run goes on: QEMU's
 * `-object filter-dump`, which records every frame the emulated NIC
 * exchanges with its netdev, an independent count from inside the emulator
 * (docs/metrics.md, "Cross-checks").
 *
 * A window is given by file offsets: the file's size just before and just
 * after the run (pcapfile_size()). A record belongs to it when it ends past
 * the first and at or before the second, so consecutive windows never count
 * a record twice, and a record still being written at the second is left to
 * the next window. Frames are classified as capture_classify() does.
 *
 * Contract: pcapfile_size() is the size in bytes, or -1 if the file is
 * missing. pcapfile_each() reads with libpcap and calls fn with each
 * record of the window, its time in microseconds and its captured bytes, in
 * the file's order; 0, or -1 with the reason in err. pcapfile_count() is
 * that with capture_classify(); 0 with the counts (drops is always 0: a
 * file drops nothing) and the test's data span on the file's clock, or -1
 * with the reason in err.
 */
#ifndef HB_PCAPFILE_H
#define HB_PCAPFILE_H

#include <stddef.h>

#include "measure/capture.h"

long long pcapfile_size(const char *path);
typedef void (*pcapfile_fn)(void *ctx, long long t_us, const unsigned char *frame, size_t caplen);
int pcapfile_each(const char *path, long long from, long long to, pcapfile_fn fn, void *ctx,
		  char *err, size_t errlen);
int pcapfile_count(const char *path, long long from, long long to, const char *host_cidr,
		   const char *dut_cidr, struct capture_counts *out, char *err, size_t errlen);

#endif
