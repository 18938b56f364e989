/*
 * The agent's `hbcmd set` command and the two texts it reads to apply a
 * setting: `ethtool -c` output and /proc/interrupts (agent_proto.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_valid),
		cmocka_unit_test(test_not_set),
		cmocka_unit_test(test_set_invalid),
		cmocka_unit_test(test_ethtool_coalesce_value),
		cmocka_unit_test(test_iface_irq),
	};
	return cmocka_run_group_tests_name("agent set", tests, NULL, NULL);
}
