#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "util/dynbuf.h"
#include "util/error.h"

static void first_error_wins(void **state) {
  (void)state;
  util_error e;
  util_error_clear(&e);
  assert_false(util_error_is_set(&e));
  assert_int_equal(
      util_error_at(&e, WGK_ERR_MANIFEST, util_pos_make("m.json", 41, 17), "derive.x", "unknown name '%s'", "y"),
      WGK_ERR_MANIFEST);
  util_error_at(&e, WGK_ERR_IO, util_pos_make("other", 1, 1), NULL, "later");
  char buf[256];
  util_error_format(&e, buf, sizeof buf);
  assert_string_equal(buf, "m.json:41:17: derive.x: unknown name 'y'");
}

static void dynbuf_limit_is_sticky(void **state) {
  (void)state;
  util_dynbuf b;
  util_dynbuf_init(&b, 8);
  assert_true(util_dynbuf_append_str(&b, "abcd"));
  assert_true(util_dynbuf_printf(&b, "%d", 123));
  assert_string_equal(util_dynbuf_str(&b), "abcd123");
  assert_false(util_dynbuf_append_str(&b, "xy"));
  assert_false(util_dynbuf_append_str(&b, ""));
  assert_null(util_dynbuf_take(&b));
  util_dynbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_error_wins),
      cmocka_unit_test(dynbuf_limit_is_sticky),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
