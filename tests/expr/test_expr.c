/* Expression language: oracle-checked cases, helpers, errors with columns, limits, the value API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "device/device_desc.h"

typedef struct {
  const char *expr, *want;
} expr_case;

static const expr_case oracle_cases[] = {
#include "expr/oracle_cases.inc"
};

/* Helpers are not part of the Jinja oracle (the loader passes them in): expected values from the public
 * loader's definitions (docs/loader-semantics.md; its bundle's helper table), one block per helper that differed
 * from the earlier reconstruction: hasAxis, axisValue, isUniqueIntList, broadcastable, has, dtypeBytes,
 * onnxDtypeCode, pick and the axis wrap of dim/rows/outer/inner. */
static const expr_case helper_cases[] = {
    {"ceilDiv(7, 2)", "4"},
    {"ceilDiv(8, 2)", "4"},
    {"ceilDiv(numel(shapes.X) / 2, 256)", "1"},
    {"ceilDiv(1, 0)", NULL},
    {"pow2ceil(0)", "1"},
    {"pow2ceil(1)", "1"},
    {"pow2ceil(5)", "8"},
    {"pow2ceil(64)", "64"},
    {"log2ceil(1)", "0"},
    {"log2ceil(0)", "0"},
    {"log2ceil(5)", "3"},
    {"log2ceil(8)", "3"},
    {"numel([])", "1"},
    {"numel(shapes.X)", "24"},
    {"numel([2, 'a'])", NULL},
    {"dim(shapes.X, 0)", "2"},
    {"dim(shapes.X, -1)", "4"},
    {"dim(shapes.X, 3)", "2"},
    {"dim(shapes.X, -4)", "4"},
    {"dim(shapes.X, 7)", "3"},
    {"dim([], 0) is undefined", "true"},
    {"rows(shapes.X, 3)", "12"},
    {"outer(shapes.X, -1)", "6"},
    {"inner(shapes.X, 4)", "4"},
    {"rows([], 0)", "1"},
    {"outer([], 1)", "1"},
    {"inner([], -1)", "1"},
    {"rows(shapes.X, 1)", "8"},
    {"outer(shapes.X, 1)", "2"},
    {"inner(shapes.X, 1)", "4"},
    {"inner(shapes.X, -1)", "1"},
    {"prefix([1, 2, 3], 2)", "[1, 2]"},
    {"suffix([1, 2, 3], 2)", "[3]"},
    {"suffix([1, 2, 3], 1)", "[2, 3]"},
    {"prefix([1], 5)", "[1]"},
    {"suffix([1], 5)", "[]"},
    {"suffix([1, 2], 0)", "[1, 2]"},
    {"prefix([1, 2], -1)", "[]"},
    {"suffix([1, 2], -1)", "[1, 2]"},
    {"prefix(shapes.X, 1) + suffix(shapes.X, 1)", "[2, 3, 4]"},
    {"fill(0, 3)", "[0, 0, 0]"},
    {"fill(1, 0)", "[]"},
    {"fill(1, -1)", NULL},
    {"moveAxis([2, 3, 4], 0, 2)", "[3, 4, 2]"},
    {"moveAxis([2, 3, 4], -1, 0)", "[4, 2, 3]"},
    {"permuteShape([2, 3, 4], [2, 0, 1])", "[4, 2, 3]"},
    {"permuteShape([2, 3], [0])", NULL},
    {"permuteShape([2, 3], [0, 0])", NULL},
    {"permuteShape([2, 3], [-1, 1])", NULL},
    {"permuteShape([2, 3], [0, 2])", NULL},
    {"reversedAxes(3)", "[2, 1, 0]"},
    {"reversedAxes(0)", "[]"},
    {"broadcastShape([2, 1, 4], [3, 1])", "[2, 3, 4]"},
    {"broadcastShape([2], [3])", NULL},
    {"broadcastShape([], [5])", "[5]"},
    {"broadcastable([3], [2, 3])", "true"},
    {"broadcastable([2, 3], [3])", "false"},
    {"broadcastable([1, 3], [4, 3])", "true"},
    {"broadcastable([2, 3], [4, 3])", "false"},
    {"broadcastable([], [5])", "true"},
    {"broadcastable([8, 1, 6, 1], [7, 1, 5])", "false"},
    {"broadcastable([1], [])", "false"},
    {"broadcastable(1, [1])", NULL},
    {"matmulShape([2, 3], [3, 4])", "[2, 4]"},
    {"matmulShape([5, 2, 3], [3, 4])", "[5, 2, 4]"},
    {"matmulShape([3], [3, 4])", "[4]"},
    {"matmulShape([2, 3], [3])", "[2]"},
    {"matmulShape([3], [3])", "[]"},
    {"matmulShape([2, 3], [4, 5])", NULL},
    {"sameShape([1, 2], [1, 2])", "true"},
    {"sameShape([1, 2], [2, 1])", "false"},
    {"sameShape([1], 1)", "false"},
    {"hasAxis([0, 2], -1, 3)", "true"},
    {"hasAxis([0, 2], 1, 3)", "false"},
    {"hasAxis([-1], 2, 3)", "true"},
    {"hasAxis([4], 1, 3)", "true"},
    {"hasAxis([1, 2], -2)", "false"},
    {"hasAxis([], 0, 3)", "false"},
    {"hasAxis([0], 0, 0)", "false"},
    {"hasAxis(3, 0, 3)", NULL},
    {"hasAxis(['a'], 0, 3)", "false"},
    {"axisValue([10, 20], [0, -1], 2, 3, 7)", "20"},
    {"axisValue([10], [0, -1], 2, 3, 7)", "7"},
    {"axisValue([10, 20], [0, 1], 2, 3, 7)", "7"},
    {"axisValue([10, 20], [0, 1], -3, 3)", "10"},
    {"axisValue([10, 20], [0, 1], 5, 3) is undefined", "true"},
    {"axisValue([10, 20], 0, 0, 3)", NULL},
    {"isUniqueIntList([0, 1, 2], 0, 3)", "true"},
    {"isUniqueIntList([0, 3], 0, 3)", "false"},
    {"isUniqueIntList([-1, 2], -3, 3)", "true"},
    {"isUniqueIntList([0, 3], 0, 6, 3)", "false"},
    {"isUniqueIntList([0, 4], 0, 6, 3)", "true"},
    {"isUniqueIntList([1, 1], 0, 3)", "false"},
    {"isUniqueIntList([1, 'a'], 0, 3)", "false"},
    {"isUniqueIntList([1], 3, 0)", "false"},
    {"isUniqueIntList([1], 0, 3, -1)", "false"},
    {"isUniqueIntList(5, 0, 3)", "false"},
    {"isUniqueIntList([1.5], 0, 3)", "false"},
    {"isUniqueIntList([], 0, 0)", "true"},
    {"isUniqueIntList([1, 2], 0)", "false"},
    {"isUniqueIntList([1, 2, 3])", "false"},
    {"isUniqueIntList([-4, 2], -6, 6, 3)", "false"},
    {"isUniqueIntList([-4, 1], -6, 6, 3)", "true"},
    {"has(d, 'a')", "true"},
    {"has(d, 'q')", "false"},
    {"has([1, 2], 2)", "false"},
    {"has([1, 2], 1)", "true"},
    {"has([1, 2], 0)", "true"},
    {"has([1, 2], -1)", "false"},
    {"has([1, 2], 'length')", "true"},
    {"has('abc', 0)", "true"},
    {"has('abc', 'b')", "false"},
    {"has(1, 0)", "false"},
    {"has(none, 'a')", "false"},
    {"dtypeBytes('f16')", "2"},
    {"dtypeBytes('float32')", "4"},
    {"dtypeBytes('int64')", "8"},
    {"dtypeBytes('x')", NULL},
    {"dtypeBytes('int8')", "4"},
    {"dtypeBytes('bool')", "4"},
    {"dtypeBytes('uint8')", "4"},
    {"dtypeBytes('int16')", "4"},
    {"dtypeBytes('vec2<u32>')", "8"},
    {"dtypeBytes('i32')", "4"},
    {"dtypeBytes('float64')", NULL},
    {"onnxDtypeCode('float32')", "1"},
    {"onnxDtypeCode('float16')", "10"},
    {"onnxDtypeCode('int64')", "7"},
    {"onnxDtypeCode('uint8')", "2"},
    {"onnxDtypeCode('int8')", "3"},
    {"onnxDtypeCode('int16')", "5"},
    {"onnxDtypeCode('int32')", "6"},
    {"onnxDtypeCode('bool')", "9"},
    {"onnxDtypeCode('uint32')", "12"},
    {"onnxDtypeCode('f32')", NULL},
    {"pick([[false, 1], [true, 2]], 3)", "2"},
    {"pick([[false, 1]], 3)", "3"},
    {"pick([[[], 1]], 3)", "1"},
    {"pick([[0, 1]], 3)", "3"},
    {"pick([[false, 1]]) is undefined", "true"},
    {"pick([[true, 1, 9]], 3)", "1"},
    {"pick([[true]], 3)", NULL},
    {"f16Ok('f32')", "true"},
    {"f16Ok('f16')", "false"},
    {"ceil(2.1)", "3"},
    {"floor(-2.1)", "-3"},
    {"min(3, 1, 2)", "1"},
    {"max([3, 7, 2])", "7"},
    {"max(1.5, 1)", "1.5"},
    {"pow(2, 10)", "1024"},
    {"pow(2, -1)", "0.5"},
    {"range(0)", "[]"},
    {"range(1, 0, 0)", NULL},
    {"device.features.has('shader-f16')", "false"},
    {"device.limits.maxComputeWorkgroupsPerDimension", "65535"},
    /* every WebGPU limit with its spec default; wgslLanguageFeatures; adapterInfo as the loader hands it */
    {"device.limits.maxTextureDimension3D", "2048"},
    {"device.limits.maxImmediateSize", "0"},
    {"device.limits.maxColorAttachmentBytesPerSample", "32"},
    {"device.wgslLanguageFeatures.has('x')", "false"},
    {"device.adapterInfo.subgroupMinSize is defined", "false"},
    {"device.adapterInfo.isFallbackAdapter", "false"},
    {"'a' ~ 'b'", "ab"},
    {"rank3Head", NULL},
};

static expr_value *test_scope(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/expr/scope.json", getenv("WGK_SOURCE_DIR") ? getenv("WGK_SOURCE_DIR") : ".");
  json_t *j = json_load_file(path, 0, NULL);
  assert_non_null(j);
  util_error err;
  util_error_clear(&err);
  expr_value *scope = expr_value_from_json(j, &err);
  json_decref(j);
  assert_non_null(scope);
  device_desc desc;
  device_desc_defaults(&desc);
  assert_true(expr_value_dict_set(scope, "device", expr_value_device(&desc)));
  return scope;
}

static void run_cases(const expr_case *cases, size_t n) {
  expr_value *scope = test_scope();
  int failures = 0;
  for (size_t i = 0; i < n; i++) {
    util_error err;
    util_error_clear(&err);
    util_dynbuf out;
    util_dynbuf_init(&out, 0);
    wgk_status st = expr_render(cases[i].expr, scope, &out, &err);
    bool ok = cases[i].want ? st == WGK_OK && strcmp(util_dynbuf_str(&out), cases[i].want) == 0 : st != WGK_OK;
    if (!ok) {
      failures++;
      print_message("FAIL %s: want %s, got %s (%s)\n", cases[i].expr, cases[i].want ? cases[i].want : "<error>",
                    st == WGK_OK ? util_dynbuf_str(&out) : "<error>", err.message);
    }
    util_dynbuf_free(&out);
  }
  expr_value_release(scope);
  assert_int_equal(failures, 0);
}

static void test_oracle_cases(void **state) {
  (void)state;
  run_cases(oracle_cases, sizeof oracle_cases / sizeof oracle_cases[0]);
}
static void test_helpers(void **state) {
  (void)state;
  run_cases(helper_cases, sizeof helper_cases / sizeof helper_cases[0]);
}

static void expect_error(const char *text, wgk_status st, const char *formatted) {
  expr_value *scope = test_scope();
  util_error err;
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  assert_int_equal(expr_render(text, scope, &out, &err), st);
  char buf[4096];
  util_error_format(&err, buf, sizeof buf);
  if (strcmp(buf, formatted) != 0) print_message("got: %s\n", buf);
  assert_string_equal(buf, formatted);
  util_dynbuf_free(&out);
  expr_value_release(scope);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("ranks.X == 3 and rank3HeadSiz", WGK_ERR_EVAL, "<expr>:1:18: unknown name 'rank3HeadSiz'");
  expect_error("1 +", WGK_ERR_PARSE, "<expr>:1:4: unexpected end of expression");
  expect_error("(1 + 2", WGK_ERR_PARSE, "<expr>:1:7: ')' expected near end of expression");
  expect_error("'abc", WGK_ERR_PARSE, "<expr>:1:1: unterminated string");
  expect_error("1 $ 2", WGK_ERR_PARSE, "<expr>:1:3: unexpected '$' after the expression");
  expect_error("10 / 0", WGK_ERR_EVAL, "<expr>:1:4: division by zero");
  expect_error("7 % 0", WGK_ERR_EVAL, "<expr>:1:3: modulo by zero");
  expect_error("9007199254740992 + 1", WGK_ERR_EVAL, "<expr>:1:18: integer overflow past 2^53");
  expect_error("9007199254740993", WGK_ERR_EVAL, "<expr>:1:1: integer overflow past 2^53");
  /* A float overflow is an error, not a silent Infinity / NaN (issue 10). */
  expect_error("(10.0 ** 300) * (10.0 ** 300)", WGK_ERR_EVAL,
               "<expr>:1:15: float overflow: the result is not a finite number");
  expect_error("10.0 ** 300 * 10.0 ** 300 - 10.0 ** 300 * 10.0 ** 300", WGK_ERR_EVAL,
               "<expr>:1:13: float overflow: the result is not a finite number");
  expect_error("dim(shapes.X, 1.5)", WGK_ERR_EVAL,
               "<expr>:1:1: dim() needs an integer axis, got float"); /* any integer axis wraps */
  expect_error("l | nope", WGK_ERR_EVAL, "<expr>:1:5: unknown filter 'nope' for list");
  expect_error("3 is nope", WGK_ERR_EVAL, "<expr>:1:6: unknown test 'nope'");
  expect_error("'a\\q'", WGK_ERR_PARSE, "<expr>:1:1: unknown escape '\\q' in string");
  /* Lines and columns past a newline (the parser counts them on from the position before, not from the start) */
  expect_error("1 +\n(10\n/ 0)", WGK_ERR_EVAL, "<expr>:3:1: division by zero");
  expect_error("[1,\n 2,\n nope]", WGK_ERR_EVAL, "<expr>:3:2: unknown name 'nope'");
  expect_error("dim(\n shapes.X,\n  1.5)", WGK_ERR_EVAL, "<expr>:1:1: dim() needs an integer axis, got float");
  expect_error("1\n +\n  \n   nope(\n2) + dim(\nshapes.X, 0.5)", WGK_ERR_EVAL, "<expr>:4:4: unknown name 'nope'");
  expect_error("1 +\n  dim(shapes.X,\n 2.5)", WGK_ERR_EVAL, "<expr>:2:3: dim() needs an integer axis, got float");
}

static void test_limits(void **state) {
  (void)state;
  char deep[1200];
  size_t n = 0;
  for (int i = 0; i < 500; i++) deep[n++] = '(';
  deep[n++] = '1';
  for (int i = 0; i < 500; i++) deep[n++] = ')';
  deep[n] = '\0';
  util_error err;
  util_error_clear(&err);
  assert_null(expr_parse(deep, (size_t)-1, NULL, &err));
  assert_int_equal(err.status, WGK_ERR_LIMIT);
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  assert_int_equal(expr_render("range(10000000)", NULL, &out, &err), WGK_ERR_LIMIT);
  util_dynbuf_free(&out);
}

static void test_explain(void **state) {
  (void)state;
  expr_value *scope = test_scope();
  util_error err;
  util_error_clear(&err);
  expr_program *e =
      expr_parse("f16Ok('f32') and ranks.X == 4 and sameShape(shapes.X, shapes.Y)", (size_t)-1, NULL, &err);
  assert_non_null(e);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  expr_explain_false(e, scope, &out);
  assert_string_equal(util_dynbuf_str(&out), "ranks.X == 4 is false (ranks.X = 3, 4)");
  util_dynbuf_free(&out);
  expr_free(e);
  expr_value_release(scope);
}

static void test_value_api(void **state) {
  (void)state;
  expr_value *d = expr_value_dict();
  assert_true(expr_value_dict_set(d, "n", expr_value_int(3)));
  assert_true(expr_value_dict_set(d, "x", expr_value_float(64)));
  expr_value *l = expr_value_list();
  assert_true(expr_value_list_append(l, expr_value_string("a")));
  assert_true(expr_value_list_append(l, expr_value_none()));
  assert_true(expr_value_dict_set(d, "l", l));
  assert_true(expr_value_dict_set(d, "n", expr_value_int(4))); /* replaces, keeps position */
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  assert_true(expr_value_print(d, &out));
  assert_string_equal(util_dynbuf_str(&out), "{\"n\": 4, \"x\": 64, \"l\": [\"a\", null]}");
  util_dynbuf_reset(&out);
  assert_true(expr_value_print(expr_value_dict_get(d, "x"), &out));
  assert_string_equal(util_dynbuf_str(&out), "64.0");
  json_t *j = expr_value_to_json(d);
  util_error err;
  util_error_clear(&err);
  expr_value *back = expr_value_from_json(j, &err);
  assert_int_equal(expr_value_kind_of(expr_value_dict_get(back, "n")), WGK_VALUE_INT);
  assert_int_equal(expr_value_as_int(expr_value_dict_get(back, "x")), 64);
  json_decref(j);
  expr_value_release(back);
  expr_value_release(d);
  util_dynbuf_free(&out);
  assert_false(expr_value_list_append(NULL, expr_value_int(1))); /* consumes the item: no leak under ASan */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_oracle_cases), cmocka_unit_test(test_helpers), cmocka_unit_test(test_errors),
      cmocka_unit_test(test_limits),       cmocka_unit_test(test_explain), cmocka_unit_test(test_value_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
