/* kernel: the environment make runs with (ccache's directories, a fixed
 * build identity), whole however long a path: it was built in fixed
 * 4096-byte buffers and an array of 8 holding 7 and the NULL. And which
 * files of a patch make an incremental build configure again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "build/kernel.h"
#include "util/util.h"

static void the_environment_holds_a_long_tree_path_whole(void **state)
{
	(void)state;
	setenv("HILBENCH_CACHE", "/var/cache/hb", 1);
	char *srcdir = xstrdup("/x");
	while (strlen(srcdir) < 5000) {
		char *more = xasprintf("%s/a-directory-name-of-some-length", srcdir);
		free(srcdir);
		srcdir = more;
	}
	struct strlist env = { 0 };
	kernel_make_env(srcdir, &env);
	char *base = xasprintf("CCACHE_BASEDIR=%s", srcdir);
	assert_int_equal(env.n, 7);
	assert_string_equal(env.v[0], "CCACHE_DIR=/var/cache/hb/ccache");
	assert_string_equal(env.v[1], base);
	assert_string_equal(env.v[2], "CCACHE_NOHASHDIR=1");
	assert_string_equal(env.v[3], "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970");
	assert_string_equal(env.v[6], "KBUILD_BUILD_VERSION=1");
	assert_null(strlist_argv(&env)[7]);
	strlist_free(&env);
	free(base);
	free(srcdir);
}

/* An incremental build keeps its cached .config unless a patch changes one
 * of these (build/kernel.h). */
static void configuration_inputs_are_kconfig_defconfigs_and_kconfigs_scripts(void **state)
{
	(void)state;
	assert_true(kernel_config_input("net/Kconfig"));
	assert_true(kernel_config_input("drivers/net/ethernet/stmicro/stmmac/Kconfig"));
	assert_true(kernel_config_input("arch/arm/Kconfig.debug"));
	assert_true(kernel_config_input("Kconfig"));
	assert_true(kernel_config_input("arch/arm/configs/sunxi_defconfig"));
	assert_true(kernel_config_input("scripts/Kconfig.include"));
	assert_true(kernel_config_input("scripts/kconfig/confdata.c"));
	assert_true(kernel_config_input("Makefile"));
	assert_false(kernel_config_input("drivers/net/ethernet/stmicro/stmmac/stmmac_main.c"));
	assert_false(kernel_config_input("include/linux/netdevice.h"));
	assert_false(kernel_config_input("drivers/net/ethernet/stmicro/stmmac/Makefile"));
	assert_false(kernel_config_input("Documentation/kbuild/kconfig.rst"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_environment_holds_a_long_tree_path_whole),
		cmocka_unit_test(configuration_inputs_are_kconfig_defconfigs_and_kconfigs_scripts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
