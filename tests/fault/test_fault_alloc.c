/* Allocation-failure loop (after SQLite's test_malloc and jansson's chaos tests): for N = 1, 2, ... the N-th
 * allocation made by wgk's own code (and by jansson on its behalf) fails, during load + plan + call of both
 * shipped packages on small shapes, until a run reaches its end without meeting allocation N.
 *
 * Each failing run must stop at a public call that returns WGK_ERR_OUT_OF_MEMORY with a message (the only
 * status accepted: every allocation failure in wgk is reported as such, JSON text parsed by jansson included),
 * leave nothing behind (LeakSanitizer at exit in the ASan build; every object is destroyed each round) and
 * crash nothing. A run that succeeds although allocation N failed (a failure absorbed on purpose, e.g. an
 * optional cache entry) must give outputs bit-identical to the run without faults.
 *
 * Every round uses a fresh context (plans and pipelines are cached per kernel and per context, so a shared
 * one would skip allocations in later rounds) on one shared Dawn device (creating a device per round would
 * be slow); a second loop covers the creation of a context with its own device.
 *
 * WGK_FAULT_FIRST / WGK_FAULT_LAST limit the rounds (debugging one N); WGK_FAULT_STEP=k takes every k-th round
 * from FIRST on (the sanitizer build samples the rounds that compile pipelines); WGK_FAULT_KEEP_GOING=1 reports every
 * misbehaving round instead of stopping at the first; WGK_FAULT_ONLY=<test name> runs one test,
 * WGK_FAULT_SKIP=<test name> all but one;
 * WGK_FAULT_TRACE=1 prints where each absorbed failure happened. Skipped without an adapter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault/fault_alloc.h"
#include "gpu/gpu.h"
#include "runtime/runtime_internal.h"
#include "util/wgk_test.h"
#include "wgk.h"

static gpu_device *shared_dev;

/* What one round did: the first failing step, its status and message, and the outputs when it ran through. */
typedef struct outcome {
  const char *step;
  wgk_status st;
  char msg[2048];
  float out[4096];
  size_t n_out;
} outcome;

#define STEP(name, expr)                                                           \
  do {                                                                             \
    if (o->st == WGK_OK) {                                                         \
      wgk_status st_ = (expr);                                                     \
      if (st_ != WGK_OK) {                                                         \
        o->step = name, o->st = st_;                                               \
        snprintf(o->msg, sizeof o->msg, "%s", ctx ? wgk_context_errmsg(ctx) : ""); \
      }                                                                            \
    }                                                                              \
  } while (0)

static void fill(float *f, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    f[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
  }
}

/* RotaryEmbedding, x [1, 2, 3, 8] with position ids (int64, projected to 32 bits), run with wgk_call_run. */
static void rope(wgk_context *ctx, outcome *o) {
  static float x[48], cs[32], sn[32];
  int64_t xd[4] = {1, 2, 3, 8}, cd[2] = {8, 4}, pd[2] = {1, 3}, pos[3] = {5, 0, 7};
  fill(x, 48, 1), fill(cs, 32, 2), fill(sn, 32, 3);
  wgk_kernel *k = NULL;
  wgk_tensor *tx = NULL, *tc = NULL, *ts = NULL, *tp = NULL;
  wgk_call *call = NULL;
  STEP("kernel_load", wgk_kernel_load(ctx, "webgpu-kernels/ai.onnx.RotaryEmbedding", NULL, &k));
  STEP("tensor_create x", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 4, xd, x, &tx));
  STEP("tensor_create cos", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 2, cd, cs, &tc));
  STEP("tensor_create sin", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 2, cd, sn, &ts));
  STEP("tensor_create position_ids", wgk_tensor_create(ctx, WGK_DTYPE_INT64, 2, pd, pos, &tp));
  STEP("call_create", wgk_call_create(k, &call));
  STEP("set_input x", wgk_call_set_input(call, "x", tx));
  STEP("set_input cos", wgk_call_set_input(call, "cos", tc));
  STEP("set_input sin", wgk_call_set_input(call, "sin", ts));
  STEP("set_input position_ids", wgk_call_set_input(call, "positionIds", tp));
  STEP("set_attr interleaved", wgk_call_set_attr_int(call, "interleaved", 1));
  STEP("call_run", wgk_call_run(call));
  wgk_tensor *y = o->st == WGK_OK ? wgk_call_output(call, "y") : NULL;
  if (o->st == WGK_OK && !y) o->step = "call_output", o->st = WGK_ERR_NOT_FOUND;
  STEP("tensor_read y", wgk_tensor_read(y, o->out, sizeof x));
  if (o->st == WGK_OK) o->n_out = 48;
  wgk_call_destroy(call);
  wgk_tensor_release(tx), wgk_tensor_release(tc), wgk_tensor_release(ts), wgk_tensor_release(tp);
  wgk_kernel_destroy(k);
}

/* Staged transfers in pieces (src/gpu/buffer.c): uploads past 64 bytes staged in pieces of 64 KiB through two
 * staging buffers in turn, written twice (the second time the staging comes from the pool, mapping again), a
 * float16 tensor of an odd count, each read back in pieces; a sample of the values is the output. */
static void staged(wgk_context *ctx, outcome *o) {
  enum { M = 40003, H = 33333 }; /* 160012 bytes: 3 pieces; float16: 66668 bytes, 2 pieces */
  static float x[M], back[M];
  static uint16_t h[H], hb[H];
  fill(x, M, 4);
  for (int i = 0; i < H; i++) h[i] = (uint16_t)(i * 7919u);
  ctx->staged_upload = true;
  ctx->queue_write_max = 64;
  ctx->staged_chunk = 64 << 10;
  int64_t n = M, nh = H;
  wgk_tensor *t = NULL, *th = NULL;
  STEP("tensor_create", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 1, &n, NULL, &t));
  STEP("tensor_write", wgk_tensor_write(t, x, sizeof x));
  fill(x, M, 5);
  STEP("tensor_write again", wgk_tensor_write(t, x, sizeof x));
  STEP("tensor_read", wgk_tensor_read(t, back, sizeof back));
  STEP("tensor_create float16", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT16, 1, &nh, NULL, &th));
  STEP("tensor_write float16", wgk_tensor_write(th, h, sizeof h));
  STEP("tensor_read float16", wgk_tensor_read(th, hb, sizeof hb));
  if (o->st == WGK_OK) {
    for (int i = 0; i < 2048; i++) o->out[i] = back[i * 19], o->out[2048 + i] = hb[i * 16];
    o->n_out = 4096;
  }
  wgk_tensor_release(t), wgk_tensor_release(th);
}

/* SparseAttention: decode of 3 tokens after pasts 10 and 20, rotary on, recorded through a batch. */
static void sparse(wgk_context *ctx, outcome *o) {
  enum { B = 2, S = 3, N = 4, KN = 2, H = 16, CACHE = 64 };
  static float q[B * S * N * H], kv[B * S * KN * H], pk[B * KN * CACHE * H], pv[B * KN * CACHE * H], rot[64 * 8];
  fill(q, sizeof q / 4, 4), fill(kv, sizeof kv / 4, 5), fill(pk, sizeof pk / 4, 6), fill(pv, sizeof pv / 4, 7),
      fill(rot, sizeof rot / 4, 8);
  int32_t row[10] = {0, 1, 3, 5, 7, 0, 1, 3, 5, 7}, col[16] = {0, 0, 1, 0, 2, 0, 3, -1, 0, 0, 1, 0, 2, 0, 3, -1},
          total = 23, kts[2] = {13, 23};
  int64_t qd[3] = {B, S, N * H}, kvd[3] = {B, S, KN * H}, cd[4] = {B, KN, CACHE, H}, rd[2] = {2, 5}, ccd[2] = {2, 8},
          one[1] = {1}, bd[1] = {B}, rotd[2] = {64, 8};
  wgk_kernel *k = NULL;
  wgk_tensor *t[10] = {0};
  wgk_call *call = NULL;
  wgk_batch *batch = NULL;
  STEP("kernel_load", wgk_kernel_load(ctx, "webgpu-kernels/com.microsoft.SparseAttention", NULL, &k));
  STEP("tensor_create query", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 3, qd, q, &t[0]));
  STEP("tensor_create key", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 3, kvd, kv, &t[1]));
  STEP("tensor_create value", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 3, kvd, kv, &t[2]));
  STEP("tensor_create past_key", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 4, cd, pk, &t[3]));
  STEP("tensor_create past_value", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 4, cd, pv, &t[4]));
  STEP("tensor_create block_row_indices", wgk_tensor_create(ctx, WGK_DTYPE_INT32, 2, rd, row, &t[5]));
  STEP("tensor_create block_col_indices", wgk_tensor_create(ctx, WGK_DTYPE_INT32, 2, ccd, col, &t[6]));
  STEP("tensor_create total_sequence_length", wgk_tensor_create(ctx, WGK_DTYPE_INT32, 1, one, &total, &t[7]));
  STEP("tensor_create key_total_sequence_lengths", wgk_tensor_create(ctx, WGK_DTYPE_INT32, 1, bd, kts, &t[8]));
  STEP("tensor_create cos_cache", wgk_tensor_create(ctx, WGK_DTYPE_FLOAT32, 2, rotd, rot, &t[9]));
  STEP("call_create", wgk_call_create(k, &call));
  static const char *const keys[10] = {"queryT",
                                       "keyT",
                                       "valueT",
                                       "pastKeyT",
                                       "pastValueT",
                                       "blockRowIndicesT",
                                       "blockColIndicesT",
                                       "totalSequenceLengthT",
                                       "keyTotalSequenceLengthsT",
                                       "cosCacheT"};
  for (int i = 0; i < 10; i++) STEP(keys[i], wgk_call_set_input(call, keys[i], t[i]));
  STEP("sinCacheT", wgk_call_set_input(call, "sinCacheT", t[9]));
  STEP("set_attr num_heads", wgk_call_set_attr_int(call, "num_heads", N));
  STEP("set_attr kv_num_heads", wgk_call_set_attr_int(call, "kv_num_heads", KN));
  STEP("set_attr sparse_block_size", wgk_call_set_attr_int(call, "sparse_block_size", 16));
  STEP("set_attr do_rotary", wgk_call_set_attr_int(call, "do_rotary", 1));
  STEP("batch_create", wgk_batch_create(ctx, &batch));
  STEP("batch_add", wgk_batch_add(batch, call));
  STEP("batch_submit", wgk_batch_submit(batch));
  wgk_tensor *y = o->st == WGK_OK ? wgk_call_output(call, "output") : NULL;
  if (o->st == WGK_OK && !y) o->step = "call_output", o->st = WGK_ERR_NOT_FOUND;
  STEP("tensor_read output", wgk_tensor_read(y, o->out, sizeof q));
  if (o->st == WGK_OK) o->n_out = sizeof q / 4;
  wgk_batch_destroy(batch);
  wgk_call_destroy(call);
  for (int i = 0; i < 10; i++) wgk_tensor_release(t[i]);
  wgk_kernel_destroy(k);
}

typedef void (*scenario_fn)(wgk_context *ctx, outcome *o);

/* One round on a fresh context over the shared device; returns whether allocation n was reached. */
static bool round_on_shared(scenario_fn fn, long n, outcome *o) {
  memset(o, 0, sizeof *o);
  wgk_context_options opts = {.wgpu_instance = gpu_device_raw_instance(shared_dev),
                              .wgpu_device = gpu_device_raw(shared_dev)};
  wgk_context *ctx = NULL;
  char *msg = NULL;
  fault_arm(n);
  wgk_status st = wgk_context_create(&opts, &ctx, &msg);
  if (st != WGK_OK) {
    o->step = "context_create", o->st = st;
    snprintf(o->msg, sizeof o->msg, "%s", msg ? msg : "");
  } else {
    fn(ctx, o);
  }
  wgk_context_destroy(ctx);
  fault_disarm();
  free(msg);
  return fault_fired();
}

/* Judges one round against the clean one: NULL when it behaved, else what went wrong. */
static const char *judge(bool fired, const outcome *o, const outcome *clean, char *why, size_t size) {
  if (o->st != WGK_OK) {
    if (!fired)
      snprintf(why, size, "%s failed without an injected fault: %s", o->step, o->msg);
    else if (o->st != WGK_ERR_OUT_OF_MEMORY)
      snprintf(why, size, "%s returned %s, not out of memory: %s", o->step, wgk_status_str(o->st), o->msg);
    else if (!o->msg[0])
      snprintf(why, size, "%s returned out of memory without a message", o->step);
    else
      return NULL;
    return why;
  }
  if (o->n_out != clean->n_out || memcmp(o->out, clean->out, o->n_out * sizeof(float)) != 0)
    return snprintf(why, size, "the run succeeded but its output differs from the run without faults"), why;
  return NULL;
}

static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v && v[0] ? strtol(v, NULL, 10) : dflt;
}

static void loop(const char *name, scenario_fn fn) {
  static outcome clean, o;
  round_on_shared(fn, 0, &clean);
  if (clean.st != WGK_OK) fail_msg("%s without faults: %s: %s", name, clean.step, clean.msg);
  long total = fault_count(), first = env_long("WGK_FAULT_FIRST", 1), last = env_long("WGK_FAULT_LAST", -1);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long n = first, failed = 0, absorbed = 0, bad = 0, step = env_long("WGK_FAULT_STEP", 1), rounds = 0;
  if (step < 1) step = 1;
  bool keep_going = env_long("WGK_FAULT_KEEP_GOING", 0) != 0;
  for (; last < 0 || n <= last; n += step) {
    bool fired = round_on_shared(fn, n, &o);
    rounds++;
    char why[4096];
    const char *problem = judge(fired, &o, &clean, why, sizeof why);
    if (problem) {
      if (!keep_going) fail_msg("%s, N=%ld: %s", name, n, problem);
      printf("%s, N=%ld: %s\n", name, n, problem);
      bad++;
    }
    if (!fired) break;
    if (o.st == WGK_OK && getenv("WGK_FAULT_TRACE")) printf("%s, N=%ld absorbed:\n", name, n), fault_print_trace();
    if (o.st == WGK_OK)
      absorbed++;
    else
      failed++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf(
      "%s: %ld allocations in the clean run; N = %ld..%ld every %ld (%ld rounds): %ld refused with out of memory, "
      "%ld absorbed; %.1f s\n",
      name, total, first, n - step, step, rounds, failed, absorbed,
      (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  if (bad) fail_msg("%s: %ld rounds misbehaved", name, bad);
}

static void rotary_embedding(void **state) { loop("RotaryEmbedding", rope); }
static void sparse_attention(void **state) { loop("SparseAttention", sparse); }
static void staged_transfers(void **state) { loop("staged transfers", staged); }

/* A context with its own device: every allocation of wgk_context_create in turn. */
static void own_context(void **state) {
  long n = 1;
  for (;; n++) {
    wgk_context *ctx = NULL;
    char *msg = NULL;
    fault_arm(n);
    wgk_status st = wgk_context_create(NULL, &ctx, &msg);
    fault_disarm();
    bool fired = fault_fired();
    if (st != WGK_OK && (!fired || st != WGK_ERR_OUT_OF_MEMORY || !msg || !msg[0]))
      fail_msg("context, N=%ld: %s (%s)", n, wgk_status_str(st), msg ? msg : "no message");
    if (st == WGK_OK && !ctx) fail_msg("context, N=%ld: OK without a context", n);
    wgk_context_destroy(ctx);
    free(msg);
    if (!fired) break;
  }
  printf("context with its own device: N = 1..%ld\n", n - 1);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  fault_install();
  util_error err;
  util_error_clear(&err);
  /* Dawn's Null backend always gives a device: a real adapter is checked, never assumed (the skip that stood here
   * could not happen, and on Null the rounds would have run nothing real). */
  if (gpu_device_create(NULL, &shared_dev, &err) != WGK_OK) {
    printf("FAIL: no device: %s\n", err.message);
    return 1;
  }
  wgk_test_need_gpu(gpu_device_desc(shared_dev)->backend, gpu_device_desc(shared_dev)->description);
  if (getenv("WGK_FAULT_ONLY")) cmocka_set_test_filter(getenv("WGK_FAULT_ONLY"));
  if (getenv("WGK_FAULT_SKIP")) cmocka_set_skip_filter(getenv("WGK_FAULT_SKIP"));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(own_context),
      cmocka_unit_test(rotary_embedding),
      cmocka_unit_test(staged_transfers),
      cmocka_unit_test(sparse_attention),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  gpu_device_destroy(shared_dev);
  return failed;
}
