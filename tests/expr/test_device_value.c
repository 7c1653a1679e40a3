/* The scope's device object from JSON (wgk eval --scope, the Jinja oracle) goes through the device layer's one
 * reader (src/device/device_json.c): its rules refuse a bad limit, its defaults fill the limits not given, the
 * fold width clamps, and what the description does not model (feature names, WebGPU limits wgk does not plan with)
 * is kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "device/device_desc.h"
#include "expr/expr.h"

static expr_value *device_from(const char *text, util_error *err) {
  json_error_t jerr;
  json_t *j = json_loads(text, 0, &jerr);
  assert_non_null(j);
  expr_value *v = expr_value_device_from_json(j, err);
  json_decref(j);
  return v;
}

static int64_t limit(const expr_value *dev, const char *name) {
  const expr_value *v = expr_value_dict_get(expr_value_dict_get(dev, "limits"), name);
  assert_non_null(v);
  return expr_value_as_int(v);
}

static void reader_rules_defaults_and_extras(void **state) {
  (void)state;
  util_error err;
  util_error_clear(&err);
  expr_value *dev = device_from(
      "{\"features\": [\"shader-f16\", \"made-up\"], \"limits\": {\"maxBufferSize\": 1024,"
      " \"maxComputeWorkgroupsPerDimension\": 100000, \"maxTextureDimension2D\": 7},"
      " \"adapterInfo\": {\"vendor\": \"ACME\", \"description\": \"Made Up GPU\"}}",
      &err);
  assert_non_null(dev);
  assert_int_equal(limit(dev, "maxBufferSize"), 1024);
  assert_int_equal(limit(dev, "maxComputeWorkgroupsPerDimension"), WGK_DISPATCH_FOLD_WIDTH);
  assert_int_equal(limit(dev, "maxStorageBufferBindingSize"), 134217728); /* the spec default */
  assert_int_equal(limit(dev, "maxTextureDimension2D"), 7);               /* a WebGPU limit not modelled: kept */
  const expr_value *info = expr_value_dict_get(dev, "adapterInfo");
  assert_string_equal(expr_value_str(expr_value_dict_get(info, "vendor")), "acme");             /* lower-cased */
  assert_string_equal(expr_value_str(expr_value_dict_get(info, "description")), "Made Up GPU"); /* kept as given */
  const expr_value *features = expr_value_dict_get(dev, "features");
  assert_int_equal(expr_value_len(features), 2);
  assert_string_equal(expr_value_str(expr_value_list_at(features, 1)), "made-up"); /* unknown names kept */
  const expr_value *language = expr_value_dict_get(dev, "wgslLanguageFeatures");
  assert_int_equal(expr_value_len(language), 0); /* the reader takes no wgslLanguageFeatures key */
  expr_value_release(dev);

  util_error_clear(&err);
  assert_null(device_from("{\"limits\": {\"maxBufferSize\": -1}}", &err)); /* the reader's rule */
  assert_int_equal(err.status, WGK_ERR_PARSE);
  assert_string_equal(err.path, "limits.maxBufferSize");
  assert_non_null(strstr(err.message, "must be an integer"));
  util_error_clear(&err);
  assert_null(device_from("{\"features\": \"shader-f16\"}", &err));
  assert_string_equal(err.path, "features");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(reader_rules_defaults_and_extras)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
