/* lava_client: the LAVA token stays in hilbench. Read from
 * $HILBENCH_LAVA_TOKEN, it leaves the environment at once, so no child
 * (QEMU, make, lava-run) inherits it, and later reads still find it; a
 * plain-HTTP server is refused unless it is this machine or
 * $HILBENCH_LAVA_ALLOW_HTTP says so, since the token would cross the
 * network in clear text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/lava_client.h"
#include "util/proc.h"
#include "util/util.h"

static const char secret[] = "hb-test-token-1f2e3d";

static void no_child_sees_the_token(void **state)
{
	(void)state;
	char err[256], *token = NULL;
	setenv(LAVA_TOKEN_ENV, secret, 1);
	unsetenv(LAVA_TOKEN_FILE_ENV);
	assert_int_equal(lava_token_load(&token, err, sizeof(err)), 0);
	assert_string_equal(token, secret);
	lava_token_free(token);
	assert_null(getenv(LAVA_TOKEN_ENV));
	char *env_argv[] = { "env", NULL };
	char *env = proc_output(env_argv);
	assert_non_null(env);
	assert_null(strstr(env, secret));
	assert_null(strstr(env, LAVA_TOKEN_ENV "="));
	free(env);
	/* a second boot of the same process still has it */
	assert_int_equal(lava_token_load(&token, err, sizeof(err)), 0);
	assert_string_equal(token, secret);
	lava_token_free(token);
}

static void plain_http_is_for_this_machine_only(void **state)
{
	(void)state;
	char err[256];
	static const char *const ok[] = {
		"https://lava.example.org/", "https://10.0.0.1:8443", "http://127.0.0.1:8000/",
		"http://127.8.9.10", "http://localhost:8000/", "http://[::1]:8000/",
		"HTTPS://lava.example.org", "http://user@127.0.0.1/",
	};
	static const char *const refused[] = {
		"http://lava.example.org/", "http://192.0.2.1:8000/", "http://127.0.0.1.example.org/",
		"http://localhost.example.org", "http://[::2]/", "http://127.0.0.1@lava.example.org/",
		"ftp://lava.example.org/", "lava.example.org", "", "http://",
	};
	unsetenv("HILBENCH_LAVA_ALLOW_HTTP");
	for (size_t i = 0; i < HB_ARRAY_SIZE(ok); i++) {
		struct lava_client *c = lava_client_new(ok[i], secret, NULL, err, sizeof(err));
		assert_non_null(c);
		lava_client_free(c);
	}
	for (size_t i = 0; i < HB_ARRAY_SIZE(refused); i++) {
		err[0] = '\0';
		assert_null(lava_client_new(refused[i], secret, NULL, err, sizeof(err)));
		assert_non_null(strstr(err, refused[i][0] ? refused[i] : "LAVA server"));
		assert_null(strstr(err, secret));
	}
	assert_non_null(strstr(err, "http"));
	/* the lab says its network is trusted: a warning, not a refusal */
	setenv("HILBENCH_LAVA_ALLOW_HTTP", "1", 1);
	struct lava_client *c = lava_client_new("http://lava.example.org/", secret, NULL, err,
						sizeof(err));
	assert_non_null(c);
	lava_client_free(c);
	assert_null(lava_client_new("ftp://lava.example.org/", secret, NULL, err, sizeof(err)));
	unsetenv("HILBENCH_LAVA_ALLOW_HTTP");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_child_sees_the_token),
		cmocka_unit_test(plain_http_is_for_this_machine_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
