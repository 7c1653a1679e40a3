/* Helpers the GPU tests share: a seeded generator whose seed is printed, and error printing. */
#ifndef WGK_TESTS_GPU_TEST_UTIL_H
#define WGK_TESTS_GPU_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu.h"

/* WGK_TEST_SEED reproduces a run; otherwise a fresh seed, printed. */
static inline uint64_t gpu_test_seed(void) {
  const char *env = getenv("WGK_TEST_SEED");
  uint64_t seed = env ? strtoull(env, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
  printf("# seed %llu (WGK_TEST_SEED=%llu to repeat)\n", (unsigned long long)seed, (unsigned long long)seed);
  return seed;
}

static inline uint64_t gpu_test_next(uint64_t *state) { /* splitmix64 */
  uint64_t z = (*state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static inline float gpu_test_float(uint64_t *state) {
  return (float)((double)(gpu_test_next(state) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static inline void gpu_test_print_error(const char *what, const util_error *err) {
  char text[WGK_ERROR_MESSAGE_MAX + 600];
  util_error_format(err, text, sizeof text);
  printf("# %s: %s (%s)\n", what, text, wgk_status_str(err->status));
}

#endif
