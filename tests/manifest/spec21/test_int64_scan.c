/* The opaque-int64 WGSL scan (src/plan/int64_scan.c) against the public loader's verdicts: each snippet binds
 * x and y as opaque int64; `refused` is what the loader's scan of the rendered WGSL says (worked out step by step
 * from its bundle, including its blind spots: `u32(x[i])` and an alias through parentheses pass, an index
 * expression is not looked into). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "plan/planner_internal.h"

static const struct {
  const char *wgsl;
  bool refused;
} CASES[] = {
    {"y[i] = x[i];", false},
    {"y[i] = x[i] + 1;", true},
    {"y[i] = -x[i];", true},
    {"y[i] = !x[i];", true},
    {"y[i] = x[i]; // x[i] * 2", false},
    {"/* x[i] * 2 */ y[i] = x[i];", false},
    {"/* a /* b */ x[i] * 2 */ y[i] = x[i];", false},
    {"let v = x[i]; y[i] = v;", false},
    {"let v = x[i]; y[i] = v * 2u;", true},
    {"let v: vec2<u32> = x[i]; let w = v; let q = w.y;", true},
    {"y[i] = x[i].x;", true},
    {"y[i] = x[i][0];", true},
    {"y[i] = select(x[i], x[j], c);", false},
    {"y[i] = select(x[i], x[j], x[i] == x[j]);", true},
    {"y[i] = max(x[i], x[j]);", true},
    {"y[i] = bitcast<vec2<u32>>(x[i]);", true},
    {"y[i] = ((x[i]));", false},
    {"y[i] = u32(x[i]);", false},
    {"let q = min( x[i] , z);", true},
    {"y[z[x[i].x]] = x[0];", false},
    {"var t = x[i]; t = t + t;", true},
    {"y [ i ] = x [ i ] ;", false},
    {"z[i] = w[i] + 1;", false},
    {"let a = x[i] ; let b = (a) ; y[i] = b << 1u;", false},
    {"y[i] = x[i]>>1u;", true},
    {"y[i] = x[i]== x[j];", true},
    {"let ok = array<vec2<u32>, 2>(x[i], x[j]);", false},
    {"y[i] = vec2<u32>(x[i]);", true},
    {"y[i] = f32(x[i].x);", true},
    {"letx = x[i]; y[i] = letx * 2;", false},
    {"y[i] = clamp<u32>(x[i], a, b);", true},
    {"y[i] = abs (\n  x[i]);", false},
    {"let e = x[i] != y[0];", true},
    {"var<private> p: vec2<u32> = x[0]; p = p & m;", false},
    {"let s = a * x[i];", true},
    {"let s = a *\n x[i];", true},
    {"y[i] = select(x[i], y[i], (x[i]) > z);", true},
};

static void verdicts(void **state) {
  (void)state;
  const char *names[] = {"x", "y"};
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    size_t where = plan_opaque_int64_scan(CASES[i].wgsl, names, 2);
    assert_true(where != (size_t)-2);
    if ((where != (size_t)-1) != CASES[i].refused)
      fail_msg("case %zu `%s`: %s, the loader %s", i, CASES[i].wgsl, where != (size_t)-1 ? "refused" : "accepted",
               CASES[i].refused ? "refuses" : "accepts");
    if (where != (size_t)-1) assert_true(where < strlen(CASES[i].wgsl));
  }
}

/* The offset points at the offending element: the x[i] of `+`, the alias of `.y`. */
static void positions(void **state) {
  (void)state;
  const char *names[] = {"x"};
  const char *a = "y[i] = x[i];\nlet q = x[j] + 1;";
  assert_int_equal(plan_opaque_int64_scan(a, names, 1), (size_t)(strstr(a, "x[j]") - a));
  const char *b = "let v = x[i];\n// v.x\nlet w = v.y;";
  assert_int_equal(plan_opaque_int64_scan(b, names, 1), (size_t)(strstr(b, "v.y") - b));
  assert_int_equal(plan_opaque_int64_scan("", names, 1), (size_t)-1);
  assert_int_equal(plan_opaque_int64_scan("y[i] = x[i] + 1;", names, 0), (size_t)-1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(verdicts), cmocka_unit_test(positions)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
