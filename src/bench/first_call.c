/* The first call's phases as JSON and text. */
#include <inttypes.h>
#include <stdio.h>

#include "bench/first_call.h"

static const char *const names[BENCH_PHASES] = {"context", "load", "inputs", "prepare",
                                                "run",     "wait", "read",   "secondCall"};

const char *bench_phase_name(bench_phase p) { return p < BENCH_PHASES ? names[p] : "?"; }

double bench_first_call_ns(const bench_first_call *f, bool cpu) {
  const double *v = cpu ? f->cpu_ns : f->wall_ns;
  return v[BENCH_PHASE_LOAD] + v[BENCH_PHASE_PREPARE] + v[BENCH_PHASE_RUN] + v[BENCH_PHASE_WAIT] + v[BENCH_PHASE_READ];
}

json_t *bench_first_call_json(const bench_first_call *f) {
  json_t *phases = json_object();
  for (int p = 0; p < BENCH_PHASES; p++)
    json_object_set_new(phases, names[p], json_pack("{s:f, s:f}", "wallNs", f->wall_ns[p], "cpuNs", f->cpu_ns[p]));
  json_t *ctx =
      json_pack("{s:f, s:f, s:f, s:f, s:f}", "instanceNs", f->instance_ns, "adapterNs", f->adapter_ns,
                "pipelineCacheOpenNs", f->cache_open_ns, "deviceNs", f->device_ns, "describeNs", f->describe_ns);
  json_t *o = json_pack("{s:f, s:f, s:f, s:o, s:o, s:f, s:f, s:I, s:I}", "callNs", bench_first_call_ns(f, false),
                        "callCpuNs", bench_first_call_ns(f, true), "withContextNs",
                        f->wall_ns[BENCH_PHASE_CONTEXT] + bench_first_call_ns(f, false), "phases", phases, "context",
                        ctx, "shaderNs", f->shader_ns, "pipelineNs", f->pipeline_ns, "shaders", (json_int_t)f->shaders,
                        "pipelines", (json_int_t)f->pipelines);
  if (f->has_cache)
    json_object_set_new(o, "pipelineCache",
                        json_pack("{s:I, s:I, s:I}", "loaded", (json_int_t)f->cache_loaded, "missed",
                                  (json_int_t)f->cache_missed, "stored", (json_int_t)f->cache_stored));
  return o;
}

/* Appends printf text to out[0..size) at *len. */
#define PUT(...)                                                                     \
  do {                                                                               \
    if (*len < size) *len += (size_t)snprintf(out + *len, size - *len, __VA_ARGS__); \
  } while (0)

void bench_first_call_text(const bench_first_call *f, char *out, size_t size) {
  size_t n = 0, *len = &n;
  if (!size) return;
  out[0] = 0;
  const double ms = 1e-6;
  PUT("first call: %.1f ms wall, %.1f ms CPU (load + prepare + run + wait + read); with the context %.1f ms\n",
      bench_first_call_ns(f, false) * ms, bench_first_call_ns(f, true) * ms,
      (f->wall_ns[BENCH_PHASE_CONTEXT] + bench_first_call_ns(f, false)) * ms);
  PUT("  ms wall / CPU:");
  for (int p = 0; p < BENCH_PHASES; p++)
    PUT(" %s %.1f / %.1f%s", names[p], f->wall_ns[p] * ms, f->cpu_ns[p] * ms, p + 1 < BENCH_PHASES ? "," : "\n");
  PUT("  context: instance %.1f, adapter %.1f, pipeline cache %.1f, device %.1f, describe %.1f ms\n",
      f->instance_ns * ms, f->adapter_ns * ms, f->cache_open_ns * ms, f->device_ns * ms, f->describe_ns * ms);
  PUT("  prepare: shader modules %.1f ms, pipelines %.1f ms (%" PRIu64 " shaders, %" PRIu64 " pipelines)\n",
      f->shader_ns * ms, f->pipeline_ns * ms, f->shaders, f->pipelines);
  if (f->has_cache)
    PUT("  pipeline cache: %" PRIu64 " loaded, %" PRIu64 " missed, %" PRIu64 " stored\n", f->cache_loaded,
        f->cache_missed, f->cache_stored);
  else
    PUT("  pipeline cache: off\n");
}
