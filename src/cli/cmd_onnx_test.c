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

int cli_cmd_onnx_test(int argc, char **argv) {
  onnx_node_test_options opts = {-1, -1, false, NULL};
  wgk_context_options co = {.log = cli_log};
  const char **dirs = calloc((size_t)argc, sizeof *dirs);
  int n_dirs = 0;
  if (!dirs) return 1;
  const char *rtol = NULL, *atol = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    bool tol = strcmp(a, "--rtol") == 0 || strcmp(a, "--atol") == 0;
    if ((tol || strcmp(a, "--adapter") == 0) && !has_value) {
      cli_say("wgk onnx-test: %s needs a value\n", a);
      free(dirs);
      return 2;
    }
    if (tol) {
      const char **slot = a[2] == 'r' ? &rtol : &atol;
      double *out = a[2] == 'r' ? &opts.rtol : &opts.atol;
      if (*slot || !number(argv[i + 1], out)) {
        cli_say(*slot ? "wgk onnx-test: %s given twice; give it once\n"
                      : "wgk onnx-test: %s takes a finite number >= 0, not '%s'\n",
                a, argv[i + 1]);
        free(dirs);
        return 2;
      }
      *slot = argv[++i];
    } else if (strcmp(a, "--adapter") == 0) {
      if (co.adapter) {
        cli_say("wgk onnx-test: --adapter given twice; give it once\n");
        free(dirs);
        return 2;
      }
      co.adapter = argv[++i];
    } else if (strcmp(a, "--strict") == 0)
      opts.strict = true;
    else if (strcmp(a, "--verbose") == 0)
      co.verbose = true;
    else if (a[0] == '-' && a[1]) {
      cli_say(
          "wgk onnx-test: unknown option '%s' (wgk onnx-test DIR... [--rtol R] [--atol A] [--adapter SEL] "
          "[--strict] [--verbose])\n",
          a);
      free(dirs);
      return 2;
    } else
      dirs[n_dirs++] = a;
  }
  if (n_dirs == 0) {
    free(dirs);
    return cli_usage("onnx-test");
  }
  /* Every folder exists before a GPU context is made (a shell glob's plain files are skipped later). */
  for (int i = 0; i < n_dirs; i++) {
    struct stat st;
    if (strlen(dirs[i]) >= 4000) {
      cli_say("wgk onnx-test: a folder name of %zu bytes, above the limit of 4000\n", strlen(dirs[i]));
      free(dirs);
      return 1;
    }
    if (stat(dirs[i], &st) != 0) {
      cli_say("wgk onnx-test: %s: %s (DIR is an ONNX node-test folder)\n", dirs[i], strerror(errno));
      free(dirs);
      return 1;
    }
    if (n_dirs == 1 && !S_ISDIR(st.st_mode)) {
      cli_say("wgk onnx-test: %s: not a folder (DIR is an ONNX node-test folder)\n", dirs[i]);
      free(dirs);
      return 1;
    }
  }
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(&co, &ctx, &msg) != WGK_OK) {
    cli_say("wgk onnx-test: %s\n", msg ? msg : "no device");
    free(msg);
    free(dirs);
    return 1;
  }
  onnx_node_test_runner *r = NULL;
  tally t = {0, 0, 0};
  if (onnx_node_test_runner_create(ctx, &opts, &r) == WGK_OK) {
    for (int i = 0; i < n_dirs; i++) {
      char dir[4096];
      snprintf(dir, sizeof dir, "%s", dirs[i]);
      for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = 0;
      struct stat st;
      if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) continue; /* a shell glob's README.md: not a case */
      onnx_node_test_run_dir(r, dir, report, &t);
    }
  }
  printf("%d passed, %d failed, %d skipped\n", t.passed, t.failed, t.skipped);
  onnx_node_test_runner_free(r);
  wgk_context_destroy(ctx);
  free(dirs);
  return t.failed || !r ? 1 : 0;
}
