/*
 * fuzz_lava_devices: lava_devices_parse() on arbitrary answers to GET
 * /api/v0.2/devices/?device_type=T. They come from a LAVA server, which
 * hilbench does not trust: whatever it says, the page's count stays within
 * LAVA_DEVICES_PAGE, the claimed total within LAVA_DEVICES_MAX, idle <=
 * usable <= total <= the page's results, and the list of unusable devices
 * is printable and terminated inside its buffer.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/lava_client.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = fuzz_cstr(data, size);
	struct lava_devices d = { 0 };
	char err[128];
	int count = -1;
	int n = lava_devices_parse(json, "hilbench-qemu-orangepi-pc", &d, &count, err, sizeof(err));
	if (n > LAVA_DEVICES_PAGE || n < -1)
		abort();
	if (n >= 0 && (count < 0 || count > LAVA_DEVICES_MAX))
		abort();
	if (d.idle < 0 || d.idle > d.usable || d.usable > d.total || d.total > (n > 0 ? n : 0))
		abort();
	size_t len = strnlen(d.unusable, sizeof(d.unusable));
	if (len >= sizeof(d.unusable))
		abort();
	for (size_t i = 0; i < len; i++)
		if (!isprint((unsigned char)d.unusable[i]))
			abort();
	free(json);
	return 0;
}
