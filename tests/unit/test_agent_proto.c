/*
 * Unit tests of the agent's pure logic (harness/agent/agent_proto.c), built
 * for the host. Links with agent_proto.c only, never with harness/src.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent_proto.h"

static void test_crc32_check_value(void **state)
{
	(void)state;
	assert_int_equal(crc32_update(0, "123456789", 9), 0xcbf43926u);
	assert_int_equal(crc32_update(0, "", 0), 0);
}

static void test_crc32_incremental(void **state)
{
	(void)state;
	uint32_t crc = crc32_update(0, "1234", 4);
	assert_int_equal(crc32_update(crc, "56789", 5), 0xcbf43926u);
}

static void test_base64_rfc4648(void **state)
{
	static const struct {
		const char *in, *out;
	} v[] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};
	char out[16];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(base64_encode(v[i].in, strlen(v[i].in), out), strlen(v[i].out));
		assert_string_equal(out, v[i].out);
	}
}

static void test_base64_high_bytes(void **state)
{
	const unsigned char in[] = { 0xfb, 0xff, 0xfe };
	char out[8];

	(void)state;
	base64_encode(in, 3, out);
	assert_string_equal(out, "+//+");
}

static void test_base64_line_is_76_chars(void **state)
{
	unsigned char in[57] = { 0 };
	char out[77];

	(void)state;
	assert_int_equal(base64_encode(in, sizeof(in), out), 76);
}

static void test_hist_bucket(void **state)
{
	char caller[64];
	uint64_t hits = 0;

	(void)state;
	assert_int_equal(hist_line_parse("{ function: [c0a1b2c4] stmmac_tx_timer"
					 "                               } hitcount:       1234",
					 caller, sizeof(caller), &hits), 0);
	assert_string_equal(caller, "stmmac_tx_timer");
	assert_int_equal(hits, 1234);
}

static void test_hist_module_symbol(void **state)
{
	char caller[64];
	uint64_t hits = 0;

	(void)state;
	assert_int_equal(hist_line_parse("{ function: [bf012345] stmmac_tx_timer [stmmac]"
					 "       } hitcount:          7",
					 caller, sizeof(caller), &hits), 0);
	assert_string_equal(caller, "stmmac_tx_timer");
	assert_int_equal(hits, 7);
}

static void test_hist_rejects_other_lines(void **state)
{
	static const char *const lines[] = {
		"# event histogram",
		"# trigger info: hist:keys=function.sym:vals=hitcount:sort=hitcount:size=2048 [active]",
		"",
		"Totals:",
		"    Hits: 1234",
		"    Entries: 3",
		"{ function: [c0a1b2c4] tick_sched_timer }",
		"{ function: [c0a1b2c4] tick_sched_timer } hitcount: many",
		"{ function: [c0a1b2c4]     } hitcount: 3",
	};
	char caller[64];
	uint64_t hits;

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(hist_line_parse(lines[i], caller, sizeof(caller), &hits), -1);
}

static void test_hist_caller_too_long(void **state)
{
	char caller[8];
	uint64_t hits;

	(void)state;
	assert_int_equal(hist_line_parse("{ function: [c0a1b2c4] stmmac_tx_timer } hitcount: 1",
					 caller, sizeof(caller), &hits), -1);
}

static void test_cmdline_params(void **state)
{
	struct agent_params p;
	char err[128];

	(void)state;
	assert_int_equal(agent_params_parse("console=ttyS0,115200 maxcpus=1 hb.iface=eth0 "
					    "hb.addr=198.18.0.2/24 hb.peer=198.18.0.1\n",
					    &p, err, sizeof(err)), 0);
	assert_string_equal(p.iface, "eth0");
	assert_string_equal(p.addr, "198.18.0.2/24");
	assert_string_equal(p.peer, "198.18.0.1");
}

static void test_cmdline_last_wins(void **state)
{
	struct agent_params p;
	char err[128];

	(void)state;
	assert_int_equal(agent_params_parse("hb.iface=eth0 hb.addr=198.18.0.2/24 hb.peer=198.18.0.1 "
					    "xhb.iface=bad hb.iface=eth1",
					    &p, err, sizeof(err)), 0);
	assert_string_equal(p.iface, "eth1");
}

static void test_cmdline_rejections(void **state)
{
	static const char *const bad[] = {
		"hb.addr=198.18.0.2/24 hb.peer=198.18.0.1",			/* no iface */
		"hb.iface=eth0 hb.peer=198.18.0.1",				/* no addr */
		"hb.iface=eth0 hb.addr=198.18.0.2/24",				/* no peer */
		"hb.iface= hb.addr=198.18.0.2/24 hb.peer=198.18.0.1",		/* empty */
		"hb.iface=../x hb.addr=198.18.0.2/24 hb.peer=198.18.0.1",	/* a path */
		"hb.iface=averyveryverylongname hb.addr=198.18.0.2/24 hb.peer=198.18.0.1",
		"hb.iface=eth0 hb.addr=198.18.0.2 hb.peer=198.18.0.1",		/* no prefix */
		"hb.iface=eth0 hb.addr=198.18.0.2/33 hb.peer=198.18.0.1",
		"hb.iface=eth0 hb.addr=198.18.0.300/24 hb.peer=198.18.0.1",
		"hb.iface=eth0 hb.addr=198.18.0.2/24 hb.peer=host",
	};
	struct agent_params p;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(agent_params_parse(bad[i], &p, err, sizeof(err)), -1);
		assert_true(err[0] != '\0');
	}
	agent_params_parse("hb.addr=198.18.0.2/24 hb.peer=198.18.0.1", &p, err, sizeof(err));
	assert_non_null(strstr(err, "hb.iface="));
}

static void test_cmdline_ipv6(void **state)
{
	struct agent_params p;
	char err[128];

	(void)state;
	assert_int_equal(agent_params_parse("hb.iface=eth0 hb.addr=fd00::2/64 hb.peer=fd00::1",
					    &p, err, sizeof(err)), 0);
}

/* The fault-test parameters: absent in real runs, range-checked when given. */
static void test_cmdline_fault_kill_iperf(void **state)
{
	static const char base[] = "hb.iface=eth0 hb.addr=198.18.0.2/24 hb.peer=198.18.0.1";
	static const char *const keys[] = { "hb.fault_kill_iperf_s", "hb.fault_stop_iperf_s" };
	struct agent_params p;
	char err[128], line[256];

	(void)state;
	assert_int_equal(agent_params_parse(base, &p, err, sizeof(err)), 0);
	assert_int_equal(p.fault_kill_iperf_s, 0);
	assert_int_equal(p.fault_stop_iperf_s, 0);
	snprintf(line, sizeof(line), "%s hb.fault_kill_iperf_s=2", base);
	assert_int_equal(agent_params_parse(line, &p, err, sizeof(err)), 0);
	assert_int_equal(p.fault_kill_iperf_s, 2);
	assert_int_equal(p.fault_stop_iperf_s, 0);
	snprintf(line, sizeof(line), "%s hb.fault_stop_iperf_s=3", base);
	assert_int_equal(agent_params_parse(line, &p, err, sizeof(err)), 0);
	assert_int_equal(p.fault_kill_iperf_s, 0);
	assert_int_equal(p.fault_stop_iperf_s, 3);
	static const char *const bad[] = { "soon", "-1", "3601", "99999999999999999999" };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(line, sizeof(line), "%s %s=%s", base, keys[k], bad[i]);
			assert_int_equal(agent_params_parse(line, &p, err, sizeof(err)), -1);
			assert_non_null(strstr(err, keys[k]));
		}
}

#define RUN_OK "hbcmd run id=r1 proto=udp dir=tx len=64 rate=0 time=10 omit=1 streams=1 port=5201"

static void test_hbcmd_run(void **state)
{
	struct run_spec rs;
	char err[128];

	(void)state;
	assert_int_equal(command_parse(RUN_OK "\r\n", &rs, err, sizeof(err)), CMD_RUN);
	assert_string_equal(rs.id, "r1");
	assert_int_equal(rs.proto, RUN_UDP);
	assert_int_equal(rs.dir, RUN_TX);
	assert_int_equal(rs.len, 64);
	assert_int_equal(rs.rate, 0);
	assert_int_equal(rs.time_s, 10);
	assert_int_equal(rs.omit_s, 1);
	assert_int_equal(rs.streams, 1);
	assert_int_equal(rs.port, 5201);
}

static void test_hbcmd_run_any_order_and_spacing(void **state)
{
	struct run_spec rs;
	char err[128];

	(void)state;
	assert_int_equal(command_parse("  hbcmd\trun port=65535 streams=16 omit=0 time=3600 "
				       "rate=18446744073709551615 len=1048576 dir=rx proto=tcp id=a.b-c_9  ",
				       &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.proto, RUN_TCP);
	assert_int_equal(rs.dir, RUN_RX);
	assert_int_equal(rs.len, 1048576);
	assert_true(rs.rate == UINT64_MAX);
	assert_string_equal(rs.id, "a.b-c_9");
}

/* Whose clock ends a run: the agent's unless the host says it keeps it. */
static void test_hbcmd_run_deadline(void **state)
{
	struct run_spec rs;
	char err[128];

	(void)state;
	assert_int_equal(command_parse(RUN_OK, &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.deadline, DEADLINE_DUT);
	assert_int_equal(command_parse(RUN_OK " deadline=host", &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.deadline, DEADLINE_HOST);
	assert_int_equal(command_parse(RUN_OK " deadline=dut", &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.deadline, DEADLINE_DUT);
	assert_int_equal(command_parse(RUN_OK " deadline=soon", &rs, err, sizeof(err)), CMD_INVALID);
	assert_non_null(strstr(err, "deadline=soon"));
	assert_int_equal(command_parse(RUN_OK " deadline=host deadline=dut", &rs, err, sizeof(err)),
			 CMD_INVALID);
}

/* The host's deadline of one run passed: `hbcmd stop id=<id>`, nothing else. */
static void test_hbcmd_stop(void **state)
{
	static const char *const bad[] = {
		"hbcmd stop", "hbcmd stop r1", "hbcmd stop id=", "hbcmd stop id=../x",
		"hbcmd stop id=r1 now", "hbcmd stop run=r1",
	};
	struct run_spec rs;
	char err[128];

	(void)state;
	assert_int_equal(command_parse("hbcmd stop id=20261206T042501Z-c6fb4a\r\n", &rs, err,
				       sizeof(err)), CMD_STOP);
	assert_string_equal(rs.id, "20261206T042501Z-c6fb4a");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(command_parse(bad[i], &rs, err, sizeof(err)), CMD_INVALID);
		assert_true(err[0] != '\0');
	}
}

static void test_hbcmd_poweroff(void **state)
{
	struct run_spec rs;
	char err[128];

	(void)state;
	assert_int_equal(command_parse("hbcmd poweroff\n", &rs, err, sizeof(err)), CMD_POWEROFF);
	assert_int_equal(command_parse("hbcmd poweroff now", &rs, err, sizeof(err)), CMD_INVALID);
}

static void test_hbcmd_rejections(void **state)
{
	static const char *const bad[] = {
		"",
		"hbcmd",
		"run id=1",
		"HBCMD poweroff",
		"hbcmd reboot",
		"hbcmd run proto=udp dir=tx len=64 rate=0 time=10 omit=1 streams=1 port=5201",
		RUN_OK " port=5202",				/* twice */
		RUN_OK " colour=red",				/* unknown key */
		RUN_OK " stray",				/* not key=value */
		"hbcmd run id=r1 proto=sctp dir=tx len=64 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=up len=64 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=64x rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=-1 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=+1 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len= rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=65508 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=tcp dir=tx len=1048577 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=64 rate=18446744073709551616 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=64 rate=0 time=0 omit=1 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=64 rate=0 time=10 omit=61 streams=1 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=64 rate=0 time=10 omit=1 streams=0 port=5201",
		"hbcmd run id=r1 proto=udp dir=tx len=64 rate=0 time=10 omit=1 streams=1 port=65536",
		"hbcmd run id=../etc/x proto=udp dir=tx len=64 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id=.hidden proto=udp dir=tx len=64 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run id= proto=udp dir=tx len=64 rate=0 time=10 omit=1 streams=1 port=5201",
		"hbcmd run a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 j=10 k=11 l=12 m=13 n=14 o=15",
	};
	struct run_spec rs;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(command_parse(bad[i], &rs, err, sizeof(err)), CMD_INVALID);
		assert_true(err[0] != '\0');
		assert_null(strchr(err, '\n'));
	}
}

static void test_hbcmd_long_line(void **state)
{
	char line[1024];
	struct run_spec rs;
	char err[128];

	(void)state;
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(command_parse(line, &rs, err, sizeof(err)), CMD_INVALID);
}

static void test_run_spec_default_id(void **state)
{
	char *tok[] = { "proto=tcp", "dir=rx", "len=0", "rate=0", "time=5",
			"omit=0", "streams=2", "port=5201" };
	struct run_spec rs;
	char err[128];

	(void)state;
	assert_int_equal(run_spec_parse(8, tok, "run", &rs, err, sizeof(err)), 0);
	assert_string_equal(rs.id, "run");
	assert_int_equal(run_spec_parse(8, tok, NULL, &rs, err, sizeof(err)), -1);
	assert_string_equal(err, "missing id=");
}

static void params_for_test(struct agent_params *p)
{
	char err[128];

	assert_int_equal(agent_params_parse("hb.iface=eth0 hb.addr=198.18.0.2/24 hb.peer=198.18.0.1",
					    p, err, sizeof(err)), 0);
}

/* argv joined by spaces, for comparing whole command lines. */
static const char *joined(const struct iperf_args *a)
{
	static char line[512];

	line[0] = '\0';
	for (int i = 0; a->argv[i]; i++) {
		if (i)
			strcat(line, " ");
		strcat(line, a->argv[i]);
	}
	return line;
}

static void test_iperf_args_udp_tx(void **state)
{
	struct agent_params p;
	struct run_spec rs;
	struct iperf_args a;
	char err[128];

	(void)state;
	params_for_test(&p);
	assert_int_equal(command_parse(RUN_OK, &rs, err, sizeof(err)), CMD_RUN);
	iperf_args_build(&a, &p, &rs);
	assert_string_equal(joined(&a), "/usr/bin/iperf3 -c 198.18.0.1 -p 5201 -u -b 0 -l 64 "
			    "-t 10 -O 1 -P 1 -J");
}

static void test_iperf_args_tcp_tx_default_len(void **state)
{
	struct agent_params p;
	struct run_spec rs;
	struct iperf_args a;
	char err[128];

	(void)state;
	params_for_test(&p);
	assert_int_equal(command_parse("hbcmd run id=x proto=tcp dir=tx len=0 rate=100000000 "
				       "time=5 omit=2 streams=4 port=5300", &rs, err, sizeof(err)), CMD_RUN);
	iperf_args_build(&a, &p, &rs);
	assert_string_equal(joined(&a), "/usr/bin/iperf3 -c 198.18.0.1 -p 5300 -b 100000000 "
			    "-t 5 -O 2 -P 4 -J");
}

static void test_iperf_args_rx(void **state)
{
	struct agent_params p;
	struct run_spec rs;
	struct iperf_args a;
	char err[128];

	(void)state;
	params_for_test(&p);
	assert_int_equal(command_parse("hbcmd run id=x proto=udp dir=rx len=64 rate=0 "
				       "time=5 omit=1 streams=1 port=5201", &rs, err, sizeof(err)), CMD_RUN);
	iperf_args_build(&a, &p, &rs);
	/* the DUT is the client with -R: the test's length is on its clock */
	assert_string_equal(joined(&a), "/usr/bin/iperf3 -c 198.18.0.1 -p 5201 -u -b 0 -l 64 "
			    "-t 5 -O 1 -P 1 -R -J");
}

static void test_iperf_json_error(void **state)
{
	char msg[64];

	(void)state;
	/* What iperf3 3.12 -J prints when the connection is refused (exit 0). */
	assert_int_equal(iperf_json_error("{\n\t\"start\":\t{\n\t\t\"connected\":\t[],\n"
					  "\t\t\"version\":\t\"iperf 3.12\"\n\t},\n\t\"intervals\":\t[],\n"
					  "\t\"end\":\t{\n\t},\n\t\"error\":\t\"unable to connect to "
					  "server: Connection refused\"\n}\n", msg, sizeof(msg)), 1);
	assert_string_equal(msg, "unable to connect to server: Connection refused");

	assert_int_equal(iperf_json_error("{\"error\":\"say \\\"hi\\\"\"}", msg, sizeof(msg)), 1);
	assert_string_equal(msg, "say \\\"hi\\\"");
}

static void test_iperf_json_no_error(void **state)
{
	char msg[64];

	(void)state;
	/* Only a top-level key counts, not a nested one or a value. */
	assert_int_equal(iperf_json_error("{\"end\": {\"error\": \"nested\"}, \"x\": \"error\"}",
					  msg, sizeof(msg)), 0);
	assert_int_equal(iperf_json_error("{\"start\": {}, \"end\": {\"sum\": {\"packets\": 5}}}",
					  msg, sizeof(msg)), 0);
	assert_int_equal(iperf_json_error("{\"error\": \"unterminated", msg, sizeof(msg)), 0);
	assert_int_equal(iperf_json_error("", msg, sizeof(msg)), 0);
}

static const char proc_net_tcp[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	"   0: 0200A8C6:1451 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 c0000000 100 0 0 10 0\n"
	"   1: 0200A8C6:1452 0100A8C6:D431 01 00000000:00000000 00:00000000 00000000     0        0 2 1 c0000000 20 4 30 10 -1\n";

/* /proc/<pid>/stack of an iperf3 asleep in select(), as 6.1 on armv7
 * prints it; names with compiler suffixes keep them; junk lines are skipped. */
static void test_kernel_stack_text(void **state)
{
	static const char stack[] =
		"[<0>] __switch_to+0x30/0x58\n"
		"[<0>] do_select+0x4c8/0x5c0\n"
		"[<0>] core_sys_select.constprop.0+0x1f8/0x3a0\n"
		"no frame here\n"
		"[<0>] sys_select\n"
		"[<0>] \n";
	char out[256], small[24];

	(void)state;
	assert_int_equal(kernel_stack_text(stack, out, sizeof(out)), 4);
	assert_string_equal(out, "__switch_to < do_select < core_sys_select.constprop.0 < sys_select");
	/* cut, still terminated */
	kernel_stack_text(stack, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(kernel_stack_text("", out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

static void test_tcp_listening(void **state)
{
	(void)state;
	assert_int_equal(tcp_port_listening(proc_net_tcp, 5201), 1);
	assert_int_equal(tcp_port_listening(proc_net_tcp, 5202), 0);	/* established */
	assert_int_equal(tcp_port_listening(proc_net_tcp, 5203), 0);
	assert_int_equal(tcp_port_listening("", 5201), 0);
}

static void test_tcp6_listening(void **state)
{
	(void)state;
	assert_int_equal(tcp_port_listening(
		"  sl  local_address                         remote_address                        st\n"
		"   0: 00000000000000000000000000000000:1451 00000000000000000000000000000000:0000 0A "
		"00000000:00000000 00:00000000 00000000     0        0 3 1 c0000000 100 0 0 10 0\n",
		5201), 1);
}

static void test_cpu_stat(void **state)
{
	uint64_t v[CPU_FIELDS];

	(void)state;
	assert_int_equal(cpu_stat_parse("cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0\n"
					"cpu0 1393280 32966 572056 13343292 6130 0 17875 0 0 0\n", v), 0);
	assert_true(v[0] == 10132153 && v[1] == 290696 && v[2] == 3084719 &&
		    v[3] == 46828483 && v[4] == 16683 && v[5] == 0 && v[6] == 25195);
	assert_int_equal(cpu_stat_parse("cpu0 1 2 3 4 5 6 7\n", v), -1);
	assert_int_equal(cpu_stat_parse("cpu  1 2 3\ncpu0 1 2 3 4 5 6 7\n", v), -1);
	assert_string_equal(cpu_field_names[6], "cpu_softirq");
}

/* functions=: the filter the host sends from its driver file, bounded. */
static void test_hbcmd_functions(void **state)
{
	struct run_spec rs;
	char err[128];
	static const struct {
		const char *tail, *err;
	} bad[] = {
		{ " profile=ftrace", "profile=ftrace needs functions=" },
		{ " profile=perf functions=a", "functions= is for profile=ftrace only" },
		{ " functions=a", "functions= is for profile=ftrace only" },
		{ " profile=ftrace functions=", "functions= must have 1-255 characters" },
		{ " profile=ftrace functions=a,,b", "functions=: a name must start with [A-Za-z_]" },
		{ " profile=ftrace functions=a,", "functions=: a name must start with [A-Za-z_]" },
		{ " profile=ftrace functions=9a", "functions=: a name must start with [A-Za-z_]" },
		{ " profile=ftrace functions=a;b", "functions=: names are C identifiers joined by ','" },
		{ " profile=ftrace functions=../x", "functions=: a name must start with [A-Za-z_]" },
		{ " profile=ftrace functions=a functions=b", "functions= given twice" },
		{ " profile=ftrace functions=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "functions=: more than 16 names" },
		{ " profile=ftrace functions=a123456789a123456789a123456789a123456789a123456789a123456789abcd",
		  "functions=: a name longer than 63 characters" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[512];
		snprintf(line, sizeof(line), RUN_OK "%s", bad[i].tail);
		assert_int_equal(command_parse(line, &rs, err, sizeof(err)), CMD_INVALID);
		assert_string_equal(err, bad[i].err);
	}
	/* 16 names of 63 characters do not fit 255: the length bound holds */
	char list[16 * 64 + 1] = "";
	for (int i = 0; i < 16; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.63s", i ? "," : "",
			 "f23456789a123456789a123456789a123456789a123456789a123456789abc");
	assert_int_equal(run_functions_check(list, err, sizeof(err)), -1);
	assert_string_equal(err, "functions= must have 1-255 characters");
	assert_int_equal(run_functions_check("_a,B9", err, sizeof(err)), 0);
}

static void test_hbcmd_profile_and_bidir(void **state)
{
	struct agent_params p;
	struct run_spec rs;
	struct iperf_args a;
	char err[128];

	(void)state;
	assert_int_equal(command_parse(RUN_OK, &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.profile, PROFILE_NONE);
	assert_int_equal(command_parse(RUN_OK " profile=ftrace functions=stmmac_xmit,__hrtimer_run_queues",
				       &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.profile, PROFILE_FTRACE);
	assert_string_equal(rs.functions, "stmmac_xmit,__hrtimer_run_queues");
	assert_int_equal(command_parse(RUN_OK " profile=perf", &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.profile, PROFILE_PERF);
	assert_int_equal(command_parse(RUN_OK " profile=gprof", &rs, err, sizeof(err)), CMD_INVALID);
	assert_string_equal(err, "profile=gprof: use none, ftrace or perf");
	assert_int_equal(command_parse(RUN_OK " profile=perf profile=perf", &rs, err, sizeof(err)),
			 CMD_INVALID);

	params_for_test(&p);
	assert_int_equal(command_parse("hbcmd run id=x proto=tcp dir=bidir len=0 rate=0 "
				       "time=5 omit=1 streams=1 port=5201", &rs, err, sizeof(err)), CMD_RUN);
	assert_int_equal(rs.dir, RUN_BIDIR);
	iperf_args_build(&a, &p, &rs);
	assert_string_equal(joined(&a), "/usr/bin/iperf3 -c 198.18.0.1 -p 5201 -b 0 "
			    "-t 5 -O 1 -P 1 --bidir -J");
}

static void test_kmsg_record(void **state)
{
	static const char rec[] = "4,1532,52310512,-;NETDEV WATCHDOG: eth0 (dwmac-sun8i): "
				  "transmit queue 0 timed out\n SUBSYSTEM=net\n DEVICE=n2\n";
	unsigned level;
	const char *text;
	size_t len;

	(void)state;
	assert_int_equal(kmsg_record_parse(rec, sizeof(rec) - 1, &level, &text, &len), 0);
	assert_int_equal(level, 4);
	assert_int_equal(len, strlen("NETDEV WATCHDOG: eth0 (dwmac-sun8i): transmit queue 0 timed out"));
	assert_memory_equal(text, "NETDEV WATCHDOG", 15);
	/* facility bits above the level: a user-space record at LOG_INFO */
	assert_int_equal(kmsg_record_parse("14,7,100,-;hi", 13, &level, &text, &len), 0);
	assert_int_equal(level, 6);
	assert_int_equal(len, 2);
	/* newer kernels add fields before the ';' */
	assert_int_equal(kmsg_record_parse("3,7,100,-,caller=T1;x", 21, &level, &text, &len), 0);
	assert_int_equal(level, 3);
	static const char *const bad[] = { "", ";x", "4;x", "4,1,2;x", "a,1,2,-;x", "4,1,2,-",
					   "99999999999,1,2,-;x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(kmsg_record_parse(bad[i], strlen(bad[i]), &level, &text, &len), -1);
	/* the length bounds the record: no NUL needed, nothing read past it */
	assert_int_equal(kmsg_record_parse("6,1,2,-;abc", 5, &level, &text, &len), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_fault_kill_iperf),
		cmocka_unit_test(test_crc32_check_value),
		cmocka_unit_test(test_crc32_incremental),
		cmocka_unit_test(test_base64_rfc4648),
		cmocka_unit_test(test_base64_high_bytes),
		cmocka_unit_test(test_base64_line_is_76_chars),
		cmocka_unit_test(test_hist_bucket),
		cmocka_unit_test(test_hist_module_symbol),
		cmocka_unit_test(test_hist_rejects_other_lines),
		cmocka_unit_test(test_hist_caller_too_long),
		cmocka_unit_test(test_cmdline_params),
		cmocka_unit_test(test_cmdline_last_wins),
		cmocka_unit_test(test_cmdline_rejections),
		cmocka_unit_test(test_cmdline_ipv6),
		cmocka_unit_test(test_hbcmd_run),
		cmocka_unit_test(test_hbcmd_run_any_order_and_spacing),
		cmocka_unit_test(test_hbcmd_run_deadline),
		cmocka_unit_test(test_hbcmd_stop),
		cmocka_unit_test(test_hbcmd_poweroff),
		cmocka_unit_test(test_hbcmd_rejections),
		cmocka_unit_test(test_hbcmd_long_line),
		cmocka_unit_test(test_run_spec_default_id),
		cmocka_unit_test(test_iperf_args_udp_tx),
		cmocka_unit_test(test_iperf_args_tcp_tx_default_len),
		cmocka_unit_test(test_iperf_args_rx),
		cmocka_unit_test(test_iperf_json_error),
		cmocka_unit_test(test_iperf_json_no_error),
		cmocka_unit_test(test_kernel_stack_text),
		cmocka_unit_test(test_tcp_listening),
		cmocka_unit_test(test_tcp6_listening),
		cmocka_unit_test(test_cpu_stat),
		cmocka_unit_test(test_hbcmd_profile_and_bidir),
		cmocka_unit_test(test_hbcmd_functions),
		cmocka_unit_test(test_kmsg_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
