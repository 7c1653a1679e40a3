/* Values the planner must refuse (issue 10), each with a message naming the thing, the rule and the value:
 * attribute and tunable types, non-finite / out-of-f32 floats, workgroup sizes and bindings over the device limits,
 * f32 uniform fields out of range, derives over the string limit, device descriptions with wrong types. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "manifest/manifest.h"
#include "device/device_json.h"
#include "plan/plan.h"

/* A seed manifest: one float attribute (default 0.0), one integer tunable, one pass over X -> Y. %s slots: extra
 * derive entries, the uniform field's expression, the template name. */
static const char *manifest_fmt =
    "{\"domain\": \"test\", \"name\": \"Scale\", \"sinceVersion\": 1, \"description\": \"d\",\n"
    "\"inputs\": [{\"role\": \"X\", \"dtype\": \"T\", \"description\": \"x\"}],\n"
    "\"outputs\": [{\"role\": \"Y\", \"dtype\": \"T\", \"rank\": \"ranks.X\", \"shape\": \"shapes.X\"}],\n"
    "\"attributes\": {\"scale\": 0.0, \"mode\": 1, \"names\": [\"a\"]},\n"
    "\"attributeDescriptions\": {\"free\": \"described only\"},\n"
    "\"typeConstraints\": {\"T\": [\"float32\"]},\n"
    "\"args\": {\"x\": {\"kind\": \"tensor\", \"semantic\": \"X\", \"role\": \"input\"},\n"
    "         \"y\": {\"kind\": \"tensor\", \"semantic\": \"Y\", \"role\": \"output\"}},\n"
    "\"tunables\": {\"WORKGROUP_SIZE\": 64},\n"
    "\"derive\": {\"count\": \"numel(shapes.X)\"%s},\n"
    "\"bindingSets\": {\"b\": [\n"
    " {\"name\": \"x\", \"arg\": \"x\", \"semantic\": \"X\", \"buffer\": {\"type\": \"read-only-storage\"}, "
    "\"elementType\": \"$T\"},\n"
    " {\"name\": \"y\", \"arg\": \"y\", \"semantic\": \"Y\", \"buffer\": {\"type\": \"storage\"}, \"elementType\": "
    "\"$T\"},\n"
    " {\"name\": \"params\", \"semantic\": \"kernel.params\", \"buffer\": {\"type\": \"uniform\"},\n"
    "  \"struct\": {\"name\": \"Params\", \"fields\": [{\"name\": \"s\", \"type\": \"f32\", \"value\": \"%s\"}]}}]},\n"
    "\"variants\": [{\"id\": \"main\", \"when\": [\"count >= 0\"], \"passes\": [{\"id\": \"scale\", \"name\": "
    "\"scale\",\n"
    " \"source\": {\"shader\": \"%s\", \"inputs\": {}}, \"bindings\": \"b\",\n"
    " \"dispatch\": {\"threads\": \"count\", \"workgroupSize\": \"tunables.WORKGROUP_SIZE\"}}]}]}\n";

static wgk_status mem_load(void *ud, const char *path, char **text, size_t *len, util_error *err) {
  (void)ud;
  const char *t = strcmp(path, "wide.wgsl.jinja") == 0
                      ? "@compute @workgroup_size({{ 300 }})\nfn main() {}\n"
                      : "@compute @workgroup_size({{ tunables.WORKGROUP_SIZE }})\nfn main() {}\n";
  (void)err;
  *text = strdup(t);
  *len = strlen(t);
  return WGK_OK;
}

typedef struct fixture {
  manifest_model *m;
  device_desc dev;
  plan_planner *planner;
  plan_tensor ports[2];
  expr_value *attrs, *tunables;
  util_error err;
  char text[2048];
} fixture;

static void setup(fixture *f, const char *derives, const char *field, const char *shader) {
  memset(f, 0, sizeof *f);
  char *json = malloc(8192);
  assert_non_null(json);
  snprintf(json, 8192, manifest_fmt, derives, field, shader);
  util_error_clear(&f->err);
  wgk_status st = manifest_load_text(json, strlen(json), "m.json", &f->m, &f->err);
  if (st != WGK_OK) print_message("%s\n", f->err.message);
  assert_int_equal(st, WGK_OK);
  free(json);
  device_desc_defaults(&f->dev);
  tmpl_loader loader = {mem_load, NULL, NULL};
  assert_int_equal(plan_planner_create(f->m, &loader, &f->dev, &f->planner, &f->err), WGK_OK);
  f->ports[0] = (plan_tensor){.present = true, .dtype = "float32", .rank = 1, .shape = {1000}};
  f->attrs = expr_value_dict();
  f->tunables = expr_value_dict();
}

static void teardown(fixture *f) {
  plan_planner_free(f->planner);
  manifest_free(f->m);
  expr_value_release(f->attrs);
  expr_value_release(f->tunables);
}

/* Plans the call; returns the status and leaves the formatted error in f->text. */
static wgk_status plan(fixture *f) {
  plan_call call = {.ports = f->ports, .attrs = f->attrs, .tunables = f->tunables};
  plan_result *p = NULL;
  util_error_clear(&f->err);
  wgk_status st = plan_make(f->planner, &call, &p, &f->err);
  util_error_format(&f->err, f->text, sizeof f->text);
  plan_free(p);
  return st;
}

static void expect_refused(fixture *f, wgk_status want, int n, ...) {
  wgk_status st = plan(f);
  if (st != want) print_message("status %d: %s\n", st, f->text);
  assert_int_equal(st, want);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    const char *needle = va_arg(ap, const char *);
    if (!strstr(f->text, needle)) print_message("'%s' not in: %s\n", needle, f->text);
    assert_non_null(strstr(f->text, needle));
  }
  va_end(ap);
}

static void set_attr(fixture *f, const char *name, expr_value *v) {
  assert_true(expr_value_dict_set(f->attrs, name, v));
}

static expr_value *list_of(expr_value *a, expr_value *b) {
  expr_value *l = expr_value_list();
  assert_true(expr_value_list_append(l, a) && expr_value_list_append(l, b));
  return l;
}

static void float_attribute_values(void **state) {
  (void)state;
  fixture f;
  setup(&f, "", "attrs.scale", "plain.wgsl.jinja");
  assert_int_equal(plan(&f), WGK_OK);
  set_attr(&f, "scale", expr_value_float(0.5));
  assert_int_equal(plan(&f), WGK_OK);
  set_attr(&f, "scale", expr_value_int(2));
  assert_int_equal(plan(&f), WGK_OK);
  set_attr(&f, "scale", expr_value_string("abc"));
  expect_refused(&f, WGK_ERR_CALL, 3, "attribute scale", "\"abc\"", "a float");
  set_attr(&f, "scale", expr_value_string("1e400")); /* the CLI's bare-word fallback for a JSON overflow */
  expect_refused(&f, WGK_ERR_CALL, 2, "attribute scale", "\"1e400\"");
  set_attr(&f, "scale", list_of(expr_value_int(1), expr_value_int(2)));
  expect_refused(&f, WGK_ERR_CALL, 3, "attribute scale", "[1,2]", "not a number");
  set_attr(&f, "scale", expr_value_float(NAN));
  expect_refused(&f, WGK_ERR_CALL, 3, "attribute scale", "nan", "not a finite number");
  set_attr(&f, "scale", expr_value_float(INFINITY));
  expect_refused(&f, WGK_ERR_CALL, 3, "attribute scale", "inf", "not a finite number");
  set_attr(&f, "scale", expr_value_float(1e39));
  expect_refused(&f, WGK_ERR_CALL, 3, "attribute scale", "1e+39", "f32 range");
  set_attr(&f, "scale", expr_value_none());
  expect_refused(&f, WGK_ERR_CALL, 1, "attribute scale");
  teardown(&f);
}

static void other_attribute_types(void **state) {
  (void)state;
  fixture f;
  setup(&f, "", "attrs.scale", "plain.wgsl.jinja");
  set_attr(&f, "mode", expr_value_float(1.5));
  expect_refused(&f, WGK_ERR_CALL, 3, "attribute mode", "1.5", "not an integer");
  set_attr(&f, "mode", expr_value_float(2.0)); /* a whole float is the integer it holds */
  assert_int_equal(plan(&f), WGK_OK);
  set_attr(&f, "mode", expr_value_string("1"));
  expect_refused(&f, WGK_ERR_CALL, 2, "attribute mode", "\"1\"");
  set_attr(&f, "mode", expr_value_int(3));
  set_attr(&f, "names", expr_value_string("a"));
  expect_refused(&f, WGK_ERR_CALL, 2, "attribute names", "not a list");
  set_attr(&f, "names", list_of(expr_value_string("a"), expr_value_int(2)));
  expect_refused(&f, WGK_ERR_CALL, 3, "attribute names", "item 1", "not a string");
  set_attr(&f, "names", list_of(expr_value_string("a"), expr_value_string("b")));
  set_attr(&f, "free", expr_value_dict()); /* no default: any number or string, never a dict */
  expect_refused(&f, WGK_ERR_CALL, 2, "attribute free", "not an attribute value");
  set_attr(&f, "free", expr_value_float(-1e39));
  expect_refused(&f, WGK_ERR_CALL, 2, "attribute free", "f32 range");
  set_attr(&f, "free", expr_value_string("word"));
  assert_int_equal(plan(&f), WGK_OK);
  teardown(&f);
}

static void tunables_and_workgroups(void **state) {
  (void)state;
  fixture f;
  setup(&f, "", "attrs.scale", "plain.wgsl.jinja");
  assert_true(expr_value_dict_set(f.tunables, "WORKGROUP_SIZE", expr_value_int(100000)));
  expect_refused(&f, WGK_ERR_LIMIT, 5, "pass scale", "WORKGROUP_SIZE", "100000", "maxComputeInvocationsPerWorkgroup",
                 "256");
  assert_true(expr_value_dict_set(f.tunables, "WORKGROUP_SIZE", expr_value_string("abc")));
  expect_refused(&f, WGK_ERR_CALL, 3, "tunable WORKGROUP_SIZE", "\"abc\"", "not an integer");
  assert_true(expr_value_dict_set(f.tunables, "WORKGROUP_SIZE", expr_value_int(128)));
  assert_int_equal(plan(&f), WGK_OK);
  teardown(&f);
  /* A literal @workgroup_size in the template, over the device: refused at planning, not in the WGSL compiler. */
  setup(&f, "", "attrs.scale", "wide.wgsl.jinja");
  expect_refused(&f, WGK_ERR_LIMIT, 4, "pass scale", "@workgroup_size(300)", "300", "256");
  teardown(&f);
}

static void uniform_f32_range(void **state) {
  (void)state;
  fixture f;
  setup(&f, "", "count * 10.0 ** 36", "plain.wgsl.jinja"); /* 1000 * 1e36 = 1e39 > FLT_MAX */
  expect_refused(&f, WGK_ERR_CALL, 4, "pass scale", "Params.s", "f32", "f32 range");
  teardown(&f);
}

static void binding_over_device_limit(void **state) {
  (void)state;
  fixture f;
  setup(&f, "", "attrs.scale", "plain.wgsl.jinja");
  f.dev.limits.maxStorageBufferBindingSize = 1024;
  expect_refused(&f, WGK_ERR_LIMIT, 6, "pass scale", "binding x", "port X", "4000 bytes", "maxStorageBufferBindingSize",
                 "1024");
  f.dev.limits.maxStorageBufferBindingSize = 1u << 20;
  f.dev.limits.maxBufferSize = 2048;
  expect_refused(&f, WGK_ERR_LIMIT, 3, "binding x", "maxBufferSize", "2048");
  teardown(&f);
}

/* An output whose rank expression disagrees with its shape expression: refused, not planned with either. */
static void output_rank_expression(void **state) {
  (void)state;
  fixture f;
  setup(&f, "", "attrs.scale", "plain.wgsl.jinja");
  teardown(&f);
  char *json = malloc(8192);
  assert_non_null(json);
  snprintf(json, 8192, manifest_fmt, "", "attrs.scale", "plain.wgsl.jinja");
  const char *old = "\"rank\": \"ranks.X\"";
  char *r = strstr(json, old), *edited = malloc(8200);
  assert_non_null(r);
  assert_non_null(edited);
  snprintf(edited, 8200, "%.*s\"rank\": \"ranks.X + 1\"%s", (int)(r - json), json, r + strlen(old));
  free(json);
  json = edited;
  util_error_clear(&f.err);
  assert_int_equal(manifest_load_text(json, strlen(json), "m.json", &f.m, &f.err), WGK_OK);
  free(json);
  device_desc_defaults(&f.dev);
  tmpl_loader loader = {mem_load, NULL, NULL};
  assert_int_equal(plan_planner_create(f.m, &loader, &f.dev, &f.planner, &f.err), WGK_OK);
  f.ports[0] = (plan_tensor){.present = true, .dtype = "float32", .rank = 1, .shape = {1000}};
  f.attrs = expr_value_dict();
  f.tunables = expr_value_dict();
  expect_refused(&f, WGK_ERR_CALL, 3, "port Y", "ranks.X + 1", "gives 2, but the shape expression gives rank 1");
  teardown(&f);
}

static void derive_over_string_limit(void **state) {
  (void)state;
  fixture f;
  /* 1,000,000 items joined by 70 bytes: past the 64 MiB string limit (fill, not range: manifest expressions have no
   * range). */
  setup(&f,
        ", \"big\": \"fill(0, 1000000) | "
        "join('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')\"",
        "attrs.scale", "plain.wgsl.jinja");
  expect_refused(&f, WGK_ERR_LIMIT, 3, "derive.big", "string too long", "limit is");
  teardown(&f);
}

static void device_file_types(void **state) {
  (void)state;
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"{\n  \"features\": [],\n  \"limits\": \"none\"\n}", "d.json:3:13: limits: must be an object"},
      {"{\"limits\": {\"maxBufferSize\": -1}}", "d.json:1:30: limits.maxBufferSize: must be an integer"},
      {"{\"limits\": {\"maxComputeInvocationsPerWorkgroup\": 1.5}}",
       "limits.maxComputeInvocationsPerWorkgroup: must be an integer in [0, 4294967295], not a number (1.5)"},
      {"{\"bogus\": 1}", "d.json:1:2: bogus: unknown key 'bogus'"},
      {"{\"limits\": {\"maxFoo\": 1}}", "d.json:1:13: limits.maxFoo: unknown limit 'maxFoo'"},
      {"{\"adapterInfo\": {\"vendor\": 3}}", "d.json:1:28: adapterInfo.vendor: must be a string"},
      {"{\"features\": [\"subgroups\", 3]}", "d.json:1:28: features[1]: must be a feature name"},
      {"{\"features\": \"subgroups\"}", "d.json:1:14: features: must be a list"},
      {"{\"isFallbackAdapter\": \"no\"}", "isFallbackAdapter: must be a boolean"},
      {"{\"adapters\": []}", "adapters: lists no adapter"},
      {"{\"adapters\": [{\"limits\": []}]}", "d.json:1:26: adapters[0].limits: must be an object"},
      {"[1]", "d.json:1:1: a device description is a JSON object"},
      {"{\"limits\": {\"maxStorageBuffersPerShaderStage\": 0}}",
       "d.json:1:48: limits.maxStorageBuffersPerShaderStage: maxStorageBuffersPerShaderStage 0 leaves"},
      {"{\"limits\": {\"minStorageBufferOffsetAlignment\": 48}}",
       "limits.minStorageBufferOffsetAlignment: minStorageBufferOffsetAlignment 48 is not a power of two"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    device_desc d;
    util_error err;
    util_error_clear(&err);
    assert_int_equal(device_desc_from_text(cases[i].text, strlen(cases[i].text), "d.json", &d, &err), WGK_ERR_PARSE);
    char text[1024];
    util_error_format(&err, text, sizeof text);
    if (!strstr(text, cases[i].want)) print_message("case %zu: '%s' not in: %s\n", i, cases[i].want, text);
    assert_non_null(strstr(text, cases[i].want));
  }
  const char *ok =
      "{\"features\": [\"shader-f16\", \"texture-compression-bc\"], \"limits\": {\"maxTextureDimension2D\": 8192,"
      " \"maxComputeInvocationsPerWorkgroup\": 1024}, \"adapterInfo\": {\"vendor\": \"v\"}}";
  device_desc d;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(device_desc_from_text(ok, strlen(ok), "d.json", &d, &err), WGK_OK);
  assert_int_equal(d.limits.maxComputeInvocationsPerWorkgroup, 1024);
  assert_true(device_has(&d, WGK_FEATURE_SHADER_F16));
}

/* A device description is read as a regular file only: a FIFO is refused, not waited on (the old reader blocked in
 * fopen; the alarm turns that hang into a failure), /dev/zero is refused, not read to the size cap; a parse error in
 * a real file names the file, line and column. */
static void device_file_not_regular(void **state) {
  (void)state;
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char fifo[4096], bad[4096];
  snprintf(fifo, sizeof fifo, "%s/device-fifo-%d.json", dir, (int)getpid());
  snprintf(bad, sizeof bad, "%s/device-bad-%d.json", dir, (int)getpid());
  assert_int_equal(mkfifo(fifo, 0600), 0);
  device_desc d;
  util_error err;
  util_error_clear(&err);
  alarm(30);
  wgk_status st = device_desc_load(fifo, &d, &err);
  alarm(0);
  unlink(fifo);
  assert_int_equal(st, WGK_ERR_IO);
  assert_non_null(strstr(err.message, "not a regular file"));
  util_error_clear(&err);
  assert_int_equal(device_desc_load("/dev/zero", &d, &err), WGK_ERR_IO);
  util_error_clear(&err);
  assert_int_equal(device_desc_load("/no/such/device.json", &d, &err), WGK_ERR_NOT_FOUND);
  util_error_clear(&err);
  FILE *f = fopen(bad, "w");
  assert_non_null(f);
  fputs("{\n  \"limits\": [}\n", f);
  fclose(f);
  assert_int_equal(device_desc_load(bad, &d, &err), WGK_ERR_PARSE);
  unlink(bad);
  char text[1024], want[4200];
  util_error_format(&err, text, sizeof text);
  snprintf(want, sizeof want, "%s:2:", bad);
  if (!strstr(text, want)) print_message("'%s' not in: %s\n", want, text);
  assert_non_null(strstr(text, want));
}

static void json_integers_past_2_53(void **state) {
  (void)state;
  json_t *j = json_integer(((json_int_t)1 << 53) + 1);
  util_error err;
  util_error_clear(&err);
  expr_value *v = expr_value_from_json(j, &err);
  assert_null(v);
  assert_non_null(strstr(err.message, "overflow past 2^53"));
  json_decref(j);
  j = json_integer((json_int_t)1 << 53);
  v = expr_value_from_json(j, &err);
  assert_non_null(v);
  expr_value_release(v);
  json_decref(j);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(float_attribute_values),    cmocka_unit_test(other_attribute_types),
      cmocka_unit_test(tunables_and_workgroups),   cmocka_unit_test(uniform_f32_range),
      cmocka_unit_test(binding_over_device_limit), cmocka_unit_test(derive_over_string_limit),
      cmocka_unit_test(output_rank_expression),    cmocka_unit_test(device_file_types),
      cmocka_unit_test(json_integers_past_2_53),   cmocka_unit_test(device_file_not_regular),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
