/* The self-consistency rules of a benchmark's figures and the agreement of its repeats. */
#include <stdarg.h>
#include <stdio.h>

#include "bench/consistency.h"
#include "bench/stats.h"

/* Appends "; "-separated text to reason. */
static void add(char *reason, size_t size, const char *fmt, ...) {
  size_t len = 0;
  while (len < size && reason[len]) len++;
  if (len + 3 >= size) return;
  if (len) len += (size_t)snprintf(reason + len, size - len, "; ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason + len, size - len, fmt, ap);
  va_end(ap);
}

bool bench_consistent(const bench_figures *f, char *reason, size_t size) {
  if (size) reason[0] = 0;
  bool ok = true;
  if (!(f->gpu_ns > 0)) {
    add(reason, size, "no GPU time was measured");
    return false;
  }
  if (f->timestamps && f->timed_call_ns > 0 && f->timed_call_gpu_ns > f->timed_call_ns) {
    add(reason, size,
        "timestamps of a lone timed call give %.1f us, more than the %.1f us wall time of that call "
        "(broken timestamps: units, stale or early slots)",
        f->timed_call_gpu_ns * 1e-3, f->timed_call_ns * 1e-3);
    ok = false;
  }
  if (f->timestamps && f->timed_call_ns > 0 && f->timed_call_span_ns > f->timed_call_ns) {
    add(reason, size,
        "the GPU span of a lone timed call (first pass's begin to last pass's end) is %.1f us, more than the "
        "%.1f us wall time of that call (broken timestamps: units, stale or early slots)",
        f->timed_call_span_ns * 1e-3, f->timed_call_ns * 1e-3);
    ok = false;
  }
  /* timestamps are GPU time inside the call: never past its wall time; the batch figure is itself a wall time of
   * the same work, K calls at once, which only noise lifts past one call's (lavapipe: 15728.7 against 15726.8 us) */
  double allowed = f->timestamps ? f->resident_ns : f->resident_ns * (1 + WGK_BENCH_BATCH_TOLERANCE);
  if (f->resident_ns > 0 && f->gpu_ns > allowed) {
    add(reason, size, "GPU time %.1f us exceeds the whole resident call's %.1f us (run + wait)%s", f->gpu_ns * 1e-3,
        f->resident_ns * 1e-3, f->timestamps ? "" : " by more than 5% (the GPU time is the batch's wall time)");
    ok = false;
  }
  if (f->timestamps && f->batch_ns > 0 && f->gpu_ns > f->batch_ns * (1 + WGK_BENCH_BATCH_TOLERANCE)) {
    add(reason, size,
        "timestamps give %.1f us, more than the %.1f us per call of the %d back-to-back calls in one "
        "submission whose last call they timed (wall time)",
        f->gpu_ns * 1e-3, f->batch_ns * 1e-3, f->batch_calls);
    ok = false;
  }
  return ok;
}

bool bench_repeats_agree(const char *const *names, const double *spreads, size_t n, char *reason, size_t size) {
  if (size) reason[0] = 0;
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    if (spreads[i] <= WGK_BENCH_REPEAT_TOLERANCE) continue;
    add(reason, size, "the %s medians of the repeats spread %.1f%% (more than %.0f%%)", names[i], spreads[i] * 100,
        WGK_BENCH_REPEAT_TOLERANCE * 100);
    ok = false;
  }
  return ok;
}

void bench_load_note(double load, int cores, char *reason, size_t size) {
  if (load <= 0 || cores <= 0 || load <= cores) return;
  add(reason, size,
      "the host's load average was %.1f on %d cores: other processes took cores during the series, so host-bound "
      "figures move between repeats",
      load, cores);
}

double bench_load_average(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  double load = -1;
  if (f && fscanf(f, "%lf", &load) != 1) load = -1;
  if (f) fclose(f);
  return load;
}
