/* Helpers shared by the data-layer tests: a scratch folder, Debian's python3 (numpy + onnx) as an independent
 * second opinion, and the conformance data folder. */
#ifndef WGK_TESTS_TESTKIT_H
#define WGK_TESTS_TESTKIT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/wgk_test.h" /* wgk_skip */

/* The python with numpy and onnx: $WGK_PYTHON or /usr/bin/python3; NULL when it cannot import numpy. */
const char *testkit_python(void);
/* Runs `python script_text args...` (script written to a temp file); returns its exit status, stdout in *out
 * (malloc'ed, may be NULL). stderr goes to the test's stderr. */
int testkit_py(const char *script, char **out, const char *const *args, size_t nargs);
/* A fresh scratch folder (mkdtemp), removed with testkit_rmdir. */
char *testkit_tmpdir(void);
void testkit_rmdir(char *dir);
/* ${WGK_SOURCE_DIR}/tests/conformance (the ONNX node tests, in the repository); fails the test when missing. */
const char *testkit_conformance_dir(void);
/* path join into a static rotating buffer (enough for a few at once). */
const char *testkit_path(const char *a, const char *b);

#endif
