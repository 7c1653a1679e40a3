/* wgk onnx-test DIR...: ONNX backend node-test folders run through the matching kernel packages. */
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "onnx/node_test.h"

typedef struct tally {
  int passed, failed, skipped; /* counts of report lines */
} tally;

static void report(void *ud, wgk_node_test_outcome outcome, const char *what, const char *detail) {
  tally *t = ud;
  switch (outcome) {
  case WGK_NODE_TEST_PASS: t->passed++; printf("PASS %s\n", what); break;
  case WGK_NODE_TEST_FAIL: t->failed++; printf("FAIL %s: %s\n", what, detail); break;
  case WGK_NODE_TEST_SKIP: t->skipped++; printf("SKIP %s: %s\n", what, detail); break;
  }
  fflush(stdout);
}

static int usage(void) {
  fprintf(stderr, "usage: wgk onnx-test DIR... [--rtol R] [--atol A] [--adapter SEL] [--strict] [--verbose]\n"
                  "  DIR: an ONNX node-test folder (model.onnx, test_data_set_*/input_N.pb, output_N.pb)\n"
                  "  tolerances default per dtype: float32 rtol 1e-3 atol 1e-7, float16 rtol 1e-2 atol 1e-3\n");
  return 2;
}

static bool number(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end != s && *end == 0 && *out >= 0;
}

int wgk_cmd_onnx_test(int argc, char **argv) {
  wgk_node_test_options opts = {-1, -1, false, NULL};
  wgk_context_options co = {0};
  const char **dirs = calloc((size_t)argc, sizeof *dirs);
  int n_dirs = 0;
  if (!dirs) return 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--rtol") == 0 && has_value && number(argv[i + 1], &opts.rtol)) i++;
    else if (strcmp(a, "--atol") == 0 && has_value && number(argv[i + 1], &opts.atol)) i++;
    else if (strcmp(a, "--adapter") == 0 && has_value) co.adapter = argv[++i];
    else if (strcmp(a, "--strict") == 0) opts.strict = true;
    else if (strcmp(a, "--verbose") == 0) co.verbose = true;
    else if (a[0] == '-') { free(dirs); return usage(); }
    else dirs[n_dirs++] = a;
  }
  if (n_dirs == 0) { free(dirs); return usage(); }
  wgk_context *ctx = NULL;
  char *msg = NULL;
  if (wgk_context_create(&co, &ctx, &msg) != WGK_OK) {
    fprintf(stderr, "wgk onnx-test: %s\n", msg ? msg : "no device");
    free(msg);
    free(dirs);
    return 1;
  }
  wgk_node_test_runner *r = NULL;
  tally t = {0, 0, 0};
  if (wgk_node_test_runner_create(ctx, &opts, &r) == WGK_OK) {
    for (int i = 0; i < n_dirs; i++) {
      char dir[4096];
      snprintf(dir, sizeof dir, "%s", dirs[i]);
      for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = 0;
      struct stat st;
      if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) continue; /* a shell glob's README.md: not a case */
      wgk_node_test_run_dir(r, dir, report, &t);
    }
  }
  printf("%d passed, %d failed, %d skipped\n", t.passed, t.failed, t.skipped);
  wgk_node_test_runner_free(r);
  wgk_context_destroy(ctx);
  free(dirs);
  return t.failed || !r ? 1 : 0;
}
