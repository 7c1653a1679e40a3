/*
 * `wgk bench PKG --first-call`: where the first call of a fresh process goes (issue 14 item 6), by phase, in
 * this process (the command's first GPU work): the WebGPU context (instance, adapter, persistent pipeline
 * cache, device, describing it), the package load (files, digests, manifest), the inputs (generated, uploaded:
 * not part of the call), then the call as the public loader makes it: prepare (plan, shader modules,
 * pipelines), run (record + submit), the wait (the first dispatch: a CPU adapter may compile there), and
 * reading the outputs back; a second call for comparison; and the persistent pipeline cache's counts (a second
 * process with a warm cache loads every blob and stores none).
 */
#ifndef WGK_BENCH_FIRST_CALL_H
#define WGK_BENCH_FIRST_CALL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The phases, in order; load .. read make the first call. */
typedef enum bench_phase {
  BENCH_PHASE_CONTEXT, /* wgk_context_create */
  BENCH_PHASE_LOAD,    /* wgk_kernel_load */
  BENCH_PHASE_INPUTS,  /* generating and uploading the inputs, making the call (not part of the figure) */
  BENCH_PHASE_PREPARE, /* wgk_prepare: plan + shader modules + pipelines */
  BENCH_PHASE_RUN,     /* wgk_call_run returning: record + submit */
  BENCH_PHASE_WAIT,    /* the first dispatch and the wait */
  BENCH_PHASE_READ,    /* every output read back */
  BENCH_PHASE_SECOND,  /* a second run + wait + read, for comparison */
  BENCH_PHASES
} bench_phase;

/* Each phase's wall time and the process's CPU time in it (every thread: a CPU adapter's workers too), ns. On
 * a loaded machine the wall time holds waiting for a core; the CPU time does not. */
typedef struct bench_first_call {
  double wall_ns[BENCH_PHASES], cpu_ns[BENCH_PHASES];
  double instance_ns, adapter_ns, cache_open_ns, device_ns, describe_ns; /* the context's parts (wall) */
  double shader_ns, pipeline_ns;                     /* of prepare: creating shader modules / pipelines (wall) */
  uint64_t shaders, pipelines;                       /* compiled / created by the first call */
  bool has_cache;                                    /* the persistent pipeline cache is on */
  uint64_t cache_loaded, cache_missed, cache_stored; /* its counts after the first call */
} bench_first_call;

/* The phases' names as the JSON and the text give them ("context", "load", ..., "secondCall"). */
const char *bench_phase_name(bench_phase p);

/* load + prepare + run + wait + read, of wall (cpu false) or CPU time: the first call of a process whose
 * context exists. */
double bench_first_call_ns(const bench_first_call *f, bool cpu);

/* {"callNs", "callCpuNs", "withContextNs", "phases": {NAME: {"wallNs", "cpuNs"}...}, "context": {"instanceNs",
 *  "adapterNs", "pipelineCacheOpenNs", "deviceNs", "describeNs"}, "shaderNs", "pipelineNs", "shaders",
 *  "pipelines", "pipelineCache": {"loaded", "missed", "stored"} (only when on)}. */
json_t *bench_first_call_json(const bench_first_call *f);

/* The lines `wgk bench --first-call` prints, into out (truncated to size). */
void bench_first_call_text(const bench_first_call *f, char *out, size_t size);

#endif
