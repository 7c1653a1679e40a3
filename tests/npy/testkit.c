#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *testkit_path(const char *a, const char *b) {
  static char bufs[8][4096];
  static int k;
  char *buf = bufs[k++ % 8];
  snprintf(buf, sizeof bufs[0], "%s/%s", a, b);
  return buf;
}

const char *testkit_python(void) {
  static int state; /* 0 unknown, 1 usable, 2 not */
  static const char *py;
  if (!state) {
    py = getenv("WGK_PYTHON") ? getenv("WGK_PYTHON") : "/usr/bin/python3";
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy, onnx' >/dev/null 2>&1", py);
    state = system(cmd) == 0 ? 1 : 2;
  }
  return state == 1 ? py : NULL;
}

static char *read_all(FILE *f) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (cap - n < 2) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
    }
  }
  if (buf) buf[n] = 0;
  return buf;
}

int testkit_py(const char *script, char **out, const char *const *args, size_t nargs) {
  if (out) *out = NULL;
  const char *py = testkit_python();
  if (!py) return -1;
  char spath[] = "/tmp/wgk_py_XXXXXX";
  int fd = mkstemp(spath);
  if (fd < 0) return -1;
  FILE *sf = fdopen(fd, "w");
  fputs(script, sf);
  fclose(sf);
  size_t cap = 8192 + strlen(spath);
  for (size_t i = 0; i < nargs; i++) cap += strlen(args[i]) + 4;
  char *cmd = malloc(cap);
  int n = snprintf(cmd, cap, "'%s' '%s'", py, spath);
  for (size_t i = 0; i < nargs; i++) n += snprintf(cmd + n, cap - (size_t)n, " '%s'", args[i]);
  FILE *p = popen(cmd, "r");
  free(cmd);
  char *text = p ? read_all(p) : NULL;
  int rc = p ? pclose(p) : -1;
  unlink(spath);
  if (out)
    *out = text;
  else
    free(text);
  return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

char *testkit_tmpdir(void) {
  char tmpl[] = "/tmp/wgk_test_XXXXXX";
  char *d = mkdtemp(tmpl);
  return d ? strdup(d) : NULL;
}

void testkit_rmdir(char *dir) {
  if (!dir) return;
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(dir);
}

const char *testkit_conformance_dir(void) {
  static char buf[4096];
  const char *src = getenv("WGK_SOURCE_DIR");
  if (!src) fail_msg("WGK_SOURCE_DIR is not set (ctest sets it): cannot find tests/conformance");
  snprintf(buf, sizeof buf, "%s/tests/conformance", src);
  if (!is_dir(buf)) fail_msg("%s is missing: the ONNX conformance data is part of the repository", buf);
  return buf;
}
