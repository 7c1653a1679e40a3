/* IEEE binary16 conversions done on the bits, so the result does not depend on the FPU's rounding mode and
 * matches numpy's npy_floatbits_to_halfbits / npy_doublebits_to_halfbits bit for bit (NaN payloads included). */
#include "util/half.h"

#include <math.h>
#include <string.h>

/* Rounds a magnitude given as (mantissa, right shift) to nearest, ties to even. shift is 1..63. */
static uint64_t round_shift(uint64_t m, unsigned shift) {
  uint64_t q = m >> shift;
  uint64_t rem = m & ((UINT64_C(1) << shift) - 1);
  uint64_t halfway = UINT64_C(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) q++;
  return q;
}

/* NaN keeps its top 10 payload bits; a payload that would vanish becomes 1 so the result stays a NaN. */
static uint16_t nan_bits(uint16_t sign, uint64_t top10) {
  uint16_t h = (uint16_t)(0x7c00u | (top10 & 0x3ffu));
  return (uint16_t)(sign | (h == 0x7c00u ? 0x7c01u : h));
}

uint16_t util_half_from_double(double d) {
  uint64_t x;
  memcpy(&x, &d, sizeof x);
  uint16_t sign = (uint16_t)((x >> 48) & 0x8000u);
  int e = (int)((x >> 52) & 0x7ff);
  uint64_t m = x & ((UINT64_C(1) << 52) - 1);
  if (e == 0x7ff) return m ? nan_bits(sign, m >> 42) : (uint16_t)(sign | 0x7c00u);
  if (e == 0) /* zero or a double subnormal: far below half's smallest subnormal */
    return sign;
  e -= 1023;
  if (e > 15) return (uint16_t)(sign | 0x7c00u);
  if (e >= -14) /* normal; a carry out of the mantissa correctly bumps the exponent (up to infinity) */
    return (uint16_t)(sign | round_shift(((uint64_t)(e + 15) << 52) | m, 42));
  unsigned shift = (unsigned)(28 - e); /* value / 2^-24 = (m | 2^52) >> (28 - e) */
  if (shift >= 64) return sign;
  return (uint16_t)(sign | round_shift(m | (UINT64_C(1) << 52), shift));
}

uint16_t util_half_from_float(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu)) /* NaN: from the float's bits, not via double */
    return nan_bits((uint16_t)((x >> 16) & 0x8000u), (x & 0x7fffffu) >> 13);
  return util_half_from_double((double)f); /* exact widening, then one rounding */
}

float util_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    float v = ldexpf((float)m, -24);
    return sign ? -v : v;
  } else {
    x = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

void util_half_from_float_array(const float *src, uint16_t *dst, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = util_half_from_float(src[i]);
}

void util_half_to_float_array(const uint16_t *src, float *dst, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = util_half_to_float(src[i]);
}
