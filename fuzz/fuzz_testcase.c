/* libFuzzer entry: the same text read as a test.json (tc_suite_parse) and as a bench.json
 * (tc_bench_suite_parse), the two readers sharing src/testcase/testcase_reader.c. Accepted test cases then
 * build their inputs and expected values, as `wgk test` does before touching a device, when the shapes are
 * small (a real suite may ask for gigabytes; that limit is the runtime's, not the parser's).
 * Every input must end in a suite or an error, never a crash, a leak or undefined behaviour. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "testcase/benchcase.h"
#include "testcase/testcase.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SMALL 4096 /* elements built per input at most */

static bool small(const tc_input *in) {
  if (in->kind == WGK_TC_OP && in->op_gen) { /* an op's generator (layouts ...): small counts make small tensors */
    for (int i = 0; i < WGK_OP_GEN_MAX_PARAMS && in->op_gen->params[i].name; i++)
      if (in->op_gen->params[i].count && in->params[i] > 64) return false;
    if (in->rank < 0) return true;
  }
  int64_t n = 1;
  for (int i = 0; i < in->rank; i++) {
    if (in->dims[i] < 0 || in->dims[i] > SMALL) return in->dims[i] < 0; /* a negative dim must be refused */
    n *= in->dims[i] ? in->dims[i] : 1;
    if (n > SMALL) return false;
  }
  return true;
}

static void build_inputs(const tc_input *inputs, size_t n, const char *source) {
  for (size_t i = 0; i < n; i++) {
    if (!small(&inputs[i])) continue;
    util_error err;
    util_error_clear(&err);
    util_host_tensor *t = NULL;
    if (tc_input_make(&inputs[i], source, &t, &err) == WGK_OK) util_host_tensor_free(t);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  util_error err;
  util_error_clear(&err);
  tc_suite *s = NULL;
  if (tc_suite_parse((const char *)data, size, "fuzz-test.json", &s, &err) == WGK_OK) {
    for (size_t i = 0; i < s->n_cases; i++) {
      const tc_case *c = &s->cases[i];
      (void)tc_case_matches(c, "a");
      build_inputs(c->inputs, c->n_inputs, s->source);
      for (size_t j = 0; j < c->n_expected; j++) {
        double *vals = NULL;
        size_t count = 0;
        util_error_clear(&err);
        if (tc_expected_values(&c->expected[j], s->source, &vals, &count, &err) == WGK_OK) free(vals);
      }
    }
    tc_suite_free(s);
  }
  util_error_clear(&err);
  tc_bench_suite *b = NULL;
  if (tc_bench_suite_parse((const char *)data, size, "fuzz-bench.json", &b, &err) == WGK_OK) {
    for (size_t i = 0; i < b->n_cases; i++) build_inputs(b->cases[i].inputs, b->cases[i].n_inputs, b->source);
    tc_bench_suite_free(b);
  }
  return 0;
}
