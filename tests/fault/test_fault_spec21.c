/* Allocation-failure loop over the manifest spec 2.1 paths the shipped packages do not take (no GPU): for
 * N = 1, 2, ... the N-th allocation fails while test.EveryKey (tests/manifest/spec21, a package that uses every
 * key) is opened (metadata, includes, families of cases and axes, requires merged with the manifest's,
 * supersededBy, demoteWhen, intermediates, inline structs with literal values, fixed lengths, profile, viewAlias,
 * repeat groups) and planned for three calls: the repeat-group variant `main`, the axes cell `grid_float32_5`
 * (a supersededBy and a requires reason among the rejections) and the cases variant `fam_wide`.
 *
 * Each step must succeed or return WGK_ERR_OUT_OF_MEMORY with a message (as test_fault_alloc.c judges the
 * GPU paths); a round that runs through although allocation N failed must plan exactly what the clean run
 * planned (variant, rejections, pass ids, WGSL, uniforms); LeakSanitizer checks at exit in the ASan build.
 * WGK_FAULT_FIRST / WGK_FAULT_LAST limit the rounds; WGK_FAULT_KEEP_GOING=1 reports every bad round;
 * WGK_FAULT_TRACE=1 prints where each absorbed failure happened. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_json.h"
#include "fault/fault_alloc.h"
#include "package/package.h"
#include "package/template_loader.h"
#include "plan/plan.h"

static device_desc device;
static char package_dir[1024];
static expr_value *no_tunables, *wide_tunables; /* made before the loop: the test's own values are not under test */

typedef struct outcome {
  const char *step;
  wgk_status st;
  char msg[1024];
  char plans[1 << 16]; /* what the three plans hold, as text (snprintf: no allocation of ours) */
  size_t len;
} outcome;

__attribute__((format(printf, 2, 3))) static void put(outcome *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(o->plans + o->len, sizeof o->plans - o->len, fmt, ap);
  va_end(ap);
  if (k > 0) o->len += (size_t)k < sizeof o->plans - o->len ? (size_t)k : sizeof o->plans - o->len - 1;
}

/* One call: x [rows, cols], state [4]. */
static void plan_one(const manifest_model *m, plan_planner *planner, int64_t rows, int64_t cols,
                     const expr_value *tunables, outcome *o) {
  if (o->st != WGK_OK) return;
  plan_tensor ports[16];
  memset(ports, 0, sizeof ports);
  for (size_t i = 0; i < m->n_ports && i < 16; i++) {
    if (strcmp(m->ports[i].name, "x") == 0) ports[i] = (plan_tensor){true, "float32", 2, {rows, cols}, false};
    if (strcmp(m->ports[i].name, "state") == 0) ports[i] = (plan_tensor){true, "float32", 1, {4}, false};
  }
  plan_call call = {.ports = ports, .tunables = tunables};
  plan_result *plan = NULL;
  util_error err;
  util_error_clear(&err);
  wgk_status st = plan_make(planner, &call, &plan, &err);
  if (st != WGK_OK) {
    o->step = "plan_make", o->st = st;
    util_error_format(&err, o->msg, sizeof o->msg);
    return;
  }
  put(o, "variant %s\nrejected\n%s", plan->variant->id, plan->rejections);
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *p = &plan->passes[i];
    put(o, "pass %s %s [%u %u %u] %s\n%s\n", p->id ? p->id : p->source->id, p->label, p->workgroups[0],
        p->workgroups[1], p->workgroups[2], p->uniform_text ? p->uniform_text : "", p->wgsl);
  }
  plan_free(plan);
}

/* One round; returns whether allocation n was reached. */
static bool round_n(long n, outcome *o) {
  o->step = NULL, o->st = WGK_OK, o->msg[0] = '\0', o->plans[0] = '\0', o->len = 0;
  util_error err;
  util_error_clear(&err);
  pkg_package *pkg = NULL;
  plan_planner *planner = NULL;
  fault_arm(n);
  wgk_status st = pkg_open(package_dir, NULL, &pkg, &err);
  if (st != WGK_OK) o->step = "pkg_open", o->st = st, util_error_format(&err, o->msg, sizeof o->msg);
  const manifest_model *m = pkg ? pkg_manifest(pkg) : NULL;
  tmpl_loader loader = {0};
  if (o->st == WGK_OK) {
    loader = pkg_template_loader(pkg);
    st = plan_planner_create(m, &loader, &device, &planner, &err);
    if (st != WGK_OK) o->step = "planner_create", o->st = st, util_error_format(&err, o->msg, sizeof o->msg);
  }
  plan_one(m, planner, 1, 5, no_tunables, o);   /* main: intermediates, repeat groups */
  plan_one(m, planner, 2, 3, no_tunables, o);   /* grid_float32_5: axes, supersededBy, requires */
  plan_one(m, planner, 2, 3, wide_tunables, o); /* fam_wide: cases */
  plan_planner_free(planner);
  pkg_free(pkg);
  fault_disarm();
  return fault_fired();
}

static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v && v[0] ? strtol(v, NULL, 10) : dflt;
}

static void spec21_every_key(void **state) {
  (void)state;
  static outcome clean, o;
  round_n(0, &clean);
  if (clean.st != WGK_OK) fail_msg("without faults: %s: %s", clean.step, clean.msg);
  assert_non_null(strstr(clean.plans, "variant main"));
  assert_non_null(strstr(clean.plans, "variant grid_float32_5"));
  assert_non_null(strstr(clean.plans, "variant fam_wide"));
  assert_non_null(strstr(clean.plans, "pass steps[1].step"));
  long first = env_long("WGK_FAULT_FIRST", 1), last = env_long("WGK_FAULT_LAST", -1);
  bool keep_going = env_long("WGK_FAULT_KEEP_GOING", 0) != 0;
  long n = first, failed = 0, absorbed = 0, bad = 0;
  for (; last < 0 || n <= last; n++) {
    bool fired = round_n(n, &o);
    char why[2048] = "";
    if (o.st != WGK_OK) {
      if (!fired)
        snprintf(why, sizeof why, "%s failed without an injected fault: %s", o.step, o.msg);
      else if (o.st != WGK_ERR_OUT_OF_MEMORY)
        snprintf(why, sizeof why, "%s returned %s, not out of memory: %s", o.step, wgk_status_str(o.st), o.msg);
      else if (!o.msg[0])
        snprintf(why, sizeof why, "%s returned out of memory without a message", o.step);
    } else if (strcmp(o.plans, clean.plans) != 0) {
      size_t k = 0, at = 0;
      while (o.plans[k] == clean.plans[k])
        if (o.plans[k++] == '\n') at = k;
      snprintf(why, sizeof why,
               "the calls succeeded but planned differently from the run without faults: '%.*s' "
               "instead of '%.*s'",
               (int)strcspn(o.plans + at, "\n"), o.plans + at, (int)strcspn(clean.plans + at, "\n"), clean.plans + at);
    }
    if (why[0]) {
      if (!keep_going) fail_msg("EveryKey, N=%ld: %s", n, why);
      printf("EveryKey, N=%ld: %s\n", n, why);
      bad++;
    }
    if (!fired) break;
    if (o.st == WGK_OK && getenv("WGK_FAULT_TRACE")) printf("EveryKey, N=%ld absorbed:\n", n), fault_print_trace();
    if (o.st == WGK_OK)
      absorbed++;
    else
      failed++;
  }
  printf("EveryKey: N = %ld..%ld: %ld refused with out of memory, %ld absorbed\n", first, n - 1, failed, absorbed);
  if (bad) fail_msg("EveryKey: %ld rounds misbehaved", bad);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  fault_install();
  const char *src = getenv("WGK_SOURCE_DIR");
  if (!src) src = ".";
  snprintf(package_dir, sizeof package_dir, "%s/tests/manifest/spec21/test.EveryKey", src);
  char dev_path[1024];
  snprintf(dev_path, sizeof dev_path, "%s/tests/plan/lavapipe.device.json", src);
  util_error err;
  util_error_clear(&err);
  if (device_desc_load(dev_path, &device, &err) != WGK_OK) {
    printf("cannot load %s: %s\n", dev_path, err.message);
    return 1;
  }
  no_tunables = expr_value_dict();
  wide_tunables = expr_value_dict();
  if (!no_tunables || !wide_tunables || !expr_value_dict_set(wide_tunables, "WG", expr_value_int(128))) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(spec21_every_key)};
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  expr_value_release(no_tunables);
  expr_value_release(wide_tunables);
  return failed;
}
