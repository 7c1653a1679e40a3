/*
 * `wgk check DIR [--adapter SEL]`: lints a package being authored, without judging any result. Every check runs and
 * every problem is listed (within a file, its first syntax error), one line each with the file, line and column,
 * the rule broken, and the values:
 *   manifest   manifest.json loads (every rule of the reader)
 *   pack       metadata.json is what `wgk pack DIR` writes (digests and variant lists up to date)
 *   test.json  it parses, and every case names ports, attributes, tunables and variants the manifest has; its .npy
 *              files exist, are packed and agree with the case
 *   bench.json it parses, and names ports, attributes and tunables the manifest has
 *   card       README.md at the package root exists and is not empty
 *   device     every test.json case that expects a run plans, renders and compiles its variant on the device and
 *              runs (outputs are not compared: that is `wgk test`); a variant no case reaches is noted
 * Exit 0 when nothing is wrong, 1 when something is, 2 on a usage error.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "package/package.h"
#include "runtime/runtime_access.h"
#include "testcase/benchcase.h"
#include "testcase/testcase.h"
#include "util/file_read.h"

typedef struct checker {
  int problems;
} checker;

__attribute__((format(printf, 3, 4))) static void problem(checker *ck, const char *rule, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("FAIL  [%s] ", rule);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  ck->problems++;
}

static void problem_err(checker *ck, const char *rule, const util_error *err) {
  char text[WGK_ERROR_MESSAGE_MAX + 1024];
  util_error_format(err, text, sizeof text);
  problem(ck, rule, "%s", text);
}

/* A value of a case: "test.json:12:7: cases[3].inputs.q" */
static const char *at(const char *source, const tc_pos *pos, char *buf, size_t size) {
  snprintf(buf, size, "%s:%d:%d: %s", source, pos->line, pos->column, pos->path ? pos->path : "");
  return buf;
}

/* The text of build/webgpu/NAME read from disk (NULL when absent: *missing). */
static char *read_text(const char *dir, const char *name, size_t *len, bool *missing, checker *ck) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct stat st;
  *missing = stat(path, &st) != 0;
  if (*missing) return NULL;
  unsigned char *bytes = NULL;
  util_error err = {0};
  if (util_file_read_all(path, PKG_FILE_MAX_BYTES, &bytes, len, &err) != WGK_OK) {
    problem_err(ck, name, &err);
    return NULL;
  }
  return (char *)bytes;
}

static const char *port_names(const manifest_model *m, int want_output, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < m->n_ports && n < size; i++) {
    const manifest_port *p = &m->ports[i];
    bool out = p->dir != WGK_PORT_INPUT, in = p->dir != WGK_PORT_OUTPUT;
    if (want_output ? !out : !in) continue;
    n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", p->n_bind_keys ? p->bind_keys[0] : p->name);
  }
  return n ? buf : "none";
}

static bool has_tunable(const manifest_model *m, const char *name) {
  for (size_t i = 0; i < m->n_tunables; i++)
    if (strcmp(m->tunables[i].name, name) == 0) return true;
  return false;
}

/* The names one case (test or bench) uses, against the manifest. */
static void check_names(checker *ck, const char *rule, const char *source, const manifest_model *m,
                        const tc_input *inputs, size_t n_inputs, const tc_value *attrs, size_t n_attrs,
                        const tc_value *tunables, size_t n_tunables) {
  char where[4600], names[1024];
  for (size_t i = 0; i < n_inputs; i++) {
    const manifest_port *p = manifest_find_port_or_key(m, inputs[i].key);
    if (!p || p->dir == WGK_PORT_OUTPUT)
      problem(ck, rule, "%s: '%s' is not an input of %s (inputs: %s)", at(source, &inputs[i].pos, where, sizeof where),
              inputs[i].key, m->op_id, port_names(m, 0, names, sizeof names));
  }
  for (size_t i = 0; i < n_attrs; i++)
    if (!manifest_find_attribute(m, attrs[i].name))
      problem(ck, rule, "%s: %s declares no attribute '%s'", at(source, &attrs[i].pos, where, sizeof where), m->op_id,
              attrs[i].name);
  for (size_t i = 0; i < n_tunables; i++)
    if (!has_tunable(m, tunables[i].name))
      problem(ck, rule, "%s: %s declares no tunable '%s'", at(source, &tunables[i].pos, where, sizeof where), m->op_id,
              tunables[i].name);
}

/* A .npy file a case names that is not there: the position, the file, and (expected files) how to write it. */
static bool npy_missing(checker *ck, const char *dir, const char *source, const char *rel, const tc_pos *pos,
                        bool expected) {
  char path[4200], where[4600];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  if (stat(path, &st) == 0) return false;
  problem(ck, "test.json", "%s: %s: no such file%s", at(source, pos, where, sizeof where), path,
          expected ? " (`wgk test DIR --record COMMAND` writes the expected files from a reference)" : "");
  return true;
}

static void check_tests(checker *ck, const tc_suite *s, const manifest_model *m, const char *dir, pkg_package *pkg) {
  char where[4600], names[1024];
  for (size_t i = 0; i < s->n_cases; i++) {
    const tc_case *c = &s->cases[i];
    check_names(ck, "test.json", s->source, m, c->inputs, c->n_inputs, c->attrs, c->n_attrs, c->tunables,
                c->n_tunables);
    for (size_t k = 0; k < c->n_absent; k++)
      if (!manifest_find_port_or_key(m, c->absent[k]))
        problem(ck, "test.json", "%s: absent '%s' is not a port of %s", at(s->source, &c->pos, where, sizeof where),
                c->absent[k], m->op_id);
    for (size_t k = 0; k < c->n_expected; k++) {
      const manifest_port *p = manifest_find_port_or_key(m, c->expected[k].key);
      if (!p || p->dir == WGK_PORT_INPUT)
        problem(ck, "test.json", "%s: '%s' is not an output of %s (outputs: %s)",
                at(s->source, &c->expected[k].pos, where, sizeof where), c->expected[k].key, m->op_id,
                port_names(m, 1, names, sizeof names));
    }
    if (c->variant && !manifest_find_variant(m, c->variant))
      problem(ck, "test.json", "%s: variant '%s' is not a variant of %s", at(s->source, &c->pos, where, sizeof where),
              c->variant, m->op_id);
    for (size_t k = 0; k < c->n_variant_without; k++)
      if (!manifest_find_variant(m, c->variant_without[2 * k + 1]))
        problem(ck, "test.json", "%s: variantWithout %s: '%s' is not a variant of %s",
                at(s->source, &c->pos, where, sizeof where), c->variant_without[2 * k], c->variant_without[2 * k + 1],
                m->op_id);
    /* the .npy files: present, packed (read through the package) and as the case says */
    for (size_t k = 0; k < c->n_inputs; k++) {
      if (c->inputs[k].kind != WGK_TC_NPY ||
          npy_missing(ck, dir, s->source, c->inputs[k].npy, &c->inputs[k].pos, false) || !pkg)
        continue;
      util_host_tensor *t = NULL;
      util_error err = {0};
      if (tc_input_load(&c->inputs[k], pkg, s->source, &t, &err) != WGK_OK) problem_err(ck, "test.json", &err);
      util_host_tensor_free(t);
    }
    for (size_t k = 0; k < c->n_expected; k++) {
      if (!c->expected[k].npy || npy_missing(ck, dir, s->source, c->expected[k].npy, &c->expected[k].pos, true) || !pkg)
        continue;
      util_host_tensor *t = NULL;
      util_error err = {0};
      if (tc_expected_load(&c->expected[k], pkg, s->source, &t, &err) != WGK_OK) problem_err(ck, "test.json", &err);
      util_host_tensor_free(t);
    }
  }
}

/* Runs each case that expects a run (inputs made as wgk test makes them): planned, rendered, compiled, run. */
static void check_device(checker *ck, wgk_kernel *k, const tc_suite *s) {
  wgk_context *ctx = rt_kernel_context(k);
  const manifest_model *m = rt_kernel_manifest(k);
  bool *reached = calloc(m->n_variants + 1, sizeof *reached);
  if (!reached) return problem(ck, "device", "%s", wgk_status_str(WGK_ERR_OUT_OF_MEMORY));
  int ran = 0;
  for (size_t i = 0; i < s->n_cases; i++) {
    const tc_case *c = &s->cases[i];
    if (c->expect_error) continue;
    tc_outcome o;
    char why[WGK_ERROR_MESSAGE_MAX + 1024];
    /* tc_run_case judges too; here only whether it ran: a FAIL with a variant chosen ran */
    tc_case probe = *c;
    probe.n_expected = 0;
    probe.reference = NULL;
    if (tc_run_case(k, &probe, s->source, &o) != WGK_OK || (o.verdict == WGK_TC_FAIL && !o.variant[0])) {
      util_error_format(&o.why, why, sizeof why);
      problem(ck, "device", "case %s: %s", c->id, why);
      continue;
    }
    if (o.verdict == WGK_TC_SKIP) {
      util_error_format(&o.why, why, sizeof why);
      printf("skip  case %s: %s\n", c->id, why);
      continue;
    }
    wgk_status st = wgk_context_wait(ctx);
    if (st) {
      problem(ck, "device", "case %s: variant %s: %s", c->id, o.variant, wgk_context_errmsg(ctx));
      continue;
    }
    const manifest_variant *v = manifest_find_variant(m, o.variant);
    if (v) reached[v - m->variants] = true;
    printf("ok    case %s: variant %s renders, compiles and runs\n", c->id, o.variant);
    ran++;
  }
  for (size_t i = 0; i < m->n_variants; i++)
    if (!reached[i])
      printf("note  variant %s: no test.json case reaches it on this device (%s)\n", m->variants[i].id,
             wgk_context_adapter(ctx));
  free(reached);
  (void)ran;
}

/* bench.json, optional: it parses and its cases name the manifest's ports, attributes and tunables. */
static void check_bench(checker *ck, const char *dir, const manifest_model *m) {
  size_t len = 0;
  bool missing = false;
  char path[4200];
  char *text = read_text(dir, "bench.json", &len, &missing, ck);
  snprintf(path, sizeof path, "%s/bench.json", dir);
  if (text) {
    tc_bench_suite *bench = NULL;
    util_error berr = {0};
    if (tc_bench_suite_parse(text, len, path, &bench, &berr) != WGK_OK) {
      problem_err(ck, "bench.json", &berr);
    } else {
      int before = ck->problems;
      for (size_t i = 0; m && i < bench->n_cases; i++)
        check_names(ck, "bench.json", path, m, bench->cases[i].inputs, bench->cases[i].n_inputs, bench->cases[i].attrs,
                    bench->cases[i].n_attrs, bench->cases[i].tunables, bench->cases[i].n_tunables);
      if (ck->problems == before)
        printf("ok    bench.json: %zu case%s\n", bench->n_cases, bench->n_cases == 1 ? "" : "s");
    }
    tc_bench_suite_free(bench);
  } else if (missing) {
    printf("note  bench.json: none (wgk bench and wgk tune need one)\n");
  }
  free(text);
}

/* The kernel card: ROOT/README.md, present and not empty. */
static void check_card(checker *ck, const char *root) {
  char path[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/README.md", root);
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    problem(ck, "card",
            "%s: missing: the kernel card (what the op does, its dtypes and limits, how its tests were "
            "made; docs/authoring.md)",
            path);
  else if (st.st_size == 0)
    problem(ck, "card", "%s: empty (the kernel card says what the op does and how its tests were made)", path);
  else
    printf("ok    README.md: %lld bytes\n", (long long)st.st_size);
}

/* DIR is a package root (the files in ROOT/build/webgpu) or that folder itself (ROOT two levels up); false after
   saying so when neither holds a manifest.json. */
static bool locate(const char *arg, char dir[4096], char root[4096]) {
  char path[4200];
  struct stat st;
  snprintf(dir, 4096, "%s/build/webgpu", arg);
  snprintf(root, 4096, "%s", arg);
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(dir, 4096, "%s", arg);
    snprintf(root, 4096, "%s/../..", arg);
  }
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (stat(path, &st) == 0) return true;
  cli_error("check",
            "%s: no manifest.json here or in %s/build/webgpu (DIR is a package root or its "
            "build/webgpu folder)",
            arg, arg);
  return false;
}

/* metadata.json: present and up to date with the files (what `wgk pack --check` says); true when it is. */
static bool check_metadata(checker *ck, const char *arg, const char *dir, const manifest_model *m) {
  char path[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/metadata.json", dir);
  if (stat(path, &st) != 0) {
    problem(ck, "pack", "%s: missing: run `wgk pack %s` to write it (the package is unverified without it)", path, arg);
    return false;
  }
  if (!m) return false;
  if (cli_pack_run("check", arg, true, true) != 0) {
    problem(ck, "pack",
            "%s: out of date (a file changed since it was packed, or a variant's templates did): run "
            "`wgk pack %s`",
            path, arg);
    return false;
  }
  printf("ok    metadata.json: up to date\n");
  return true;
}

/* test.json: present, parses, and (with the manifest) its cases name what the manifest declares and their files
   exist (read through pkg when the package is packed). The suite, or NULL. */
static tc_suite *check_test_json(checker *ck, const char *dir, const manifest_model *m, pkg_package *pkg) {
  char path[4200];
  size_t len = 0;
  bool missing = false;
  char *text = read_text(dir, "test.json", &len, &missing, ck);
  tc_suite *suite = NULL;
  util_error err = {0};
  snprintf(path, sizeof path, "%s/test.json", dir);
  if (missing)
    problem(ck, "test.json", "%s: missing: a package's correctness cases (docs/package-format.md)", path);
  else if (text && tc_suite_parse(text, len, path, &suite, &err) != WGK_OK)
    problem_err(ck, "test.json", &err);
  else if (suite) {
    int before = ck->problems;
    if (m) check_tests(ck, suite, m, dir, pkg);
    if (ck->problems == before) printf("ok    test.json: %zu case%s\n", suite->n_cases, suite->n_cases == 1 ? "" : "s");
  }
  free(text);
  return suite;
}

/* Each case compiled and run on the device, through the package at abs (opened unverified: check reports a
   stale digest itself). */
static void check_on_device(checker *ck, const cli_common *common, const char *abs, const tc_suite *suite) {
  cli_common open_opts = *common;
  open_opts.strict = false;
  wgk_context *ctx = NULL;
  wgk_kernel *k = NULL;
  if (cli_open("check", &open_opts, cli_pkg_open("check", &open_opts, abs), &ctx, &k))
    check_device(ck, k, suite);
  else
    ck->problems++; /* cli_open printed why */
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

static int check(const char *arg, const cli_common *common) {
  checker ck = {0};
  char dir[4096], root[4096], path[4200];
  if (!locate(arg, dir, root)) return 2;
  printf("check %s\n", arg);
  manifest_model *m = NULL;
  util_error err = {0};
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (manifest_load_file(path, &m, &err) != WGK_OK)
    problem_err(&ck, "manifest", &err);
  else
    printf("ok    manifest.json: %s, %zu variant%s\n", m->op_id, m->n_variants, m->n_variants == 1 ? "" : "s");
  bool packed = check_metadata(&ck, arg, dir, m);
  /* the package, unverified when stale: the file checks below read through it */
  char *abs = realpath(dir, NULL);
  pkg_package *pkg = NULL;
  if (m && abs && packed) {
    pkg_options po = {0};
    util_error perr = {0};
    if (pkg_open(abs, &po, &pkg, &perr) != WGK_OK) problem_err(&ck, "pack", &perr);
  }
  tc_suite *suite = check_test_json(&ck, dir, m, packed ? pkg : NULL);
  check_bench(&ck, dir, m);
  check_card(&ck, root);
  if (suite && m && packed && abs)
    check_on_device(&ck, common, abs, suite);
  else
    printf("note  device: not checked until the manifest loads, metadata.json is up to date and test.json parses\n");
  tc_suite_free(suite);
  pkg_free(pkg);
  free(abs);
  manifest_free(m);
  printf("%d problem%s\n", ck.problems, ck.problems == 1 ? "" : "s");
  return ck.problems ? 1 : 0;
}

int cli_cmd_check(int argc, char **argv) {
  cli_common o = {0};
  const char *dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--adapter") == 0) {
      if (!cli_once("check", "--adapter", &o.adapter, cli_value("check", argc, argv, &i))) return 2;
      continue;
    }
    if (strcmp(argv[i], "--verbose") == 0) {
      o.verbose = true;
      continue;
    }
    if (argv[i][0] == '-' && argv[i][1])
      return cli_error("check", "unknown option '%s' (wgk check DIR [--adapter SEL] [--verbose])", argv[i]), 2;
    if (dir) return cli_error("check", "unexpected argument '%s' (the package is already '%s')", argv[i], dir), 2;
    dir = argv[i];
  }
  if (!dir) return cli_usage("check");
  return check(dir, &o);
}
