/* The enable directives inferred from rendered WGSL, case by case as the public loader decides them (its
 * regular expressions run on the comment-stripped text; each expectation below was read in its bundle and
 * the shipped packages' WGSL is checked against it end to end by tests/loader/compare.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "template/template.h"

#define F16 WGK_ENABLE_F16
#define SG WGK_ENABLE_SUBGROUPS
#define SSC WGK_ENABLE_SUBGROUP_SIZE_CONTROL

typedef struct {
  const char *wgsl;
  unsigned want;
} enable_case;

static const enable_case cases[] = {
    /* f16: the word, or an h-suffixed literal */
    {"var<storage> a: array<f16>;", F16},
    {"let x = 1h;", F16},
    {"let x = 2.5h;", F16},
    {"let x = .5h;", F16},
    {"let x = 1.h;", F16},
    {"let x = 1e-3h;", F16},
    {"let x = 0x1p4h;", F16},
    {"let x = vec4<f16>(0);", F16},
    {"let x = f16(1);\n", F16},
    /* not a use: inside an identifier, a comment, another suffix, vec4h alone */
    {"let my_f16_buf = 1;", 0},
    {"let f16x = 1;", 0},
    {"// f16 in a line comment\nlet a = 1;", 0},
    {"/* f16 /* nested f16 */ still a comment f16 */ let a = 1u;", 0},
    {"let x = 1u; let y = 2i; let z = 3f;", 0},
    {"let x = a.1h;", 0},
    {"let x = a1h;", 0},
    {"let x = 1hx;", 0},
    {"let v: vec4h = vec4h();", 0},
    {"let x = 0x1h;", 0},
    /* already enabled: at a line start, in any list, with any spacing */
    {"enable f16;\nvar<storage> a: array<f16>;", 0},
    {"  enable subgroups, f16;\nlet x = 1h;", 0},
    {"enable\n  f16 ;\nlet x: f16 = 1h;", 0},
    {"\tenable f16;\r\nlet x: f16 = 1h;", 0},
    /* not an enable: commented out, not at a line start, enabling another name, no ';' */
    {"// enable f16;\nlet x: f16 = 1h;", F16},
    {"/* enable f16; */ let x: f16 = 1h;", F16},
    {"let e = 1; enable f16;\nlet x: f16 = 1h;", F16},
    {"enable f16x;\nlet x: f16 = 1h;", F16},
    {"enablef16;\nlet x: f16 = 1h;", F16},
    {"enable f16\nlet x: f16 = 1h", F16},
    /* subgroups: a built-in function call or a built-in value */
    {"let s = subgroupAdd(x);", SG},
    {"let s = subgroupShuffleXor (x, 1u);", SG},
    {"let s = subgroupBroadcastFirst(x);", SG},
    {"let s = quadSwapDiagonal(x);", SG},
    {"fn main(@builtin(subgroup_size) n: u32) {}", SG},
    {"fn main(@builtin( subgroup_invocation_id ) i: u32) {}", SG},
    {"fn main(@builtin(num_subgroups) n: u32) {}", SG},
    {"x_@builtin(subgroup_id)", SG}, /* the loader asks no word boundary before @builtin */
    /* not a use */
    {"let subgroups = 4u; let subgroup_count = 2u;", 0},
    {"let s = subgroupAdd;", 0},
    {"let s = mysubgroupAdd(x);", 0},
    {"let s = subgroupMatrixLoad(x);", 0},
    {"// subgroupAdd(x)\nlet a = 1;", 0},
    {"fn main(@builtin(subgroup_sizes) n: u32) {}", 0},
    {"enable subgroups;\nlet s = subgroupMax(x);", 0},
    {"enable chromium_experimental_subgroup_matrix;\nenable subgroups;\n"
     "fn main(@builtin(subgroup_size) n: u32) { var m = subgroup_matrix_result<f32, 8, 8>(); }",
     0},
    /* subgroup_size_control: the attribute */
    {"@compute @workgroup_size(64) @subgroup_size(32)\nfn main() { let s = subgroupAdd(1u); }", SG | SSC},
    {"@subgroup_size (16) fn main() {}", SSC},
    {"enable subgroup_size_control;\n@subgroup_size(16) fn main() {}", 0},
    {"// @subgroup_size(16)\nfn main() {}", 0},
    {"let x = 1h; let s = subgroupAll(true);\n@subgroup_size(8) fn main() {}", F16 | SG | SSC},
};

static void test_cases(void **state) {
  (void)state;
  int bad = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unsigned got = tmpl_wgsl_missing_enables(cases[i].wgsl);
    if (got != cases[i].want) {
      printf("case %zu: got %u, want %u: %s\n", i, got, cases[i].want, cases[i].wgsl);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_cases)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
