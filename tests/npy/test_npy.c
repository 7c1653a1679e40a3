/* .npy: our round trip, numpy-written files read back, our files loaded by numpy, malformed files refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testkit.h"
#include "util/file_read.h"
#include "util/npy.h"

static const wgk_dtype ALL[] = {WGK_DTYPE_FLOAT32, WGK_DTYPE_FLOAT16, WGK_DTYPE_INT32,
                                WGK_DTYPE_UINT32,  WGK_DTYPE_INT64,   WGK_DTYPE_INT8,
                                WGK_DTYPE_UINT8,   WGK_DTYPE_BOOL,    WGK_DTYPE_INT16};
#define N_ALL (sizeof ALL / sizeof ALL[0])

/* value i of the test pattern, representable in every dtype after the dtype's conversion */
static double pattern(wgk_dtype d, size_t i) {
  if (d == WGK_DTYPE_BOOL) return (double)(i % 3 == 0);
  if (d == WGK_DTYPE_UINT8 || d == WGK_DTYPE_UINT32) return (double)(i * 7 % 250);
  return ((double)(i * 7 % 250) - 125.0) / (d == WGK_DTYPE_FLOAT32 || d == WGK_DTYPE_FLOAT16 ? 4.0 : 1.0);
}

static util_host_tensor *make(wgk_dtype d, int rank, const int64_t *dims) {
  util_host_tensor *t;
  assert_int_equal(util_host_tensor_create(d, rank, dims, &t), WGK_OK);
  size_t n = util_host_tensor_numel(t);
  double *v = calloc(n + 1, sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = pattern(d, i);
  util_host_tensor_from_double(t, v);
  free(v);
  return t;
}

static void expect_pattern(const util_host_tensor *t, wgk_dtype d, int rank, const int64_t *dims) {
  assert_int_equal(t->dtype, d);
  assert_int_equal(t->rank, rank);
  for (int i = 0; i < rank; i++) assert_int_equal(t->dims[i], dims[i]);
  for (size_t i = 0; i < util_host_tensor_numel(t); i++) assert_true(util_host_tensor_get(t, i) == pattern(d, i));
}

static const struct {
  int rank;
  int64_t dims[3];
  const char *py;
} SHAPES[] = {
    {0, {0}, "()"}, {1, {5}, "(5,)"}, {2, {2, 3}, "(2, 3)"}, {3, {2, 0, 3}, "(2, 0, 3)"}, {3, {3, 1, 4}, "(3, 1, 4)"}};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])

static void round_trip(void **state) {
  (void)state;
  char *dir = testkit_tmpdir();
  util_error e;
  for (size_t d = 0; d < N_ALL; d++)
    for (size_t s = 0; s < N_SHAPES; s++) {
      util_error_clear(&e);
      util_host_tensor *t = make(ALL[d], SHAPES[s].rank, SHAPES[s].dims), *back;
      const char *p = testkit_path(dir, "rt.npy");
      assert_int_equal(util_npy_write(p, t, &e), WGK_OK);
      assert_int_equal(util_npy_read(p, &back, &e), WGK_OK);
      expect_pattern(back, ALL[d], SHAPES[s].rank, SHAPES[s].dims);
      util_host_tensor_free(t);
      util_host_tensor_free(back);
    }
  testkit_rmdir(dir);
}

/* numpy writes the pattern for every dtype and shape (versions 1.0 and 2.0) */
static const char *PY_WRITE =
    "import sys, numpy as np\n"
    "d = sys.argv[1]\n"
    "names = ['float32','float16','int32','uint32','int64','int8','uint8','bool','int16']\n"
    "shapes = [(), (5,), (2, 3), (2, 0, 3), (3, 1, 4)]\n"
    "for dt in names:\n"
    "  for k, s in enumerate(shapes):\n"
    "    i = np.arange(int(np.prod(s)), dtype=np.int64)\n"
    "    if dt == 'bool': v = (i % 3 == 0)\n"
    "    elif dt in ('uint8', 'uint32'): v = i * 7 % 250\n"
    "    elif dt in ('float32', 'float16'): v = (i * 7 % 250 - 125) / 4.0\n"
    "    else: v = i * 7 % 250 - 125\n"
    "    a = v.astype(dt).reshape(s)\n"
    "    with open('%s/%s_%d.npy' % (d, dt, k), 'wb') as f:\n"
    "      np.lib.format.write_array(f, a, version=(2, 0) if k == 4 else (1, 0))\n";

static void numpy_files_read_back(void **state) {
  (void)state;
  if (!testkit_python())
    wgk_skip("python3 with numpy and onnx not found (scripts/bootstrap.sh installs python3-numpy, python3-onnx)");
  char *dir = testkit_tmpdir();
  const char *args[] = {dir};
  assert_int_equal(testkit_py(PY_WRITE, NULL, args, 1), 0);
  for (size_t d = 0; d < N_ALL; d++)
    for (size_t s = 0; s < N_SHAPES; s++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%zu.npy", wgk_dtype_name(ALL[d]), s);
      util_error e;
      util_error_clear(&e);
      util_host_tensor *t;
      assert_int_equal(util_npy_read(testkit_path(dir, name), &t, &e), WGK_OK);
      expect_pattern(t, ALL[d], SHAPES[s].rank, SHAPES[s].dims);
      util_host_tensor_free(t);
    }
  testkit_rmdir(dir);
}

static const char *PY_CHECK =
    "import sys, numpy as np\n"
    "d = sys.argv[1]\n"
    "names = ['float32','float16','int32','uint32','int64','int8','uint8','bool','int16']\n"
    "shapes = [(), (5,), (2, 3), (2, 0, 3), (3, 1, 4)]\n"
    "for dt in names:\n"
    "  for k, s in enumerate(shapes):\n"
    "    a = np.load('%s/w_%s_%d.npy' % (d, dt, k))\n"
    "    assert a.dtype == np.dtype(dt) and a.shape == s, (dt, k, a.dtype, a.shape)\n"
    "    i = np.arange(int(np.prod(s)), dtype=np.int64)\n"
    "    if dt == 'bool': v = (i % 3 == 0)\n"
    "    elif dt in ('uint8', 'uint32'): v = i * 7 % 250\n"
    "    elif dt in ('float32', 'float16'): v = (i * 7 % 250 - 125) / 4.0\n"
    "    else: v = i * 7 % 250 - 125\n"
    "    assert (a.reshape(-1) == v.astype(dt)).all(), (dt, k)\n"
    "print('checked', len(names) * len(shapes))\n";

static void our_files_load_in_numpy(void **state) {
  (void)state;
  if (!testkit_python())
    wgk_skip("python3 with numpy and onnx not found (scripts/bootstrap.sh installs python3-numpy, python3-onnx)");
  char *dir = testkit_tmpdir();
  for (size_t d = 0; d < N_ALL; d++)
    for (size_t s = 0; s < N_SHAPES; s++) {
      char name[64];
      snprintf(name, sizeof name, "w_%s_%zu.npy", wgk_dtype_name(ALL[d]), s);
      util_host_tensor *t = make(ALL[d], SHAPES[s].rank, SHAPES[s].dims);
      util_error e;
      util_error_clear(&e);
      assert_int_equal(util_npy_write(testkit_path(dir, name), t, &e), WGK_OK);
      util_host_tensor_free(t);
    }
  const char *args[] = {dir};
  char *out;
  assert_int_equal(testkit_py(PY_CHECK, &out, args, 1), 0);
  assert_non_null(strstr(out, "checked 45"));
  free(out);
  testkit_rmdir(dir);
}

/* A v1.0 image with the given dict and data bytes. */
static size_t image(unsigned char *buf, const char *dict, size_t data_bytes) {
  size_t hl = strlen(dict);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (unsigned char)(hl & 0xff);
  buf[9] = (unsigned char)(hl >> 8);
  memcpy(buf + 10, dict, hl);
  memset(buf + 10 + hl, 0, data_bytes);
  return 10 + hl + data_bytes;
}

static void malformed_refused(void **state) {
  (void)state;
  static const struct {
    const char *dict;
    size_t data;
    const char *msg;
  } BAD[] = {
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24, "Fortran"},
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8, "big-endian"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16, "unsupported dtype '<f8'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20, "truncated data"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 8, "trailing data"},
      {"{'descr': '<f4', 'shape': (1,), }", 4, "missing 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4, "unknown key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4, "duplicate key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 4, "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 4, "rank above"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", 4, "too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 1), }", 4, "expected ','"},
      {"{'descr': '<f4", 0, "unterminated"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x", 4, "text after"},
      {"[1]", 0, "expected '{'"},
  };
  unsigned char buf[512];
  char text[4096];
  for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
    size_t n = image(buf, BAD[i].dict, BAD[i].data);
    util_error e;
    util_error_clear(&e);
    util_host_tensor *t = (util_host_tensor *)buf;
    assert_int_not_equal(util_npy_parse(buf, n, "bad.npy", &t, &e), WGK_OK);
    assert_null(t);
    util_error_format(&e, text, sizeof text);
    if (!strstr(text, BAD[i].msg) || strncmp(text, "bad.npy: ", 9) != 0)
      fail_msg("case %zu: '%s' lacks '%s'", i, text, BAD[i].msg);
  }
  /* bad magic, truncated preamble, header longer than the file, absurd header length */
  unsigned char v2[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0x7f};
  const struct {
    const void *b;
    size_t n;
    const char *msg;
  } RAW[] = {{"\x93NUMPZ\x01\x00\x00\x00", 10, "bad magic"},
             {"\x93NUM", 4, "bad magic"},
             {"\x93NUMPY\x01\x00\x40\x00{}", 12, "truncated header"},
             {v2, sizeof v2, "limit"},
             {"\x93NUMPY\x09\x00\x00\x00", 10, "version"}};
  for (size_t i = 0; i < sizeof RAW / sizeof RAW[0]; i++) {
    util_error e;
    util_error_clear(&e);
    util_host_tensor *t;
    assert_int_not_equal(util_npy_parse(RAW[i].b, RAW[i].n, "raw.npy", &t, &e), WGK_OK);
    util_error_format(&e, text, sizeof text);
    if (!strstr(text, RAW[i].msg)) fail_msg("raw case %zu: '%s' lacks '%s'", i, text, RAW[i].msg);
  }
  util_error e;
  util_error_clear(&e);
  util_host_tensor *t;
  assert_int_equal(util_npy_read("/nonexistent/x.npy", &t, &e), WGK_ERR_NOT_FOUND);
  assert_string_equal(e.source, "/nonexistent/x.npy");
}

/* Every prefix of a valid file is refused without a crash (ASan run catches over-reads). */
static void every_truncation_refused(void **state) {
  (void)state;
  unsigned char buf[512];
  size_t n = image(buf, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 24);
  for (size_t k = 0; k < n; k++) {
    unsigned char *copy = malloc(k + 1);
    memcpy(copy, buf, k);
    util_error e;
    util_error_clear(&e);
    util_host_tensor *t;
    assert_int_not_equal(util_npy_parse(copy, k, "cut.npy", &t, &e), WGK_OK);
    free(copy);
  }
}

/* Writes bytes to dir/name; returns the path (testkit_path's static buffer). */
static const char *write_file(const char *dir, const char *name, const void *b, size_t n) {
  const char *p = testkit_path(dir, name);
  FILE *f = fopen(p, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  fclose(f);
  return p;
}

static void expect_read_error(const char *path, const char *msg) {
  util_error e;
  util_error_clear(&e);
  util_host_tensor *t = (util_host_tensor *)&e;
  char text[4096];
  assert_int_not_equal(util_npy_read(path, &t, &e), WGK_OK);
  assert_null(t);
  util_error_format(&e, text, sizeof text);
  if (!strstr(text, msg) || strncmp(text, path, strlen(path)) != 0) fail_msg("'%s': '%s' lacks '%s'", path, text, msg);
}

/* A header shorter than the reader's 12-byte preamble (version 1.0 header lengths 0..3) read from a file: refused,
 * and (under ASan) without touching bytes past the header's buffer (a fuzz finding: the preamble was copied whole). */
static void short_header_files_refused(void **state) {
  (void)state;
  char *dir = testkit_tmpdir();
  for (unsigned hl = 0; hl < 4; hl++) {
    unsigned char buf[16] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)hl, 0, '{', '}', ' ', '\n', 0, 0};
    util_error e;
    util_error_clear(&e);
    util_host_tensor *t = NULL;
    assert_int_not_equal(util_npy_read(write_file(dir, "short.npy", buf, sizeof buf), &t, &e), WGK_OK);
    assert_null(t);
  }
  testkit_rmdir(dir);
}

/* The file is checked (a regular file) and its header parsed before any data is read: /dev/zero, a folder or
 * a FIFO are refused at once, and a header whose declared data size differs from the file's is refused naming
 * both sizes, without allocating what the header claims. */
static void header_checked_before_data(void **state) {
  (void)state;
  char *dir = testkit_tmpdir();
  expect_read_error("/dev/zero", "a character device, not a regular file");
  expect_read_error(dir, "a directory, not a regular file");
  char fifo[4096];
  snprintf(fifo, sizeof fifo, "%s", testkit_path(dir, "pipe.npy"));
  assert_int_equal(mkfifo(fifo, 0600), 0);
  expect_read_error(fifo, "a FIFO, not a regular file");
  unsigned char buf[512];
  /* 60 GiB declared, 4 bytes present */
  size_t n = image(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (15000000000,), }", 4);
  expect_read_error(write_file(dir, "huge.npy", buf, n),
                    "truncated data: the header's dtype and shape need 60000000000 data bytes, the file has 4");
  n = image(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12);
  expect_read_error(write_file(dir, "long.npy", buf, n),
                    "trailing data: the header's dtype and shape need 8 data bytes, the file has 12");
  n = image(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
  util_host_tensor *t = NULL;
  util_error e;
  util_error_clear(&e);
  assert_int_equal(util_npy_read(write_file(dir, "ok.npy", buf, n), &t, &e), WGK_OK);
  assert_int_equal(t->rank, 1);
  assert_int_equal(t->dims[0], 2);
  util_host_tensor_free(t);
  /* a descr with a NUL inside ('<f4' then NUL then junk) is not '<f4' */
  static const char dict[] = "{'descr': '<f4\0zzz', 'fortran_order': False, 'shape': (1,), }";
  n = image(buf, "{'descr': '<f4XXXX', 'fortran_order': False, 'shape': (1,), }", 4);
  memcpy(buf + 10, dict, sizeof dict - 1);
  expect_read_error(write_file(dir, "nul.npy", buf, n), "'descr' contains a NUL byte");
  util_error_clear(&e);
  assert_int_not_equal(util_npy_parse(buf, n, "nul.npy", &t, &e), WGK_OK);
  assert_non_null(strstr(e.message, "'descr' contains a NUL byte"));
  expect_read_error("", "empty file name");
  testkit_rmdir(dir);
}

/* util_file_read_all (the ONNX .pb reader's) refuses non-regular files and over-long files before reading. */
static void file_read_checks_first(void **state) {
  (void)state;
  unsigned char *data = (unsigned char *)"untouched";
  size_t len = 7;
  util_error e;
  util_error_clear(&e);
  assert_int_equal(util_file_read_all("/dev/zero", 1 << 20, &data, &len, &e), WGK_ERR_IO);
  assert_null(data);
  assert_non_null(strstr(e.message, "not a regular file"));
  char *dir = testkit_tmpdir();
  char path[4096];
  snprintf(path, sizeof path, "%s", testkit_path(dir, "big.pb"));
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fclose(f);
  assert_int_equal(truncate(path, (off_t)1 << 40), 0); /* a sparse 1 TiB file: refused by its size */
  util_error_clear(&e);
  assert_int_equal(util_file_read_all(path, 1 << 20, &data, &len, &e), WGK_ERR_LIMIT);
  assert_non_null(strstr(e.message, "1099511627776 bytes, above the limit of 1048576"));
  testkit_rmdir(dir);
}

/* issue 37 hangs 7: a valid 5 GiB .npy was read whole before the device's maxBufferSize refused it; the bound is
 * now checked from the header (a sparse file: reading its data would take seconds and 5 GiB). */
static void size_bound_from_header(void **state) {
  (void)state;
  char *dir = testkit_tmpdir();
  unsigned char buf[512];
  size_t n = image(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (1342177280,), }", 0);
  const char *path = write_file(dir, "five.npy", buf, n);
  assert_int_equal(truncate(path, (off_t)(n + ((size_t)5 << 30))), 0);
  util_host_tensor *t = NULL;
  util_error e;
  util_error_clear(&e);
  size_t bytes = 0;
  assert_int_equal(util_npy_check(path, &bytes, &e), WGK_OK);
  assert_int_equal(bytes, (size_t)5 << 30);
  assert_int_equal(util_npy_read_max(path, (uint64_t)4 << 30, "maxBufferSize", &t, &e), WGK_ERR_LIMIT);
  assert_null(t);
  assert_non_null(strstr(e.message, "need 5368709120 data bytes, above the device's maxBufferSize of 4294967296"));
  /* at the bound it is read */
  n = image(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
  util_error_clear(&e);
  assert_int_equal(util_npy_read_max(write_file(dir, "two.npy", buf, n), 8, "maxBufferSize", &t, &e), WGK_OK);
  util_host_tensor_free(t);
  assert_int_equal(util_npy_read_max(write_file(dir, "two.npy", buf, n), 7, "maxBufferSize", &t, &e), WGK_ERR_LIMIT);
  testkit_rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(size_bound_from_header),     cmocka_unit_test(round_trip),
      cmocka_unit_test(numpy_files_read_back),      cmocka_unit_test(our_files_load_in_numpy),
      cmocka_unit_test(malformed_refused),          cmocka_unit_test(every_truncation_refused),
      cmocka_unit_test(short_header_files_refused), cmocka_unit_test(header_checked_before_data),
      cmocka_unit_test(file_read_checks_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
