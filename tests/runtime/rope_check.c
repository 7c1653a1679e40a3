#include "runtime/rope_check.h"

#include <math.h>

#include "util/half.h"

enum { HEAD = 128, HALF = HEAD / 2 };

double rope_check_error(const rope_check *c, const void *y, bool f16) {
  double worst = 0;
  for (int h = 0; h < c->heads; h++)
    for (int t = 0; t < c->s; t++)
      for (int i = 0; i < HALF; i++) {
        size_t row = ((size_t)h * c->s + t) * HEAD;
        double a = c->x[row + i], b = c->x[row + HALF + i], co = c->cs[c->pos[t] * HALF + i],
               si = c->sn[c->pos[t] * HALF + i];
        double want[2] = {a * co - b * si, b * co + a * si};
        for (int k = 0; k < 2; k++) {
          size_t at = row + i + k * HALF;
          double got = f16 ? util_half_to_float(((const uint16_t *)y)[at]) : ((const float *)y)[at];
          if (!(fabs(got - want[k]) <= worst)) worst = fabs(got - want[k]);
        }
      }
  return worst;
}
