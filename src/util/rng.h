/*
 * A small seeded PRNG (xoshiro256**, state seeded through splitmix64) so tests and generated cases are
 * reproducible from one printed 64-bit seed. Not for cryptography.
 */
#ifndef WGK_UTIL_RNG_H
#define WGK_UTIL_RNG_H

#include <stdint.h>

typedef struct util_rng {
  uint64_t s[4];       /* xoshiro256** state, never all zero */
  double spare_normal; /* second value of the last Box-Muller pair */
  int has_spare;       /* spare_normal is valid */
} util_rng;

void util_rng_seed(util_rng *r, uint64_t seed);
uint64_t util_rng_next(util_rng *r);
double util_rng_uniform(util_rng *r, double lo, double hi); /* [lo, hi) */
int64_t util_rng_int(util_rng *r, int64_t lo, int64_t hi);  /* [lo, hi] inclusive, unbiased */
double util_rng_normal(util_rng *r, double mean, double stddev);

#endif
