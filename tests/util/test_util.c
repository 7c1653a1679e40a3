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
  wgk_error e;
  wgk_error_clear(&e);
  assert_false(wgk_error_is_set(&e));
  assert_int_equal(wgk_error_set(&e, WGK_ERR_MANIFEST, "m.json", 41, 17, "derive.x", "unknown name '%s'", "y"),
                   WGK_ERR_MANIFEST);
  wgk_error_set(&e, WGK_ERR_IO, "other", 1, 1, NULL, "later");
  char buf[256];
  wgk_error_format(&e, buf, sizeof buf);
  assert_string_equal(buf, "m.json:41:17: derive.x: unknown name 'y'");
}

static void dynbuf_limit_is_sticky(void **state) {
  (void)state;
  wgk_dynbuf b;
  wgk_dynbuf_init(&b, 8);
  assert_true(wgk_dynbuf_append_str(&b, "abcd"));
  assert_true(wgk_dynbuf_printf(&b, "%d", 123));
  assert_string_equal(wgk_dynbuf_str(&b), "abcd123");
  assert_false(wgk_dynbuf_append_str(&b, "xy"));
  assert_false(wgk_dynbuf_append_str(&b, ""));
  assert_null(wgk_dynbuf_take(&b));
  wgk_dynbuf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_error_wins),
      cmocka_unit_test(dynbuf_limit_is_sticky),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
