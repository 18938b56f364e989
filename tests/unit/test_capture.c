/*
 * The pure parts of the host-side counting: addresses (util/ipv4.c) and the
 * BPF filter text (capture.c), which way a captured frame went (capture.c), and the
 * cross-check of independent counts (crosscheck.c). The capture itself needs
 * a live interface and is exercised by tests/integration/run.sh.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "measure/capture.h"
#include "measure/crosscheck.h"
#include "util/ipv4.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct in_addr addr(const char *s)
{
	struct in_addr a;
	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void test_parse_ipv4(void **state)
{
	struct in_addr a;
	(void)state;
	assert_int_equal(ipv4_parse("198.18.0.1/24", &a), 0);
	assert_int_equal(a.s_addr, addr("198.18.0.1").s_addr);
	assert_int_equal(ipv4_parse("198.19.255.254", &a), 0);
	assert_int_equal(a.s_addr, addr("198.19.255.254").s_addr);
	assert_int_equal(ipv4_parse("fe80::1/64", &a), -1);
	assert_int_equal(ipv4_parse("198.18.0.256/24", &a), -1);
	assert_int_equal(ipv4_parse("", &a), -1);
	assert_int_equal(ipv4_parse("/24", &a), -1);
	assert_int_equal(ipv4_parse("198.18.0.1.198.18.0.1/24", &a), -1);
}

/* "a.b.c.d/len" with len 0-32, and its network: what config/board.c
 * validates board addresses with and deploy/netns.c routes by. */
static void test_parse_ipv4_cidr(void **state)
{
	uint32_t a;
	int len;
	(void)state;
	assert_int_equal(ipv4_parse_cidr("198.18.0.1/24", &a, &len), 0);
	assert_int_equal(a, ntohl(addr("198.18.0.1").s_addr));
	assert_int_equal(len, 24);
	assert_int_equal(ipv4_net_of(a, len), ntohl(addr("198.18.0.0").s_addr));
	assert_int_equal(ipv4_net_of(a, 15), ntohl(addr("198.18.0.0").s_addr));
	assert_int_equal(ipv4_net_of(a, 32), a);
	assert_int_equal(ipv4_net_of(a, 0), 0);
	assert_int_equal(ipv4_parse_cidr("198.18.0.1/0", &a, &len), 0);
	assert_int_equal(len, 0);
	assert_int_equal(ipv4_parse_cidr("198.18.0.1", &a, &len), -1);
	assert_int_equal(ipv4_parse_cidr("198.18.0.1/33", &a, &len), -1);
	assert_int_equal(ipv4_parse_cidr("198.18.0.1/-1", &a, &len), -1);
	assert_int_equal(ipv4_parse_cidr("198.18.0.1/ 24", &a, &len), -1);
	assert_int_equal(ipv4_parse_cidr("198.18.0.1/24x", &a, &len), -1);
	assert_int_equal(ipv4_parse_cidr("198.18.0.256/24", &a, &len), -1);
	assert_int_equal(ipv4_parse_cidr("/24", &a, &len), -1);
}

static void test_filter_text(void **state)
{
	char f[64];
	(void)state;
	assert_int_equal(capture_filter("198.18.0.1/24", "198.18.0.2/24", f, sizeof(f)), 0);
	assert_string_equal(f, "ip host 198.18.0.1 and ip host 198.18.0.2");
	/* the prefix never reaches the filter; a bare address works too */
	assert_int_equal(capture_filter("198.18.1.1", "198.18.1.2/31", f, sizeof(f)), 0);
	assert_string_equal(f, "ip host 198.18.1.1 and ip host 198.18.1.2");
}

static void test_filter_rejects(void **state)
{
	char f[64], small[20];
	(void)state;
	assert_int_equal(capture_filter("198.18.0.1/24", "dut.example/24", f, sizeof(f)), -1);
	assert_int_equal(capture_filter("::1", "198.18.0.2/24", f, sizeof(f)), -1);
	/* 41 characters do not fit in 20: refused, not cut */
	assert_int_equal(capture_filter("198.18.0.1/24", "198.18.0.2/24", small, sizeof(small)), -1);
}

/* An Ethernet II frame with an IPv4 header (the addresses are what counts). */
static size_t frame(unsigned char *f, uint16_t ethertype, const char *src, const char *dst)
{
	memset(f, 0, 64);
	f[12] = (unsigned char)(ethertype >> 8);
	f[13] = (unsigned char)ethertype;
	f[14] = 0x45;	/* version 4, header 5 words */
	f[14 + 9] = 17;	/* UDP */
	struct in_addr s = addr(src), d = addr(dst);
	memcpy(f + 26, &s.s_addr, 4);
	memcpy(f + 30, &d.s_addr, 4);
	return 60;
}

static void test_classify_directions(void **state)
{
	unsigned char f[64];
	struct in_addr host = addr("198.18.0.1"), dut = addr("198.18.0.2");
	(void)state;
	size_t n = frame(f, 0x0800, "198.18.0.2", "198.18.0.1");
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_FROM_DUT);
	n = frame(f, 0x0800, "198.18.0.1", "198.18.0.2");
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_TO_DUT);
	/* the snaplen (96) always covers the addresses; 34 bytes are enough */
	assert_int_equal(capture_classify(f, 34, host, dut), CAPTURE_TO_DUT);
}

static void test_classify_others(void **state)
{
	unsigned char f[64];
	struct in_addr host = addr("198.18.0.1"), dut = addr("198.18.0.2");
	(void)state;
	size_t n = frame(f, 0x0806, "198.18.0.2", "198.18.0.1");	/* ARP */
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_OTHER);
	n = frame(f, 0x8100, "198.18.0.2", "198.18.0.1");	/* VLAN tag */
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_OTHER);
	n = frame(f, 0x86dd, "198.18.0.2", "198.18.0.1");	/* IPv6 */
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_OTHER);
	n = frame(f, 0x0800, "198.18.0.2", "198.18.0.3");	/* to a third host */
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_OTHER);
	n = frame(f, 0x0800, "198.18.0.2", "198.18.0.2");
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_OTHER);
	n = frame(f, 0x0800, "198.18.0.2", "198.18.0.1");
	f[14] = 0x65;	/* not version 4 */
	assert_int_equal(capture_classify(f, n, host, dut), CAPTURE_OTHER);
	f[14] = 0x45;
	assert_int_equal(capture_classify(f, 33, host, dut), CAPTURE_OTHER);	/* truncated */
}

static void test_crosscheck_measured_runs_agree(void **state)
{
	/* udp64-smoke, virtual time: DUT tx_packets, hb0 rx_packets, pcap (no ARP) */
	const long long udp[] = { 18245, 18245, 18243 };
	/* tcp-rx-smoke's ACKs: identical everywhere */
	const long long tcp[] = { 1164, 1164, 1164 };
	struct crosscheck c;
	(void)state;
	assert_int_equal(crosscheck_counts(udp, N(udp), &c), 0);
	assert_false(c.inconsistent);
	assert_true(c.max_pct > 0.01096 && c.max_pct < 0.01097);	/* 2 / 18245 */
	assert_int_equal(c.worst_a, 0);
	assert_int_equal(c.worst_b, 2);
	assert_int_equal(crosscheck_counts(tcp, N(tcp), &c), 0);
	assert_false(c.inconsistent);
	assert_true(c.max_pct == 0);
}

/* The worst pair in words, as agent.log's crosscheck line and the warning
 * of an inconsistent run both print it. */
static void test_crosscheck_pair_text(void **state)
{
	const long long v[] = { 18245, 18245, 17333 };
	static const char *const names[] = { "DUT tx_packets", "host rx_packets", "pcap" };
	struct crosscheck c;
	char buf[160];
	(void)state;
	assert_int_equal(crosscheck_counts(v, N(v), &c), 0);
	assert_string_equal(crosscheck_pair_text(&c, v, names, buf, sizeof(buf)),
			    "DUT tx_packets 18245 vs pcap 17333 (4.999 %)");
	assert_string_equal(crosscheck_pair_text(&c, v, names, buf, 12), "DUT tx_pack");
}

static void test_crosscheck_flags_a_disagreement(void **state)
{
	/* pcap missed 5 % of the frames */
	const long long v[] = { 18245, 18245, 17333 };
	struct crosscheck c;
	(void)state;
	assert_int_equal(crosscheck_counts(v, N(v), &c), 0);
	assert_true(c.inconsistent);
	assert_true(c.max_pct > 4.99 && c.max_pct < 5.0);
	assert_int_equal(c.worst_a, 0);
	assert_int_equal(c.worst_b, 2);
}

static void test_crosscheck_needs_both_margins(void **state)
{
	struct crosscheck c;
	(void)state;
	/* few frames: 2 ARP frames of 17 are 12 % but within the frame slack */
	const long long few[] = { 17, 17, 15 };
	assert_int_equal(crosscheck_counts(few, N(few), &c), 0);
	assert_false(c.inconsistent);
	assert_true(c.max_pct > 11.7 && c.max_pct < 11.8);
	const long long slack[] = { 1000, 1000 - CROSSCHECK_TOL_FRAMES };
	assert_int_equal(crosscheck_counts(slack, N(slack), &c), 0);
	assert_false(c.inconsistent);
	const long long beyond[] = { 1000, 1000 - CROSSCHECK_TOL_FRAMES - 1 };
	assert_int_equal(crosscheck_counts(beyond, N(beyond), &c), 0);
	assert_true(c.inconsistent);
	/* many frames: 90 of 100000 is within 0.1 %, 110 is not */
	const long long within[] = { 100000, 99910 }, over[] = { 100000, 99890 };
	assert_int_equal(crosscheck_counts(within, N(within), &c), 0);
	assert_false(c.inconsistent);
	assert_int_equal(crosscheck_counts(over, N(over), &c), 0);
	assert_true(c.inconsistent);
}

static void test_crosscheck_missing_and_zero(void **state)
{
	struct crosscheck c = { .max_pct = -7 };
	(void)state;
	const long long one[] = { -1, 500, -1 };
	assert_int_equal(crosscheck_counts(one, N(one), &c), -1);
	assert_true(c.max_pct == -7);	/* untouched */
	const long long two[] = { -1, 500, 400 };
	assert_int_equal(crosscheck_counts(two, N(two), &c), 0);
	assert_true(c.inconsistent);
	assert_int_equal(c.worst_a, 1);
	assert_int_equal(c.worst_b, 2);
	const long long zeros[] = { 0, 0, 0 };
	assert_int_equal(crosscheck_counts(zeros, N(zeros), &c), 0);
	assert_false(c.inconsistent);
	assert_true(c.max_pct == 0);
	/* a count of nothing against a count of something is 100 % off */
	const long long none[] = { 40, 40, 0 };
	assert_int_equal(crosscheck_counts(none, N(none), &c), 0);
	assert_true(c.inconsistent);
	assert_true(c.max_pct == 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ipv4),
		cmocka_unit_test(test_parse_ipv4_cidr),
		cmocka_unit_test(test_filter_text),
		cmocka_unit_test(test_filter_rejects),
		cmocka_unit_test(test_classify_directions),
		cmocka_unit_test(test_classify_others),
		cmocka_unit_test(test_crosscheck_measured_runs_agree),
		cmocka_unit_test(test_crosscheck_pair_text),
		cmocka_unit_test(test_crosscheck_flags_a_disagreement),
		cmocka_unit_test(test_crosscheck_needs_both_margins),
		cmocka_unit_test(test_crosscheck_missing_and_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
