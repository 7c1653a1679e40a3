/* test.json and bench.json readers, generators and the comparison, without a GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testcase/benchcase.h"
#include "testcase/testcase.h"

static const char *good_doc =
    "{\n"
    "  \"schema\": 1,\n"
    "  \"defaults\": {\n"
    "    \"attrs\": {\"interleaved\": 0, \"num_heads\": 2},\n"
    "    \"inputs\": {\"cos\": {\"dtype\": \"float32\", \"shape\": [4, 2], \"generator\": {\"kind\": "
    "\"rotary_cos\"}}},\n"
    "    \"tolerance\": {\"float32\": {\"rtol\": 1e-4}}\n"
    "  },\n"
    "  \"cases\": [\n"
    "    {\"id\": \"r3_f32\", \"description\": \"rank 3\",\n"
    "     \"inputs\": {\"x\": {\"dtype\": \"float32\", \"shape\": [1, 2, 8],\n"
    "                        \"generator\": {\"kind\": \"uniform\", \"seed\": 7, \"lo\": -2, \"hi\": 2}},\n"
    "                \"positionIds\": {\"dtype\": \"int64\", \"shape\": [1, 2], \"data\": [[0, 3]]}},\n"
    "     \"attrs\": {\"interleaved\": 1},\n"
    "     \"requires\": [\"shader-f16\"],\n"
    "     \"expected\": {\"reference\": \"rotary\"}},\n"
    "    {\"id\": \"bad_heads\", \"inputs\": {}, \"expectError\": \"num_heads\"},\n"
    "    {\"id\": \"inline\", \"expected\": {\"y\": {\"shape\": [2], \"data\": [1.5, \"NaN\"]}},\n"
    "     \"tolerance\": {\"float16\": {\"atol\": 0.5}}}\n"
    "  ]\n"
    "}\n";

static tc_suite *parse_ok(const char *text) {
  tc_suite *s = NULL;
  util_error err = {0};
  wgk_status st = tc_suite_parse(text, strlen(text), "t.json", &s, &err);
  if (st) {
    char buf[1024];
    util_error_format(&err, buf, sizeof buf);
    fail_msg("unexpected error: %s", buf);
  }
  return s;
}

/* Parses text, expecting an error whose formatted text is exactly want. */
static void parse_error(const char *text, const char *want) {
  tc_suite *s = NULL;
  util_error err = {0};
  assert_int_not_equal(tc_suite_parse(text, strlen(text), "t.json", &s, &err), WGK_OK);
  assert_null(s);
  char buf[1024];
  util_error_format(&err, buf, sizeof buf);
  assert_string_equal(buf, want);
}

static const tc_value *find_value(const tc_value *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0) return &v[i];
  return NULL;
}

static void parses_cases_with_defaults(void **state) {
  (void)state;
  tc_suite *s = parse_ok(good_doc);
  assert_int_equal(s->n_cases, 3);
  const tc_case *c = &s->cases[0];
  assert_string_equal(c->id, "r3_f32");
  assert_int_equal(c->n_inputs, 3); /* cos from defaults, x and positionIds from the case */
  assert_string_equal(c->inputs[0].key, "cos");
  assert_int_equal(c->inputs[0].kind, WGK_TC_OP);
  assert_string_equal(c->inputs[0].op_gen->name, "rotary_cos");
  assert_int_equal(c->inputs[1].kind, WGK_TC_UNIFORM);
  assert_int_equal(c->inputs[1].seed, 7);
  assert_int_equal(c->inputs[2].dtype, WGK_DTYPE_INT64);
  assert_int_equal(json_integer_value(find_value(c->attrs, c->n_attrs, "interleaved")->value), 1);
  assert_int_equal(json_integer_value(find_value(c->attrs, c->n_attrs, "num_heads")->value), 2);
  assert_string_equal(find_value(c->attrs, c->n_attrs, "interleaved")->pos.path, "cases[0].attrs.interleaved");
  assert_string_equal(find_value(c->attrs, c->n_attrs, "num_heads")->pos.path, "defaults.attrs.num_heads");
  assert_ptr_equal(c->reference, ops_tools_find("ai.onnx.RotaryEmbedding"));
  assert_true(c->tol[WGK_DTYPE_FLOAT32].rtol == 1e-4);
  assert_true(c->tol[WGK_DTYPE_FLOAT32].atol == 1e-6); /* atol kept from the built-in default */
  assert_int_equal(c->n_requires, 1);
  assert_string_equal(s->cases[1].expect_error, "num_heads");
  const tc_case *inl = &s->cases[2];
  assert_int_equal(inl->n_expected, 1);
  double *vals = NULL;
  size_t n = 0;
  util_error err = {0};
  assert_int_equal(tc_expected_values(&inl->expected[0], s->source, &vals, &n, &err), WGK_OK);
  assert_int_equal(n, 2);
  assert_true(vals[0] == 1.5 && isnan(vals[1]));
  free(vals);
  assert_true(inl->tol[WGK_DTYPE_FLOAT16].atol == 0.5 && inl->tol[WGK_DTYPE_FLOAT16].rtol == 1e-2);
  assert_true(tc_case_matches(c, "r3") && tc_case_matches(c, NULL) && !tc_case_matches(c, "r4"));
  tc_suite_free(s);
}

static void rejects_malformed_documents(void **state) {
  (void)state;
  parse_error("{\n  \"schema\": 1,\n  \"cases\": [,]\n}", "t.json:3:13: unexpected token near ','");
  parse_error("{\"schema\": 2, \"cases\": []}", "t.json:1:12: schema: unsupported schema (this wgk reads schema 1)");
  parse_error("{\"schema\": 1, \"cases\": [], \"extra\": 1}", "t.json:1:28: extra: unknown key 'extra'");
  parse_error(
      "{\"schema\": 1,\n \"cases\": [{\"id\": \"a\", \"expected\": {\"reference\": \"rotary\"},\n \"colour\": 1}]}",
      "t.json:3:2: cases[0].colour: unknown key 'colour'");
  parse_error("{\"schema\": 1, \"cases\": [{\"id\": \"a\"}]}",
              "t.json:1:25: cases[0]: case 'a' has neither \"expected\" nor \"expectError\"");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\"}, {\"id\": \"a\", \"expectError\": \"y\"}]}",
      "t.json:1:58: cases[1]: duplicate case id 'a'");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\",\n"
      " \"inputs\": {\"x\": {\"dtype\": \"float32\", \"shape\": [2, 2], \"data\": [1, 2, 3]}}}]}",
      "t.json:2:64: cases[0].inputs.x.data: 3 values for a shape of 4 elements");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\",\n"
      " \"inputs\": {\"x\": {\"dtype\": \"float32\", \"shape\": [2], \"generator\": {\"kind\": \"normal\"}}}}]}",
      "t.json:2:66: cases[0].inputs.x.generator: missing required key 'seed' (random generators are always "
      "seeded)");
  parse_error("{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\", \"requires\": [\"warp-drive\"]}]}",
              "t.json:1:70: cases[0].requires[0]: unknown device feature 'warp-drive'");
  parse_error("{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expected\": {\"reference\": \"softmax\"}}]}",
              "t.json:1:63: cases[0].expected.reference: unknown reference (wgk has: rotary, sparse_attention)");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\",\n"
      " \"inputs\": {\"x\": {\"dtype\": \"float64\", \"shape\": [2], \"data\": [1, 2]}}}]}",
      "t.json:2:28: cases[0].inputs.x.dtype: expected a dtype: float32 float16 int32 uint32 int64 int8 uint8 "
      "bool");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\", \"absent\": [\"x\"],\n"
      " \"inputs\": {\"x\": {\"dtype\": \"float32\", \"shape\": [], \"data\": [1]}}}]}",
      "t.json:1:25: cases[0]: 'x' is both an input and absent");
}

/* Integer test data holds integers within its dtype's range: "NaN", 1.5, 2^31 in int32 data and 2^53+1 in int64
 * data are refused at file:line:column with the case and port in the path, never stored as 0 or rounded. */
static void integer_data_checked(void **state) {
  (void)state;
  static const char *const head =
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\",\n \"inputs\": {\"pos\": ";
  static const struct {
    const char *input, *want;
  } cases[] = {
      {"{\"dtype\": \"int64\", \"shape\": [2], \"data\": [1, \"NaN\"]}}}]}",
       "t.json:2:65: cases[0].inputs.pos.data[1]: \"NaN\" in int64 data: only float data may hold NaN or infinities"},
      {"{\"dtype\": \"int32\", \"shape\": [2], \"data\": [1.5, 2]}}}]}",
       "t.json:2:62: cases[0].inputs.pos.data[0]: 1.5 is not an integer, as int32 data must be"},
      {"{\"dtype\": \"int32\", \"shape\": [1], \"data\": [2147483648]}}}]}",
       "t.json:2:62: cases[0].inputs.pos.data[0]: 2147483648 is outside the int32 range [-2147483648, 2147483647]"},
      {"{\"dtype\": \"int64\", \"shape\": [1], \"data\": [9007199254740993]}}}]}",
       "t.json:2:62: cases[0].inputs.pos.data[0]: 9007199254740993 is outside the int64 range [-9007199254740992, "
       "9007199254740992] (int64 test data is exact within +-2^53)"},
      {"{\"dtype\": \"uint8\", \"shape\": [1], \"data\": [-1]}}}]}",
       "t.json:2:62: cases[0].inputs.pos.data[0]: -1 is outside the uint8 range [0, 255]"},
      {"{\"dtype\": \"int64\", \"shape\": [1], \"data\": [1e300]}}}]}",
       "t.json:2:62: cases[0].inputs.pos.data[0]: 1.0000000000000001e+300 is outside the int64 range "
       "[-9007199254740992, 9007199254740992]"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char doc[512];
    snprintf(doc, sizeof doc, "%s%s", head, cases[i].input);
    parse_error(doc, cases[i].want);
  }
  tc_suite *s = parse_ok(
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\", \"expectError\": \"x\", \"inputs\": {\"pos\": "
      "{\"dtype\": \"int64\", \"shape\": [3], \"data\": [-9007199254740992, 0, 2.0]}}}]}");
  tc_suite_free(s);
}

static util_host_tensor *make(const tc_input *in) {
  util_host_tensor *t = NULL;
  util_error err = {0};
  assert_int_equal(tc_input_make(in, "t.json", &t, &err), WGK_OK);
  return t;
}

static void generators_are_reproducible(void **state) {
  (void)state;
  tc_input in = {
      .dtype = WGK_DTYPE_FLOAT32, .rank = 2, .dims = {3, 5}, .kind = WGK_TC_UNIFORM, .seed = 42, .a = -1, .b = 1};
  util_host_tensor *a = make(&in), *b = make(&in);
  assert_memory_equal(a->data, b->data, util_host_tensor_bytes(a));
  in.seed = 43;
  util_host_tensor *c = make(&in);
  assert_memory_not_equal(a->data, c->data, util_host_tensor_bytes(a));
  for (size_t i = 0; i < 15; i++) assert_true(fabs(util_host_tensor_get(a, i)) <= 1);
  in.kind = WGK_TC_NORMAL;
  util_host_tensor *n1 = make(&in), *n2 = make(&in);
  assert_memory_equal(n1->data, n2->data, util_host_tensor_bytes(n1));
  util_host_tensor_free(a), util_host_tensor_free(b), util_host_tensor_free(c);
  util_host_tensor_free(n1), util_host_tensor_free(n2);
}

static void generators_fill_as_documented(void **state) {
  (void)state;
  tc_input pos = {.dtype = WGK_DTYPE_INT64, .rank = 2, .dims = {2, 3}, .kind = WGK_TC_POSITIONS, .a = 4};
  util_host_tensor *t = make(&pos);
  const double want_pos[6] = {4, 5, 6, 4, 5, 6};
  for (size_t i = 0; i < 6; i++) assert_true(util_host_tensor_get(t, i) == want_pos[i]);
  util_host_tensor_free(t);
  tc_input ar = {.dtype = WGK_DTYPE_FLOAT16, .rank = 1, .dims = {4}, .kind = WGK_TC_ARANGE, .a = 1, .b = 0.5};
  t = make(&ar);
  for (size_t i = 0; i < 4; i++) assert_true(util_host_tensor_get(t, i) == 1 + 0.5 * (double)i);
  util_host_tensor_free(t);
  tc_input cs = {.dtype = WGK_DTYPE_FLOAT32,
                 .rank = 2,
                 .dims = {3, 2},
                 .kind = WGK_TC_OP,
                 .op_gen = ops_tools_find_generator("rotary_cos"),
                 .params = {10000}};
  t = make(&cs);
  assert_true(util_host_tensor_get(t, 0) == 1 && fabs(util_host_tensor_get(t, 2) - cos(1.0)) < 1e-7);
  assert_true(fabs(util_host_tensor_get(t, 3) - cos(0.01)) < 1e-7);
  util_host_tensor_free(t);
  tc_input ui = {.dtype = WGK_DTYPE_INT32, .rank = 1, .dims = {64}, .kind = WGK_TC_UNIFORM, .seed = 1, .a = 0, .b = 3};
  t = make(&ui);
  for (size_t i = 0; i < 64; i++) assert_true(util_host_tensor_get(t, i) >= 0 && util_host_tensor_get(t, i) <= 3);
  util_host_tensor_free(t);
  tc_input row = {.dtype = WGK_DTYPE_INT32,
                  .rank = -1,
                  .kind = WGK_TC_OP,
                  .op_gen = ops_tools_find_generator("phi3_layout_row"),
                  .params = {2, 4, 1, 2}};
  t = make(&row);
  assert_int_equal(t->rank, 2);
  assert_int_equal(t->dims[0], 2);
  assert_int_equal(t->dims[1], 5);
  assert_true(util_host_tensor_get(t, 0) == 0);
  util_host_tensor_free(t);
}

static void compare_reports_the_worst_element(void **state) {
  (void)state;
  const double want[4] = {1, 2, 3, 4};
  double got[4] = {1, 2.001, 3.1, 4};
  tc_compare_result r;
  tc_compare(got, want, 4, (tc_tolerance){1e-2, 0}, &r);
  assert_false(r.pass);
  assert_int_equal(r.n_bad, 1);
  assert_int_equal(r.worst, 2);
  assert_true(r.worst_got == 3.1 && r.worst_want == 3);
  assert_true(fabs(r.max_abs - 0.1) < 1e-12);
  got[2] = 3;
  tc_compare(got, want, 4, (tc_tolerance){1e-2, 0}, &r);
  assert_true(r.pass);
  got[3] = NAN; /* an element the kernel never wrote keeps its NaN poison */
  tc_compare(got, want, 4, (tc_tolerance){1e9, 1e9}, &r);
  assert_false(r.pass);
  assert_int_equal(r.n_nonfinite, 1);
  assert_int_equal(r.worst, 3);
  const double want_nan[2] = {NAN, INFINITY};
  const double got_nan[2] = {NAN, INFINITY};
  tc_compare(got_nan, want_nan, 2, (tc_tolerance){0, 0}, &r);
  assert_true(r.pass);
  char buf[64];
  const int64_t dims[3] = {2, 3, 4};
  tc_unravel(23, 3, dims, buf, sizeof buf);
  assert_string_equal(buf, "(1, 2, 3)");
}

/* "npy" inputs and expected outputs: the path kept, dtype and shape left to the file; paths leaving build/webgpu,
 * names without .npy and an input with both data and npy refused at their position; no package, no data. */
static void npy_files_parse(void **state) {
  (void)state;
  tc_suite *s = parse_ok(
      "{\"schema\": 1, \"cases\": [{\"id\": \"f\",\n"
      " \"inputs\": {\"x\": {\"npy\": \"data/x.npy\"}, \"w\": {\"npy\": \"w.npy\", \"dtype\": \"float16\","
      " \"shape\": [2, 3]}},\n"
      " \"expected\": {\"y\": {\"npy\": \"expected/f.y.npy\"}}}]}");
  const tc_case *c = &s->cases[0];
  assert_int_equal(c->n_inputs, 2);
  assert_int_equal(c->inputs[0].kind, WGK_TC_NPY);
  assert_string_equal(c->inputs[0].npy, "data/x.npy");
  assert_int_equal(c->inputs[0].rank, -1);
  assert_int_equal(c->inputs[0].dtype, WGK_DTYPE_INVALID);
  assert_int_equal(c->inputs[1].dtype, WGK_DTYPE_FLOAT16);
  assert_int_equal(c->inputs[1].rank, 2);
  assert_string_equal(c->expected[0].npy, "expected/f.y.npy");
  assert_null(c->expected[0].data);
  assert_true(tc_case_has_npy_expected(c));
  util_host_tensor *t = NULL;
  util_error err = {0};
  assert_int_not_equal(tc_input_load(&c->inputs[0], NULL, "t.json", &t, &err), WGK_OK);
  assert_null(t);
  assert_int_not_equal(tc_input_make(&c->inputs[0], "t.json", &t, &err), WGK_OK);
  assert_null(t);
  tc_suite_free(s);
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"f\",\n"
      " \"inputs\": {\"x\": {\"npy\": \"../x.npy\"}}, \"expectError\": \"e\"}]}",
      "t.json:2:26: cases[0].inputs.x.npy: '../x.npy': the file is a path inside build/webgpu, relative to it "
      "(no leading '/', no '..')");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"f\",\n"
      " \"inputs\": {\"x\": {\"npy\": \"x.bin\"}}, \"expectError\": \"e\"}]}",
      "t.json:2:26: cases[0].inputs.x.npy: 'x.bin': a .npy file name ends in .npy");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"f\",\n"
      " \"inputs\": {\"x\": {\"npy\": \"x.npy\", \"dtype\": \"float32\", \"shape\": [1], \"data\": [1]}},"
      " \"expectError\": \"e\"}]}",
      "t.json:2:18: cases[0].inputs.x: an input has exactly one of \"data\", \"generator\" and \"npy\"");
  parse_error(
      "{\"schema\": 1, \"cases\": [{\"id\": \"f\",\n"
      " \"expected\": {\"y\": {\"npy\": \"y.npy\", \"data\": [1]}}}]}",
      "t.json:2:20: cases[0].expected.y: an expected output has exactly one of \"data\" and \"npy\"");
}

static void bench_cases_parse(void **state) {
  (void)state;
  const char *doc =
      "{\"schema\": 1, \"defaults\": {\"warmup\": 5},\n"
      " \"cases\": [{\"id\": \"phi3\", \"flops\": 1000, \"tunables\": {\"WORKGROUP_SIZE\": 128},\n"
      "  \"inputs\": {\"x\": {\"dtype\": \"float16\", \"shape\": [1, 32, 128, 128],"
      " \"generator\": {\"kind\": \"normal\", \"seed\": 3}}}}]}";
  tc_bench_suite *s = NULL;
  util_error err = {0};
  assert_int_equal(tc_bench_suite_parse(doc, strlen(doc), "b.json", &s, &err), WGK_OK);
  assert_int_equal(s->n_cases, 1);
  assert_int_equal(s->cases[0].warmup, 5);
  assert_int_equal(s->cases[0].iterations, 20);
  assert_int_equal(s->cases[0].bytes, -1);
  assert_int_equal(s->cases[0].flops, 1000);
  tc_bench_suite_free(s);
  const char *inline_doc =
      "{\"schema\": 1, \"cases\": [{\"id\": \"a\",\n"
      " \"inputs\": {\"x\": {\"dtype\": \"float32\", \"shape\": [1], \"data\": [1]}}}]}";
  assert_int_not_equal(tc_bench_suite_parse(inline_doc, strlen(inline_doc), "b.json", &s, &err), WGK_OK);
  char buf[512];
  util_error_format(&err, buf, sizeof buf);
  assert_string_equal(buf, "b.json:2:61: cases[0].inputs.x.data: bench inputs are generated, not inline");
  /* issue 37: warmup and iterations are bounded (a warmup of 2^62 ran for ever; REPEATS x iterations overflowed);
   * the bounds themselves are accepted */
  static const struct {
    const char *field;
    const char *want;
  } bounds[] = {
      {"\"warmup\": 4611686018427387904", "cases[0].warmup: expected an integer in [0, 100000]"},
      {"\"warmup\": 100001", "cases[0].warmup: expected an integer in [0, 100000]"},
      {"\"iterations\": 9223372036854775807", "cases[0].iterations: expected an integer in [0, 1000000]"},
      {"\"iterations\": 1000001", "cases[0].iterations: expected an integer in [0, 1000000]"},
      {"\"iterations\": -1", "cases[0].iterations: expected an integer in [0, 1000000]"},
      {"\"warmup\": 100000, \"iterations\": 1000000", NULL},
  };
  for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
    char d[512];
    snprintf(d, sizeof d,
             "{\"schema\": 1, \"cases\": [{\"id\": \"a\", %s, \"inputs\": {\"x\": {\"dtype\": \"float32\", "
             "\"shape\": [1], \"generator\": {\"kind\": \"normal\", \"seed\": 3}}}}]}",
             bounds[i].field);
    err = (util_error){0};
    wgk_status st = tc_bench_suite_parse(d, strlen(d), "b.json", &s, &err);
    if (!bounds[i].want) {
      assert_int_equal(st, WGK_OK);
      assert_int_equal(s->cases[0].iterations, 1000000);
      tc_bench_suite_free(s);
      continue;
    }
    assert_int_not_equal(st, WGK_OK);
    util_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, bounds[i].want)) fail_msg("%s: got '%s', want '%s'", bounds[i].field, buf, bounds[i].want);
  }
}

/* The examples in docs/package-format.md parse: the ```json blocks after "### Example" and "## bench.json". */
static char *doc_block(const char *doc, const char *heading) {
  const char *h = strstr(doc, heading), *b = h ? strstr(h, "```json\n") : NULL, *e = b ? strstr(b + 8, "```") : NULL;
  return e ? strndup(b + 8, (size_t)(e - b - 8)) : NULL;
}

static void doc_examples_parse(void **state) {
  (void)state;
  const char *src = getenv("WGK_SOURCE_DIR");
  assert_non_null(src);
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/package-format.md", src);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char doc[1 << 16];
  size_t n = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  doc[n] = '\0';
  char *test = doc_block(doc, "### Example"), *bench = doc_block(doc, "## bench.json");
  assert_non_null(test);
  assert_non_null(bench);
  tc_suite *ts = parse_ok(test);
  assert_int_equal(ts->n_cases, 3);
  tc_bench_suite *bs = NULL;
  util_error err = {0};
  assert_int_equal(tc_bench_suite_parse(bench, strlen(bench), "doc", &bs, &err), WGK_OK);
  assert_int_equal(bs->cases[0].iterations, 50);
  tc_suite_free(ts);
  tc_bench_suite_free(bs);
  free(test);
  free(bench);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parses_cases_with_defaults),
      cmocka_unit_test(rejects_malformed_documents),
      cmocka_unit_test(generators_are_reproducible),
      cmocka_unit_test(generators_fill_as_documented),
      cmocka_unit_test(compare_reports_the_worst_element),
      cmocka_unit_test(bench_cases_parse),
      cmocka_unit_test(npy_files_parse),
      cmocka_unit_test(doc_examples_parse),
      cmocka_unit_test(integer_data_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
