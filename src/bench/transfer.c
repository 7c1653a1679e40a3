/* The host transfer ceilings, through the calls the end-to-end path makes (bench/case_run.c: wgk_tensor_create
 * from host memory for every input, wgk_tensor_read for every output), and the ceilings' JSON. */
#include <stdlib.h>
#include <string.h>

#include "bench/ceiling.h"
#include "runtime/runtime_access.h"

#define TRANSFER_BYTES (64ull << 20)
#define TRANSFER_BYTES_CPU (8ull << 20) /* lavapipe's e2e path moves tens of MB/s: keep the ceiling short */
#define TRANSFER_REPS 10u
#define TRANSFER_REPS_CPU 5u

static bench_transfer summary(uint64_t bytes, const double *ns, size_t n) {
  bench_transfer t = {.bytes = bytes, .ns = bench_stat_of(ns, n)};
  t.gbps = t.ns.median > 0 ? (double)bytes / t.ns.median : 0;
  return t;
}

wgk_status bench_measure_transfers(wgk_context *ctx, uint64_t bytes, uint32_t reps, bench_ceilings *out) {
  const device_limits *l = &rt_context_device_desc(ctx)->limits;
  bool cpu = strcmp(rt_context_device_desc(ctx)->adapterType, "cpu") == 0;
  uint64_t want = cpu ? TRANSFER_BYTES_CPU : TRANSFER_BYTES;
  if (!bytes) bytes = want < l->maxBufferSize ? want : l->maxBufferSize;
  if (!reps) reps = cpu ? TRANSFER_REPS_CPU : TRANSFER_REPS;
  bytes -= bytes % 4;
  int64_t shape[1] = {(int64_t)(bytes / 4)};
  float *host = malloc(bytes + 4);
  double *ns = calloc(reps + 1, sizeof *ns);
  wgk_status st = host && ns ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  if (host) memset(host, 0x3c, bytes); /* touched: no page faults inside a timed copy */
  wgk_tensor *t = NULL;
  /* upload: a new tensor from host memory, then the wait for it; one untimed first */
  for (uint32_t r = 0; !st && r <= reps; r++) {
    double t0 = bench_now_ns();
    st = wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, shape, host, &t);
    if (!st) st = wgk_context_wait(ctx);
    if (r) ns[r - 1] = bench_now_ns() - t0;
    if (!st && r < reps) wgk_tensor_release(t), t = NULL;
  }
  if (!st) out->upload = summary(bytes, ns, reps);
  /* download: the last upload's tensor read into host memory; one untimed first */
  for (uint32_t r = 0; !st && r <= reps; r++) {
    double t0 = bench_now_ns();
    st = wgk_tensor_read(t, host, bytes);
    if (r) ns[r - 1] = bench_now_ns() - t0;
  }
  if (!st) out->download = summary(bytes, ns, reps);
  out->has_transfers = st == WGK_OK;
  wgk_tensor_release(t);
  free(host);
  free(ns);
  return st;
}

json_t *bench_stat_json(const bench_stat *s) {
  return json_pack("{s:f, s:f, s:f, s:I}", "median", s->median, "p10", s->p10, "p90", s->p90, "n", (json_int_t)s->n);
}

static json_t *kernel_json(const bench_kernel_time *k) {
  json_t *o = json_pack("{s:o, s:o, s:i, s:b, s:b, s:s}", "ns", bench_stat_json(&k->ns), "wallNs",
                        bench_stat_json(&k->wall_ns), "wallDispatches", (int)k->dispatches, "consistent", k->consistent,
                        "timestampsConsistent", k->timestamps_consistent, "reason", k->reason);
  if (k->has_timestamps) json_object_set_new(o, "timestampNs", bench_stat_json(&k->ts_ns));
  return o;
}

json_t *bench_transfer_json(const bench_transfer *t) {
  return json_pack("{s:I, s:o, s:f}", "bytes", (json_int_t)t->bytes, "ns", bench_stat_json(&t->ns), "gbps", t->gbps);
}

json_t *bench_ceilings_json(const bench_ceilings *c) {
  json_t *variants = json_array();
  for (size_t i = 0; i < c->copy.n_variants; i++)
    json_array_append_new(
        variants, json_pack("{s:i, s:f, s:f}", "vec4PerThread", (int)c->copy.variants[i].vec4_per_thread, "gbps",
                            c->copy.variants[i].gbps, "ns", c->copy.variants[i].ns));
  json_t *copy = kernel_json(&c->copy.best), *fma = kernel_json(&c->fma);
  json_object_set_new(copy, "bytes", json_integer((json_int_t)c->copy.bytes));
  json_object_set_new(copy, "gbps", json_real(c->copy.gbps));
  json_object_set_new(copy, "vec4PerThread", json_integer(c->copy.vec4_per_thread));
  json_object_set_new(copy, "variants", variants);
  json_object_set_new(fma, "flops", json_integer((json_int_t)c->fma_flops));
  json_object_set_new(fma, "threads", json_integer((json_int_t)c->fma_threads));
  json_object_set_new(fma, "gflops", json_real(c->fma_gflops));
  const char *source = c->timed ? "timestamps"
                       : c->has_timestamps
                           ? "wall time of back-to-back dispatches in one submission (a CPU adapter's "
                             "timestamps time the driver's flush, not the kernel)"
                           : "wall time of back-to-back dispatches in one submission (no timestamp-query)";
  json_t *o = json_pack("{s:b, s:b, s:s, s:o, s:o}", "timestampQueries", c->has_timestamps, "timestampsUsed", c->timed,
                        "timeSource", source, "copy", copy, "fma", fma);
  if (c->has_transfers) {
    json_object_set_new(o, "upload", bench_transfer_json(&c->upload));
    json_object_set_new(o, "download", bench_transfer_json(&c->download));
  }
  if (c->has_submit_wait)
    json_object_set_new(o, "submitWait", json_pack("{s:o}", "ns", bench_stat_json(&c->submit_wait)));
  if (c->has_empty_pass) json_object_set_new(o, "emptyPass", json_pack("{s:o}", "ns", bench_stat_json(&c->empty_pass)));
  return o;
}
