/* Host tensor elements to and from doubles: the common currency of references and comparisons. */
#include <math.h>
#include <string.h>

#include "util/half.h"
#include "util/tensor_host.h"

double util_host_tensor_get(const util_host_tensor *t, size_t i) {
  const unsigned char *p = (const unsigned char *)t->data + i * wgk_dtype_size(t->dtype);
  switch (t->dtype) {
  case WGK_DTYPE_FLOAT32: {
    float v;
    memcpy(&v, p, 4);
    return v;
  }
  case WGK_DTYPE_FLOAT16: {
    uint16_t v;
    memcpy(&v, p, 2);
    return util_half_to_float(v);
  }
  case WGK_DTYPE_INT32: {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  case WGK_DTYPE_UINT32: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  case WGK_DTYPE_INT64: {
    int64_t v;
    memcpy(&v, p, 8);
    return (double)v;
  }
  case WGK_DTYPE_INT8:
    return (int8_t)p[0];
  case WGK_DTYPE_UINT8:
    return p[0];
  case WGK_DTYPE_BOOL:
    return p[0] != 0;
  case WGK_DTYPE_INT16: {
    int16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case WGK_DTYPE_INVALID:
    break;
  }
  return 0.0;
}

void util_host_tensor_to_double(const util_host_tensor *t, double *out) {
  size_t n = util_host_tensor_numel(t);
  for (size_t i = 0; i < n; i++) out[i] = util_host_tensor_get(t, i);
}

/* Rounds to nearest and clamps into [lo, hi]; NaN becomes 0 so the conversion is always defined. */
static double clamp_round(double v, double lo, double hi) {
  if (isnan(v)) return 0.0;
  v = nearbyint(v);
  return v < lo ? lo : v > hi ? hi : v;
}

static void put(util_host_tensor *t, size_t i, double v) {
  unsigned char *p = (unsigned char *)t->data + i * wgk_dtype_size(t->dtype);
  switch (t->dtype) {
  case WGK_DTYPE_FLOAT32: {
    float f = (float)v;
    memcpy(p, &f, 4);
    break;
  }
  case WGK_DTYPE_FLOAT16: {
    uint16_t h = util_half_from_double(v);
    memcpy(p, &h, 2);
    break;
  }
  case WGK_DTYPE_INT32: {
    int32_t x = (int32_t)clamp_round(v, INT32_MIN, INT32_MAX);
    memcpy(p, &x, 4);
    break;
  }
  case WGK_DTYPE_UINT32: {
    uint32_t x = (uint32_t)clamp_round(v, 0, UINT32_MAX);
    memcpy(p, &x, 4);
    break;
  }
  case WGK_DTYPE_INT64: {
    /* 2^63 is not representable in int64; the largest double below it is. */
    int64_t x = (int64_t)clamp_round(v, -0x1p63, 0x1.fffffffffffffp62);
    memcpy(p, &x, 8);
    break;
  }
  case WGK_DTYPE_INT8:
    p[0] = (unsigned char)(int8_t)clamp_round(v, -128, 127);
    break;
  case WGK_DTYPE_UINT8:
    p[0] = (unsigned char)clamp_round(v, 0, 255);
    break;
  case WGK_DTYPE_BOOL:
    p[0] = v != 0.0;
    break;
  case WGK_DTYPE_INT16: {
    int16_t x = (int16_t)clamp_round(v, INT16_MIN, INT16_MAX);
    memcpy(p, &x, 2);
    break;
  }
  case WGK_DTYPE_INVALID:
    break;
  }
}

void util_host_tensor_from_double(util_host_tensor *t, const double *src) {
  size_t n = util_host_tensor_numel(t);
  for (size_t i = 0; i < n; i++) put(t, i, src[i]);
}
