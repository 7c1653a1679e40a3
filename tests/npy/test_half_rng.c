/* float16 conversions against numpy's astype, bit for bit, and the PRNG's contracts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "util/half.h"
#include "util/npy.h"
#include "util/rng.h"
#include "util/wgk_test.h"

static uint64_t seed;

/* numpy converts the float32 bits / float64 bits / half bits in the files and writes int64 answers. */
static const char *PY_HALF =
    "import sys, numpy as np\n"
    "d = sys.argv[1]\n"
    "f = np.load(d + '/f32bits.npy').astype(np.uint32).view(np.float32)\n"
    "with np.errstate(all='ignore'):\n"
    "    np.save(d + '/f32_to_h.npy', f.astype(np.float16).view(np.uint16).astype(np.int64))\n"
    "    g = np.load(d + '/f64bits.npy').view(np.float64)\n"
    "    np.save(d + '/f64_to_h.npy', g.astype(np.float16).view(np.uint16).astype(np.int64))\n"
    "h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)\n"
    "np.save(d + '/h_to_f32.npy', h.astype(np.float32).view(np.uint32).astype(np.int64))\n";

static const uint32_t EDGE_F32[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
                                    0x7f800001, 0x7fa00000, 0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001,
                                    0x47800000, 0x38800000, 0x387fffff, 0x33800000, 0x33000000, 0x33000001,
                                    0x337fffff, 0x32ffffff, 0x00000001, 0x3f800000, 0x3f801000, 0x3f803000,
                                    0x3f801001, 0x387fc000, 0x387fe000, 0x38000000, 0xb3000000, 0x3c000000};

static util_host_tensor *make_i64(size_t n) {
  util_host_tensor *t;
  int64_t dims[1] = {(int64_t)n};
  assert_int_equal(util_host_tensor_create(WGK_DTYPE_INT64, 1, dims, &t), WGK_OK);
  return t;
}

static util_host_tensor *load(const char *dir, const char *name) {
  util_error e;
  util_error_clear(&e);
  util_host_tensor *t;
  assert_int_equal(util_npy_read(testkit_path(dir, name), &t, &e), WGK_OK);
  return t;
}

static void write_inputs(const char *dir, size_t nf, size_t nd) {
  util_rng r;
  util_rng_seed(&r, seed);
  util_host_tensor *f = make_i64(nf), *d = make_i64(nd);
  int64_t *fv = f->data, *dv = d->data;
  size_t ne = sizeof EDGE_F32 / sizeof EDGE_F32[0];
  for (size_t i = 0; i < nf; i++) /* half the random floats near half's range, where rounding matters */
    fv[i] =
        i < ne ? EDGE_F32[i]
        : (i & 1)
            ? (int64_t)(uint32_t)util_rng_next(&r)
            : (int64_t)(((uint32_t)util_rng_int(&r, 0x32000000, 0x47ffffff)) | (uint32_t)(util_rng_next(&r) & 1) << 31);
  for (size_t i = 0; i < nd; i++) {
    double x =
        (i & 1) ? util_rng_normal(&r, 0, 1000) : ldexp(util_rng_uniform(&r, -2, 2), (int)util_rng_int(&r, -30, 17));
    if (i % 7 == 0) /* exact halfway points between neighbouring halves */
      x = (double)util_half_to_float((uint16_t)util_rng_int(&r, 0, 0x7bfe)) +
          ldexp(1.0, -25) * (double)util_rng_int(&r, 0, 1);
    memcpy(&dv[i], &x, 8);
  }
  util_error e;
  util_error_clear(&e);
  assert_int_equal(util_npy_write(testkit_path(dir, "f32bits.npy"), f, &e), WGK_OK);
  assert_int_equal(util_npy_write(testkit_path(dir, "f64bits.npy"), d, &e), WGK_OK);
  util_host_tensor_free(f);
  util_host_tensor_free(d);
}

static void half_matches_numpy(void **state) {
  (void)state;
  if (!testkit_python())
    wgk_skip("python3 with numpy and onnx not found (scripts/bootstrap.sh installs python3-numpy, python3-onnx)");
  char *dir = testkit_tmpdir();
  const size_t nf = 200000, nd = 100000;
  write_inputs(dir, nf, nd);
  const char *args[] = {dir};
  assert_int_equal(testkit_py(PY_HALF, NULL, args, 1), 0);
  util_host_tensor *fin = load(dir, "f32bits.npy"), *fout = load(dir, "f32_to_h.npy");
  util_host_tensor *din = load(dir, "f64bits.npy"), *dout = load(dir, "f64_to_h.npy");
  util_host_tensor *hout = load(dir, "h_to_f32.npy");
  size_t bad = 0;
  for (size_t i = 0; i < nf; i++) {
    uint32_t bits = (uint32_t)((int64_t *)fin->data)[i];
    float f;
    memcpy(&f, &bits, 4);
    uint16_t want = (uint16_t)((int64_t *)fout->data)[i], got = util_half_from_float(f);
    if (got != want && bad++ < 10) fprintf(stderr, "float 0x%08x -> half: got 0x%04x, numpy 0x%04x\n", bits, got, want);
  }
  for (size_t i = 0; i < nd; i++) {
    double x;
    memcpy(&x, &((int64_t *)din->data)[i], 8);
    uint16_t want = (uint16_t)((int64_t *)dout->data)[i], got = util_half_from_double(x);
    if (got != want && bad++ < 20) fprintf(stderr, "double %a -> half: got 0x%04x, numpy 0x%04x\n", x, got, want);
  }
  for (uint32_t h = 0; h < 65536; h++) {
    float f = util_half_to_float((uint16_t)h);
    uint32_t got;
    memcpy(&got, &f, 4);
    if (got != (uint32_t)((int64_t *)hout->data)[h] && bad++ < 30)
      fprintf(stderr, "half 0x%04x -> float: got 0x%08x\n", h, got);
  }
  assert_int_equal(bad, 0);
  util_host_tensor_free(fin);
  util_host_tensor_free(fout);
  util_host_tensor_free(din);
  util_host_tensor_free(dout);
  util_host_tensor_free(hout);
  testkit_rmdir(dir);
}

static void half_round_trip_is_identity(void **state) {
  (void)state;
  for (uint32_t h = 0; h < 65536; h++) {
    float f = util_half_to_float((uint16_t)h);
    if (!isnan(f))
      assert_int_equal(util_half_from_float(f), h);
    else
      assert_true(isnan(util_half_to_float(util_half_from_float(f))));
  }
}

static void rng_contracts(void **state) {
  (void)state;
  util_rng a, b;
  util_rng_seed(&a, seed);
  util_rng_seed(&b, seed);
  for (int i = 0; i < 100; i++) assert_true(util_rng_next(&a) == util_rng_next(&b));
  double sum = 0, sq = 0;
  int hits[7] = {0};
  const int n = 200000;
  for (int i = 0; i < n; i++) {
    double u = util_rng_uniform(&a, -3, 5);
    assert_true(u >= -3 && u < 5);
    int64_t k = util_rng_int(&a, -3, 3);
    assert_true(k >= -3 && k <= 3);
    hits[k + 3]++;
    double g = util_rng_normal(&a, 2, 3);
    sum += g;
    sq += (g - 2) * (g - 2);
  }
  for (int k = 0; k < 7; k++) /* each of 7 values about n/7 = 28571, 5 sigma is about 800 */
    assert_true(abs(hits[k] - n / 7) < 1000);
  assert_true(fabs(sum / n - 2) < 0.05);
  assert_true(fabs(sqrt(sq / n) - 3) < 0.05);
  assert_int_equal(util_rng_int(&a, 5, 5), 5);
  /* The full int64 range is the raw 64-bit draw (both signs); the ranges at either end of int64 stay inside
   * and reach both their values (hi - lo and lo + x overflow there if done in signed arithmetic). */
  util_rng_seed(&a, seed);
  util_rng_seed(&b, seed);
  int negative = 0, positive = 0;
  for (int i = 0; i < 64; i++) {
    int64_t v = util_rng_int(&a, INT64_MIN, INT64_MAX);
    assert_true(v == (int64_t)util_rng_next(&b));
    negative += v < 0;
    positive += v > 0;
  }
  assert_true(negative > 8 && positive > 8);
  int top = 0, bottom = 0;
  for (int i = 0; i < 200; i++) {
    int64_t hi = util_rng_int(&a, INT64_MAX - 1, INT64_MAX), lo = util_rng_int(&a, INT64_MIN, INT64_MIN + 1);
    assert_true(hi == INT64_MAX - 1 || hi == INT64_MAX);
    assert_true(lo == INT64_MIN || lo == INT64_MIN + 1);
    top += hi == INT64_MAX;
    bottom += lo == INT64_MIN;
  }
  assert_true(top > 50 && top < 150 && bottom > 50 && bottom < 150);
}

int main(void) {
  seed = wgk_test_seed_value(0x5eed1234abcdULL);
  printf("seed: WGK_TEST_SEED=0x%llx\n", (unsigned long long)seed);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(half_matches_numpy),
      cmocka_unit_test(half_round_trip_is_identity),
      cmocka_unit_test(rng_contracts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
