/* Golden invalid manifests: tests/manifest/invalid/<case>/{manifest.json, error}. Each case breaks one
 * rule; `error` is the expected one-line message. WGK_UPDATE_GOLDEN=1 rewrites the error files (review
 * the diff before committing). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/manifest.h"
#include "test_manifest.h"

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* Runs one case; returns 1 when it matches, 0 (and prints why) when not. */
static int run_case(const char *dir, const char *name, bool update) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/manifest.json", dir, name);
  size_t len;
  char *text = test_read_file(path, &len);
  if (!text) {
    printf("%s: cannot read %s\n", name, path);
    return 0;
  }
  manifest_model *m = NULL;
  util_error err;
  util_error_clear(&err);
  wgk_status st = manifest_load_text(text, len, "manifest.json", &m, &err);
  free(text);
  manifest_free(m);
  char got[4096];
  util_error_format(&err, got, sizeof got);
  snprintf(path, sizeof path, "%s/%s/error", dir, name);
  if (update) {
    FILE *f = fopen(path, "w");
    if (f) {
      fprintf(f, "%s\n", got);
      fclose(f);
    }
  }
  char *want = test_read_file(path, &len);
  while (want && len > 0 && (want[len - 1] == '\n' || want[len - 1] == '\r')) want[--len] = '\0';
  int ok = st != WGK_OK && m == NULL && want && strcmp(want, got) == 0;
  if (!ok) printf("%s:\n  want: %s\n  got:  %s\n", name, want ? want : "(no error file)", got);
  free(want);
  return ok;
}

void golden_invalid_cases(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/manifest/invalid", test_source_dir());
  struct dirent **names;
  int n = scandir(dir, &names, NULL, by_name);
  assert_true(n > 0);
  bool update = getenv("WGK_UPDATE_GOLDEN") != NULL;
  int cases = 0, passed = 0;
  for (int i = 0; i < n; i++) {
    if (names[i]->d_name[0] != '.') {
      cases++;
      passed += run_case(dir, names[i]->d_name, update);
    }
    free(names[i]);
  }
  free(names);
  printf("golden invalid manifests: %d/%d pass\n", passed, cases);
  assert_true(cases >= 15);
  assert_int_equal(passed, cases);
}
