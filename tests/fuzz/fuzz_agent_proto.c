/*
 * fuzz_agent_proto: the DUT agent's parsers (agent_proto.h). They read the
 * kernel command line, hbcmd lines from a serial console (where noise and
 * truncated lines are normal), tracefs hist files, /proc text and iperf3's
 * JSON; the host decodes the agent's base64 with the same code. The first
 * input byte chooses the parser, the rest is its input.
 */
#include <stdint.h>
#include <stdlib.h>

#include "agent_proto.h"
#include "fuzz.h"

enum { P_COMMAND, P_PARAMS, P_HIST, P_TCP, P_CPU, P_BASE64, P_IPERF_ERROR, P_COUNT };

/* What the agent boots with: iperf_args_build() combines it with a run. */
static const struct agent_params params = {
	.iface = "eth0", .addr = "198.18.0.2/24", .peer = "198.18.0.1",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int which = data[0] % P_COUNT;
	char *s = fuzz_cstr(data + 1, size - 1);
	char err[256], text[256];
	uint64_t hits, cpu[CPU_FIELDS];

	switch (which) {
	case P_COMMAND: {
		struct run_spec rs;
		if (command_parse(s, &rs, err, sizeof(err)) == CMD_RUN) {
			struct iperf_args a;
			iperf_args_build(&a, &params, &rs);
			/* the filter the agent writes to tracefs: only with ftrace,
			 * and then within the protocol's bounds */
			if ((rs.profile == PROFILE_FTRACE) !=
			    (run_functions_check(rs.functions, err, sizeof(err)) == 0))
				abort();
		}
		break;
	}
	case P_PARAMS: {
		struct agent_params p;
		agent_params_parse(s, &p, err, sizeof(err));
		break;
	}
	case P_HIST:
		hist_line_parse(s, text, sizeof(text), &hits);
		break;
	case P_TCP:
		tcp_port_listening(s, 5201);	/* iperf3's default port */
		break;
	case P_CPU:
		cpu_stat_parse(s, cpu);
		break;
	case P_BASE64: {
		/* raw bytes, not the string: the host passes a length */
		size_t n = size - 1;
		unsigned char *out = malloc(n / 4 * 3 + 1);
		if (!out)
			abort();
		base64_decode((const char *)data + 1, n, out);
		free(out);
		break;
	}
	case P_IPERF_ERROR:
		iperf_json_error(s, text, sizeof(text));
		break;
	}
	free(s);
	return 0;
}
