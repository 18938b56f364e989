/* lava_client: a LAVA server's list of a device type's devices (GET
 * /api/v0.2/devices/?device_type=T, LAVA 2023.01's fields), which sets how
 * many jobs fly at once and whether any device can take one: Good and
 * Unknown devices count as usable, Idle ones among them as idle; Bad,
 * Maintenance, Retired and Looping ones are named; devices of another type
 * are not counted; counts and lists beyond the bounds, wrong types and
 * non-JSON are refused; hostile host names are printed harmlessly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/lava_client.h"
#include "util/util.h"

#define TYPE "hilbench-qemu-orangepi-pc"

static int parse(const char *json, struct lava_devices *d, int *count)
{
	char err[256];
	memset(d, 0, sizeof(*d));
	return lava_devices_parse(json, TYPE, d, count, err, sizeof(err));
}

static void usable_and_idle_devices_are_counted(void **state)
{
	(void)state;
	static const char json[] =
		"{\"count\":6,\"next\":null,\"previous\":null,\"results\":["
		"{\"hostname\":\"qemu-01\",\"device_type\":\"" TYPE "\",\"health\":\"Good\",\"state\":\"Idle\"},"
		"{\"hostname\":\"qemu-02\",\"device_type\":\"" TYPE "\",\"health\":\"Unknown\",\"state\":\"Idle\"},"
		"{\"hostname\":\"qemu-03\",\"device_type\":\"" TYPE "\",\"health\":\"Good\",\"state\":\"Running\"},"
		"{\"hostname\":\"qemu-04\",\"device_type\":\"" TYPE "\",\"health\":\"Bad\",\"state\":\"Idle\"},"
		"{\"hostname\":\"qemu-05\",\"device_type\":\"" TYPE "\",\"health\":\"Maintenance\",\"state\":\"Idle\"},"
		"{\"hostname\":\"r7800-01\",\"device_type\":\"ipq806x-r7800\",\"health\":\"Good\",\"state\":\"Idle\"}]}";
	struct lava_devices d;
	int count;
	assert_int_equal(parse(json, &d, &count), 6);
	assert_int_equal(count, 6);
	assert_int_equal(d.total, 5);
	assert_int_equal(d.usable, 3);
	assert_int_equal(d.idle, 2);
	assert_string_equal(d.unusable, "qemu-04 (Bad), qemu-05 (Maintenance)");
}

static void pages_add_up(void **state)
{
	(void)state;
	static const char page[] =
		"{\"count\":2,\"results\":[{\"hostname\":\"a\",\"device_type\":\"" TYPE "\","
		"\"health\":\"Good\",\"state\":\"Idle\"}]}";
	struct lava_devices d;
	int count;
	char err[64];
	assert_int_equal(parse(page, &d, &count), 1);
	assert_int_equal(lava_devices_parse(page, TYPE, &d, &count, err, sizeof(err)), 1);
	assert_int_equal(d.idle, 2);
	assert_int_equal(d.total, 2);
}

static void hostile_answers_are_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		"not json",
		"{\"detail\":\"Invalid token.\"}",
		"{\"count\":-1,\"results\":[]}",
		"{\"count\":1.5,\"results\":[]}",
		"{\"count\":1e99,\"results\":[]}",
		"{\"count\":\"3\",\"results\":[]}",
		"{\"count\":1,\"results\":{}}",
		"{\"count\":1}",
	};
	struct lava_devices d;
	int count;
	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		if (parse(bad[i], &d, &count) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(d.total, 0);
	}
	/* one page of more results than the bound */
	struct strlist l = { 0 };
	strlist_push(&l, "{\"count\":1000,\"results\":[");
	for (int i = 0; i <= LAVA_DEVICES_PAGE; i++)
		strlist_pushf(&l, "%s{\"device_type\":\"" TYPE "\",\"health\":\"Good\",\"state\":\"Idle\"}",
			      i ? "," : "");
	strlist_push(&l, "]}");
	char *json = argv_join(&l, "");
	assert_int_equal(parse(json, &d, &count), -1);
	free(json);
	strlist_free(&l);
}

static void odd_fields_count_as_not_usable(void **state)
{
	(void)state;
	/* a name with control characters and a health of the wrong type; a
	 * device without a type is not this type's */
	static const char json[] =
		"{\"count\":3,\"results\":["
		"{\"hostname\":\"evil\\u001b[2Jname\",\"device_type\":\"" TYPE "\",\"health\":7,\"state\":\"Idle\"},"
		"{\"hostname\":\"x\",\"health\":\"Good\",\"state\":\"Idle\"},"
		"42]}";
	struct lava_devices d;
	int count;
	assert_int_equal(parse(json, &d, &count), 3);
	assert_int_equal(d.total, 1);
	assert_int_equal(d.usable, 0);
	assert_string_equal(d.unusable, "evil?[2Jname ()");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(usable_and_idle_devices_are_counted),
		cmocka_unit_test(pages_add_up),
		cmocka_unit_test(hostile_answers_are_refused),
		cmocka_unit_test(odd_fields_count_as_not_usable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
