/* libFuzzer entry: a serialized ONNX TensorProto (.pb) decoded into a host tensor, which is then read as
 * doubles. Every input must end in a tensor or an error, never a crash, a leak or undefined behaviour, and
 * never "out of memory": an input of a few KB that runs out of memory trusted its dims before checking them
 * against the data it holds (a 16-byte .pb asked for 53 GB that way). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "onnx/onnx_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  util_error err;
  util_error_clear(&err);
  util_host_tensor *t = NULL;
  wgk_status st = onnx_tensor_parse(data, size, "fuzz.pb", &t, &err);
  if (st == WGK_ERR_OUT_OF_MEMORY) abort();
  if (st == WGK_OK) {
    double *vals = malloc(sizeof(double) * (util_host_tensor_numel(t) + 1));
    if (vals) util_host_tensor_to_double(t, vals);
    free(vals);
    util_host_tensor_free(t);
  }
  return 0;
}
