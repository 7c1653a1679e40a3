/*
 * `wgk test PKG [--case ID-or-substring] [--shard K/N] [--list]`: runs the package's test.json cases on the
 * device, one line per case (PASS with its errors and the tolerance that passed them / FAIL with the worst element /
 * SKIP with the reason), then "N passed, M failed[, K skipped]"; exit 1 on any failure. --json: the same as JSON.
 * --shard K/N keeps every N-th of the cases --case selects, from the K-th on (1 <= K <= N), so N processes
 * together run each case once: a long suite split across ctest jobs. --record COMMAND writes the expected .npy files
 * from a reference instead of running anything on the device (src/cli/test_record.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "package/package.h"
#include "runtime/runtime_access.h"
#include "testcase/testcase.h"

/* Which cases run: those whose id contains `filter` (all without one), then every `shards`-th of them from
 * the `shard`-th on (shard in 1..shards). */
typedef struct case_pick {
  const char *filter;
  int shard, shards;
} case_pick;

/* Parses K/N into the pick; false (with an error naming the value and the rule) unless 1 <= K <= N. */
static bool parse_shard(const char *v, case_pick *pick) {
  char *end = NULL;
  long k = v ? strtol(v, &end, 10) : 0, n = 0;
  if (v && end != v && *end == '/') {
    const char *d = end + 1;
    n = strtol(d, &end, 10);
    if (end == d) n = 0;
  }
  if (!v || !end || *end || n < 1 || k < 1 || k > n || n > 1000000) {
    cli_error("test", "--shard %s: expected K/N with 1 <= K <= N (e.g. 2/3)", v ? v : "");
    return false;
  }
  pick->shard = (int)k;
  pick->shards = (int)n;
  return true;
}

/* Marks chosen[i] for the cases the pick selects; returns how many the filter alone matches. */
static size_t pick_cases(const tc_suite *s, const case_pick *pick, bool *chosen) {
  size_t matched = 0;
  for (size_t i = 0; i < s->n_cases; i++) {
    bool match = tc_case_matches(&s->cases[i], pick->filter);
    chosen[i] = match && (int)(matched % (size_t)pick->shards) == pick->shard - 1;
    matched += match;
  }
  return matched;
}

/* test.json through the package (digest-checked when verified). */
static tc_suite *load_suite(pkg_package *pkg) {
  const char *text = NULL;
  size_t len = 0;
  util_error err = {0};
  char source[4096];
  snprintf(source, sizeof source, "%s/test.json", pkg_dir(pkg));
  tc_suite *suite = NULL;
  wgk_status st = pkg_read_file(pkg, "test.json", &text, &len, &err);
  if (!st) st = tc_suite_parse(text, len, source, &suite, &err);
  if (st) {
    char msg[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, msg, sizeof msg);
    cli_error("test", "%s", msg);
  }
  return suite;
}

/* Beside a PASS line's errors, the tolerance that passed them and the share of it the worst element used:
 * "; float32 tolerance rtol 1e-05 atol 1e-06, 3% used" (or "; int64 exact"). */
static void print_tolerance(const tc_outcome *o) {
  if (o->tol_dtype == WGK_DTYPE_INVALID) return;
  if (o->tol.rtol == 0 && o->tol.atol == 0) {
    printf("; %s exact", wgk_dtype_name(o->tol_dtype));
    return;
  }
  printf("; %s tolerance rtol %g atol %g, ", wgk_dtype_name(o->tol_dtype), o->tol.rtol, o->tol.atol);
  if (o->used > 0 && o->used < 0.01)
    printf("<1%% used");
  else
    printf("%.0f%% used", 100 * o->used);
}

/* doc on stdout (cli_print_json), errors to 10 significant digits; takes the reference. */
static int print_json(json_t *doc) { return cli_print_json("test", doc, JSON_REAL_PRECISION(10)); }

/* The verdict's text, as the one error path formats it ("" when there is none). */
static const char *why_text(const tc_outcome *o, char *buf, size_t size) {
  buf[0] = '\0';
  if (o->why.message[0]) util_error_format(&o->why, buf, size);
  return buf;
}

static void print_outcome(const tc_case *c, const tc_outcome *o, bool verbose) {
  char why[WGK_ERROR_MESSAGE_MAX + 1024];
  switch (o->verdict) {
  case WGK_TC_PASS:
    if (c->expect_error)
      printf("PASS %s (refused as expected)\n", c->id);
    else {
      printf("PASS %s (%s, max abs err %.3g, max rel err %.3g", c->id, o->variant, o->max_abs, o->max_rel);
      print_tolerance(o);
      printf(")\n");
    }
    if (verbose && o->why.message[0]) printf("     %s\n", why_text(o, why, sizeof why));
    break;
  case WGK_TC_FAIL:
    printf("FAIL %s: %s\n", c->id, why_text(o, why, sizeof why));
    break;
  case WGK_TC_SKIP:
    printf("SKIP %s: %s\n", c->id, why_text(o, why, sizeof why));
    break;
  }
}

/* --json: a case's outcome as {id, verdict, variant, maxAbs, maxRel, tolerance: {dtype, rtol, atol, used},
 * refusedAsExpected, message}. */
static json_t *outcome_json(const tc_case *c, const tc_outcome *o) {
  char why[WGK_ERROR_MESSAGE_MAX + 1024];
  static const char *const verdicts[] = {"pass", "fail", "skip"};
  json_t *j = json_pack("{s:s, s:s, s:s}", "id", c->id, "verdict", verdicts[o->verdict], "variant", o->variant);
  if (!j) return NULL;
  if (o->verdict == WGK_TC_PASS && c->expect_error) json_object_set_new(j, "refusedAsExpected", json_true());
  if (o->tol_dtype != WGK_DTYPE_INVALID) {
    json_object_set_new(j, "maxAbs", json_real(o->max_abs));
    json_object_set_new(j, "maxRel", json_real(o->max_rel));
    json_object_set_new(j, "tolerance",
                        json_pack("{s:s, s:f, s:f, s:f}", "dtype", wgk_dtype_name(o->tol_dtype), "rtol", o->tol.rtol,
                                  "atol", o->tol.atol, "used", isfinite(o->used) ? o->used : 1e300));
  }
  if (o->why.message[0]) json_object_set_new(j, "message", json_string(why_text(o, why, sizeof why)));
  return j;
}

/* Runs the picked cases; counts[verdict]; with report (--json) each outcome goes there instead of a line. false
 * when the harness itself failed. */
static bool run_suite(wgk_kernel *k, const tc_suite *s, const case_pick *pick, bool verbose, json_t *report,
                      int counts[3]) {
  char why[WGK_ERROR_MESSAGE_MAX + 1024];
  bool *chosen = calloc(s->n_cases ? s->n_cases : 1, sizeof *chosen);
  if (!chosen) return cli_error("test", "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY)), false;
  size_t matched = pick_cases(s, pick, chosen);
  bool ok = true;
  for (size_t i = 0; i < s->n_cases; i++) {
    const tc_case *c = &s->cases[i];
    if (!chosen[i]) continue;
    if (verbose && c->description[0]) printf("---- %s: %s\n", c->id, c->description);
    tc_outcome o;
    if (tc_run_case(k, c, s->source, &o) != WGK_OK) {
      cli_error("test", "%s: %s", c->id, why_text(&o, why, sizeof why));
      ok = false;
      break;
    }
    if (report)
      json_array_append_new(report, outcome_json(c, &o));
    else
      print_outcome(c, &o, verbose);
    fflush(stdout);
    counts[o.verdict]++;
  }
  free(chosen);
  if (matched == 0 && pick->filter) cli_error("test", "no case matches '%s'", pick->filter);
  return ok && (matched > 0 || !pick->filter);
}

/* wgk test's command line. */
typedef struct test_args {
  cli_common o;
  const char *pkg, *shard, *record;
  case_pick pick;
  bool list, as_json;
} test_args;

/* Reads the command line into a; -1 when it is whole, else the exit status. */
static int parse_args(int argc, char **argv, test_args *a) {
  for (int i = 1; i < argc; i++) {
    int r = cli_common_option("test", argc, argv, &i, &a->o);
    if (r < 0) return cli_usage("test");
    if (r > 0) continue;
    if (strcmp(argv[i], "--case") == 0) {
      if (!cli_once("test", "--case", &a->pick.filter, cli_value("test", argc, argv, &i))) return 2;
    } else if (strcmp(argv[i], "--shard") == 0) {
      if (!cli_once("test", "--shard", &a->shard, cli_value("test", argc, argv, &i)) ||
          !parse_shard(a->shard, &a->pick))
        return 2;
    } else if (strcmp(argv[i], "--record") == 0) {
      if (!cli_once("test", "--record", &a->record, cli_value("test", argc, argv, &i))) return 2;
    } else if (strcmp(argv[i], "--list") == 0) {
      a->list = true;
    } else if (strcmp(argv[i], "--json") == 0) {
      a->as_json = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_error(
                 "test",
                 "unknown option '%s' (wgk test takes: --case --shard --list --json --record and the common options)",
                 argv[i]),
             2;
    } else if (a->pkg) {
      return cli_error("test", "unexpected argument '%s' (the package is already '%s')", argv[i], a->pkg), 2;
    } else {
      a->pkg = argv[i];
    }
  }
  if (!a->pkg) return cli_usage("test");
  if (a->record && (a->shard || a->list || a->as_json))
    return cli_error("test", "--record writes expected files; it takes no %s",
                     a->shard  ? "--shard"
                     : a->list ? "--list"
                               : "--json"),
           2;
  if (a->record && !a->record[0]) return cli_error("test", "--record: the reference command is empty"), 2;
  return -1;
}

/* Before a GPU context is made: --case must match a case of the suite (else the ids are named), and --list prints
   the picked ids. false when nothing is to run (an error, or the listing was all). */
static bool check_picked(const tc_suite *pre, const test_args *a, bool *listed) {
  const char *filter = a->pick.filter;
  bool *chosen = calloc(pre->n_cases ? pre->n_cases : 1, sizeof *chosen);
  if (!chosen) cli_error("test", "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY));
  bool matched = chosen && (pick_cases(pre, &a->pick, chosen) > 0 || !filter);
  if (chosen && !matched) {
    char ids[1024];
    size_t n = 0;
    ids[0] = 0;
    for (size_t i = 0; i < pre->n_cases && n < sizeof ids; i++)
      n += (size_t)snprintf(ids + n, sizeof ids - n, "%s%s", i ? ", " : "", pre->cases[i].id);
    cli_error("test", "--case %s: no test.json case id contains '%s' (cases: %s)", filter, filter, n ? ids : "none");
  }
  if (matched && a->list) { /* listing needs no GPU */
    json_t *ids = a->as_json ? json_array() : NULL;
    for (size_t i = 0; i < pre->n_cases; i++)
      if (chosen[i] && ids)
        json_array_append_new(ids, json_string(pre->cases[i].id));
      else if (chosen[i])
        printf("%s\n", pre->cases[i].id);
    if (ids && print_json(json_pack("{s:o}", "cases", ids))) matched = false;
  }
  free(chosen);
  *listed = matched && a->list;
  return matched && !a->list;
}

/* Runs the suite and prints the summary (a line, or with --json the document of every outcome); the exit status. */
static int run_and_report(wgk_context *ctx, wgk_kernel *k, const tc_suite *suite, const test_args *a) {
  int counts[3] = {0, 0, 0};
  if (a->o.verbose && !a->as_json) printf("adapter: %s\n", wgk_context_adapter(ctx));
  json_t *report = a->as_json ? json_array() : NULL;
  bool ok = run_suite(k, suite, &a->pick, a->o.verbose, report, counts);
  if (report) {
    json_t *doc = json_pack("{s:s, s:s, s:o, s:i, s:i, s:i}", "package", rt_kernel_manifest(k)->op_id, "adapter",
                            wgk_context_adapter(ctx), "cases", report, "passed", counts[WGK_TC_PASS], "failed",
                            counts[WGK_TC_FAIL], "skipped", counts[WGK_TC_SKIP]);
    if (print_json(doc)) ok = false;
  } else {
    printf("%d passed, %d failed", counts[WGK_TC_PASS], counts[WGK_TC_FAIL]);
    if (counts[WGK_TC_SKIP]) printf(", %d skipped", counts[WGK_TC_SKIP]);
    printf("\n");
  }
  return ok && counts[WGK_TC_FAIL] == 0 ? 0 : 1;
}

int cli_cmd_test(int argc, char **argv) {
  test_args a = {.pick = {NULL, 1, 1}};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  if (a.record) return cli_test_record(&a.o, a.pkg, a.record, a.pick.filter);
  /* The package, test.json and --case are checked before a GPU context is made. */
  pkg_package *pkg = cli_pkg_open("test", &a.o, a.pkg);
  tc_suite *suite = pkg ? load_suite(pkg) : NULL;
  bool listed = false;
  if (!suite || !check_picked(suite, &a, &listed)) {
    tc_suite_free(suite);
    pkg_free(pkg);
    return listed ? 0 : 1;
  }
  /* the package and test.json read for the checks are the ones that run: each read once */
  wgk_context *ctx = NULL;
  wgk_kernel *k = NULL;
  if (!cli_open("test", &a.o, pkg, &ctx, &k)) {
    tc_suite_free(suite);
    return 1;
  }
  rc = run_and_report(ctx, k, suite, &a);
  tc_suite_free(suite);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
  return rc;
}
