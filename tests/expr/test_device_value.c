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

static wgk_value *device_from(const char *text, wgk_error *err) {
  json_error_t jerr;
  json_t *j = json_loads(text, 0, &jerr);
  assert_non_null(j);
  wgk_value *v = wgk_value_device_from_json(j, err);
  json_decref(j);
  return v;
}

static int64_t limit(const wgk_value *dev, const char *name) {
  const wgk_value *v = wgk_value_dict_get(wgk_value_dict_get(dev, "limits"), name);
  assert_non_null(v);
  return wgk_value_as_int(v);
}

static void reader_rules_defaults_and_extras(void **state) {
  (void)state;
  wgk_error err;
  wgk_error_clear(&err);
  wgk_value *dev = device_from(
      "{\"features\": [\"shader-f16\", \"made-up\"], \"limits\": {\"maxBufferSize\": 1024,"
      " \"maxComputeWorkgroupsPerDimension\": 100000, \"maxTextureDimension2D\": 7},"
      " \"adapterInfo\": {\"vendor\": \"acme\"}}",
      &err);
  assert_non_null(dev);
  assert_int_equal(limit(dev, "maxBufferSize"), 1024);
  assert_int_equal(limit(dev, "maxComputeWorkgroupsPerDimension"), WGK_DISPATCH_FOLD_WIDTH);
  assert_int_equal(limit(dev, "maxStorageBufferBindingSize"), 134217728); /* the spec default */
  assert_int_equal(limit(dev, "maxTextureDimension2D"), 7);               /* a WebGPU limit not modelled: kept */
  const wgk_value *info = wgk_value_dict_get(dev, "adapterInfo");
  assert_string_equal(wgk_value_str(wgk_value_dict_get(info, "vendor")), "acme");
  wgk_value_release(dev);

  wgk_error_clear(&err);
  assert_null(device_from("{\"limits\": {\"maxBufferSize\": -1}}", &err)); /* the reader's rule */
  assert_int_equal(err.status, WGK_ERR_PARSE);
  assert_string_equal(err.path, "limits.maxBufferSize");
  assert_non_null(strstr(err.message, "must be an integer"));
  wgk_error_clear(&err);
  assert_null(device_from("{\"features\": \"shader-f16\"}", &err));
  assert_string_equal(err.path, "features");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(reader_rules_defaults_and_extras)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
