/* The monotonic clock, for timing host work: the one clock of the library, `wgk bench` (src/bench) and the bench
 * programs (bench/bench_clock.h). */
#ifndef WGK_UTIL_CLOCK_H
#define WGK_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t util_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline double util_now_us(void) { return (double)util_now_ns() * 1e-3; }

static inline double util_now_s(void) { return (double)util_now_ns() * 1e-9; }

/* A CPU-time clock (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID) in ns, for phases that a loaded machine's
 * wall time blurs. */
static inline uint64_t util_cpu_clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The process's CPU time (every thread's). */
static inline uint64_t util_process_cpu_ns(void) { return util_cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID); }

#endif
