/*
 * fuzz_tcpacked: frames of a link record as the DUT's kernel writes them,
 * read by measure/tcpacked.c (the delivered TCP rate of a run) and
 * measure/dataspan.c (when the test's data flowed). The input is a
 * sequence of records: 2 bytes of length (little-endian, capped at 96, the
 * filter-dump's snap length) and 2 of time step in milliseconds, then the
 * frame's bytes, each copied into an allocation of its own length so ASan
 * sees any read past it. Byte 0's low bits pick the stream's direction.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "fuzz.h"
#include "measure/dataspan.h"
#include "measure/tcpacked.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct tcp_stream st = { .sender_port = 40000, .receiver_port = 5201 };
	int dut_sends = data[0] & 1;
	inet_pton(AF_INET, dut_sends ? "198.18.0.2" : "198.18.0.1", &st.sender);
	inet_pton(AF_INET, dut_sends ? "198.18.0.1" : "198.18.0.2", &st.receiver);
	struct tcp_acked a;
	if (tcp_acked_init(&a, &st, 1, 1000000, 3000000) < 0)
		abort();
	struct data_span span;
	data_span_init(&span, dut_sends ? st.receiver : st.sender,
		       dut_sends ? st.sender : st.receiver);
	long long t = 0;
	size_t i = 1;
	while (i + 4 <= size) {
		size_t len = data[i] | (size_t)data[i + 1] << 8;
		t += (long long)(data[i + 2] | data[i + 3] << 8) * 1000;
		i += 4;
		if (len > 96)
			len = 96;
		if (len > size - i)
			len = size - i;
		unsigned char *f = malloc(len ? len : 1);
		if (!f)
			abort();
		memcpy(f, data + i, len);
		tcp_acked_frame(&a, t, f, len);
		data_span_frame(&span, t, f, len);
		free(f);
		i += len;
	}
	double mbps = tcp_acked_mbps(&a);
	/* at most 2^31 bytes over 3 s */
	if (mbps > 2147483648.0 * 8 / 3 / 1e6)
		abort();
	/* the times only grow, so the data lies within the record, and the
	 * DUT's waits within the time outside it */
	long long test_us = data[0] & 2 ? 4000000 : 0,
		  out = data_span_outside_us(&span, test_us),
		  waits = data_span_waits_us(&span, test_us);
	if ((out < 0) != (waits < 0) || out < -1 || waits > out)
		abort();
	if (out >= 0 && (span.first_us > span.first_data_us ||
			 span.first_data_us > span.last_data_us ||
			 span.last_data_us > span.last_us || out > span.last_us - span.first_us))
		abort();
	return 0;
}
