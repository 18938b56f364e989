/*
 * fuzz_agent_set: what the agent parses to apply a runtime setting: the
 * `hbcmd set` line from the console, `ethtool -c` output, /proc/interrupts,
 * the kernel's rtnetlink answers for the qdisc method (an ack, a dump), as
 * raw bytes in a buffer of their own, and the hb.addr the agent makes its
 * RTM_NEWADDR of. The first input byte chooses the parser.
 */
#include <stdint.h>
#include <stdlib.h>

#include "agent_proto.h"
#include "fuzz.h"

enum { P_SET, P_ETHTOOL, P_IRQ, P_NL_ACK, P_NL_DUMP, P_ADDR, P_COUNT };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *s = fuzz_cstr(data + 1, size - 1);
	char err[256], value[SET_TOKEN_MAX], kind[QDISC_KIND_MAX];
	unsigned char req[64];
	struct set_spec ss;
	unsigned irq;
	int errnum;

	switch (data[0] % P_COUNT) {
	case P_SET:
		set_command_parse(s, &ss, err, sizeof(err));
		break;
	case P_ETHTOOL:
		ethtool_coalesce_value(s, "tx-usecs", value, sizeof(value));
		break;
	case P_IRQ:
		iface_irq_parse(s, "eth0", &irq);
		break;
	/* s holds the bytes unchanged; the length is the input's, NULs and all */
	case P_NL_ACK:
		netlink_ack_parse(s, size - 1, 1, &errnum, err, sizeof(err));
		break;
	case P_NL_DUMP:
		qdisc_dump_parse(s, size - 1, 1, 2, kind, sizeof(kind), &errnum);
		break;
	case P_ADDR:
		addr_add_request(req, sizeof(req), 1, 2, s);
		break;
	}
	free(s);
	return 0;
}
