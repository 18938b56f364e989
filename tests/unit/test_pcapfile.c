/*
 * pcapfile: counting a window of a pcap file that grows during a run, as
 * QEMU's filter-dump file does. The file is written here with libpcap's
 * own dump writer, frame by frame, recording the size after each as the
 * runner does before and after a run.
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "measure/pcapfile.h"

#define HOST "198.18.0.1/24"
#define DUT "198.18.0.2/24"

/* An Ethernet frame: IPv4 from src to dst, or ARP when src is NULL. */
static void frame(unsigned char f[60], const char *src, const char *dst)
{
	memset(f, 0, 60);
	f[12] = 0x08;
	f[13] = src ? 0x00 : 0x06;
	if (!src)
		return;
	f[14] = 0x45;
	inet_pton(AF_INET, src, f + 26);
	inet_pton(AF_INET, dst, f + 30);
}

struct dumpfile {
	char path[64];
	pcap_t *dead;
	pcap_dumper_t *d;
};

static void open_dump(struct dumpfile *df)
{
	snprintf(df->path, sizeof(df->path), "/tmp/hb-test-pcapfile.XXXXXX");
	int fd = mkstemp(df->path);
	assert_true(fd >= 0);
	close(fd);
	df->dead = pcap_open_dead(DLT_EN10MB, 96);
	df->d = pcap_dump_open(df->dead, df->path);
	assert_non_null(df->d);
	pcap_dump_flush(df->d);
}

/* Appends a frame and returns the file's size after it. */
static long long add(struct dumpfile *df, const char *src, const char *dst)
{
	unsigned char f[60];
	struct pcap_pkthdr h = { .caplen = 60, .len = 60 };
	frame(f, src, dst);
	pcap_dump((u_char *)df->d, &h, f);
	pcap_dump_flush(df->d);
	return pcapfile_size(df->path);
}

static void close_dump(struct dumpfile *df)
{
	pcap_dump_close(df->d);
	pcap_close(df->dead);
	unlink(df->path);
}

static void test_windows(void **state)
{
	(void)state;
	struct dumpfile df;
	struct capture_counts c;
	char err[256];
	open_dump(&df);
	long long start = pcapfile_size(df.path);	/* header only: before run 1 */
	add(&df, "198.18.0.2", "198.18.0.1");
	add(&df, NULL, NULL);				/* ARP: not counted */
	add(&df, "198.18.0.1", "198.18.0.2");
	long long mid = add(&df, "198.18.0.2", "198.18.0.1");	/* end of run 1 */
	add(&df, "198.18.0.2", "198.18.0.1");
	add(&df, "198.18.0.2", "198.18.0.9");		/* someone else: not counted */
	long long end = add(&df, "198.18.0.1", "198.18.0.2");

	assert_int_equal(pcapfile_count(df.path, start, mid, HOST, DUT, &c, err, sizeof(err)), 0);
	assert_int_equal(c.from_dut, 2);
	assert_int_equal(c.to_dut, 1);
	assert_int_equal(c.drops, 0);
	assert_int_equal(pcapfile_count(df.path, mid, end, HOST, DUT, &c, err, sizeof(err)), 0);
	assert_int_equal(c.from_dut, 1);
	assert_int_equal(c.to_dut, 1);
	/* an empty window, and one the file has not reached yet */
	assert_int_equal(pcapfile_count(df.path, end, end, HOST, DUT, &c, err, sizeof(err)), 0);
	assert_int_equal(c.from_dut + c.to_dut, 0);
	assert_int_equal(pcapfile_count(df.path, end, end + 1000, HOST, DUT, &c, err, sizeof(err)), 0);
	assert_int_equal(c.from_dut + c.to_dut, 0);
	close_dump(&df);
}

struct seen {
	long long t[8];
	size_t caplen[8];
	int n;
};

static void note(void *ctx, long long t_us, const unsigned char *frame, size_t caplen)
{
	struct seen *s = ctx;
	(void)frame;
	if (s->n < 8) {
		s->t[s->n] = t_us;
		s->caplen[s->n] = caplen;
	}
	s->n++;
}

/* Each record of a window, in order, with its time in microseconds. */
static void test_each_record_with_its_time(void **state)
{
	(void)state;
	struct dumpfile df;
	char err[256];
	open_dump(&df);
	long long start = pcapfile_size(df.path), at[3];
	unsigned char f[60];
	frame(f, "198.18.0.2", "198.18.0.1");
	for (int i = 0; i < 3; i++) {
		struct pcap_pkthdr h = { .ts = { 1796432305 + i, 585377 }, .caplen = 54 - i,
					 .len = 60 };
		pcap_dump((u_char *)df.d, &h, f);
		pcap_dump_flush(df.d);
		at[i] = pcapfile_size(df.path);
	}
	struct seen s = { .n = 0 };
	assert_int_equal(pcapfile_each(df.path, start, at[1], note, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_true(s.t[0] == 1796432305585377LL && s.t[1] == 1796432306585377LL);
	assert_int_equal(s.caplen[0], 54);
	assert_int_equal(s.caplen[1], 53);
	s.n = 0;
	assert_int_equal(pcapfile_each(df.path, at[1], at[2], note, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.t[0] == 1796432307585377LL);
	close_dump(&df);
}

static void test_errors(void **state)
{
	(void)state;
	struct capture_counts c;
	char err[256];
	assert_int_equal(pcapfile_size("/nonexistent/netdev.pcap"), -1);
	assert_int_equal(pcapfile_count("/nonexistent/netdev.pcap", 0, 100, HOST, DUT, &c, err,
					sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/netdev.pcap"));
	char path[] = "/tmp/hb-test-pcapfile.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a pcap file at all, not even close", 38), 38);
	close(fd);
	assert_int_equal(pcapfile_count(path, 0, 38, HOST, DUT, &c, err, sizeof(err)), -1);
	assert_int_equal(pcapfile_count(path, 0, 38, "fe80::1", DUT, &c, err, sizeof(err)), -1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_each_record_with_its_time),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
