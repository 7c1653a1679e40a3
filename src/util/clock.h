/* The monotonic clock in nanoseconds, for timing host work. */
#ifndef WGK_UTIL_CLOCK_H
#define WGK_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t util_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double util_now_s(void) { return (double)util_now_ns() * 1e-9; }

#endif
