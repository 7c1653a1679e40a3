/*
 * `wgk run PKG --in port=FILE.npy ... [--attr k=v] [--arg k=v] [--tunable k=v] [--out DIR] [--calls N]`:
 * one kernel call on .npy inputs; prints each output's summary and the call's time, writes outputs as .npy.
 * With --verbose, the context's cache counters per call, so a repeated call shows that it compiled nothing, and
 * where the process's time went by phase (check, instance, adapter, device, load, inputs, plan, compile, run, read,
 * exit), in wall ms and in CPU ms (start: before main, the dynamic loading; context: its thread). The process leaves
 * without tearing the device down (Dawn's and the driver's teardown cost tens of ms and nothing needs it; the pipeline
 * cache is written as pipelines are made), except in a sanitizer build.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/env.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "device/device_desc.h"
#include "gpu/gpu.h"
#include "package/package.h"
#include "runtime/runtime_access.h"
#include "util/clock.h"
#include "util/npy.h"
#include "util/suggest.h"
#include "util/tensor_host.h"

#define MAX_ITEMS 64

typedef struct run_opts {
  cli_common common;
  const char *pkg;
  const char *ins[MAX_ITEMS], *attrs[MAX_ITEMS], *args[MAX_ITEMS], *tunables[MAX_ITEMS];
  int n_ins, n_attrs, n_args, n_tunables;
  const char *out_dir;
  const char *out_shapes[MAX_ITEMS]; /* --out-shape port=DIMS[:dtype]: explicit destinations */
  int n_out_shapes;
  long repeat;
  bool repeat_given;
  bool wgsl;     /* --wgsl: print the WGSL the last call ran */
  bool gpu_time; /* --gpu-time: timestamp queries around each call (a first call pays for them: see cli_cmd_run) */
} run_opts;

static int push(const char *opt, const char **list, int *n, const char *v) {
  if (!v) return -1;
  if (*n >= MAX_ITEMS) return cli_error("run", "too many %s options (the limit is %d)", opt, MAX_ITEMS), -1;
  list[(*n)++] = v;
  return 1;
}

static int parse_one(int argc, char **argv, int *i, run_opts *o) {
  const char *a = argv[*i];
  int r = cli_common_option("run", argc, argv, i, &o->common);
  if (r) return r;
  if (strcmp(a, "--in") == 0) return push(a, o->ins, &o->n_ins, cli_value("run", argc, argv, i));
  if (strcmp(a, "--attr") == 0) return push(a, o->attrs, &o->n_attrs, cli_value("run", argc, argv, i));
  if (strcmp(a, "--arg") == 0) return push(a, o->args, &o->n_args, cli_value("run", argc, argv, i));
  if (strcmp(a, "--tunable") == 0) return push(a, o->tunables, &o->n_tunables, cli_value("run", argc, argv, i));
  if (strcmp(a, "--wgsl") == 0) return o->wgsl = true, 1;
  if (strcmp(a, "--gpu-time") == 0) return o->gpu_time = true, 1;
  if (strcmp(a, "--out") == 0) return cli_once("run", a, &o->out_dir, cli_value("run", argc, argv, i)) ? 1 : -1;
  if (strcmp(a, "--out-shape") == 0) return push(a, o->out_shapes, &o->n_out_shapes, cli_value("run", argc, argv, i));
  if (strcmp(a, "--calls") == 0) {
    const char *v = cli_value("run", argc, argv, i);
    long long n;
    if (!v) return -1;
    if (o->repeat_given) return cli_error("run", "--calls given twice; give it once"), -1;
    if (!cli_int("run", "--calls", v, 1, 1000000, &n)) return -1;
    o->repeat = (long)n;
    o->repeat_given = true;
    return 1;
  }
  if (strcmp(a, "--repeat") == 0)
    return cli_error("run", "--repeat is now --calls N (how many times the call runs)"), -1;
  if (a[0] == '-' && a[1])
    return cli_error("run",
                     "unknown option '%s' (wgk run takes: --in --attr --arg --tunable --out --out-shape --calls --wgsl "
                     "--gpu-time and the common options)",
                     a),
           -1;
  if (o->pkg) return cli_error("run", "unexpected argument '%s' (the package is already '%s')", a, o->pkg), -1;
  o->pkg = a;
  return 1;
}

/* The known names of a kind, for messages: "a, b, c" (or "none"). */
static void names_of(const manifest_model *m, int kind, char *buf, size_t size) {
  size_t n = kind == 0 ? m->n_attributes : kind == 1 ? m->n_scalar_args : m->n_tunables, used = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && used < size; i++) {
    const char *name = kind == 0 ? m->attributes[i].name : kind == 1 ? m->scalar_args[i].name : m->tunables[i].name;
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", name);
  }
  if (!n) snprintf(buf, size, "none");
}

/* Every --attr/--arg/--tunable names something the package has, and its value is one wgk holds exactly. */
static const char *attr_at(const void *m, size_t i) { return ((const manifest_model *)m)->attributes[i].name; }
static const char *arg_at(const void *m, size_t i) { return ((const manifest_model *)m)->scalar_args[i].name; }
static const char *tunable_at(const void *m, size_t i) { return ((const manifest_model *)m)->tunables[i].name; }

static bool check_values(const manifest_model *m, const run_opts *o) {
  static const char *const opt[] = {"--attr", "--arg", "--tunable"};
  static const char *const what[] = {"attribute", "arg", "tunable"};
  for (int kind = 0; kind < 3; kind++) {
    const char *const *list = kind == 0 ? o->attrs : kind == 1 ? o->args : o->tunables;
    int n = kind == 0 ? o->n_attrs : kind == 1 ? o->n_args : o->n_tunables;
    if (!cli_kv_list_ok("run", opt[kind], list, n, 128, kind == 1)) return false;
    for (int i = 0; i < n; i++) {
      char key[128], known[1024];
      const char *v;
      cli_split_kv(list[i], key, sizeof key, &v);
      bool found = false;
      size_t count = kind == 0 ? m->n_attributes : kind == 1 ? m->n_scalar_args : m->n_tunables;
      for (size_t k = 0; k < count && !found; k++)
        found = strcmp(key, kind == 0   ? m->attributes[k].name
                            : kind == 1 ? m->scalar_args[k].name
                                        : m->tunables[k].name) == 0;
      if (!found) {
        names_of(m, kind, known, sizeof known);
        const char *near = util_suggest(key, m, count, kind == 0 ? attr_at : kind == 1 ? arg_at : tunable_at);
        return cli_error("run", "%s %s: %s has no %s '%s'%s%s%s (known: %s)", opt[kind], key, m->op_id, what[kind], key,
                         near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", known),
               false;
      }
      long long n64;
      char label[160];
      snprintf(label, sizeof label, "--tunable %s", key);
      if (kind == 2 && !cli_int("run", label, v, -WGK_CLI_MAX_EXACT, WGK_CLI_MAX_EXACT, &n64)) return false;
      if (kind < 2) {
        char *json = cli_value_json_checked("run", opt[kind], key, v);
        if (!json) return false;
        free(json);
      }
    }
  }
  return true;
}

/* Every --in names an input port once and its .npy file reads: all before a GPU context exists. The data is read
 * here too, beside the context's creation instead of after it, where every device takes it: at most WebGPU's
 * default maxBufferSize, which no device's limit is below. A larger file waits for the device's own limit. */
static bool read_inputs(const manifest_model *m, const run_opts *o, util_host_tensor **host) {
  device_desc webgpu;
  device_desc_defaults(&webgpu);
  if (!cli_kv_list_ok("run", "--in", o->ins, o->n_ins, 128, false)) return false;
  for (int i = 0; i < o->n_ins; i++) {
    char key[128];
    const char *path;
    cli_split_kv(o->ins[i], key, sizeof key, &path);
    const manifest_port *p = manifest_find_port_or_key(m, key);
    if (!p || p->dir == WGK_PORT_OUTPUT) {
      char known[1024];
      size_t used = 0;
      known[0] = 0;
      for (size_t k = 0; k < m->n_ports && used < sizeof known; k++)
        if (m->ports[k].dir != WGK_PORT_OUTPUT)
          used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "",
                                   m->ports[k].n_bind_keys ? m->ports[k].bind_keys[0] : m->ports[k].name);
      return cli_error("run", "--in %s: %s has no input port '%s'%s (inputs: %s)", key, m->op_id, key,
                       p ? " (it is an output)" : "", known),
             false;
    }
    for (int j = 0; j < i; j++) {
      char other[128];
      const char *op;
      cli_split_kv(o->ins[j], other, sizeof other, &op);
      if (manifest_find_port_or_key(m, other) == p)
        return cli_error("run", "--in %s and --in %s name the same port %s; give it once", other, key, p->name), false;
    }
    util_error err = {0};
    size_t bytes = 0;
    wgk_status st = util_npy_check(path, &bytes, &err);
    if (st == WGK_OK && bytes <= webgpu.limits.maxBufferSize) st = util_npy_read(path, &host[i], &err);
    if (st != WGK_OK) {
      char text[WGK_ERROR_MESSAGE_MAX + 1024];
      util_error_format(&err, text, sizeof text);
      return cli_error("run", "--in %s: %s", key, text), false;
    }
  }
  return true;
}

/* The inputs' data not read with the checks, each refused from its header when above the device's maxBufferSize (a
 * 5 GiB .npy was read whole before the upload refused it). */
static bool load_inputs(wgk_context *ctx, const run_opts *o, util_host_tensor **host) {
  uint64_t max = rt_context_device_desc(ctx)->limits.maxBufferSize;
  for (int i = 0; i < o->n_ins; i++) {
    if (host[i] && util_host_tensor_bytes(host[i]) <= max) continue;
    util_host_tensor_free(host[i]); /* read beside the context, but above this device's limit: refused as any */
    host[i] = NULL;
    char key[128];
    const char *path;
    cli_split_kv(o->ins[i], key, sizeof key, &path);
    util_error err = {0};
    if (util_npy_read_max(path, max, "maxBufferSize", &host[i], &err) != WGK_OK) {
      char text[WGK_ERROR_MESSAGE_MAX + 1024];
      util_error_format(&err, text, sizeof text);
      return cli_error("run", "--in %s: %s", key, text), false;
    }
  }
  return true;
}

/* A host tensor as a wgk tensor and back, through the public API (the same dtype names, host layout). */
static wgk_status upload(wgk_context *ctx, const util_host_tensor *h, wgk_tensor **out) {
  return wgk_tensor_create(ctx, h->dtype, h->rank, h->dims, h->data, out);
}

static wgk_status download(wgk_tensor *t, util_host_tensor **out) {
  *out = NULL;
  util_host_tensor *h = NULL;
  wgk_status st = util_host_tensor_create(wgk_tensor_dtype(t), wgk_tensor_rank(t), wgk_tensor_shape(t), &h);
  if (!st && util_host_tensor_bytes(h) > 0) st = wgk_tensor_read(t, h->data, util_host_tensor_bytes(h));
  if (st)
    util_host_tensor_free(h);
  else
    *out = h;
  return st;
}

/* The host tensors onto the call. */
static bool set_inputs(wgk_context *ctx, wgk_call *call, const run_opts *o, util_host_tensor **host) {
  for (int i = 0; i < o->n_ins; i++) {
    char key[128];
    const char *path;
    cli_split_kv(o->ins[i], key, sizeof key, &path);
    wgk_tensor *t = NULL;
    bool ok = upload(ctx, host[i], &t) == WGK_OK && wgk_call_set_input(call, key, t) == WGK_OK;
    wgk_tensor_release(t);
    if (!ok) return cli_error("run", "--in %s (%s): %s", key, path, wgk_context_errmsg(ctx)), false;
  }
  return true;
}

/* --out-shape port=2x3[:dtype]: an explicit destination, as the loader's `outputs: {port: {shape, dtype}}` ("scalar"
 * or an empty dims list for 0-d); *dt WGK_DTYPE_INVALID without `:dtype`. Parsed before a GPU context exists, and
 * again to set it. */
static bool parse_destination(const char *spec, char *key, size_t key_size, wgk_dtype *dt, int64_t *shape, int *rank) {
  char dims[512];
  const char *v;
  if (!cli_split_kv(spec, key, key_size, &v))
    return cli_error("run", "--out-shape takes port=DIMS[:dtype], not '%s'", spec), false;
  snprintf(dims, sizeof dims, "%s", v);
  *dt = WGK_DTYPE_INVALID;
  char *colon = strchr(dims, ':');
  if (colon) {
    *colon = '\0';
    *dt = wgk_dtype_from_name(colon + 1);
    if (*dt == WGK_DTYPE_INVALID) return cli_error("run", "--out-shape %s: unknown dtype '%s'", key, colon + 1), false;
  }
  /* the dims as --shape takes them (cli_parse_shape): "2xx2", "4x", "x4", "+4", " 4" are refused, not skipped */
  util_error err = {0};
  if (!cli_parse_shape(dims, rank, shape, &err)) {
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, text, sizeof text);
    return cli_error("run", "--out-shape %s: '%s': %s", key, v, text), false;
  }
  return true;
}

static bool check_destinations(const manifest_model *m, const run_opts *o) {
  for (int i = 0; i < o->n_out_shapes; i++) {
    char key[128];
    wgk_dtype dt;
    int64_t shape[WGK_MAX_DIMS];
    int rank;
    if (!parse_destination(o->out_shapes[i], key, sizeof key, &dt, shape, &rank)) return false;
    const manifest_port *p = manifest_find_port_or_key(m, key);
    if (!p || p->dir == WGK_PORT_INPUT)
      return cli_error("run", "--out-shape %s: %s has no output port '%s'", key, m->op_id, key), false;
    for (int j = 0; j < i; j++) { /* a port given twice would run with the last: refused, as --in */
      char other[128];
      const char *ov;
      cli_split_kv(o->out_shapes[j], other, sizeof other, &ov);
      if (manifest_find_port_or_key(m, other) == p)
        return cli_error("run", "--out-shape %s and --out-shape %s name the same port %s; give it once", other, key,
                         p->name),
               false;
    }
  }
  return true;
}

/* The dtype of a destination given without one, as the loader gives it (its `Ut`, docs/loader-semantics.md rule 38):
 * the port's one dtype (concrete, or a type variable allowing one), else the dtype of the first input given of the
 * same type variable that the variable allows, else float32. */
static wgk_dtype destination_dtype(const manifest_model *m, const manifest_port *p, const run_opts *o,
                                   util_host_tensor **host) {
  if (p->n_dtypes == 1) return wgk_dtype_from_name(p->dtypes[0]);
  for (int i = 0; p->type_var && i < o->n_ins; i++) {
    char key[128];
    const char *path;
    cli_split_kv(o->ins[i], key, sizeof key, &path);
    const manifest_port *in = manifest_find_port_or_key(m, key);
    if (!in || !in->type_var || strcmp(in->type_var, p->type_var) != 0 || !host[i]) continue;
    for (size_t k = 0; k < p->n_dtypes; k++)
      if (strcmp(p->dtypes[k], wgk_dtype_name(host[i]->dtype)) == 0) return host[i]->dtype;
  }
  return WGK_DTYPE_FLOAT32;
}

/* A destination for an output with a shape expression asks for the output (an optional one is made only then) and
 * gives its dtype; its shape is not used: the expression's is (docs/loader-semantics.md rule 36). */
static bool set_destinations(wgk_context *ctx, wgk_kernel *k, wgk_call *call, const run_opts *o,
                             util_host_tensor **host) {
  const manifest_model *m = rt_kernel_manifest(k);
  for (int i = 0; i < o->n_out_shapes; i++) {
    char key[128];
    wgk_dtype dt;
    int64_t shape[WGK_MAX_DIMS];
    int rank;
    if (!parse_destination(o->out_shapes[i], key, sizeof key, &dt, shape, &rank)) return false;
    const manifest_port *p = manifest_find_port_or_key(m, key);
    if (p && p->dir == WGK_PORT_OUTPUT && p->shape.text) {
      if (wgk_call_want_output(call, key, true, dt) != WGK_OK)
        return cli_error("run", "--out-shape %s: %s", key, wgk_context_errmsg(ctx)), false;
      continue;
    }
    if (dt == WGK_DTYPE_INVALID && p) dt = destination_dtype(m, p, o, host);
    wgk_tensor *t = NULL;
    bool ok =
        wgk_tensor_create(ctx, dt, rank, shape, NULL, &t) == WGK_OK && wgk_call_set_output(call, key, t) == WGK_OK;
    wgk_tensor_release(t);
    if (!ok) return cli_error("run", "--out-shape %s: %s", key, wgk_context_errmsg(ctx)), false;
  }
  return true;
}

/* --attr, --arg (values as JSON, or a bare word as a string) and --tunable (integers), checked before. */
static bool set_values(wgk_context *ctx, wgk_call *call, const run_opts *o) {
  for (int kind = 0; kind < 3; kind++) {
    const char *const *list = kind == 0 ? o->attrs : kind == 1 ? o->args : o->tunables;
    int n = kind == 0 ? o->n_attrs : kind == 1 ? o->n_args : o->n_tunables;
    static const char *const opt[] = {"--attr", "--arg", "--tunable"};
    for (int i = 0; i < n; i++) {
      char key[128];
      const char *v;
      cli_split_kv(list[i], key, sizeof key, &v);
      wgk_status st;
      if (kind == 2) {
        st = wgk_call_set_tunable(call, key, strtoll(v, NULL, 10));
      } else {
        char *json = cli_value_json(v);
        st = !json       ? WGK_ERR_OUT_OF_MEMORY
             : kind == 0 ? wgk_call_set_attr_json(call, key, json)
                         : wgk_call_set_arg_json(call, key, json);
        free(json);
      }
      if (st) return cli_error("run", "%s %s: %s", opt[kind], key, wgk_context_errmsg(ctx)), false;
    }
  }
  return true;
}

/* The tunables the plan used, and where they came from. */
static void print_tunables(const wgk_call *call) {
  bool tuned = false;
  const plan_result *plan = rt_call_plan(call, &tuned);
  const expr_value *t = plan ? expr_value_dict_get(plan->scope, "tunables") : NULL;
  printf("  tunables:");
  for (size_t i = 0; i < expr_value_len(t); i++)
    printf(" %s=%lld", expr_value_dict_key_at(t, i), (long long)expr_value_as_int(expr_value_dict_value_at(t, i)));
  printf(" (%s)\n", tuned ? "tuning cache" : "call and manifest defaults");
}

static void print_wgsl(const wgk_call *call) {
  const plan_result *plan = rt_call_plan(call, NULL);
  for (size_t i = 0; plan && i < plan->n_passes; i++)
    printf("// pass %s\n%s", plan->passes[i].label, plan->passes[i].wgsl);
}

static void print_delta(const wgk_stats *a, const wgk_stats *b) {
  printf(
      "  plans made: %llu, plan hits: %llu, shaders compiled: %llu, pipelines created: %llu, "
      "bind groups created: %llu, dispatches: %llu, submissions: %llu\n",
      (unsigned long long)(b->plans_made - a->plans_made), (unsigned long long)(b->plan_hits - a->plan_hits),
      (unsigned long long)(b->shaders_compiled - a->shaders_compiled),
      (unsigned long long)(b->pipelines_created - a->pipelines_created),
      (unsigned long long)(b->bind_groups_created - a->bind_groups_created),
      (unsigned long long)(b->dispatches - a->dispatches), (unsigned long long)(b->submissions - a->submissions));
}

/* The process's phases for --verbose: wall ms from cli_cmd_run's start, each phase ending at a mark. */
enum {
  PH_CHECK,
  PH_INSTANCE,
  PH_ADAPTER,
  PH_DEVICE,
  PH_LOAD,
  PH_INPUTS,
  PH_PLAN,
  PH_COMPILE,
  PH_RUN,
  PH_READ,
  PH_EXIT,
  PH_COUNT
};
/* Beside the wall ms, the process's CPU ms by phase (every thread's: on a loaded machine the wall time is mostly
 * waiting for a core, the CPU time is the work): start is what the process spent before cli_cmd_run (the dynamic
 * loader: Dawn's relocations), context the context's thread (instance, adapter, device), check the rest of the
 * time until the context came. */
typedef struct run_phases {
  double ms[PH_COUNT], cpu[PH_COUNT];
  double start_cpu, context_cpu;
  uint64_t mark, cpu_mark;
} run_phases;

static void phase_end(run_phases *ph, int which) {
  uint64_t t = util_now_ns(), c = util_process_cpu_ns();
  ph->ms[which] += (double)(t - ph->mark) * 1e-6;
  ph->cpu[which] += (double)(c - ph->cpu_mark) * 1e-6;
  ph->mark = t;
  ph->cpu_mark = c;
}

/* The context is made on a thread of its own while the arguments are checked against the package and the .npy
 * files read (Dawn's instance, adapter and device take most of a first call; the checks need no GPU). */
typedef struct context_job {
  wgk_context_options co;
  wgk_context *ctx;
  char *msg;
  wgk_status st;
  uint64_t cpu_ns; /* the thread's CPU time */
} context_job;

static void *make_context(void *arg) {
  context_job *j = arg;
  uint64_t c0 = util_cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  j->st = wgk_context_create(&j->co, &j->ctx, &j->msg);
  j->cpu_ns = util_cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
  return NULL;
}

/* The context's creation split by gpu_device_startup (instance, adapter, device with the pipeline cache's open and
 * the description read back); made beside the checks, only the part that outlasted them is waited for here. */
static void phase_context(run_phases *ph, wgk_context *ctx, uint64_t context_cpu_ns) {
  gpu_startup su = gpu_device_startup(rt_context_device(ctx));
  ph->ms[PH_INSTANCE] += su.instance_ns * 1e-6;
  ph->ms[PH_ADAPTER] += su.adapter_ns * 1e-6;
  ph->ms[PH_DEVICE] += (su.cache_ns + su.device_ns + su.describe_ns) * 1e-6;
  ph->mark = util_now_ns();
  uint64_t c = util_process_cpu_ns(); /* the wait for the context: the check's share */
  ph->cpu[PH_CHECK] += (double)(c - ph->cpu_mark) * 1e-6 - (double)context_cpu_ns * 1e-6;
  ph->context_cpu = (double)context_cpu_ns * 1e-6;
  ph->cpu_mark = c;
}

/* wgk_prepare: plan and compile (shader modules and pipelines, from the context's compile clocks, wall and CPU). */
static bool prepare_timed(wgk_context *ctx, wgk_call *call, run_phases *ph) {
  double s0, p0, s1, p1, c0 = rt_context_compile_cpu_ns(ctx);
  rt_context_compile_ns(ctx, &s0, &p0);
  wgk_status st = wgk_prepare(call);
  rt_context_compile_ns(ctx, &s1, &p1);
  double compile_cpu = (rt_context_compile_cpu_ns(ctx) - c0) * 1e-6;
  uint64_t t = util_now_ns(), c = util_process_cpu_ns();
  double all = (double)(t - ph->mark) * 1e-6, compile = (s1 - s0 + p1 - p0) * 1e-6;
  double cpu = (double)(c - ph->cpu_mark) * 1e-6;
  ph->ms[PH_COMPILE] += compile;
  ph->ms[PH_PLAN] += all - compile;
  ph->cpu[PH_COMPILE] += compile_cpu;
  ph->cpu[PH_PLAN] += cpu - compile_cpu;
  ph->mark = t;
  ph->cpu_mark = c;
  if (st) cli_error("run", "%s", wgk_context_errmsg(ctx));
  return st == WGK_OK;
}

/* The checks ran beside the context: the process's time beyond the device is main's less the context's parts,
 * less the checks where the context took longer (they were hidden behind it). */
static void print_phases(const run_phases *ph, double total_ms) {
  static const char *const names[PH_COUNT] = {"check", "instance", "adapter", "device", "load", "inputs",
                                              "plan",  "compile",  "run",     "read",   "exit"};
  printf("phases ms:");
  for (int i = 0; i < PH_COUNT; i++) printf(" %s %.1f", names[i], ph->ms[i]);
  printf("; main %.1f, beyond the device %.1f\n", total_ms,
         total_ms - ph->ms[PH_INSTANCE] - ph->ms[PH_ADAPTER] - ph->ms[PH_DEVICE]);
  double all = ph->start_cpu + ph->context_cpu;
  printf("cpu ms: start %.1f context %.1f", ph->start_cpu, ph->context_cpu);
  for (int i = 0; i < PH_COUNT; i++)
    if (i < PH_INSTANCE || i > PH_DEVICE) printf(" %s %.1f", names[i], ph->cpu[i]), all += ph->cpu[i];
  printf("; process %.1f, beyond the device %.1f\n", all, all - ph->context_cpu);
}

/* Leaving without the device's teardown: everything the process wrote is flushed; a sanitizer build (whose leak
 * check runs at exit) and WGK_PIPELINE_CACHE_LOG=1 (printed when the device goes) tear down as before. */
static bool leave_early(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(WGK_SANITIZE)
  return false;
#else
  const char *log = util_env("WGK_PIPELINE_CACHE_LOG");
  return !(log && strcmp(log, "1") == 0);
#endif
}

/* Runs the call o->repeat times, printing each call's time (and counters with --verbose). */
static bool run_calls(wgk_context *ctx, wgk_call *call, const run_opts *o, const wgk_stats *prepared_from) {
  for (long r = 0; r < o->repeat; r++) {
    wgk_stats before, after;
    wgk_context_stats(ctx, &before);
    if (r == 0) before = *prepared_from; /* the first call's counters count its plan and compile (wgk_prepare) */
    double t0 = util_now_s();
    if (wgk_call_run(call) != WGK_OK || wgk_context_wait(ctx) != WGK_OK)
      return cli_error("run", "%s", wgk_context_errmsg(ctx)), false;
    double wall = util_now_s() - t0;
    uint64_t gpu_ns = 0;
    wgk_call_gpu_time(call, &gpu_ns);
    wgk_context_stats(ctx, &after);
    printf("call %ld: variant %s, wall %.3f ms", r + 1, wgk_call_variant(call), wall * 1e3);
    if (gpu_ns) printf(", gpu %.3f ms", (double)gpu_ns * 1e-6);
    printf("\n");
    if (o->common.verbose) print_tunables(call), print_delta(&before, &after);
  }
  return true;
}

static void print_summary(const char *key, const util_host_tensor *h) {
  size_t n = util_host_tensor_numel(h), nonfinite = 0, finite = 0;
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (size_t i = 0; i < n; i++) {
    double v = util_host_tensor_get(h, i);
    if (!isfinite(v)) {
      nonfinite++;
      continue;
    }
    finite++;
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    sum += v;
  }
  printf("%s: %s [", key, wgk_dtype_name(h->dtype));
  for (int d = 0; d < h->rank; d++) printf("%s%lld", d ? ", " : "", (long long)h->dims[d]);
  printf("]");
  if (finite) printf(" min=%.6g max=%.6g mean=%.6g", lo, hi, sum / (double)finite);
  if (nonfinite) printf(" nonfinite=%zu", nonfinite);
  printf("\n");
}

/* Every output (and in/out) port: summary, and DIR/<bind key>.npy with --out. */
static bool write_outputs(wgk_kernel *k, wgk_call *call, const run_opts *o) {
  if (o->out_dir && mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
    return cli_error("run", "%s: %s", o->out_dir, strerror(errno)), false;
  for (size_t i = 0; i < rt_kernel_manifest(k)->n_ports; i++) {
    const manifest_port *p = &rt_kernel_manifest(k)->ports[i];
    if (p->dir == WGK_PORT_INPUT) continue;
    const char *key = p->n_bind_keys ? p->bind_keys[0] : p->name;
    wgk_tensor *t = wgk_call_output(call, p->name);
    util_host_tensor *h = NULL;
    if (!t) continue; /* an optional output the variant does not write */
    if (download(t, &h) != WGK_OK)
      return cli_error("run", "%s: %s", key, wgk_context_errmsg(rt_kernel_context(k))), false;
    print_summary(key, h);
    bool ok = true;
    if (o->out_dir) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.npy", o->out_dir, key);
      util_error err = {0};
      if (util_npy_write(path, h, &err) != WGK_OK) {
        char text[WGK_ERROR_MESSAGE_MAX + 1024];
        util_error_format(&err, text, sizeof text);
        cli_error("run", "%s", text);
        ok = false;
      }
    }
    util_host_tensor_free(h);
    if (!ok) return false;
  }
  return true;
}

/* The package opened and every argument checked (names, values, files read) while another thread makes the
 * context; false when a check failed or no context came (said), *pkg and *ctx set as far as they got. */
static bool check_beside_context(run_opts *o, run_phases *ph, util_host_tensor **host, pkg_package **pkg,
                                 wgk_context **ctx) {
  context_job job = {.co = {.adapter = o->common.adapter, .log = cli_log}};
  pthread_t maker;
  bool apart = pthread_create(&maker, NULL, make_context, &job) == 0;
  *pkg = cli_pkg_open("run", &o->common, o->pkg);
  bool ok = *pkg && check_values(pkg_manifest(*pkg), o) && read_inputs(pkg_manifest(*pkg), o, host) &&
            check_destinations(pkg_manifest(*pkg), o);
  phase_end(ph, PH_CHECK);
  if (apart)
    pthread_join(maker, NULL);
  else
    make_context(&job);
  *ctx = job.ctx;
  if (ok && job.st != WGK_OK) ok = false, cli_error("run", "%s", job.msg ? job.msg : "cannot create a WebGPU context");
  free(job.msg);
  if (*ctx) phase_context(ph, *ctx, job.cpu_ns);
  return ok;
}

int cli_cmd_run(int argc, char **argv) {
  run_opts o = {.repeat = 1};
  run_phases ph = {.mark = util_now_ns(), .cpu_mark = util_process_cpu_ns()};
  ph.start_cpu = (double)ph.cpu_mark * 1e-6;
  uint64_t start = ph.mark;
  for (int i = 1; i < argc; i++) {
    int r = parse_one(argc, argv, &i, &o);
    if (r < 0) return 2;
  }
  if (!o.pkg) return cli_usage("run");
  /* Every argument is checked (package, names, values, files) before a GPU context is made. */
  if (o.out_dir && !cli_check_out_dir("run", "--out", o.out_dir)) return 1;
  util_host_tensor *host[MAX_ITEMS] = {0};
  pkg_package *pkg = NULL;
  wgk_context *ctx = NULL;
  bool ok = check_beside_context(&o, &ph, host, &pkg, &ctx);
  wgk_kernel *k = NULL;
  wgk_call *call = NULL;
  ok = ok && load_inputs(ctx, &o, host);
  if (ok)
    ok = cli_load("run", pkg, ctx, &k); /* the package opened for the checks: read once */
  else
    pkg_free(pkg);
  phase_end(&ph, PH_LOAD);
  if (ok && wgk_call_create(k, &call) != WGK_OK) ok = false, cli_error("run", "%s", wgk_context_errmsg(ctx));
  /* GPU time only when asked: the timestamp queries cost a first call a query set, its resolve and read-back, and
   * on a device whose timestamps are not in ns (lavapipe) Dawn's conversion pass: one more pipeline and dispatch */
  if (ok && o.gpu_time) wgk_call_enable_timing(call, true);
  ok = ok && set_inputs(ctx, call, &o, host) && set_destinations(ctx, k, call, &o, host) && set_values(ctx, call, &o);
  phase_end(&ph, PH_INPUTS);
  wgk_stats prepared_from;
  wgk_context_stats(ctx, &prepared_from);
  ok = ok && prepare_timed(ctx, call, &ph);
  if (ok && o.common.verbose) printf("adapter: %s\n", wgk_context_adapter(ctx));
  ok = ok && run_calls(ctx, call, &o, &prepared_from);
  phase_end(&ph, PH_RUN);
  ok = ok && write_outputs(k, call, &o);
  if (ok && o.wgsl) print_wgsl(call);
  phase_end(&ph, PH_READ);
  for (int i = 0; i < o.n_ins; i++) util_host_tensor_free(host[i]);
  int rc = ok ? 0 : 1;
  if (ok && leave_early()) {
    phase_end(&ph, PH_EXIT);
    if (o.common.verbose) print_phases(&ph, (double)(util_now_ns() - start) * 1e-6);
    fflush(NULL);
    _exit(rc);
  }
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  phase_end(&ph, PH_EXIT);
  if (ok && o.common.verbose) print_phases(&ph, (double)(util_now_ns() - start) * 1e-6);
  return rc;
}
