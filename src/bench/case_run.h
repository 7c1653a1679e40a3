/*
 * One bench.json case against a loaded kernel: inputs generated once, uploaded as 1 or several GPU copies
 * (rotated call to call so a small problem is not served from a warm cache), and three timings per call:
 *   gpu       timestamp queries around each pass (wall time around run + wait when the device has none);
 *   resident  wall time of run + wait with GPU-resident tensors;
 *   e2e       wall time of what the public loader's call does: host inputs uploaded into new tensors,
 *             run, every output read back to host memory.
 *
 * Lifecycle: wgk_bench_setup() -> wgk_bench_time_*() / change tunables on setup->call -> wgk_bench_setup_free().
 */
#ifndef WGK_BENCH_CASE_RUN_H
#define WGK_BENCH_CASE_RUN_H

#include "bench/stats.h"
#include "testcase/benchcase.h"

#define WGK_BENCH_ROTATE_BYTES (256ull << 20) /* several input copies while all of them fit below this */
#define WGK_BENCH_MAX_SETS 3

typedef struct wgk_bench_setup {
  wgk_kernel *k;
  const wgk_bench_case *c;
  wgk_host_tensor **host;                      /* per case input */
  wgk_tensor **dev[WGK_BENCH_MAX_SETS];        /* per set, per case input */
  int sets;                                    /* input copies rotated among */
  int next;                                    /* the set the next call binds */
  wgk_call *call;                              /* inputs of set 0, the case's attrs, args and tunables */
  uint64_t input_bytes, output_bytes;          /* host bytes of all inputs / outputs (outputs after a run) */
} wgk_bench_setup;

/* Generates and uploads the inputs and makes the call. A case the device cannot run (a missing required
 * feature) gives WGK_ERR_UNSUPPORTED with the reason in *why; other failures name the cause in *why too. */
wgk_status wgk_bench_setup_make(wgk_kernel *k, const wgk_bench_case *c, const char *source, wgk_bench_setup *out /* OUT */,
                                char *why, size_t why_size);
void wgk_bench_setup_free(wgk_bench_setup *s);

/* Runs once (plans, compiles) and records the output bytes. */
wgk_status wgk_bench_first_run(wgk_bench_setup *s);

/* Per-call samples in nanoseconds (warmup untimed calls first). *timed: from timestamp queries. */
wgk_status wgk_bench_time_gpu(wgk_bench_setup *s, int64_t warmup, int64_t iters, wgk_bench_stat *out, bool *timed);
wgk_status wgk_bench_time_resident(wgk_bench_setup *s, int64_t warmup, int64_t iters, wgk_bench_stat *out);
wgk_status wgk_bench_time_e2e(wgk_bench_setup *s, int64_t warmup, int64_t iters, wgk_bench_stat *out);

/* The op's C reference (src/ops/<op id>/reference.c, in double on the host) on the same inputs, timed per call; WGK_ERR_UNSUPPORTED
 * when wgk has no reference for the op. */
wgk_status wgk_bench_time_reference(wgk_bench_setup *s, int64_t iters, wgk_bench_stat *out);

/* The bytes and FLOPs one call must move / do: the case's figures, else inputs + outputs and 0 (unknown). */
uint64_t wgk_bench_bytes(const wgk_bench_setup *s);
uint64_t wgk_bench_flops(const wgk_bench_setup *s);

#endif
