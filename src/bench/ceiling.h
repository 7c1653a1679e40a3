/*
 * The device's reference ceilings, measured with two tiny kernels through src/gpu so a kernel's figures can
 * be read as a fraction of what the device does in practice:
 *   bandwidth  a vec4<f32> copy over a large buffer (bytes read + bytes written per second);
 *   compute    an FMA-bound kernel: four independent chains of dependent vec4 FMAs per thread, enough
 *              threads to fill the device (2 FLOPs per FMA lane).
 * Each is dispatched `reps` times; the time of a dispatch comes from timestamp queries, or, on a device
 * without timestamp-query, from the wall clock around its submit + wait (then `timed` is false).
 */
#ifndef WGK_BENCH_CEILING_H
#define WGK_BENCH_CEILING_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/stats.h"
#include "gpu/gpu.h"

typedef struct wgk_bench_ceilings {
  bool timed;              /* timestamp queries (else wall time around submit + wait) */
  uint64_t copy_bytes;     /* bytes read + written by one copy dispatch */
  wgk_bench_stat copy_ns;  /* per dispatch */
  double copy_gbps;        /* copy_bytes / median, GB/s (1e9) */
  uint64_t fma_flops;      /* FLOPs of one FMA dispatch */
  uint64_t fma_threads;    /* threads of one FMA dispatch */
  wgk_bench_stat fma_ns;   /* per dispatch */
  double fma_gflops;       /* fma_flops / median, GFLOP/s */
} wgk_bench_ceilings;

/* reps: timed dispatches of each kernel (after one untimed warm-up); 0 picks 10. */
wgk_status wgk_bench_measure_ceilings(wgk_gpu_device *dev, uint32_t reps, wgk_bench_ceilings *out /* OUT */,
                                      wgk_error *err);

#endif
