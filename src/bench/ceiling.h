/*
 * The device's reference ceilings, measured through src/gpu (and the public tensor calls for the host
 * transfers) so a kernel's figures can be read as a fraction of what the device does in practice:
 *   copy      the best of several vec4<f32> copy kernels over a large buffer (1, 2, 4 or 8 vec4 in flight per
 *             thread: loads first, then stores), bytes read + bytes written per second;
 *   fma       an FMA-bound kernel: four independent chains of dependent vec4 FMAs per thread, enough threads to
 *             fill the device (2 FLOPs per FMA lane);
 *   upload    host -> device as the end-to-end path does it: wgk_tensor_create from host memory + wait;
 *   download  device -> host as the end-to-end path does it: wgk_tensor_read;
 *   submitWait a bare submit + wait of an empty dispatch (one workgroup writing one word) through src/gpu: the
 *             least a resident call can cost, the reference of the call-overhead goal.
 * Every kernel series starts on warm clocks (back-to-back dispatches for WGK_BENCH_WARM_NS first). A kernel is
 * timed twice: per dispatch from timestamp queries (`reps` dispatches, each its own pass, one submission), and
 * as the wall time of `reps` back-to-back dispatches in one submission divided by reps. Without
 * timestamp-query, or on a CPU adapter (bench_timestamps_trusted below: lavapipe's timestamps time a driver
 * flush), the wall figure is the kernel's time (`timed` false). The two are checked against each other
 * (bench/consistency.h).
 */
#ifndef WGK_BENCH_CEILING_H
#define WGK_BENCH_CEILING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/stats.h"
#include "gpu/gpu.h"
#include "wgk.h"

#define WGK_BENCH_WARM_NS 200e6     /* a GPU's clocks ramp within ~100 ms of steady work (and drop in ~1 s idle) */
#define WGK_BENCH_WARM_FIRST_NS 1e9 /* a case's first warm-up (bench_warm) */
#define WGK_BENCH_WARM_CPU_NS 50e6  /* a CPU adapter: its cores' frequency */
#define WGK_BENCH_COPY_VARIANTS 4   /* 1, 2, 4, 8 vec4 per thread */

/* One kernel's figures: per dispatch from timestamps and from the wall time of back-to-back dispatches. */
typedef struct bench_kernel_time {
  bench_stat ns;              /* the figure: timestamps where trusted (not on a CPU adapter), else wall / dispatches */
  bool has_timestamps;        /* timestamps measured (the device has timestamp-query) */
  bench_stat ts_ns;           /* per dispatch from timestamps */
  bench_stat wall_ns;         /* wall time of `dispatches` back-to-back dispatches in one submission, per dispatch */
  uint32_t dispatches;        /* per wall sample */
  bool consistent;            /* the figure (ns) passes bench/consistency.h: the wall figure always does */
  bool timestamps_consistent; /* the timestamps, used or not, within the wall figure */
  char reason[256];           /* why the timestamps are not */
} bench_kernel_time;

typedef struct bench_copy_variant {
  uint32_t vec4_per_thread;
  double gbps; /* at its median */
  double ns;   /* median per dispatch */
} bench_copy_variant;

/* A copy measured at one size: the variants timed (every one for the ceiling), the best kept. */
typedef struct bench_copy {
  uint64_t bytes;           /* read + written by one dispatch */
  uint32_t vec4_per_thread; /* the best variant's */
  bench_kernel_time best;   /* the best variant's */
  double gbps;              /* bytes / the best median, GB/s (1e9) */
  bench_copy_variant variants[WGK_BENCH_COPY_VARIANTS];
  size_t n_variants;
} bench_copy;

typedef struct bench_transfer {
  uint64_t bytes; /* per transfer */
  bench_stat ns;  /* per transfer */
  double gbps;    /* bytes / median */
} bench_transfer;

typedef struct bench_ceilings {
  bool timed;           /* figures from timestamp queries (else wall time of back-to-back dispatches) */
  bool has_timestamps;  /* the device has timestamp-query (on a CPU adapter they are measured, not used) */
  bench_copy copy;      /* over a large buffer: every variant, the best kept */
  uint64_t fma_flops;   /* FLOPs of one FMA dispatch */
  uint64_t fma_threads; /* threads of one FMA dispatch */
  bench_kernel_time fma;
  double fma_gflops;  /* fma_flops / median, GFLOP/s */
  bool has_transfers; /* upload / download measured */
  bench_transfer upload, download;
  bool has_submit_wait;   /* submit_wait measured */
  bench_stat submit_wait; /* ns of encoder begin + one empty dispatch + submit + wait, warm */
  bool has_empty_pass;    /* empty_pass measured (the device has timestamp-query) */
  bench_stat empty_pass;  /* timestamps of that empty dispatch in its own timed pass, one per submission: the least
                             a timed pass reads, the floor under a tiny pass's figure */
} bench_ceilings;

/* Issue 14's goals for one case, from the ceilings and the case's figures:
 *   transfer: e2e - resident <= WGK_BENCH_TRANSFER_GOAL x (input bytes / upload GB/s + output bytes / download GB/s),
 *     each direction at the faster of the ceiling (the process's start) and the one timed beside the case: a
 *     ceiling timed in a slow moment of the link is no ceiling (on the H200 one process's start read 16.9 / 20.4
 *     GB/s against 25-28 / 34-44 in seven others, and its cases' transfers 0.6-0.9x that "floor");
 *   overhead: resident <= WGK_BENCH_OVERHEAD_GOAL x the bare submit + wait. */
#define WGK_BENCH_TRANSFER_GOAL 1.25
#define WGK_BENCH_OVERHEAD_GOAL 1.3
typedef struct bench_goals {
  bool has_transfer;        /* the transfer ceilings were measured */
  double transfer_floor_ns; /* input bytes / upload + output bytes / download, at the ceilings */
  double upload_gbps;       /* the ceilings the floor used: the faster of the start's and the beside */
  double download_gbps;
  bool transfer_beside;    /* either of them was the one timed beside the case */
  double ratio_beside;     /* transfer_ns over the floor at the beside ceilings alone (0: none): where the link itself
                              was slow while the case ran, this ratio stays near the path's own and the goal's does
                              not (the goal is never judged by it: a slow moment would flatter it) */
  double transfer_ns;      /* e2e - resident */
  double transfer_ratio;   /* transfer_ns / transfer_floor_ns */
  bool transfer_met;       /* ratio <= WGK_BENCH_TRANSFER_GOAL */
  bool has_overhead;       /* the bare submit + wait was measured */
  double submit_wait_ns;   /* its median: timed beside the case's resident calls where they were, else the ceiling's */
  bool submit_wait_beside; /* submit_wait_ns was timed beside the resident calls (bench_bare) */
  double overhead_ratio;   /* resident / submit_wait_ns */
  bool overhead_met;       /* ratio <= WGK_BENCH_OVERHEAD_GOAL */
  double host_ratio;       /* (resident - gpu) / submit_wait_ns: the call's cost past its GPU work, which is what
                              the goal measures where the GPU work is small next to a submit (a CPU adapter's is not) */
} bench_goals;
/* One case's figures, as the goals read them. */
typedef struct bench_goal_figures {
  uint64_t input_bytes, output_bytes;
  double e2e_ns, resident_ns, gpu_ns; /* medians */
  double bare_beside_ns; /* the bare submit + wait timed beside the resident calls (0: none; the ceiling's then) */
  const bench_transfer *upload_beside, *download_beside; /* the transfer ceilings timed beside the case, or NULL */
} bench_goal_figures;
bench_goals bench_goals_of(const bench_ceilings *c, const bench_goal_figures *f);
json_t *bench_goals_json(const bench_goals *g);

/* Whether a device's timestamps time its kernels: it has timestamp-query and is not a CPU adapter. lavapipe's
 * end-of-pass timestamp flushes the driver's queue before it reads the host clock (lvp_execute.c), so its
 * timestamps bracket driver work an untimed call does not do (a decode RoPE: 196 us of timestamps in calls
 * whose untimed run + wait takes 94 us); there the batch figure is the GPU time. The ceilings and the cases
 * (bench/case_run.h) both ask it. */
bool bench_timestamps_trusted(const device_desc *dev);

/* reps samples (0: 200) of the bare submit + wait into out->submit_wait, on warm clocks; where the device has
 * timestamp-query, as many of the same dispatch in a timed pass into out->empty_pass. */
wgk_status bench_measure_submit_wait(gpu_device *dev, uint32_t reps, bench_ceilings *out, util_error *err);

/* The bare submission (one workgroup writing one word: encoder, dispatch, submit, wait), to time beside a case's
 * resident calls. On the H200 a call's host part sits at one of two levels for long stretches (11 or 17 us of record
 * and submit, bench/results/archive-2026-12-02/h200-2026-12-02-decode-apart.md): the bare submission timed minutes
 * apart can be in the other one, timed beside it is in the same one. */
typedef struct bench_bare bench_bare;
wgk_status bench_bare_create(gpu_device *dev, bench_bare **out /* OUT */, util_error *err);
wgk_status bench_bare_time(bench_bare *b, double *ns /* OUT */, util_error *err);
void bench_bare_destroy(bench_bare *b);

/* The copy variants to time near the ceiling's best (its vec4 per thread): that one and its neighbours in
 * 1, 2, 4, 8 (where they exist), in that order, into out; `best` 0 or none of them (no ceiling, or one without a
 * best): every variant. Returns how many. */
size_t bench_copy_variants_near(uint32_t best, uint32_t out[WGK_BENCH_COPY_VARIANTS]);

/* The copy kernels moving about `bytes` (read + written; rounded up to a whole block, at most the binding limit), as
 * the copy ceiling is measured: a case's own size, where a short kernel's launch and tail weigh as they do in the
 * case (the ceiling's 512 MiB copy hides them). Only the variants near the ceiling's best (`ceiling_best`: its
 * vec4_per_thread; 0: every variant) are timed, each with its warm-up: about 1 s per case for all four. reps as
 * below. */
wgk_status bench_measure_copy(gpu_device *dev, uint64_t bytes, uint32_t ceiling_best, uint32_t reps, bench_copy *out,
                              util_error *err);

/* reps: timed dispatches of each kernel; 0 picks 10. */
wgk_status bench_measure_ceilings(gpu_device *dev, uint32_t reps, bench_ceilings *out /* OUT */, util_error *err);

/* The host transfer ceilings through ctx (the calls the end-to-end path makes), `reps` transfers of `bytes`
 * each way (0, 0: 10 of min(64 MiB, maxBufferSize)), into out->upload / download; on failure the reason is
 * the context's error message. */
wgk_status bench_measure_transfers(wgk_context *ctx, uint64_t bytes, uint32_t reps, bench_ceilings *out);
/* {bytes, ns, gbps}: one transfer ceiling as the ceilings' JSON writes it. */
json_t *bench_transfer_json(const bench_transfer *t);

/* The `ceilings` object of `wgk bench --json` (docs/performance.md). */
json_t *bench_ceilings_json(const bench_ceilings *c);
json_t *bench_stat_json(const bench_stat *s);

/* Seconds-free time source shared by the bench code: CLOCK_MONOTONIC in nanoseconds. */
double bench_now_ns(void);

#endif
