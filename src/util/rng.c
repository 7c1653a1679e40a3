/* xoshiro256** (Blackman and Vigna's published algorithm), seeded through splitmix64 so any 64-bit seed,
 * including 0, gives a well-mixed non-zero state. */
#include "util/rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void util_rng_seed(util_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
  r->has_spare = 0;
  r->spare_normal = 0;
}

uint64_t util_rng_next(util_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double util_rng_uniform(util_rng *r, double lo, double hi) {
  double u = (double)(util_rng_next(r) >> 11) * 0x1.0p-53; /* [0, 1) with 53 random bits */
  double v = lo + (hi - lo) * u;
  return v < hi ? v : lo; /* rounding can land on hi when the range is wide */
}

int64_t util_rng_int(util_rng *r, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  uint64_t span = (uint64_t)hi - (uint64_t)lo; /* hi - lo, exact in unsigned arithmetic */
  if (span == UINT64_MAX) return (int64_t)util_rng_next(r);
  uint64_t n = span + 1;
  uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n; /* rejection keeps the draw unbiased */
  uint64_t x;
  do x = util_rng_next(r);
  while (x > limit);
  return (int64_t)((uint64_t)lo + x % n);
}

double util_rng_normal(util_rng *r, double mean, double stddev) {
  if (r->has_spare) {
    r->has_spare = 0;
    return mean + stddev * r->spare_normal;
  }
  double u1, u2;
  do u1 = util_rng_uniform(r, 0.0, 1.0);
  while (u1 <= 0.0);
  u2 = util_rng_uniform(r, 0.0, 1.0);
  double mag = sqrt(-2.0 * log(u1));
  r->spare_normal = mag * sin(2.0 * M_PI * u2);
  r->has_spare = 1;
  return mean + stddev * mag * cos(2.0 * M_PI * u2);
}
