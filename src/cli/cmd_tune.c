/*
 * `wgk tune PKG [--case ID] [--iterations N]`: sweeps each tunable of every bench.json case (src/bench/tune.h),
 * checks each candidate's outputs, and stores the best per device, op, variant and shape in the tuning cache
 * (src/runtime/tuning.h) that later calls read. `wgk tune --show [PKG]` prints the cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/tune.h"
#include "cli/bench_report.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "package/package.h"
#include "runtime/runtime_access.h"
#include "runtime/tuning.h"

typedef struct tune_opts {
  cli_common common;
  const char *pkg, *filter;
  long repeat;
  bool show;
  bool json; /* --show --json: the cache's entries as JSON */
} tune_opts;

static int parse_one(int argc, char **argv, int *i, tune_opts *o) {
  const char *a = argv[*i];
  int r = cli_common_option("tune", argc, argv, i, &o->common);
  if (r) return r;
  if (strcmp(a, "--show") == 0) return o->show = true, 1;
  if (strcmp(a, "--json") == 0) return o->json = true, 1;
  if (strcmp(a, "--case") == 0) return cli_once("tune", a, &o->filter, cli_value("tune", argc, argv, i)) ? 1 : -1;
  if (strcmp(a, "--iterations") == 0) {
    const char *v = cli_value("tune", argc, argv, i);
    long long n;
    if (!v) return -1;
    if (o->repeat) return cli_error("tune", "--iterations given twice; give it once"), -1;
    if (!cli_int("tune", "--iterations", v, 1, 100000, &n)) return -1;
    o->repeat = (long)n;
    return 1;
  }
  if (strcmp(a, "--repeat") == 0)
    return cli_error("tune", "--repeat is now --iterations N (the timed iterations per candidate)"), -1;
  if (a[0] == '-' && a[1])
    return cli_error("tune",
                     "unknown option '%s' (wgk tune takes: --case --iterations --show --json and the common options)",
                     a),
           -1;
  if (o->pkg) return cli_error("tune", "unexpected argument '%s' (the package is already '%s')", a, o->pkg), -1;
  o->pkg = a;
  return 1;
}

static void progress(void *user, const tc_bench_case *c, size_t done, size_t total, const bench_tune_candidate *last) {
  (void)user;
  if (!isatty(STDERR_FILENO)) {
    if (last->ok)
      cli_say("tune %s: %s=%lld %.1f us%s\n", c->id, last->tunable, (long long)last->value, last->gpu.median * 1e-3,
              last->same_plan ? " (the same GPU work as one timed before)" : "");
    else
      cli_say("tune %s: %s=%lld rejected: %s\n", c->id, last->tunable, (long long)last->value, last->why);
    return;
  }
  int width = 30, fill = total ? (int)(width * done / total) : width;
  cli_say("\r%-18.18s [%.*s%*s] %zu/%zu %s=%-6lld", c->id, fill, "==============================", width - fill, "",
          done, total, last->tunable, (long long)last->value);
  if (done == total) cli_say("\r%*s\r", 80, "");
}

static void print_tunables(const json_t *t) {
  const char *name;
  const json_t *v;
  json_object_foreach((json_t *)t, name, v) printf(" %s=%lld", name, (long long)json_integer_value(v));
}

static json_t *entry_of(const wgk_kernel *k, const tc_bench_case *c, const bench_tune_result *r) {
  char device[1024], date[32];
  rt_tuning_device_key(rt_context_device_desc(rt_kernel_context(k)), device, sizeof device);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  return json_pack("{s:s, s:s, s:s, s:s, s:O, s:s, s:f, s:f, s:b, s:s}", "device", device, "op",
                   rt_kernel_manifest(k)->op_id, "variant", r->variant, "shape", r->shape, "tunables", r->best, "case",
                   c->id, "gpuNs", r->best_ns, "defaultGpuNs", r->default_ns, "gpuTimestamps", r->timed, "date", date);
}

/* Tunes one case and stores its best; false when it failed. */
static bool tune_one(wgk_kernel *k, const tc_bench_suite *s, const tc_bench_case *c, const tune_opts *o,
                     const char *path) {
  bench_tune_result r;
  util_error tune_err;
  util_error_clear(&tune_err);
  wgk_status st = bench_tune_case(k, c, s->source, o->repeat, progress, NULL, &r, &tune_err);
  char why[WGK_ERROR_MESSAGE_MAX + 1024];
  util_error_format(&tune_err, why, sizeof why);
  if (st == WGK_ERR_UNSUPPORTED && strncmp(why, "device lacks", 12) == 0) {
    printf("SKIP %s: %s\n", c->id, why);
  } else if (st) {
    printf("FAIL %s: %s\n", c->id, why);
  } else {
    size_t bad = 0, same = 0;
    for (size_t i = 0; i < r.n_cands; i++) bad += !r.cands[i].ok, same += r.cands[i].same_plan;
    printf("%s (%s): default", c->id, r.variant);
    print_tunables(r.defaults);
    printf(" %.1f us -> best", r.default_ns * 1e-3);
    print_tunables(r.best);
    printf(" %.1f us (%.2fx); %zu candidates (%zu the same GPU work as one timed before), %zu rejected\n",
           r.best_ns * 1e-3, r.best_ns > 0 ? r.default_ns / r.best_ns : 0, r.n_cands, same, bad);
    for (size_t i = 0; o->common.verbose && i < r.n_cands; i++)
      if (!r.cands[i].ok) printf("  %s=%lld: %s\n", r.cands[i].tunable, (long long)r.cands[i].value, r.cands[i].why);
    json_t *e = entry_of(k, c, &r);
    util_error err = {0};
    st = e ? rt_tuning_store(path, e, &err) : WGK_ERR_OUT_OF_MEMORY;
    json_decref(e);
    if (st) cli_error("tune", "%s: %s", path, err.message);
  }
  bench_tune_result_free(&r);
  return st == WGK_OK || (st == WGK_ERR_UNSUPPORTED && strncmp(why, "device lacks", 12) == 0);
}

/* --show --json: {"cache": path, "entries": [the cache's entries of op, as stored]}. */
static int show_json(const char *path, const char *op, json_t *doc) {
  json_t *entries = json_array(), *e;
  size_t i;
  json_array_foreach(json_object_get(doc, "entries"), i, e) {
    const char *eop = json_string_value(json_object_get(e, "op"));
    if (!op || (eop && strstr(eop, op))) json_array_append(entries, e);
  }
  json_decref(doc); /* entries holds its own references */
  return cli_print_json("tune", json_pack("{s:s, s:o}", "cache", path, "entries", entries), 0);
}

static int show(const char *path, const char *op, bool as_json) {
  util_error err = {0};
  json_t *doc = rt_tuning_read(path, &err);
  if (!doc) return cli_error("tune", "%s: %s", path, err.message), 1;
  if (as_json) return show_json(path, op, doc);
  printf("tuning cache: %s\n", path);
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(doc, "entries"), i, e) {
    const char *eop = json_string_value(json_object_get(e, "op"));
    if (op && (!eop || !strstr(eop, op))) continue;
    printf("%s | %s | %s\n  shape %s\n  case %s:", json_string_value(json_object_get(e, "device")), eop,
           json_string_value(json_object_get(e, "variant")), json_string_value(json_object_get(e, "shape")),
           json_string_value(json_object_get(e, "case")));
    print_tunables(json_object_get(e, "tunables"));
    printf(" (%.1f us; defaults %.1f us)\n", json_number_value(json_object_get(e, "gpuNs")) * 1e-3,
           json_number_value(json_object_get(e, "defaultGpuNs")) * 1e-3);
  }
  json_decref(doc);
  return 0;
}

int cli_cmd_tune(int argc, char **argv) {
  tune_opts o = {0};
  for (int i = 1; i < argc; i++)
    if (parse_one(argc, argv, &i, &o) < 0) return 2;
  char path[4096];
  if (!rt_tuning_path(path, sizeof path)) return cli_error("tune", "no cache folder: set WGK_TUNING_CACHE or HOME"), 1;
  if (o.show && (o.filter || o.repeat))
    return cli_error("tune", "--show prints the cache; --case and --iterations do not apply"), 2;
  if (o.json && !o.show) return cli_error("tune", "--json goes with --show (the cache as JSON)"), 2;
  if (o.show) return show(path, o.pkg, o.json);
  if (!o.pkg) return cli_usage("tune");
  pkg_package *pkg = cli_pkg_open("tune", &o.common, o.pkg); /* every argument checked before a GPU context */
  tc_bench_suite *suite = pkg ? cli_load_bench("tune", pkg) : NULL;
  bool ok = suite && cli_bench_filter_ok("tune", suite, o.filter);
  if (!ok) {
    tc_bench_suite_free(suite);
    pkg_free(pkg);
    return 1;
  }
  /* the package and bench.json read for the checks are the ones that run: each read once */
  wgk_context *ctx = NULL;
  wgk_kernel *k = NULL;
  if (!cli_open("tune", &o.common, pkg, &ctx, &k)) {
    tc_bench_suite_free(suite);
    return 1;
  }
  int failed = suite ? 0 : 1, matched = 0;
  if (suite) printf("adapter: %s\ntuning cache: %s\n", wgk_context_adapter(ctx), path);
  for (size_t i = 0; suite && i < suite->n_cases; i++) {
    if (o.filter && !strstr(suite->cases[i].id, o.filter)) continue;
    matched++;
    failed += !tune_one(k, suite, &suite->cases[i], &o, path);
    fflush(stdout);
  }
  if (suite && o.filter && !matched) cli_error("tune", "no case matches '%s'", o.filter), failed++;
  tc_bench_suite_free(suite);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return failed ? 1 : 0;
}
