/*
 * `wgk run PKG --in port=FILE.npy ... [--attr k=v] [--arg k=v] [--tunable k=v] [--out DIR] [--repeat N]`:
 * one kernel call on .npy inputs; prints each output's summary and the call's time, writes outputs as .npy.
 * With --verbose, the context's cache counters per call, so a repeated call shows that it compiled nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "runtime/runtime_internal.h"
#include "runtime/testcase.h"
#include "util/npy.h"

#define MAX_ITEMS 64

typedef struct run_opts {
  wgk_cli_common common;
  const char *pkg;
  const char *ins[MAX_ITEMS], *attrs[MAX_ITEMS], *args[MAX_ITEMS], *tunables[MAX_ITEMS];
  int n_ins, n_attrs, n_args, n_tunables;
  const char *out_dir;
  const char *out_shapes[MAX_ITEMS]; /* --out-shape port=DIMS[:dtype]: explicit destinations */
  int n_out_shapes;
  long repeat;
  bool wgsl; /* --wgsl: print the WGSL the last call ran */
} run_opts;

static const char *usage_text =
    "usage: wgk run PKG --in port=FILE.npy ... [--attr k=v] [--arg k=v] [--tunable k=v] [--out-shape port=2x3[:dtype]] [--out DIR]\n"
    "               [--repeat N] [--wgsl] [--adapter SEL] [--version N | --revision SHA] [--strict] [--verbose]\n";

static int push(const char **list, int *n, const char *v) {
  if (!v) return -1;
  if (*n >= MAX_ITEMS) return wgk_cli_error("run", "too many options of one kind (limit is %d)", MAX_ITEMS), -1;
  list[(*n)++] = v;
  return 1;
}

static int parse_one(int argc, char **argv, int *i, run_opts *o) {
  const char *a = argv[*i];
  int r = wgk_cli_common_option("run", argc, argv, i, &o->common);
  if (r) return r;
  if (strcmp(a, "--in") == 0) return push(o->ins, &o->n_ins, wgk_cli_value("run", argc, argv, i));
  if (strcmp(a, "--attr") == 0) return push(o->attrs, &o->n_attrs, wgk_cli_value("run", argc, argv, i));
  if (strcmp(a, "--arg") == 0) return push(o->args, &o->n_args, wgk_cli_value("run", argc, argv, i));
  if (strcmp(a, "--tunable") == 0) return push(o->tunables, &o->n_tunables, wgk_cli_value("run", argc, argv, i));
  if (strcmp(a, "--wgsl") == 0) return o->wgsl = true, 1;
  if (strcmp(a, "--out") == 0) return (o->out_dir = wgk_cli_value("run", argc, argv, i)) ? 1 : -1;
  if (strcmp(a, "--out-shape") == 0) return push(o->out_shapes, &o->n_out_shapes, wgk_cli_value("run", argc, argv, i));
  if (strcmp(a, "--repeat") == 0) {
    const char *v = wgk_cli_value("run", argc, argv, i);
    char *end;
    o->repeat = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || o->repeat < 1 || o->repeat > 1000000) return wgk_cli_error("run", "--repeat takes N >= 1"), -1;
    return 1;
  }
  if (a[0] == '-' || o->pkg) return wgk_cli_error("run", "unexpected argument '%s'", a), -1;
  o->pkg = a;
  return 1;
}

/* Inputs from .npy files onto the call. */
static bool set_inputs(wgk_context *ctx, wgk_call *call, const run_opts *o) {
  for (int i = 0; i < o->n_ins; i++) {
    char key[128];
    const char *path;
    if (!wgk_cli_split_kv(o->ins[i], key, sizeof key, &path))
      return wgk_cli_error("run", "--in takes port=FILE.npy, not '%s'", o->ins[i]), false;
    wgk_host_tensor *h = NULL;
    wgk_tensor *t = NULL;
    wgk_error err = {0};
    if (wgk_npy_read(path, &h, &err) != WGK_OK) {
      char text[WGK_ERROR_MESSAGE_MAX + 1024];
      wgk_error_format(&err, text, sizeof text);
      return wgk_cli_error("run", "%s", text), false;
    }
    bool ok = wgk_tc_upload(ctx, h, &t) == WGK_OK && wgk_call_set_input(call, key, t) == WGK_OK;
    wgk_tensor_release(t);
    wgk_host_tensor_free(h);
    if (!ok) return wgk_cli_error("run", "--in %s: %s", key, wgk_context_errmsg(ctx)), false;
  }
  return true;
}

/* --out-shape port=2x3[:dtype]: a destination for an output without a shape expression (float32 unless
 * given; "scalar" or an empty dims list for 0-d). */
static bool set_destinations(wgk_context *ctx, wgk_call *call, const run_opts *o) {
  for (int i = 0; i < o->n_out_shapes; i++) {
    char key[128], dims[512];
    const char *v;
    if (!wgk_cli_split_kv(o->out_shapes[i], key, sizeof key, &v))
      return wgk_cli_error("run", "--out-shape takes port=DIMS[:dtype], not '%s'", o->out_shapes[i]), false;
    snprintf(dims, sizeof dims, "%s", v);
    wgk_dtype dt = WGK_DTYPE_FLOAT32;
    char *colon = strchr(dims, ':');
    if (colon) {
      *colon = '\0';
      dt = wgk_dtype_from_name(colon + 1);
      if (dt == WGK_DTYPE_INVALID) return wgk_cli_error("run", "--out-shape %s: unknown dtype '%s'", key, colon + 1), false;
    }
    int64_t shape[WGK_MAX_DIMS];
    int rank = 0;
    bool ok = true;
    if (strcmp(dims, "scalar") != 0 && dims[0]) {
      for (char *tok = strtok(dims, "x"); ok && tok; tok = strtok(NULL, "x")) {
        char *end;
        errno = 0;
        long long d = strtoll(tok, &end, 10);
        ok = !errno && !*end && d >= 0 && rank < WGK_MAX_DIMS;
        if (ok) shape[rank++] = d;
      }
    }
    if (!ok) return wgk_cli_error("run", "--out-shape %s: '%s' is not DIMS like 2x3", key, v), false;
    wgk_tensor *t = NULL;
    ok = wgk_tensor_create(ctx, dt, rank, shape, NULL, &t) == WGK_OK && wgk_call_set_output(call, key, t) == WGK_OK;
    wgk_tensor_release(t);
    if (!ok) return wgk_cli_error("run", "--out-shape %s: %s", key, wgk_context_errmsg(ctx)), false;
  }
  return true;
}

/* --attr, --arg (values as JSON, or a bare word as a string) and --tunable (integers). */
static bool set_values(wgk_context *ctx, wgk_call *call, const run_opts *o) {
  for (int kind = 0; kind < 3; kind++) {
    const char *const *list = kind == 0 ? o->attrs : kind == 1 ? o->args : o->tunables;
    int n = kind == 0 ? o->n_attrs : kind == 1 ? o->n_args : o->n_tunables;
    static const char *const opt[] = {"--attr", "--arg", "--tunable"};
    for (int i = 0; i < n; i++) {
      char key[128];
      const char *v;
      if (!wgk_cli_split_kv(list[i], key, sizeof key, &v))
        return wgk_cli_error("run", "%s takes k=v, not '%s'", opt[kind], list[i]), false;
      wgk_status st;
      if (kind == 2) {
        char *end;
        errno = 0;
        long long n64 = strtoll(v, &end, 10);
        if (errno || *end || !*v) return wgk_cli_error("run", "--tunable %s takes an integer, not '%s'", key, v), false;
        st = wgk_call_set_tunable(call, key, n64);
      } else {
        char *json = wgk_cli_value_json(v);
        st = !json ? WGK_ERR_OUT_OF_MEMORY
                   : kind == 0 ? wgk_call_set_attr_json(call, key, json) : wgk_call_set_arg_json(call, key, json);
        free(json);
      }
      if (st) return wgk_cli_error("run", "%s %s: %s", opt[kind], key, wgk_context_errmsg(ctx)), false;
    }
  }
  return true;
}

/* The tunables the plan used, and where they came from. */
static void print_tunables(const wgk_call *call) {
  bool tuned = false;
  const wgk_plan *plan = wgk_rt_call_plan(call, &tuned);
  const wgk_value *t = plan ? wgk_value_dict_get(plan->scope, "tunables") : NULL;
  printf("  tunables:");
  for (size_t i = 0; i < wgk_value_len(t); i++)
    printf(" %s=%lld", wgk_value_dict_key_at(t, i), (long long)wgk_value_as_int(wgk_value_dict_value_at(t, i)));
  printf(" (%s)\n", tuned ? "tuning cache" : "call and manifest defaults");
}

static void print_wgsl(const wgk_call *call) {
  const wgk_plan *plan = wgk_rt_call_plan(call, NULL);
  for (size_t i = 0; plan && i < plan->n_passes; i++) printf("// pass %s\n%s", plan->passes[i].label, plan->passes[i].wgsl);
}

static void print_delta(const wgk_stats *a, const wgk_stats *b) {
  printf("  plans made: %llu, plan hits: %llu, shaders compiled: %llu, pipelines created: %llu, "
         "bind groups created: %llu, dispatches: %llu, submissions: %llu\n",
         (unsigned long long)(b->plans_made - a->plans_made), (unsigned long long)(b->plan_hits - a->plan_hits),
         (unsigned long long)(b->shaders_compiled - a->shaders_compiled),
         (unsigned long long)(b->pipelines_created - a->pipelines_created),
         (unsigned long long)(b->bind_groups_created - a->bind_groups_created),
         (unsigned long long)(b->dispatches - a->dispatches), (unsigned long long)(b->submissions - a->submissions));
}

/* Runs the call o->repeat times, printing each call's time (and counters with --verbose). */
static bool run_calls(wgk_context *ctx, wgk_call *call, const run_opts *o) {
  for (long r = 0; r < o->repeat; r++) {
    wgk_stats before, after;
    wgk_context_stats(ctx, &before);
    double t0 = wgk_cli_now();
    if (wgk_call_run(call) != WGK_OK || wgk_context_wait(ctx) != WGK_OK)
      return wgk_cli_error("run", "%s", wgk_context_errmsg(ctx)), false;
    double wall = wgk_cli_now() - t0;
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

static void print_summary(const char *key, const wgk_host_tensor *h) {
  size_t n = wgk_host_tensor_numel(h), nonfinite = 0, finite = 0;
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (size_t i = 0; i < n; i++) {
    double v = wgk_host_tensor_get(h, i);
    if (!isfinite(v)) { nonfinite++; continue; }
    finite++;
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    sum += v;
  }
  printf("%s: %s [", key, wgk_host_dtype_name(h->dtype));
  for (int d = 0; d < h->rank; d++) printf("%s%lld", d ? ", " : "", (long long)h->dims[d]);
  printf("]");
  if (finite) printf(" min=%.6g max=%.6g mean=%.6g", lo, hi, sum / (double)finite);
  if (nonfinite) printf(" nonfinite=%zu", nonfinite);
  printf("\n");
}

/* Every output (and in/out) port: summary, and DIR/<bind key>.npy with --out. */
static bool write_outputs(wgk_kernel *k, wgk_call *call, const run_opts *o) {
  if (o->out_dir && mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
    return wgk_cli_error("run", "%s: %s", o->out_dir, strerror(errno)), false;
  for (size_t i = 0; i < k->m->n_ports; i++) {
    const wgk_manifest_port *p = &k->m->ports[i];
    if (p->dir == WGK_PORT_INPUT) continue;
    const char *key = p->n_bind_keys ? p->bind_keys[0] : p->name;
    wgk_tensor *t = wgk_call_output(call, p->name);
    wgk_host_tensor *h = NULL;
    if (!t) continue; /* an optional output the variant does not write */
    if (wgk_tc_download(t, &h) != WGK_OK) return wgk_cli_error("run", "%s: %s", key, wgk_context_errmsg(k->ctx)), false;
    print_summary(key, h);
    bool ok = true;
    if (o->out_dir) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s.npy", o->out_dir, key);
      wgk_error err = {0};
      if (wgk_npy_write(path, h, &err) != WGK_OK) {
        char text[WGK_ERROR_MESSAGE_MAX + 1024];
        wgk_error_format(&err, text, sizeof text);
        wgk_cli_error("run", "%s", text);
        ok = false;
      }
    }
    wgk_host_tensor_free(h);
    if (!ok) return false;
  }
  return true;
}

int wgk_cmd_run(int argc, char **argv) {
  run_opts o = {.repeat = 1};
  for (int i = 1; i < argc; i++) {
    int r = parse_one(argc, argv, &i, &o);
    if (r < 0) return fputs(usage_text, stderr), 2;
  }
  if (!o.pkg) return fputs(usage_text, stderr), 2;
  wgk_context *ctx = NULL;
  wgk_kernel *k = NULL;
  if (!wgk_cli_open("run", &o.common, o.pkg, &ctx, &k)) return 1;
  wgk_call *call = NULL;
  bool ok = wgk_call_create(k, &call) == WGK_OK;
  if (!ok) wgk_cli_error("run", "%s", wgk_context_errmsg(ctx));
  if (ok) wgk_call_enable_timing(call, true);
  ok = ok && set_inputs(ctx, call, &o) && set_destinations(ctx, call, &o) && set_values(ctx, call, &o);
  if (ok && o.common.verbose) printf("adapter: %s\n", wgk_context_adapter(ctx));
  ok = ok && run_calls(ctx, call, &o) && write_outputs(k, call, &o);
  if (ok && o.wgsl) print_wgsl(call);
  wgk_call_destroy(call);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return ok ? 0 : 1;
}
