/*
 * The agent's `hbcmd set` command and what it reads to apply a setting:
 * `ethtool -c` output, /proc/interrupts, and the rtnetlink messages of the
 * qdisc method (agent_proto.c). The netlink answers here are built by hand
 * in the layout 6.1's netlink_ack() and tc_fill_qdisc() produce.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "agent_proto.h"

static char err[256];

static void test_set_valid(void **state)
{
	(void)state;
	struct set_spec ss;
	assert_int_equal(set_command_parse("hbcmd set id=r1-s1 method=ethtool-coalesce "
					   "key=tx-usecs value=5000\r\n", &ss, err, sizeof(err)), 1);
	assert_string_equal(ss.id, "r1-s1");
	assert_int_equal(ss.method, SET_ETHTOOL_COALESCE);
	assert_string_equal(ss.key, "tx-usecs");
	assert_string_equal(ss.value, "5000");
	/* keys in any order; a sysfs path below the interface */
	assert_int_equal(set_command_parse("hbcmd set value=00000001 key=queues/rx-0/rps_cpus "
					   "method=sysfs-net id=x", &ss, err, sizeof(err)), 1);
	assert_int_equal(ss.method, SET_SYSFS_NET);
	assert_string_equal(ss.key, "queues/rx-0/rps_cpus");
	assert_int_equal(set_command_parse("hbcmd set id=x method=irq-affinity key=smp_affinity "
					   "value=1", &ss, err, sizeof(err)), 1);
	assert_int_equal(ss.method, SET_IRQ_AFFINITY);
	assert_int_equal(set_command_parse("hbcmd set id=x method=qdisc key=root value=fq_codel",
					   &ss, err, sizeof(err)), 1);
	assert_int_equal(ss.method, SET_QDISC);
	assert_string_equal(ss.value, "fq_codel");
}

static void test_not_set(void **state)
{
	(void)state;
	struct set_spec ss;
	assert_int_equal(set_command_parse("hbcmd run id=x", &ss, err, sizeof(err)), 0);
	assert_int_equal(set_command_parse("hbcmd poweroff", &ss, err, sizeof(err)), 0);
	assert_int_equal(set_command_parse("hbcmdset id=x", &ss, err, sizeof(err)), 0);
	assert_int_equal(set_command_parse("hbcmd settle", &ss, err, sizeof(err)), 0);
	assert_int_equal(set_command_parse("", &ss, err, sizeof(err)), 0);
}

struct bad {
	const char *line, *phrase, *id;
};

static const struct bad bads[] = {
	{ "hbcmd set id=x method=ethtool-coalesce key=tx-usecs", "missing value=", "?" },
	{ "hbcmd set id=x id=y method=sysfs-net key=a value=1", "id= given twice", "?" },
	{ "hbcmd set id=x method=sysfs-net key=a value=1 extra", "'extra' is not key=value", "?" },
	{ "hbcmd set id=x method=sysfs-net key=a value=1 path=/etc", "unknown key in 'path=/etc'",
	  "?" },
	{ "hbcmd set id=../x method=sysfs-net key=a value=1", "id=../x: use", "?" },
	{ "hbcmd set id=x method=shell key=a value=1", "method=shell: use", "x" },
	{ "hbcmd set id=x method=sysfs-net key=../../../etc/passwd value=1", "key=../../../etc",
	  "x" },
	{ "hbcmd set id=x method=sysfs-net key=/proc/sys value=1", "key=/proc/sys", "x" },
	{ "hbcmd set id=x method=sysfs-net key=a//b value=1", "key=a//b", "x" },
	{ "hbcmd set id=x method=ethtool-coalesce key=queues/tx value=1", "key=queues/tx", "x" },
	{ "hbcmd set id=x method=sysfs-net key=Tx value=1", "key=Tx", "x" },
	{ "hbcmd set id=x method=sysfs-net key=a value=1;reboot", "value=1;reboot", "x" },
	{ "hbcmd set id=x method=sysfs-net key=a value=", "value=: use", "x" },
	{ "hbcmd set id=x method=qdisc key=ingress value=fq", "key=ingress: a qdisc setting "
	  "replaces the root qdisc", "x" },
	{ "hbcmd set id=x method=qdisc key=root value=FQ", "value=FQ: a qdisc kind is 1-15 of",
	  "x" },
	{ "hbcmd set id=x method=qdisc key=root value=pfifo_head_dropx", "value=pfifo_head_dropx",
	  "x" },
	{ "hbcmd set id=x method=sysfs-net key=a "
	  "value=0123456789012345678901234567890123456789012345678901234567890123456789",
	  "value= is longer than 63", "?" },
};

static void test_set_invalid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct set_spec ss;
		err[0] = '\0';
		int rc = set_command_parse(bads[i].line, &ss, err, sizeof(err));
		if (rc != -1 || !strstr(err, bads[i].phrase) || strcmp(ss.id, bads[i].id))
			print_error("%s\n  -> %d, id=%s, '%s'\n", bads[i].line, rc, ss.id, err);
		assert_int_equal(rc, -1);
		assert_non_null(strstr(err, bads[i].phrase));
		assert_string_equal(ss.id, bads[i].id);
	}
}

/* ethtool 6.1's -c output on dwmac-sun8i (abridged to the shape that matters) */
static const char ethtool_c[] =
	"Coalesce parameters for eth0:\n"
	"Adaptive RX: n/a  TX: n/a\n"
	"stats-block-usecs:\tn/a\n"
	"rx-usecs:\t0\n"
	"rx-frames:\t0\n"
	"rx-usecs-irq:\tn/a\n"
	"tx-usecs:\t1000\n"
	"tx-frames:\t25\n"
	"tx-usecs-irq:\tn/a\n";

static void test_ethtool_coalesce_value(void **state)
{
	(void)state;
	char v[16];
	assert_int_equal(ethtool_coalesce_value(ethtool_c, "tx-usecs", v, sizeof(v)), 0);
	assert_string_equal(v, "1000");
	assert_int_equal(ethtool_coalesce_value(ethtool_c, "tx-frames", v, sizeof(v)), 0);
	assert_string_equal(v, "25");
	assert_int_equal(ethtool_coalesce_value(ethtool_c, "rx-usecs", v, sizeof(v)), 0);
	assert_string_equal(v, "0");	/* not rx-usecs-irq */
	assert_int_equal(ethtool_coalesce_value(ethtool_c, "tx-usecs-irq", v, sizeof(v)), 0);
	assert_string_equal(v, "n/a");
	assert_int_equal(ethtool_coalesce_value(ethtool_c, "tx-usec", v, sizeof(v)), -1);
	assert_int_equal(ethtool_coalesce_value(ethtool_c, "pkt-rate-low", v, sizeof(v)), -1);
	assert_int_equal(ethtool_coalesce_value("tx-usecs:\t123456789", "tx-usecs", v, 4), -1);
	assert_int_equal(ethtool_coalesce_value("tx-usecs:\n", "tx-usecs", v, sizeof(v)), -1);
}

static const char interrupts[] =
	"           CPU0       \n"
	" 17:          0     GIC-0  29 Level     arch_timer\n"
	" 39:        512     GIC-0  32 Level     ttyS0\n"
	" 40:      18255     GIC-0 114 Level     eth0\n"
	" 41:          0     GIC-0 115 Level     eth0x\n"
	"IPI0:         0  CPU wakeup interrupts\n";

static void test_iface_irq(void **state)
{
	(void)state;
	unsigned irq = 0;
	assert_int_equal(iface_irq_parse(interrupts, "eth0", &irq), 0);
	assert_int_equal(irq, 40);
	assert_int_equal(iface_irq_parse(interrupts, "eth0x", &irq), 0);
	assert_int_equal(irq, 41);
	assert_int_equal(iface_irq_parse(interrupts, "eth1", &irq), -1);
	assert_int_equal(iface_irq_parse(interrupts, "wakeup", &irq), -1);	/* IPI0: not a number */
	assert_int_equal(iface_irq_parse("", "eth0", &irq), -1);
}

/* ---- rtnetlink for the qdisc method ---- */

static void test_qdisc_requests(void **state)
{
	(void)state;
	unsigned char buf[256];
	struct nlmsghdr nh;
	struct tcmsg tm;
	struct rtattr ra;
	size_t len = qdisc_replace_request(buf, sizeof(buf), 42, 3, "fq_codel");

	assert_int_equal(len, NLMSG_SPACE(sizeof(tm)) + RTA_SPACE(sizeof("fq_codel")));
	memcpy(&nh, buf, sizeof(nh));
	assert_int_equal(nh.nlmsg_len, len);
	assert_int_equal(nh.nlmsg_type, RTM_NEWQDISC);
	/* what `tc qdisc replace` sends: create it, or replace what is there */
	assert_int_equal(nh.nlmsg_flags,
			 NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	assert_int_equal(nh.nlmsg_seq, 42);
	memcpy(&tm, buf + NLMSG_HDRLEN, sizeof(tm));
	assert_int_equal(tm.tcm_ifindex, 3);
	assert_int_equal(tm.tcm_parent, TC_H_ROOT);
	assert_int_equal(tm.tcm_handle, 0);
	memcpy(&ra, buf + NLMSG_SPACE(sizeof(tm)), sizeof(ra));
	assert_int_equal(ra.rta_type, TCA_KIND);
	assert_int_equal(ra.rta_len, RTA_LENGTH(sizeof("fq_codel")));
	assert_string_equal((char *)buf + NLMSG_SPACE(sizeof(tm)) + RTA_LENGTH(0), "fq_codel");
	/* no TCA_OPTIONS: the qdisc's defaults */
	assert_int_equal(qdisc_replace_request(buf, 20, 1, 3, "fq"), 0);
	assert_int_equal(qdisc_replace_request(buf, sizeof(buf), 1, 3, "sixteen_chars_xx"), 0);

	len = qdisc_dump_request(buf, sizeof(buf), 7);
	assert_int_equal(len, NLMSG_SPACE(sizeof(tm)));
	memcpy(&nh, buf, sizeof(nh));
	assert_int_equal(nh.nlmsg_type, RTM_GETQDISC);
	assert_int_equal(nh.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(nh.nlmsg_seq, 7);
}

/* What `ip addr add 198.18.0.2/24 dev <3>` sends, and the addresses the
 * agent must refuse rather than send half-parsed. */
static void test_addr_add_request(void **state)
{
	(void)state;
	unsigned char buf[256];
	struct nlmsghdr nh;
	struct ifaddrmsg ifa;
	struct rtattr ra;
	struct in_addr want, got;
	size_t attr = RTA_SPACE(sizeof(got));
	size_t len = addr_add_request(buf, sizeof(buf), 9, 3, "198.18.0.2/24");

	assert_int_equal(len, NLMSG_SPACE(sizeof(ifa)) + 2 * attr);
	memcpy(&nh, buf, sizeof(nh));
	assert_int_equal(nh.nlmsg_len, len);
	assert_int_equal(nh.nlmsg_type, RTM_NEWADDR);
	assert_int_equal(nh.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	assert_int_equal(nh.nlmsg_seq, 9);
	memcpy(&ifa, buf + NLMSG_HDRLEN, sizeof(ifa));
	assert_int_equal(ifa.ifa_family, AF_INET);
	assert_int_equal(ifa.ifa_prefixlen, 24);
	assert_int_equal(ifa.ifa_scope, RT_SCOPE_UNIVERSE);
	assert_int_equal(ifa.ifa_index, 3);
	inet_pton(AF_INET, "198.18.0.2", &want);
	for (int i = 0; i < 2; i++) {
		const unsigned char *at = buf + NLMSG_SPACE(sizeof(ifa)) + (size_t)i * attr;
		memcpy(&ra, at, sizeof(ra));
		assert_int_equal(ra.rta_type, i == 0 ? IFA_LOCAL : IFA_ADDRESS);
		assert_int_equal(ra.rta_len, RTA_LENGTH(sizeof(got)));
		memcpy(&got, at + RTA_LENGTH(0), sizeof(got));
		assert_int_equal(got.s_addr, want.s_addr);
	}
	assert_int_not_equal(addr_add_request(buf, sizeof(buf), 1, 3, "198.18.0.2/0"), 0);
	assert_int_not_equal(addr_add_request(buf, sizeof(buf), 1, 3, "198.18.0.2/32"), 0);
	static const char *const bad[] = { "198.18.0.2", "198.18.0.2/", "198.18.0.2/33",
					   "198.18.0.2/-1", "198.18.0.2/2x", "198.18.0.2/024",
					   "198.18.0/24", "fe80::1/64", "/24",
					   "198.18.0.2.198.18.0.2.198.18/24" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(addr_add_request(buf, sizeof(buf), 1, 3, bad[i]), 0);
	assert_int_equal(addr_add_request(buf, len - 1, 1, 3, "198.18.0.2/24"), 0);
}

/* Appends one netlink message (header + payload) at *off. */
static void put_msg(unsigned char *buf, size_t *off, uint16_t type, uint16_t flags,
		    uint32_t seq, const void *payload, size_t plen)
{
	struct nlmsghdr nh = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(plen), .nlmsg_type = type,
			       .nlmsg_flags = flags, .nlmsg_seq = seq };
	memcpy(buf + *off, &nh, sizeof(nh));
	memcpy(buf + *off + NLMSG_HDRLEN, payload, plen);
	*off += NLMSG_SPACE(plen);
}

/* Appends one attribute to p at *off. */
static void put_attr(unsigned char *p, size_t *off, unsigned short type, const void *data,
		     size_t n)
{
	struct rtattr ra = { .rta_len = (unsigned short)RTA_LENGTH(n), .rta_type = type };
	memcpy(p + *off, &ra, sizeof(ra));
	memcpy(p + *off + RTA_LENGTH(0), data, n);
	*off += RTA_SPACE(n);
}

/* 6.1's answer to our request with an extended ack: nlmsgerr, our whole
 * request unless capped, then NLMSGERR_ATTR_MSG. */
static size_t error_answer(unsigned char *out, uint32_t seq, int error, int capped,
			   const char *text)
{
	unsigned char req[128], payload[512];
	size_t rlen = qdisc_replace_request(req, sizeof(req), seq, 2, "cake"), n, off = 0;
	struct nlmsgerr e = { .error = error };

	memcpy(&e.msg, req, sizeof(e.msg));
	memcpy(payload, &e, sizeof(e));
	n = sizeof(e);
	if (!capped) {
		memcpy(payload + n, req + NLMSG_HDRLEN, rlen - NLMSG_HDRLEN);
		n += rlen - NLMSG_HDRLEN;
	}
	n = NLMSG_ALIGN(n);
	if (text)
		put_attr(payload, &n, NLMSGERR_ATTR_MSG, text, strlen(text) + 1);
	put_msg(out, &off, NLMSG_ERROR,
		(uint16_t)((text ? NLM_F_ACK_TLVS : 0) | (capped ? NLM_F_CAPPED : 0)), seq,
		payload, n);
	return off;
}

static void test_netlink_ack(void **state)
{
	(void)state;
	unsigned char buf[1024];
	char msg[128];
	int errnum = -1;
	size_t n;

	n = error_answer(buf, 5, -ENOENT, 0, "Specified qdisc kind is unknown");
	assert_int_equal(netlink_ack_parse(buf, n, 5, &errnum, msg, sizeof(msg)), 1);
	assert_int_equal(errnum, ENOENT);
	assert_string_equal(msg, "Specified qdisc kind is unknown");
	n = error_answer(buf, 5, -ENOENT, 1, "Specified qdisc kind is unknown");
	assert_int_equal(netlink_ack_parse(buf, n, 5, &errnum, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "Specified qdisc kind is unknown");
	/* errno only (tbf without parameters says nothing more) */
	n = error_answer(buf, 6, -EINVAL, 0, NULL);
	assert_int_equal(netlink_ack_parse(buf, n, 6, &errnum, msg, sizeof(msg)), 1);
	assert_int_equal(errnum, EINVAL);
	assert_string_equal(msg, "");
	/* the ack */
	n = error_answer(buf, 7, 0, 1, NULL);
	assert_int_equal(netlink_ack_parse(buf, n, 7, &errnum, msg, sizeof(msg)), 1);
	assert_int_equal(errnum, 0);
	/* someone else's answer, then a datagram cut short */
	assert_int_equal(netlink_ack_parse(buf, n, 8, &errnum, msg, sizeof(msg)), 0);
	assert_int_equal(netlink_ack_parse(buf, n - 1, 7, &errnum, msg, sizeof(msg)), -1);
	assert_int_equal(netlink_ack_parse(buf, 10, 7, &errnum, msg, sizeof(msg)), -1);
	/* an error code that is no -errno is malformed, not negated (INT_MIN
	 * has no positive; found by fuzz_agent_set) */
	n = error_answer(buf, 10, INT32_MIN, 1, NULL);
	assert_int_equal(netlink_ack_parse(buf, n, 10, &errnum, msg, sizeof(msg)), -1);
	n = error_answer(buf, 10, 5, 1, NULL);
	assert_int_equal(netlink_ack_parse(buf, n, 10, &errnum, msg, sizeof(msg)), -1);
	/* an extended ack's text is kept printable */
	n = error_answer(buf, 9, -EINVAL, 1, "bad\x01\x7fthing");
	assert_int_equal(netlink_ack_parse(buf, n, 9, &errnum, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "bad??thing");
}

/* One RTM_NEWQDISC of a dump: tcmsg, TCA_KIND, a TCA_STATS-like attribute. */
static void put_qdisc(unsigned char *buf, size_t *off, uint32_t seq, int ifindex,
		      uint32_t parent, const char *kind)
{
	unsigned char payload[256];
	struct tcmsg tm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			    .tcm_parent = parent };
	uint32_t stats[4] = { 1, 2, 3, 4 };
	size_t n = NLMSG_ALIGN(sizeof(tm));

	memcpy(payload, &tm, sizeof(tm));
	put_attr(payload, &n, TCA_KIND, kind, strlen(kind) + 1);
	put_attr(payload, &n, TCA_STATS, stats, sizeof(stats));
	put_msg(buf, off, RTM_NEWQDISC, NLM_F_MULTI, seq, payload, n);
}

static void test_qdisc_dump(void **state)
{
	(void)state;
	unsigned char buf[2048];
	char kind[QDISC_KIND_MAX] = "";
	int errnum = -1, done_code = 0;
	size_t off = 0;

	/* lo's root, then eth0's (ifindex 2) mq root and a pfifo_fast child */
	put_qdisc(buf, &off, 11, 1, TC_H_ROOT, "noqueue");
	put_qdisc(buf, &off, 11, 2, TC_H_ROOT, "mq");
	put_qdisc(buf, &off, 11, 2, TC_H_MAKE(0x80010000u, 1), "pfifo_fast");
	assert_int_equal(qdisc_dump_parse(buf, off, 11, 2, kind, sizeof(kind), &errnum), 0);
	assert_string_equal(kind, "mq");
	assert_int_equal(errnum, 0);
	off = 0;
	put_msg(buf, &off, NLMSG_DONE, NLM_F_MULTI, 11, &done_code, sizeof(done_code));
	assert_int_equal(qdisc_dump_parse(buf, off, 11, 2, kind, sizeof(kind), &errnum), 1);
	assert_string_equal(kind, "mq");	/* kept from the datagram before */
	/* another request's DONE does not end ours */
	assert_int_equal(qdisc_dump_parse(buf, off, 12, 2, kind, sizeof(kind), &errnum), 0);

	/* a kernel without the qdisc API answers the dump with an error */
	int code = -EOPNOTSUPP;
	off = 0;
	put_msg(buf, &off, NLMSG_ERROR, 0, 13, &code, sizeof(code));
	assert_int_equal(qdisc_dump_parse(buf, off, 13, 2, kind, sizeof(kind), &errnum), -1);
	assert_int_equal(errnum, EOPNOTSUPP);
	code = INT32_MIN;
	off = 0;
	put_msg(buf, &off, NLMSG_ERROR, 0, 13, &code, sizeof(code));
	assert_int_equal(qdisc_dump_parse(buf, off, 13, 2, kind, sizeof(kind), &errnum), -1);
	assert_int_equal(errnum, 0);

	/* an attribute longer than its message is malformed, not read */
	off = 0;
	kind[0] = '\0';
	put_qdisc(buf, &off, 14, 2, TC_H_ROOT, "fq_codel");
	struct rtattr ra;
	memcpy(&ra, buf + NLMSG_SPACE(sizeof(struct tcmsg)), sizeof(ra));
	ra.rta_len = 200;
	memcpy(buf + NLMSG_SPACE(sizeof(struct tcmsg)), &ra, sizeof(ra));
	assert_int_equal(qdisc_dump_parse(buf, off, 14, 2, kind, sizeof(kind), &errnum), 0);
	assert_string_equal(kind, "");
	/* a message longer than the datagram */
	assert_int_equal(qdisc_dump_parse(buf, off - 8, 14, 2, kind, sizeof(kind), &errnum), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_valid),
		cmocka_unit_test(test_not_set),
		cmocka_unit_test(test_set_invalid),
		cmocka_unit_test(test_ethtool_coalesce_value),
		cmocka_unit_test(test_iface_irq),
		cmocka_unit_test(test_qdisc_requests),
		cmocka_unit_test(test_addr_add_request),
		cmocka_unit_test(test_netlink_ack),
		cmocka_unit_test(test_qdisc_dump),
	};
	return cmocka_run_group_tests_name("agent set", tests, NULL, NULL);
}
