/* libFuzzer entry: manifest.json text through the loader and validator. Every input must end in a model
 * or an error, never a crash, a leak or undefined behaviour. */
#include <stddef.h>
#include <stdint.h>

#include "manifest/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  manifest_model *m = NULL;
  util_error err;
  util_error_clear(&err);
  if (manifest_load_text((const char *)data, size, "fuzz.json", &m, &err) == WGK_OK) manifest_free(m);
  return 0;
}
