/* A cmocka program for test_infra_selftest (tests/util/selftest.sh), linked like every wgk_add_test:
 * `probe pass|skip|skip-fail|skip-bare` runs two tests that pass, skip (with a reason), skip and fail, or call
 * skip() without a reason; `probe gpu BACKEND` runs the
 * real-adapter check on a backend name; `probe seed` prints the seed WGK_TEST_SEED gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/wgk_test.h"

static const char *mode = "pass";

static void first(void **state) {
  if (strcmp(mode, "skip") == 0 || strcmp(mode, "skip-fail") == 0) wgk_skip("probe skipping on purpose");
  if (strcmp(mode, "skip-bare") == 0) skip();
}

static void second(void **state) {
  if (strcmp(mode, "skip-fail") == 0) fail_msg("failing on purpose");
}

int main(int argc, char **argv) {
  if (argc > 1) mode = argv[1];
  if (strcmp(mode, "seed") == 0) {
    printf("seed %llu\n", (unsigned long long)wgk_test_seed_value(7));
    return 0;
  }
  if (strcmp(mode, "gpu") == 0) {
    wgk_test_need_gpu(argc > 2 ? argv[2] : "", "probe adapter");
    return 0;
  }
  const struct CMUnitTest tests[] = {cmocka_unit_test(first), cmocka_unit_test(second)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
