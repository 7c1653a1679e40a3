/* `wgk bench PKG --first-call`: the first call of this process, by phase (bench/first_call.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/case_run.h"
#include "bench/ceiling.h"
#include "bench/first_call.h"
#include "cli/bench_report.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "gpu/blob_cache.h"
#include "package/package.h"
#include "runtime/runtime_access.h"
#include "util/clock.h"

#define now_ns bench_now_ns

/* Every output of the call's last run read back into host memory, as the public loader's call does. */
static wgk_status read_outputs(wgk_kernel *k, wgk_call *call) {
  const manifest_model *m = rt_kernel_manifest(k);
  wgk_status st = WGK_OK;
  for (size_t i = 0; i < m->n_ports && !st; i++) {
    if (m->ports[i].dir == WGK_PORT_INPUT) continue;
    wgk_tensor *t = wgk_call_output(call, m->ports[i].name);
    if (!t) continue;
    void *host = malloc(wgk_tensor_host_bytes(t) + 1);
    st = host ? wgk_tensor_read(t, host, wgk_tensor_host_bytes(t)) : WGK_ERR_OUT_OF_MEMORY;
    free(host);
  }
  return st;
}

/* A phase's clocks: begin() then end(p) stores its wall and CPU time. */
typedef struct clocks {
  bench_first_call *f;
  double wall, cpu;
} clocks;

static void begin(clocks *c) {
  c->wall = now_ns();
  c->cpu = (double)util_process_cpu_ns();
}

static void end(clocks *c, bench_phase p) {
  c->f->wall_ns[p] += now_ns() - c->wall;
  c->f->cpu_ns[p] += (double)util_process_cpu_ns() - c->cpu;
  begin(c);
}

/* Run, wait and read, each its own phase (second: all three into BENCH_PHASE_SECOND). */
static wgk_status run_wait_read(wgk_kernel *k, bench_setup *su, clocks *c, bool second) {
  begin(c);
  wgk_status st = wgk_call_run(su->call);
  end(c, second ? BENCH_PHASE_SECOND : BENCH_PHASE_RUN);
  if (!st) st = wgk_context_wait(rt_kernel_context(k));
  end(c, second ? BENCH_PHASE_SECOND : BENCH_PHASE_WAIT);
  if (!st) st = read_outputs(k, su->call);
  end(c, second ? BENCH_PHASE_SECOND : BENCH_PHASE_READ);
  return st;
}

/* The phases after the context and the load: inputs, prepare, the first call, a second one. */
static wgk_status measure_call(wgk_kernel *k, const tc_bench_suite *s, const tc_bench_case *tc, bench_first_call *f,
                               util_error *err) {
  wgk_context *ctx = rt_kernel_context(k);
  bench_setup su;
  clocks c = {.f = f};
  begin(&c);
  wgk_status st = bench_setup_make(k, tc, s->source, &su, err);
  end(&c, BENCH_PHASE_INPUTS);
  wgk_stats before;
  wgk_context_stats(ctx, &before);
  begin(&c);
  if (!st) st = wgk_prepare(su.call);
  end(&c, BENCH_PHASE_PREPARE);
  rt_context_compile_ns(ctx, &f->shader_ns, &f->pipeline_ns);
  if (!st) st = run_wait_read(k, &su, &c, false);
  wgk_stats after;
  wgk_context_stats(ctx, &after);
  f->shaders = after.shaders_compiled - before.shaders_compiled;
  f->pipelines = after.pipelines_created - before.pipelines_created;
  if (!st) st = run_wait_read(k, &su, &c, true);
  gpu_blob_counts n;
  f->has_cache = gpu_device_blob_counts(rt_context_device(ctx), &n);
  if (f->has_cache) {
    f->cache_loaded = n.loaded;
    f->cache_missed = n.missed;
    f->cache_stored = n.stored;
  }
  if (st && !util_error_is_set(err)) util_error_plain(err, st, "%s", wgk_context_errmsg(ctx));
  bench_setup_free(&su);
  return st;
}

static const tc_bench_case *pick(const tc_bench_suite *s, const char *filter) {
  for (size_t i = 0; i < s->n_cases; i++)
    if (!filter || strstr(s->cases[i].id, filter)) return &s->cases[i];
  return NULL;
}

int cli_bench_first_call(const char *pkg, const char *filter, const char *json_path, const cli_common *common, int argc,
                         char **argv) {
  bench_first_call f = {0};
  wgk_context_options co = {.adapter = common->adapter, .log = cli_log};
  wgk_context *ctx = NULL;
  char *msg = NULL;
  clocks clk = {.f = &f};
  begin(&clk);
  if (wgk_context_create(&co, &ctx, &msg) != WGK_OK) {
    cli_error("bench", "%s", msg ? msg : "cannot create a WebGPU context");
    free(msg);
    return 1;
  }
  end(&clk, BENCH_PHASE_CONTEXT);
  gpu_startup su = gpu_device_startup(rt_context_device(ctx));
  f.instance_ns = su.instance_ns;
  f.adapter_ns = su.adapter_ns;
  f.cache_open_ns = su.cache_ns;
  f.device_ns = su.device_ns;
  f.describe_ns = su.describe_ns;
  wgk_kernel_options ko = {.version = common->version,
                           .revision = common->revision,
                           .strict = common->strict,
                           .trust_remote_code = common->trust_remote_code};
  wgk_kernel *k = NULL;
  wgk_status st = wgk_kernel_load(ctx, pkg, &ko, &k);
  end(&clk, BENCH_PHASE_LOAD);
  if (st) {
    cli_error("bench", "%s", wgk_context_errmsg(ctx));
    wgk_context_destroy(ctx);
    return 1;
  }
  tc_bench_suite *suite = cli_load_bench("bench", rt_kernel_package(k));
  const tc_bench_case *c = suite ? pick(suite, filter) : NULL;
  util_error err;
  util_error_clear(&err);
  int rc = 1;
  if (c && measure_call(k, suite, c, &f, &err) != WGK_OK) {
    char why[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, why, sizeof why);
    cli_error("bench", "--first-call %s: %s", c->id, why);
  } else if (c) {
    char text[2048];
    bench_first_call_text(&f, text, sizeof text);
    printf("adapter: %s\ncase: %s\n%s", wgk_context_adapter(ctx), c->id, text);
    rc = 0;
    if (json_path) {
      json_t *doc = cli_bench_report_head(argc, argv, rt_kernel_manifest(k)->op_id, rt_context_device_desc(ctx));
      json_object_set_new(doc, "case", json_string(c->id));
      json_object_set_new(doc, "firstCall", bench_first_call_json(&f));
      if (!cli_write_json("bench", json_path, doc)) rc = 1;
    }
  }
  tc_bench_suite_free(suite);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return rc;
}
