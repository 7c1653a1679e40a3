#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "util/dynbuf.h"
#include "util/error.h"
#include "util/json_pos.h"
#include "util/strindex.h"

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

static const char *formatted(const util_error *e) {
  static char buf[512];
  util_error_format(e, buf, sizeof buf);
  return buf;
}

/* The one out-of-memory error: its status, the text of that status, where it happened; the first error still wins. */
static void oom_helper(void **state) {
  (void)state;
  util_error e;
  util_error_clear(&e);
  assert_int_equal(util_error_oom(&e, "k.json", "planning a pass"), WGK_ERR_OUT_OF_MEMORY);
  assert_int_equal(e.status, WGK_ERR_OUT_OF_MEMORY);
  assert_string_equal(formatted(&e), "k.json: planning a pass: out of memory");
  util_error_clear(&e);
  util_error_oom(&e, NULL, NULL);
  assert_string_equal(formatted(&e), "out of memory");
  util_error_clear(&e);
  util_error_in(&e, WGK_ERR_IO, "a", NULL, "cannot read");
  assert_int_equal(util_error_oom(&e, "b", NULL), WGK_ERR_OUT_OF_MEMORY);
  assert_string_equal(formatted(&e), "a: cannot read");
  assert_int_equal(util_error_oom(NULL, NULL, NULL), WGK_ERR_OUT_OF_MEMORY);
}

/* Each helper puts the position where util_error_format expects it, and leaves out what is unknown. */
static void helpers_shape(void **state) {
  (void)state;
  util_error e;
  util_error_clear(&e);
  assert_int_equal(util_error_plain(&e, WGK_ERR_OUT_OF_MEMORY, "out of %s", "memory"), WGK_ERR_OUT_OF_MEMORY);
  assert_string_equal(formatted(&e), "out of memory");
  assert_string_equal(e.source, "");
  assert_string_equal(e.path, "");
  assert_int_equal(e.line, 0);

  util_error_clear(&e);
  assert_int_equal(util_error_in(&e, WGK_ERR_IO, "pkg/manifest.json", NULL, "cannot read"), WGK_ERR_IO);
  assert_string_equal(formatted(&e), "pkg/manifest.json: cannot read");
  util_error_clear(&e);
  util_error_in(&e, WGK_ERR_NOT_FOUND, "https://hub/x", "org/repo", "404");
  assert_string_equal(formatted(&e), "https://hub/x: org/repo: 404");
  util_error_clear(&e);
  util_error_in(&e, WGK_ERR_INVALID_ARGUMENT, NULL, "disable_features", "unknown feature");
  assert_string_equal(formatted(&e), "disable_features: unknown feature");

  util_error_clear(&e);
  util_error_at(&e, WGK_ERR_PARSE, util_pos_make("t.wgsl", 3, 9), NULL, "bad %d", 7);
  assert_string_equal(formatted(&e), "t.wgsl:3:9: bad 7");
  assert_int_equal(e.line, 3);
  assert_int_equal(e.column, 9);
  util_error_clear(&e);
  util_error_at(&e, WGK_ERR_PARSE, util_pos_make("t.wgsl", 3, 0), "x", "no column");
  assert_string_equal(formatted(&e), "t.wgsl:3: x: no column");
}

/* util_error_value and UTIL_POS read line, column (and path) from the value, not from the caller's spelling. */
static void value_position(void **state) {
  (void)state;
  struct {
    int line, column;
    const char *path;
  } pos = {12, 5, "ports[2].shape"};
  struct {
    int line, column;
    char text[8];
  } jerr = {4, 33, "eof"};
  util_error e;
  util_error_clear(&e);
  assert_int_equal(util_error_value(&e, WGK_ERR_MANIFEST, "m.json", pos, "rank %d", 3), WGK_ERR_MANIFEST);
  assert_string_equal(formatted(&e), "m.json:12:5: ports[2].shape: rank 3");
  util_error_clear(&e);
  util_error_at(&e, WGK_ERR_PARSE, UTIL_POS("lock.json", jerr), NULL, "%s", jerr.text);
  assert_string_equal(formatted(&e), "lock.json:4:33: eof");

  /* wrap fills only what is still empty */
  util_error_clear(&e);
  util_error_plain(&e, WGK_ERR_EVAL, "unknown name 'y'");
  util_error_wrap(&e, UTIL_POS("a.tmpl", pos), "derive.x");
  util_error_wrap(&e, util_pos_make("other", 1, 1), "other");
  assert_string_equal(formatted(&e), "a.tmpl:12:5: derive.x: unknown name 'y'");
}

/* The readers' position: the value's, or its key's when at_key; unknown paths give the source alone. */
static void json_value_position(void **state) {
  (void)state;
  const char *text = "{\n  \"a\": [1,\n    {\"bb\":   true}]\n}";
  util_manifest_jpos idx = {0};
  assert_int_equal(util_manifest_jpos_build(text, strlen(text), &idx), WGK_OK);
  util_pos p = util_manifest_jpos_pos(&idx, "f.json", "a[1].bb", false);
  assert_string_equal(p.source, "f.json");
  assert_int_equal(p.line, 3);
  assert_int_equal(p.column, 14);
  p = util_manifest_jpos_pos(&idx, "f.json", "a[1].bb", true);
  assert_int_equal(p.line, 3);
  assert_int_equal(p.column, 6);
  p = util_manifest_jpos_pos(&idx, "f.json", "a[0]", false);
  assert_int_equal(p.line, 2);
  assert_int_equal(p.column, 9);
  p = util_manifest_jpos_pos(&idx, "f.json", "nope", false);
  assert_int_equal(p.line, 0);
  assert_int_equal(p.column, 0);
  p = util_manifest_jpos_pos(NULL, "f.json", "a", false);
  assert_int_equal(p.line, 0);
  util_error e;
  util_error_clear(&e);
  util_error_at(&e, WGK_ERR_MANIFEST, util_manifest_jpos_pos(&idx, "f.json", "a[1].bb", false), "a[1].bb",
                "expected a number");
  assert_string_equal(formatted(&e), "f.json:3:14: a[1].bb: expected a number");
  util_manifest_jpos_free(&idx);
}

/* relocate moves the whole position (and the path when given); append extends the message; both leave an unset
 * error unset. */
static void relocate_and_append(void **state) {
  (void)state;
  util_error e;
  util_error_clear(&e);
  util_error_relocate(&e, util_pos_make("x", 1, 1), "p");
  util_error_append(&e, "more");
  assert_false(util_error_is_set(&e));
  util_error_at(&e, WGK_ERR_SHADER, util_pos_make("<wgsl>", 40, 7), "pass a", "bad type");
  util_error_append(&e, " (WGSL line %d)", e.line);
  util_error_relocate(&e, util_pos_make("k.wgsl.j2", 12, 0), NULL);
  assert_string_equal(formatted(&e), "k.wgsl.j2:12: pass a: bad type (WGSL line 40)");
  util_error_relocate(&e, util_pos_make("m.json", 3, 9), "derive.n");
  assert_string_equal(formatted(&e), "m.json:3:9: derive.n: bad type (WGSL line 40)");
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

/* util_strindex: every key found with the value it was added under, also after the table grew past its first
 * size; a key added again reports the first value and changes nothing; an absent key is not found. The values are
 * checked against the order of adding, an independent record. */
static void strindex_keys_and_duplicates(void **state) {
  (void)state;
  enum { N = 5000 };
  static char keys[N][16];
  util_strindex x;
  assert_true(util_strindex_init(&x, 4)); /* sized for 4: grows many times */
  for (size_t i = 0; i < N; i++) {
    snprintf(keys[i], sizeof keys[i], "k%zu", i * 7919 % N);
    assert_int_equal(util_strindex_add(&x, keys[i], i, NULL), 1);
  }
  for (size_t i = 0; i < N; i++) {
    size_t v = N, prev = N;
    char copy[16];
    memcpy(copy, keys[i], sizeof copy); /* found by content, not by pointer */
    assert_true(util_strindex_find(&x, copy, &v));
    assert_int_equal(v, i);
    assert_int_equal(util_strindex_add(&x, copy, N + i, &prev), 0);
    assert_int_equal(prev, i);
  }
  assert_int_equal(x.n, N);
  assert_false(util_strindex_find(&x, "k5000", NULL));
  assert_false(util_strindex_find(&x, "", NULL));
  util_strindex_free(&x);
  assert_false(util_strindex_find(&x, "k1", NULL)); /* a freed index finds nothing */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_error_wins),    cmocka_unit_test(dynbuf_limit_is_sticky),
      cmocka_unit_test(helpers_shape),       cmocka_unit_test(oom_helper),
      cmocka_unit_test(value_position),      cmocka_unit_test(json_value_position),
      cmocka_unit_test(relocate_and_append), cmocka_unit_test(strindex_keys_and_duplicates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
