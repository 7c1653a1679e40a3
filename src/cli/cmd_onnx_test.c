/* wgk onnx-test DIR...: ONNX backend node-test folders run through the matching kernel packages. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/say.h"
#include "onnx/node_test.h"

typedef struct tally {
  int passed, failed, skipped; /* counts of report lines */
} tally;

static void report(void *ud, onnx_node_test_outcome outcome, const char *what, const char *detail) {
  tally *t = ud;
  switch (outcome) {
  case WGK_NODE_TEST_PASS:
    t->passed++;
    printf("PASS %s\n", what);
    break;
  case WGK_NODE_TEST_FAIL:
    t->failed++;
    printf("FAIL %s: %s\n", what, detail);
    break;
  case WGK_NODE_TEST_SKIP:
    t->skipped++;
    printf("SKIP %s: %s\n", what, detail);
    break;
  }
  fflush(stdout);
}

static bool number(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v) || !(v >= 0)) return false;
  *out = v;
  return true;
}

/* wgk onnx-test's command line. */
typedef struct onnx_args {
  onnx_node_test_options opts;
  wgk_context_options co;
  const char **dirs; /* argc entries */
  int n_dirs;
  const char *rtol, *atol; /* as given, to refuse a second */
} onnx_args;

/* --rtol or --atol VALUE at argv[*i]: a finite number >= 0, given once. */
static bool read_tolerance(char **argv, int *i, onnx_args *a) {
  const char *opt = argv[*i], *value = argv[*i + 1];
  const char **slot = opt[2] == 'r' ? &a->rtol : &a->atol;
  double *out = opt[2] == 'r' ? &a->opts.rtol : &a->opts.atol;
  if (*slot || !number(value, out)) {
    cli_say(*slot ? "wgk onnx-test: %s given twice; give it once\n"
                  : "wgk onnx-test: %s takes a finite number >= 0, not '%s'\n",
            opt, value);
    return false;
  }
  *slot = argv[++*i];
  return true;
}

/* Reads the command line into a; -1 when it is whole, else the exit status. */
static int parse_args(int argc, char **argv, onnx_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    bool tol = strcmp(s, "--rtol") == 0 || strcmp(s, "--atol") == 0;
    if ((tol || strcmp(s, "--adapter") == 0) && i + 1 >= argc)
      return cli_say("wgk onnx-test: %s needs a value\n", s), 2;
    if (tol) {
      if (!read_tolerance(argv, &i, a)) return 2;
    } else if (strcmp(s, "--adapter") == 0) {
      if (a->co.adapter) return cli_say("wgk onnx-test: --adapter given twice; give it once\n"), 2;
      a->co.adapter = argv[++i];
    } else if (strcmp(s, "--strict") == 0)
      a->opts.strict = true;
    else if (strcmp(s, "--verbose") == 0)
      a->co.verbose = true;
    else if (s[0] == '-' && s[1])
      return cli_say(
                 "wgk onnx-test: unknown option '%s' (wgk onnx-test DIR... [--rtol R] [--atol A] [--adapter SEL] "
                 "[--strict] [--verbose])\n",
                 s),
             2;
    else
      a->dirs[a->n_dirs++] = s;
  }
  return a->n_dirs == 0 ? cli_usage("onnx-test") : -1;
}

/* Every folder exists before a GPU context is made (a shell glob's plain files are skipped later). */
static bool dirs_exist(const onnx_args *a) {
  for (int i = 0; i < a->n_dirs; i++) {
    struct stat st;
    if (strlen(a->dirs[i]) >= 4000)
      return cli_say("wgk onnx-test: a folder name of %zu bytes, above the limit of 4000\n", strlen(a->dirs[i])), false;
    if (stat(a->dirs[i], &st) != 0)
      return cli_say("wgk onnx-test: %s: %s (DIR is an ONNX node-test folder)\n", a->dirs[i], strerror(errno)), false;
    if (a->n_dirs == 1 && !S_ISDIR(st.st_mode))
      return cli_say("wgk onnx-test: %s: not a folder (DIR is an ONNX node-test folder)\n", a->dirs[i]), false;
  }
  return true;
}

/* Runs each folder's node tests in one context and prints the totals; the exit status. */
static int run_dirs(const onnx_args *a) {
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(&a->co, &ctx, &msg) != WGK_OK) {
    cli_say("wgk onnx-test: %s\n", msg ? msg : "no device");
    free(msg);
    return 1;
  }
  onnx_node_test_runner *r = NULL;
  tally t = {0, 0, 0};
  if (onnx_node_test_runner_create(ctx, &a->opts, &r) == WGK_OK) {
    for (int i = 0; i < a->n_dirs; i++) {
      char dir[4096];
      snprintf(dir, sizeof dir, "%s", a->dirs[i]);
      for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = 0;
      struct stat st;
      if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) continue; /* a shell glob's README.md: not a case */
      onnx_node_test_run_dir(r, dir, report, &t);
    }
  }
  printf("%d passed, %d failed, %d skipped\n", t.passed, t.failed, t.skipped);
  onnx_node_test_runner_free(r);
  wgk_context_destroy(ctx);
  return t.failed || !r ? 1 : 0;
}

int cli_cmd_onnx_test(int argc, char **argv) {
  onnx_args a = {
      .opts = {-1, -1, false, NULL}, .co = {.log = cli_log}, .dirs = calloc((size_t)argc, sizeof(const char *))};
  if (!a.dirs) return 1;
  int rc = parse_args(argc, argv, &a);
  if (rc < 0) rc = dirs_exist(&a) ? run_dirs(&a) : 1;
  free(a.dirs);
  return rc;
}
