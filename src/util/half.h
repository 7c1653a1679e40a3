/*
 * IEEE 754 binary16 <-> binary32, bit-exact with numpy's astype: round to nearest even, subnormals kept,
 * overflow to infinity, NaN stays NaN (quiet, sign and top payload bits kept).
 */
#ifndef WGK_UTIL_HALF_H
#define WGK_UTIL_HALF_H

#include <stddef.h>
#include <stdint.h>

uint16_t util_half_from_float(float f);
float util_half_to_float(uint16_t h); /* exact: every half is a float */
/* From double in one rounding (not via float, which could round twice). */
uint16_t util_half_from_double(double d);

void util_half_from_float_array(const float *src, uint16_t *dst, size_t n);
void util_half_to_float_array(const uint16_t *src, float *dst, size_t n);

#endif
