/* A timed-out wgk_tensor_read releases what it held (issue 37, Hangs 8): each timed-out read left its staging
 * buffer to Dawn with its map pending and never waited for, so retrying after WGK_ERR_TIMEOUT grew the process by
 * the staging size per try (+1.2 GB per 60 retries of a 64 MiB read) until "Failed to mmap". On lavapipe a
 * buffer's memory is host memory mapped into the process, so its address space shows it: here a 32 MiB read is
 * retried with a zero wait (one poll: it times out unless the copy is done the instant it is asked for) until
 * many tries have timed out; the virtual and resident sizes and the staging bytes wgk holds must stay within a few
 * staging buffers, and a final read with a long wait returns every value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gpu_internal.h"
#include "runtime/runtime_internal.h"
#include "util/wgk_test.h"

enum { N = 8 << 20 }; /* 32 MiB of float32 */
#define BYTES ((uint64_t)N * 4)
#define TRIES 24

static uint64_t resident_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  assert_non_null(f);
  unsigned long long size = 0, resident = 0;
  assert_int_equal(fscanf(f, "%llu %llu", &size, &resident), 2);
  fclose(f);
  return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t virtual_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  assert_non_null(f);
  unsigned long long size = 0;
  assert_int_equal(fscanf(f, "%llu", &size), 1);
  fclose(f);
  return size * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void check_values(const float *back) {
  for (int i = 0; i < N; i += 4099)
    if (back[i] != (float)(i % 1000) - 500.0f)
      fail_msg("value %d is %g, wrote %g", i, back[i], (float)(i % 1000) - 500.0f);
  assert_true(back[N - 1] == (float)((N - 1) % 1000) - 500.0f);
}

static void timed_out_reads_release_staging(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  float *vals = malloc(BYTES), *back = malloc(BYTES);
  assert_non_null(vals);
  assert_non_null(back);
  for (int i = 0; i < N; i++) vals[i] = (float)(i % 1000) - 500.0f;
  int64_t shape = N;
  wgk_tensor *t = NULL;
  assert_int_equal(wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &shape, vals, &t), WGK_OK);
  assert_int_equal(wgk_context_wait(ctx), WGK_OK);
  /* one read that completes: the staging buffer it used is in the pool, the driver warmed up */
  memset(back, 0, BYTES);
  assert_int_equal(wgk_tensor_read(t, back, BYTES), WGK_OK);
  check_values(back);
  uint64_t rss0 = resident_bytes(), vsz0 = virtual_bytes();

  uint32_t long_wait = ctx->wait_ms;
  ctx->wait_ms = 0; /* below wait_timeout_ms's 1 ms floor: one poll, so no adapter is fast enough to escape it */
  int timeouts = 0;
  uint64_t held_max = 0, rss_max = 0, vsz_max = 0;
  for (int i = 0; i < 4 * TRIES && timeouts < TRIES; i++) {
    wgk_status st = wgk_tensor_read(t, back, BYTES);
    if (st == WGK_ERR_TIMEOUT) {
      timeouts++;
      assert_non_null(strstr(wgk_context_errmsg(ctx), "timed out after 0 ms"));
    } else {
      assert_int_equal(st, WGK_OK);
    }
    uint64_t held = gpu_device_staging_bytes(ctx->dev);
    if (held > held_max) held_max = held;
    uint64_t rss = resident_bytes();
    if (rss > rss_max) rss_max = rss;
    uint64_t vsz = virtual_bytes();
    if (vsz > vsz_max) vsz_max = vsz;
  }
  if (timeouts < TRIES / 2)
    wgk_skip("only %d of the reads timed out with a zero wait: this adapter copies 32 MiB too fast to test", timeouts);
  ctx->wait_ms = long_wait;
  memset(back, 0, BYTES);
  assert_int_equal(wgk_tensor_read(t, back, BYTES), WGK_OK);
  check_values(back);
  assert_int_equal(wgk_context_wait(ctx), WGK_OK);
  uint64_t rss1 = resident_bytes(), vsz1 = virtual_bytes();
  printf(
      "%d timed-out reads of %llu MiB: staging held at most %llu MiB; resident +%lld MiB at most, +%lld MiB "
      "after; virtual +%lld MiB at most, +%lld MiB after\n",
      timeouts, (unsigned long long)(BYTES >> 20), (unsigned long long)(held_max >> 20),
      (long long)((int64_t)(rss_max - rss0) >> 20), (long long)((int64_t)(rss1 - rss0) >> 20),
      (long long)((int64_t)(vsz_max - vsz0) >> 20), (long long)((int64_t)(vsz1 - vsz0) >> 20));
  /* the timed-out reads reuse one staging buffer (two while a replaced one's copy drains) */
  assert_true(held_max <= 2 * BYTES);
  /* Without the release every timed-out try kept its staging mapped: the address space grew by the staging size
   * per try (16 MiB each here, 384 MiB over the tries); on lavapipe the resident size hardly shows it. */
  assert_true(vsz_max < vsz0 + 4 * BYTES);
  assert_true(vsz1 < vsz0 + 4 * BYTES);
  assert_true(rss_max < rss0 + 4 * BYTES);
  assert_true(rss1 < rss0 + 4 * BYTES);
  wgk_tensor_release(t);
  wgk_context_destroy(ctx);
  free(vals);
  free(back);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(timed_out_reads_release_staging)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
