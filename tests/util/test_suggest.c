/* util_suggest: the nearest declared name for a misspelling, and none for a name that is not near any. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/suggest.h"

static const char *at(const void *list, size_t i) { return ((const char *const *)list)[i]; }

static const char *near(const char *name, const char *const *names, size_t n) {
  return util_suggest(name, names, n, at);
}

static void nearest_names(void **state) {
  (void)state;
  static const char *const rope[] = {"interleaved", "rotary_embedding_dim", "num_heads"};
  static const char *const sparse[] = {"do_rotary",    "rotary_interleaved", "scale",
                                       "kv_num_heads", "num_heads",          "sparse_block_size"};
  assert_string_equal(near("interleavd", rope, 3), "interleaved");   /* a letter left out */
  assert_string_equal(near("interleaved_", rope, 3), "interleaved"); /* one added */
  assert_string_equal(near("nmu_heads", rope, 3), "num_heads");      /* two swapped: one edit */
  assert_string_equal(near("rotary_embeding_dim", rope, 3), "rotary_embedding_dim");
  assert_string_equal(near("Interleaved", rope, 3), "interleaved"); /* case counts as an edit */
  assert_string_equal(near("sparse_blocksize", sparse, 6), "sparse_block_size");
  assert_string_equal(near("kv_num_head", sparse, 6), "kv_num_heads");
  assert_string_equal(near("num_head", sparse, 6), "num_heads"); /* nearer than kv_num_heads */
  assert_null(near("num_heads", sparse, 6));                     /* declared: nothing to suggest */
  assert_null(near("colour", rope, 3));                          /* near nothing */
  assert_null(near("heads", sparse, 6));                         /* 4 edits from num_heads: too far */
  assert_null(near("", rope, 3));
  assert_null(near(NULL, rope, 3));
  assert_null(near("x", NULL, 0));
  static const char *const short_names[] = {"x", "ab", NULL};
  assert_string_equal(near("y", short_names, 3), "x"); /* short names: one edit */
  assert_null(near("xyz", short_names, 3));
  char longname[300];
  memset(longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  static const char *const as[] = {"aaaa"};
  assert_null(near(longname, as, 1)); /* past 128 bytes: no guess, no overflow */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(nearest_names)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
