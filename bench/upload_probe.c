/* Where a staged upload's time goes on this device, in the steps wgk's staged path takes: the host's writes into a
 * MAP_WRITE staging buffer's mapping (1 to 16 threads) against the same writes into ordinary host memory; reads
 * from that mapping (slow when it is write-combined or across the bus); the GPU's copy from the staging buffer
 * into a device buffer, and from one device buffer to another, each against an empty submission. A diagnostic
 * for issue 14's decode upload (two 1 MiB caches a call); it prints medians and GB/s and checks nothing. Last, the
 * decode call's four inputs copied in five shapes (probe_shapes): what one copy instead of four would save.
 *
 *   upload_probe [MiB]   (default 2) */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "gpu/gpu.h"
#include "util/error.h"

enum { REPS = 21, MAX_THREADS = 16 };

/* Spinning threads (no wake-up in the figure): thread k copies slice k of src into dst once per generation. */
typedef struct fill_job {
  char *dst;
  const char *src;
  size_t bytes;
  int n;
  atomic_ulong generation;
  atomic_int done;
  atomic_bool stop;
} fill_job;

typedef struct worker_arg {
  fill_job *job;
  int k;
} worker_arg;

static void copy_slice(fill_job *j, int k) {
  size_t a = j->bytes * (size_t)k / (size_t)j->n, b = j->bytes * (size_t)(k + 1) / (size_t)j->n;
  memcpy(j->dst + a, j->src + a, b - a);
}

static void *spin_worker(void *p) {
  worker_arg *w = p;
  unsigned long seen = 0;
  while (!atomic_load(&w->job->stop)) {
    unsigned long g = atomic_load(&w->job->generation);
    if (g == seen) {
      sched_yield(); /* a machine with fewer cores than threads still makes progress */
      continue;
    }
    seen = g;
    if (w->k < w->job->n) {
      copy_slice(w->job, w->k);
      atomic_fetch_add(&w->job->done, 1);
    }
  }
  return NULL;
}

/* Median µs of filling dst from src on n threads (the caller's included). */
static double timed_fill(fill_job *j, char *dst, int n) {
  double t[REPS];
  j->dst = dst;
  j->n = n;
  for (int r = 0; r < REPS; r++) {
    atomic_store(&j->done, 0);
    double t0 = now_us();
    atomic_fetch_add(&j->generation, 1);
    copy_slice(j, 0);
    atomic_fetch_add(&j->done, 1);
    while (atomic_load(&j->done) < n) sched_yield();
    t[r] = now_us() - t0;
  }
  return median(t, REPS);
}

static double gbps(size_t bytes, double us) { return (double)bytes / us / 1e3; }

/* Median µs of a submission holding a copy of bytes from src to dst (none: an empty one), with its wait. */
static double timed_copy(gpu_device *dev, gpu_buffer *src, gpu_buffer *dst, size_t bytes, util_error *err) {
  double t[REPS];
  for (int r = 0; r < REPS; r++) {
    gpu_encoder *enc = NULL;
    double t0 = now_us();
    if (gpu_encoder_begin(dev, "probe", &enc, err) != WGK_OK) return -1;
    if (src && gpu_encoder_copy(enc, src, 0, dst, 0, bytes, err) != WGK_OK) return -1;
    if (gpu_encoder_submit(enc, err) != WGK_OK || gpu_wait(dev, 10000, "probe", err) != WGK_OK) return -1;
    t[r] = now_us() - t0;
  }
  return median(t, REPS);
}

/* The decode call's inputs moved five ways, each a submission with its wait: how much of the fixed cost is the
 * number of copies. Pieces: x (bytes / 128), the positions (4 bytes), the two caches (bytes / 2 each). */
enum { SHAPES = 5, PIECES = 4, ROUNDS = 101 };
static const char *const shape_names[SHAPES] = {
    "x, positions by queue write; caches 2 copies (wgk's path)", "4 copies from one staging buffer",
    "1 copy of all four (one device buffer)", "caches alone, 2 copies", "caches alone, 1 copy"};

typedef struct copy_shapes {
  gpu_buffer *staging, *whole, *piece[PIECES];
  size_t len[PIECES], at[PIECES], total;
  const char *src;
} copy_shapes;

static wgk_status record_shape(gpu_device *dev, const copy_shapes *c, int shape, gpu_encoder *enc, util_error *err) {
  wgk_status st = WGK_OK;
  int first = shape == 0 || shape >= 3 ? 2 : 0;
  for (int k = 0; st == WGK_OK && shape == 0 && k < 2; k++)
    st = gpu_buffer_write(dev, c->piece[k], 0, c->src + c->at[k], c->len[k], err);
  if (shape == 2 || shape == 4) {
    size_t from = c->at[first];
    return st ? st : gpu_encoder_copy(enc, c->staging, from, c->whole, 0, c->total - from, err);
  }
  for (int k = first; st == WGK_OK && k < PIECES; k++)
    st = gpu_encoder_copy(enc, c->staging, c->at[k], c->piece[k], 0, c->len[k], err);
  return st;
}

/* ROUNDS rounds, each shape once a round in turn; the median µs of each shape's submission + wait. */
static wgk_status time_shapes(gpu_device *dev, const copy_shapes *c, double *out, util_error *err) {
  static double t[SHAPES][ROUNDS];
  for (int r = 0; r < ROUNDS; r++)
    for (int s = 0; s < SHAPES; s++) {
      gpu_encoder *enc = NULL;
      double t0 = now_us();
      wgk_status st = gpu_encoder_begin(dev, "probe shapes", &enc, err);
      if (!st) st = record_shape(dev, c, s, enc, err);
      if (!st)
        st = gpu_encoder_submit(enc, err);
      else
        gpu_encoder_discard(enc);
      if (!st) st = gpu_wait(dev, 10000, "probe shapes", err);
      if (st) return st;
      t[s][r] = now_us() - t0;
    }
  for (int s = 0; s < SHAPES; s++) out[s] = median(t[s], ROUNDS);
  return WGK_OK;
}

static int probe_shapes(gpu_device *dev, size_t bytes, const char *src, double empty, util_error *err) {
  copy_shapes c = {.src = src};
  size_t len[PIECES] = {bytes / 128, 4, bytes / 2, bytes / 2};
  for (int k = 0; k < PIECES; k++) {
    c.at[k] = c.total;
    c.len[k] = len[k];
    c.total += (len[k] + 255) & ~(size_t)255; /* a storage binding's offset alignment */
  }
  void *mapped = NULL;
  uint32_t dst_usage = WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_DST;
  wgk_status st = gpu_buffer_create_mapped(dev, c.total, WGK_GPU_BUFFER_MAP_WRITE | WGK_GPU_BUFFER_COPY_SRC,
                                           "probe shapes staging", &c.staging, &mapped, err);
  if (!st) memcpy(mapped, src, c.total < bytes ? c.total : bytes), gpu_buffer_unmap(c.staging);
  if (!st) st = gpu_buffer_create(dev, c.total, dst_usage, "probe shapes whole", &c.whole, err);
  for (int k = 0; !st && k < PIECES; k++)
    st = gpu_buffer_create(dev, c.len[k], dst_usage, "probe piece", &c.piece[k], err);
  double m[SHAPES];
  if (!st) st = time_shapes(dev, &c, m, err);
  if (!st) {
    printf(
        "the decode inputs (x %zu B, positions 4 B, caches 2 x %zu B), submit + wait, median of %d rounds "
        "(shapes in turn), us past an empty submission (%.1f):\n",
        c.len[0], c.len[2], ROUNDS, empty);
    for (int s = 0; s < SHAPES; s++) printf("  %-58s %7.1f  (+%.1f)\n", shape_names[s], m[s], m[s] - empty);
  }
  gpu_buffer_destroy(c.staging);
  gpu_buffer_destroy(c.whole);
  for (int k = 0; k < PIECES; k++) gpu_buffer_destroy(c.piece[k]);
  return st ? 1 : 0;
}

int main(int argc, char **argv) {
  size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 2) << 20;
  util_error err = {0};
  gpu_device *dev = NULL;
  gpu_options o = {0};
  if (gpu_device_create(&o, &dev, &err) != WGK_OK) {
    fprintf(stderr, "upload_probe: %s\n", err.message);
    return 1;
  }
  const device_desc *d = gpu_device_desc(dev);
  printf("adapter: %s (%s)\n", d->device[0] ? d->device : d->description, d->adapterType);
  char *src = malloc(bytes), *host = malloc(bytes);
  for (size_t i = 0; i < bytes; i++) src[i] = (char)(i * 131 + 7), host[i] = 0;
  gpu_buffer *staging = NULL, *dst = NULL, *dst2 = NULL;
  void *mapped = NULL;
  if (gpu_buffer_create_mapped(dev, bytes, WGK_GPU_BUFFER_MAP_WRITE | WGK_GPU_BUFFER_COPY_SRC, "probe staging",
                               &staging, &mapped, &err) != WGK_OK ||
      gpu_buffer_create(dev, bytes, WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_DST | WGK_GPU_BUFFER_COPY_SRC,
                        "probe dst", &dst, &err) != WGK_OK ||
      gpu_buffer_create(dev, bytes, WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_DST, "probe dst2", &dst2, &err) !=
          WGK_OK) {
    fprintf(stderr, "upload_probe: %s\n", err.message);
    return 1;
  }
  fill_job job = {.src = src, .bytes = bytes};
  pthread_t th[MAX_THREADS];
  worker_arg wa[MAX_THREADS];
  for (int k = 1; k < MAX_THREADS; k++) {
    wa[k] = (worker_arg){&job, k};
    pthread_create(&th[k], NULL, spin_worker, &wa[k]);
  }
  printf("fill of %zu KiB, spinning threads, median of %d (us, GB/s):\n", bytes >> 10, REPS);
  for (int n = 1; n <= MAX_THREADS; n *= 2) {
    double m = timed_fill(&job, mapped, n), h = timed_fill(&job, host, n);
    printf("  threads %2d: staging mapping %7.1f us %6.1f GB/s | host memory %7.1f us %6.1f GB/s\n", n, m,
           gbps(bytes, m), h, gbps(bytes, h));
  }
  atomic_store(&job.stop, true);
  for (int k = 1; k < MAX_THREADS; k++) pthread_join(th[k], NULL);
  size_t rd = bytes < (256u << 10) ? bytes : 256u << 10;
  volatile unsigned long sum = 0;
  double t0 = now_us();
  for (size_t i = 0; i < rd; i += 8) sum += *(const unsigned long *)((const char *)mapped + i);
  double r = now_us() - t0;
  printf("read of %zu KiB from the staging mapping: %.1f us, %.2f GB/s (sum %lu)\n", rd >> 10, r, gbps(rd, r), sum);
  gpu_buffer_unmap(staging);
  double empty = timed_copy(dev, NULL, NULL, 0, &err);
  double up = timed_copy(dev, staging, dst, bytes, &err);
  double dd = timed_copy(dev, dst, dst2, bytes, &err);
  if (empty < 0 || up < 0 || dd < 0) {
    fprintf(stderr, "upload_probe: %s\n", err.message);
    return 1;
  }
  printf(
      "submit + wait (median of %d): empty %.1f us; staging -> device copy %.1f us (%.1f GB/s past empty); "
      "device -> device copy %.1f us\n",
      REPS, empty, up, gbps(bytes, up - empty), dd);
  if (probe_shapes(dev, bytes, src, empty, &err)) {
    fprintf(stderr, "upload_probe: %s\n", err.message);
    return 1;
  }
  gpu_buffer_destroy(staging);
  gpu_buffer_destroy(dst);
  gpu_buffer_destroy(dst2);
  gpu_device_destroy(dev);
  free(src);
  free(host);
  return 0;
}
