/* wgk bench's pure parts: order statistics and repeats, the consistency rules, the busy-time union of
 * timestamp slots, the shape of the ceilings' JSON. No GPU, no timing. */
#define _GNU_SOURCE /* sched_getaffinity, pthread_getaffinity_np */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "bench/affinity.h"
#include "bench/breakdown.h"
#include "bench/ceiling.h"
#include "bench/consistency.h"
#include "bench/first_call.h"
#include "bench/irq.h"
#include "bench/stats.h"
#include "gpu/gpu.h"
#include "util/wgk_test.h"

static void stat_median_and_percentiles(void **state) {
  (void)state;
  double v[] = {5, 1, 4, 2, 3}; /* numpy: median 3, p10 1.4, p90 4.6 */
  bench_stat s = bench_stat_of(v, 5);
  assert_float_equal(s.median, 3, 1e-12);
  assert_float_equal(s.p10, 1.4, 1e-12);
  assert_float_equal(s.p90, 4.6, 1e-12);
  assert_int_equal(s.n, 5);
  assert_float_equal(v[0], 5, 0); /* left as it was */
  double w[] = {10, 20};
  assert_float_equal(bench_stat_of(w, 2).median, 15, 1e-12);
  assert_int_equal(bench_stat_of(w, 0).n, 0);
}

static void spread_of_repeats(void **state) {
  (void)state;
  double a[] = {100, 104, 102};
  assert_float_equal(bench_spread(a, 3), 0.04, 1e-12);
  assert_float_equal(bench_spread(a, 1), 0, 0);
  double same[] = {7, 7, 7};
  assert_float_equal(bench_spread(same, 3), 0, 0);
  double zero[] = {0, 5};
  assert_true(isinf(bench_spread(zero, 2)));
}

static void series_pools_repeats(void **state) {
  (void)state;
  bench_series s = {0};
  double r1[] = {10, 11, 12}, r2[] = {20, 21, 22, 23}, r3[] = {11};
  assert_true(bench_series_add(&s, r1, 3));
  assert_true(bench_series_add(&s, r2, 4));
  assert_true(bench_series_add(&s, r3, 1));
  assert_int_equal(s.repeats, 3);
  assert_float_equal(s.medians[0], 11, 0);
  assert_float_equal(s.medians[1], 21.5, 1e-12);
  assert_float_equal(s.medians[2], 11, 0);
  bench_stat all = bench_series_stat(&s);
  assert_int_equal(all.n, 8);
  assert_float_equal(all.median, 16, 1e-12); /* 10 11 11 12 | 20 21 22 23 */
  assert_float_equal(bench_series_spread(&s), 10.5 / 11, 1e-12);
  for (int i = 3; i < WGK_BENCH_MAX_REPEATS; i++) assert_true(bench_series_add(&s, r3, 1));
  assert_false(bench_series_add(&s, r3, 1)); /* past the repeats kept: refused, not overrun */
  bench_series_free(&s);
  assert_null(s.samples);
}

/* One series timed in one go, dealt into three repeats: a level that moves over time moves every repeat alike,
 * and the drift over the thirds shows it. */
static void series_deals_repeats(void **state) {
  (void)state;
  bench_series s = {0};
  double levels[] = {10, 11, 12, 10, 11, 12, 20, 21, 22, 20, 21, 22};
  assert_true(bench_series_deal(&s, levels, 12, 3, 1));
  assert_int_equal(s.repeats, 3);
  assert_float_equal(s.medians[0], 15, 1e-12); /* 10 10 20 20 */
  assert_float_equal(s.medians[1], 16, 1e-12);
  assert_float_equal(s.medians[2], 17, 1e-12);
  assert_int_equal(s.n, 12);
  for (int i = 0; i < 12; i++) assert_float_equal(s.samples[i], levels[i], 0); /* pooled in time order */
  assert_float_equal(bench_series_drift(&s, 3), 21.5 / 10.5 - 1, 1e-12);       /* thirds: 10.5, 16, 21.5 */
  assert_float_equal(bench_series_drift(&s, 2), 21.0 / 11 - 1, 1e-12);         /* halves: 11, 21 */
  assert_float_equal(bench_series_spread(&s), 2.0 / 15, 1e-12);
  double ones[] = {5, 6};
  assert_true(bench_series_deal(&s, ones, 2, 1, 1)); /* k 1: one repeat, as bench_series_add */
  assert_int_equal(s.repeats, 4);
  assert_float_equal(s.medians[3], 5.5, 1e-12);
  assert_false(bench_series_deal(&s, levels, 12, 5, 1)); /* past the repeats kept: refused, nothing added */
  assert_int_equal(s.repeats, 4);
  assert_int_equal(s.n, 14);
  bench_series_free(&s);
  /* Samples that rotate through 3 input copies (period 3), dealt one at a time, would give each repeat one copy;
   * in blocks of 3 each repeat gets every copy. */
  double rotating[] = {50, 53, 57, 50, 53, 57, 50, 53, 57, 50, 53, 57, 50, 53, 57, 50, 53, 57};
  assert_true(bench_series_deal(&s, rotating, 18, 3, 1));
  assert_float_equal(bench_series_spread(&s), 7.0 / 50, 1e-12); /* aliased: 50, 53, 57 */
  bench_series_free(&s);
  assert_true(bench_series_deal(&s, rotating, 18, 3, 3));
  assert_float_equal(bench_series_spread(&s), 0, 0);
  for (size_t r = 0; r < 3; r++) assert_float_equal(s.medians[r], 53, 0);
  bench_series short_one = {0};
  assert_float_equal(bench_series_drift(&short_one, 3), 0, 0);
  bench_series_free(&s);
}

/* /proc/interrupts as the H200's machine showed it (fewer CPUs): the driver's lines summed per CPU, summary lines
 * of fewer columns and other drivers' lines left out, and the CPU whose count grew most. */
static void irq_counts_of_a_driver(void **state) {
  (void)state;
  const char *text =
      "           CPU0       CPU1       CPU2       CPU3\n"
      "  1:          9          0          0          0  IO-APIC   1-edge      i8042\n"
      " 42:          0          0     557198          0  PCI-MSIX-0000:00:06.0   0-edge      nvidia\n"
      " 44:         12          0          0          0  PCI-MSIX-0000:00:06.0   2-edge      NVIDIA\n"
      " 50:          7          7          7          7  PCI-MSIX-0000:00:05.0   0-edge      virtio0\n"
      "NMI:          0          0          0          0   Non-maskable interrupts\n"
      "ERR:          0\n"
      "MIS:          0";
  bench_irq_counts before, after;
  assert_true(bench_irq_parse(text, "nvidia", &before));
  assert_int_equal(before.n_cpus, 4);
  assert_int_equal(before.count[0], 12);
  assert_int_equal(before.count[1], 0);
  assert_int_equal(before.count[2], 557198);
  assert_int_equal(before.count[3], 0);
  assert_false(bench_irq_parse(text, "amdgpu", &after)); /* no line of that driver */
  assert_false(bench_irq_parse(text, "", &after));
  assert_false(bench_irq_parse("no header", "nvidia", &after));
  after = before;
  assert_int_equal(bench_irq_busiest(&before, &after), -1); /* none grew */
  after.count[2] += 10;
  after.count[0] += 20;
  assert_int_equal(bench_irq_busiest(&before, &after), 0);
  after.count[2] += 11;
  assert_int_equal(bench_irq_busiest(&before, &after), 2);
}

/* The CPUs a burst interrupted: every one that grew by a tenth of the most or more, not a stray few elsewhere. */
static void irq_cpus_a_burst_grew(void **state) {
  (void)state;
  bench_irq_counts before = {.n_cpus = 4, .count = {5, 5, 5, 5}}, after = before;
  bool cpus[BENCH_IRQ_MAX_CPUS];
  cpus[0] = true;
  assert_int_equal(bench_irq_grown(&before, &after, cpus), 0); /* none grew */
  assert_false(cpus[0]);
  after.count[2] += 1000;
  after.count[0] += 99; /* under a tenth */
  after.count[3] += 100;
  assert_int_equal(bench_irq_grown(&before, &after, cpus), 2);
  for (int c = 0; c < BENCH_IRQ_MAX_CPUS; c++) assert_int_equal(cpus[c], c == 2 || c == 3);
  after.count[1] = 0; /* a count that fell (another table) is no growth */
  assert_int_equal(bench_irq_grown(&before, &after, cpus), 2);
  assert_false(cpus[1]);
}

static void cpu_lists_written(void **state) {
  (void)state;
  bool cpus[BENCH_IRQ_MAX_CPUS] = {0};
  char text[64];
  bench_cpu_list_format(cpus, text, sizeof text);
  assert_string_equal(text, "");
  cpus[0] = cpus[1] = cpus[2] = cpus[3] = cpus[8] = cpus[9] = cpus[14] = cpus[255] = true;
  bench_cpu_list_format(cpus, text, sizeof text);
  assert_string_equal(text, "0-3,8-9,14,255");
  bench_cpu_list_format(cpus, text, 5); /* cut before the entry that does not fit */
  assert_string_equal(text, "0-3");
}

static pthread_barrier_t keep_off_barrier;

static void *parked_thread(void *arg) {
  (void)arg;
  pthread_barrier_wait(&keep_off_barrier); /* made */
  pthread_barrier_wait(&keep_off_barrier); /* moved: may end */
  return NULL;
}

/* Every thread of the process is moved off the CPUs named, and keeps the rest of its affinity; a move that would
 * leave a thread no CPU moves nothing. Skipped where this process may run on one CPU only. */
static void keep_off_moves_every_thread(void **state) {
  (void)state;
  cpu_set_t was, now;
  assert_int_equal(sched_getaffinity(0, sizeof was, &was), 0);
  if (CPU_COUNT(&was) < 2)
    wgk_skip("this process may run on %d CPU only: no CPU to keep a thread off", CPU_COUNT(&was));
  int first = 0;
  while (!CPU_ISSET(first, &was)) first++;
  bool off[BENCH_IRQ_MAX_CPUS] = {0}, all[BENCH_IRQ_MAX_CPUS] = {0};
  off[first] = true;
  for (int c = 0; c < BENCH_IRQ_MAX_CPUS; c++) all[c] = CPU_ISSET(c, &was);
  pthread_t t;
  assert_int_equal(pthread_barrier_init(&keep_off_barrier, NULL, 2), 0);
  assert_int_equal(pthread_create(&t, NULL, parked_thread, NULL), 0);
  pthread_barrier_wait(&keep_off_barrier);
  util_error why;
  util_error_clear(&why);
  assert_true(bench_keep_off(off, &why));
  cpu_set_t want = was;
  CPU_CLR(first, &want);
  assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
  assert_true(CPU_EQUAL(&now, &want));
  assert_int_equal(pthread_getaffinity_np(t, sizeof now, &now), 0);
  assert_true(CPU_EQUAL(&now, &want));
  assert_false(bench_keep_off(all, &why)); /* none left: refused, nothing moved */
  assert_non_null(strstr(why.message, "no other CPU is left to it"));
  assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
  assert_true(CPU_EQUAL(&now, &want));
  assert_int_equal(pthread_getaffinity_np(t, sizeof now, &now), 0);
  assert_true(CPU_EQUAL(&now, &want));
  assert_int_equal(pthread_setaffinity_np(t, sizeof was, &was), 0);
  assert_int_equal(sched_setaffinity(0, sizeof was, &was), 0);
  pthread_barrier_wait(&keep_off_barrier);
  assert_int_equal(pthread_join(t, NULL), 0);
  pthread_barrier_destroy(&keep_off_barrier);
}

static uint64_t sum(const uint64_t *v, uint32_t n) {
  uint64_t t = 0;
  for (uint32_t i = 0; i < n; i++) t += v[i];
  return t;
}

/* Sequential passes keep their own durations. */
static void busy_of_sequential_passes(void **state) {
  (void)state;
  uint64_t st[] = {1000, 1100, 1150, 1400, 1400, 1450};
  uint64_t busy[3];
  gpu_timestamps_busy(st, NULL, 3, busy);
  assert_int_equal(busy[0], 100);
  assert_int_equal(busy[1], 250);
  assert_int_equal(busy[2], 50);
}

/* A begin latched before the previous pass ended (Dawn: TOP_OF_PIPE, before the barrier): the overlap counts
 * once. Summing end - begin per pass gave 100 + 150 + 100 = 350 for a span of 250: more GPU time than the
 * wall time of the submission that contained it. */
static void busy_counts_overlap_once(void **state) {
  (void)state;
  uint64_t st[] = {0, 100, 50, 200, 120, 250};
  uint64_t busy[3];
  gpu_timestamps_busy(st, NULL, 3, busy);
  assert_int_equal(busy[0], 100);
  assert_int_equal(busy[1], 100);
  assert_int_equal(busy[2], 50);
  assert_int_equal(sum(busy, 3), 250);    /* the span, first begin to last end */
  uint64_t nested[] = {0, 300, 100, 200}; /* a pass inside another adds nothing */
  gpu_timestamps_busy(nested, NULL, 2, busy);
  assert_int_equal(busy[0], 300);
  assert_int_equal(busy[1], 0);
  uint64_t tie[] = {10, 50, 10, 80}; /* equal begins: the lower slot comes first */
  gpu_timestamps_busy(tie, NULL, 2, busy);
  assert_int_equal(busy[0], 40);
  assert_int_equal(busy[1], 30);
}

/* Slots the last recording did not write (stale values of an earlier run) and reversed ones give 0. */
static void busy_skips_unwritten_and_reversed(void **state) {
  (void)state;
  uint64_t st[] = {5000, 5100, 100, 900, 6000, 5900, 0, 0};
  bool written[] = {true, false, true, true};
  uint64_t busy[4];
  gpu_timestamps_busy(st, written, 4, busy);
  assert_int_equal(busy[0], 100);
  assert_int_equal(busy[1], 0);           /* stale: 800 ns of another run */
  assert_int_equal(busy[2], 0);           /* end before begin */
  assert_int_equal(busy[3], 0);           /* written, both 0: nothing */
  gpu_timestamps_busy(st, NULL, 4, busy); /* without the mask a nonzero pair counts */
  assert_int_equal(busy[1], 800);
  assert_int_equal(busy[3], 0);
}

/* The span runs from the earliest begin to the latest end of the written, unreversed slots: gaps between passes
 * (clears, copies, barriers outside them) count, which the busy union leaves out. */
static void span_of_passes(void **state) {
  (void)state;
  uint64_t st[] = {1000, 1100, 1150, 1400, 1400, 1450}; /* a 50 ns gap between the first two passes */
  uint64_t busy[3];
  gpu_timestamps_busy(st, NULL, 3, busy);
  assert_int_equal(sum(busy, 3), 400);
  assert_int_equal(gpu_timestamps_span(st, NULL, 3), 450);
  uint64_t stale[] = {5000, 5100, 100, 9000, 6000, 5900, 5200, 5300};
  bool written[] = {true, false, true, true}; /* slot 1 stale, slot 2 reversed */
  assert_int_equal(gpu_timestamps_span(stale, written, 4), 300);
  assert_int_equal(gpu_timestamps_span(stale, written, 1), 100);
  bool none[] = {false, false, false, false};
  assert_int_equal(gpu_timestamps_span(stale, none, 4), 0);
  uint64_t zeros[] = {0, 0, 0, 0}; /* no mask: pairs of zeros are unwritten */
  assert_int_equal(gpu_timestamps_span(zeros, NULL, 2), 0);
}

static void consistent_figures(void **state) {
  (void)state;
  char why[512];
  bench_figures f = {.timestamps = true,
                     .gpu_ns = 234e3,
                     .batch_ns = 240e3,
                     .batch_calls = 16,
                     .resident_ns = 303e3,
                     .timed_call_ns = 320e3,
                     .timed_call_gpu_ns = 240e3,
                     .timed_call_span_ns = 320e3}; /* the span may equal the call's wall time */
  assert_true(bench_consistent(&f, why, sizeof why));
  assert_string_equal(why, "");
  f.gpu_ns = 250e3; /* within WGK_BENCH_BATCH_TOLERANCE of the batch figure */
  assert_true(bench_consistent(&f, why, sizeof why));
  f.resident_ns = 0; /* a ceiling kernel: no resident figure */
  f.timed_call_ns = 0;
  assert_true(bench_consistent(&f, why, sizeof why));
}

/* The H200 figures of issue 14: 925 us of timestamps in a call whose whole resident time was 303 us. */
static void inconsistent_figures_say_why(void **state) {
  (void)state;
  char why[512];
  bench_figures f = {.timestamps = true,
                     .gpu_ns = 925e3,
                     .batch_ns = 240e3,
                     .batch_calls = 16,
                     .resident_ns = 303e3,
                     .timed_call_ns = 1100e3};
  assert_false(bench_consistent(&f, why, sizeof why));
  assert_non_null(strstr(why, "GPU time 925.0 us exceeds the whole resident call's 303.0 us"));
  assert_non_null(strstr(why, "more than the 240.0 us per call of the 16 back-to-back calls"));
  assert_null(strstr(why, "lone timed call"));
  /* a lone timed call whose timestamps, or span, lie past its own wall time: broken timestamps */
  f.timed_call_ns = 500e3;
  f.timed_call_gpu_ns = 510e3;
  f.timed_call_span_ns = 400e3;
  assert_false(bench_consistent(&f, why, sizeof why));
  assert_non_null(strstr(why, "timestamps of a lone timed call give 510.0 us, more than the 500.0 us wall time"));
  assert_null(strstr(why, "GPU span"));
  f.timed_call_gpu_ns = 300e3;
  f.timed_call_span_ns = 501e3;
  assert_false(bench_consistent(&f, why, sizeof why));
  assert_null(strstr(why, "lone timed call give"));
  assert_non_null(strstr(why, "GPU span of a lone timed call (first pass's begin to last pass's end) is 501.0 us"));
  /* the same lone figures without timestamps as the GPU source are not checked (a CPU adapter's) */
  bench_figures cpu = {.gpu_ns = 100e3,
                       .batch_ns = 100e3,
                       .resident_ns = 200e3,
                       .timed_call_ns = 100e3,
                       .timed_call_gpu_ns = 900e3,
                       .timed_call_span_ns = 900e3};
  assert_true(bench_consistent(&cpu, why, sizeof why));
  /* the batch figure as GPU time (no usable timestamps): only gpu <= resident applies */
  bench_figures b = {.timestamps = false, .gpu_ns = 320e3, .batch_ns = 320e3, .batch_calls = 4, .resident_ns = 303e3};
  assert_false(bench_consistent(&b, why, sizeof why));
  assert_non_null(strstr(why, "exceeds the whole resident call's 303.0 us (run + wait) by more than 5%"));
  assert_null(strstr(why, "back-to-back"));
  b.gpu_ns = b.batch_ns = 303e3 * 1.049; /* two wall times of the same work, apart by noise */
  assert_true(bench_consistent(&b, why, sizeof why));
  b.timestamps = true; /* GPU time from timestamps: never past the call's wall time */
  b.batch_ns = 400e3;
  assert_false(bench_consistent(&b, why, sizeof why));
  assert_null(strstr(why, "by more than"));
  bench_figures none = {.timestamps = true};
  assert_false(bench_consistent(&none, why, sizeof why));
  assert_string_equal(why, "no GPU time was measured");
}

static void repeats_agree_within_tolerance(void **state) {
  (void)state;
  char why[512];
  const char *names[] = {"gpu", "batch", "resident"};
  double ok[] = {0.0, 0.049, 0.05};
  assert_true(bench_repeats_agree(names, ok, 3, why, sizeof why));
  assert_string_equal(why, "");
  double bad[] = {0.02, 0.124, 0.31};
  assert_false(bench_repeats_agree(names, bad, 3, why, sizeof why));
  assert_null(strstr(why, "gpu"));
  assert_non_null(strstr(why, "the batch medians of the repeats spread 12.4%"));
  assert_non_null(strstr(why, "the resident medians of the repeats spread 31.0%"));
  /* a loaded host says so after the spreads; an idle or unknown one adds nothing */
  bench_load_note(12.5, 2, why, sizeof why);
  assert_non_null(strstr(why, "spread 31.0% (more than 5%); the host's load average was 12.5 on 2 cores"));
  char quiet[64] = "";
  bench_load_note(1.9, 2, quiet, sizeof quiet);
  bench_load_note(2.0, 2, quiet, sizeof quiet);
  bench_load_note(-1, 2, quiet, sizeof quiet);
  bench_load_note(5, 0, quiet, sizeof quiet);
  assert_string_equal(quiet, "");
}

static json_t *at(json_t *o, const char *path) { /* "a.b.c" */
  char buf[128];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, ".")) o = json_object_get(o, k);
  return o;
}

/* The per-case copy times the ceiling's best variant and its neighbours in 1, 2, 4, 8 only; without a best, all. */
static void copy_variants_near_the_best(void **state) {
  (void)state;
  static const struct {
    uint32_t best;
    size_t n;
    uint32_t want[WGK_BENCH_COPY_VARIANTS];
  } cases[] = {
      {1, 2, {1, 2}},       {2, 3, {1, 2, 4}},    {4, 3, {2, 4, 8}},     {8, 2, {4, 8}},
      {0, 4, {1, 2, 4, 8}}, {3, 4, {1, 2, 4, 8}}, {16, 4, {1, 2, 4, 8}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint32_t got[WGK_BENCH_COPY_VARIANTS] = {99, 99, 99, 99};
    size_t n = bench_copy_variants_near(cases[i].best, got);
    if (n != cases[i].n) fail_msg("best %u: %zu variants, want %zu", cases[i].best, n, cases[i].n);
    for (size_t k = 0; k < n; k++)
      if (got[k] != cases[i].want[k])
        fail_msg("best %u: variant %zu is %u vec4 per thread, want %u", cases[i].best, k, got[k], cases[i].want[k]);
    for (size_t k = n; k < WGK_BENCH_COPY_VARIANTS; k++) assert_int_equal(got[k], 99); /* nothing past n written */
  }
}

static void ceilings_json_shape(void **state) {
  (void)state;
  bench_ceilings c = {.timed = true,
                      .has_timestamps = true,
                      .copy = {.bytes = 1 << 20, .gbps = 4000, .vec4_per_thread = 4, .n_variants = 2},
                      .fma_flops = 1000,
                      .fma_threads = 256,
                      .fma_gflops = 50,
                      .has_transfers = true};
  c.copy.variants[0] = (bench_copy_variant){1, 3100, 338};
  c.copy.variants[1] = (bench_copy_variant){4, 4000, 262};
  c.copy.best.ns = (bench_stat){262, 250, 270, 10};
  c.copy.best.wall_ns = (bench_stat){265, 260, 280, 5};
  c.copy.best.dispatches = 10;
  c.copy.best.consistent = true;
  c.copy.best.timestamps_consistent = true;
  c.fma.consistent = false;
  snprintf(c.fma.reason, sizeof c.fma.reason, "timestamps give more");
  c.upload = (bench_transfer){64 << 20, {2.5e6, 2.4e6, 2.7e6, 10}, 26.8};
  c.download = (bench_transfer){64 << 20, {3e6, 2.9e6, 3.1e6, 10}, 22.4};
  json_t *j = bench_ceilings_json(&c);
  assert_non_null(j);
  assert_true(json_is_true(at(j, "timestampQueries")));
  assert_true(json_is_true(at(j, "timestampsUsed")));
  assert_string_equal(json_string_value(at(j, "timeSource")), "timestamps");
  assert_int_equal(json_integer_value(at(j, "copy.bytes")), 1 << 20);
  assert_float_equal(json_real_value(at(j, "copy.gbps")), 4000, 0);
  assert_int_equal(json_integer_value(at(j, "copy.vec4PerThread")), 4);
  assert_int_equal(json_array_size(at(j, "copy.variants")), 2);
  assert_int_equal(json_integer_value(json_object_get(json_array_get(at(j, "copy.variants"), 0), "vec4PerThread")), 1);
  assert_float_equal(json_real_value(at(j, "copy.ns.median")), 262, 0);
  assert_int_equal(json_integer_value(at(j, "copy.ns.n")), 10);
  assert_float_equal(json_real_value(at(j, "copy.wallNs.median")), 265, 0);
  assert_true(json_is_true(at(j, "copy.consistent")));
  assert_true(json_is_true(at(j, "copy.timestampsConsistent")));
  assert_true(json_is_false(at(j, "fma.consistent")));
  assert_true(json_is_false(at(j, "fma.timestampsConsistent")));
  assert_string_equal(json_string_value(at(j, "fma.reason")), "timestamps give more");
  assert_int_equal(json_integer_value(at(j, "fma.flops")), 1000);
  const char *dirs[] = {"upload", "download"};
  for (int d = 0; d < 2; d++) {
    json_t *t = json_object_get(j, dirs[d]);
    assert_non_null(t);
    assert_int_equal(json_object_size(t), 3); /* {bytes, ns, gbps} */
    assert_int_equal(json_integer_value(json_object_get(t, "bytes")), 64 << 20);
    assert_true(json_is_real(json_object_get(t, "gbps")));
    assert_int_equal(json_integer_value(at(t, "ns.n")), 10);
  }
  assert_float_equal(json_real_value(at(j, "upload.gbps")), 26.8, 0);
  assert_null(json_object_get(j, "submitWait"));
  json_decref(j);
  c.has_submit_wait = true;
  c.submit_wait = (bench_stat){18000, 17500, 19000, 200};
  j = bench_ceilings_json(&c);
  assert_float_equal(json_real_value(at(j, "submitWait.ns.median")), 18000, 0);
  assert_int_equal(json_integer_value(at(j, "submitWait.ns.n")), 200);
  assert_null(json_object_get(j, "emptyPass"));
  json_decref(j);
  c.has_empty_pass = true;
  c.empty_pass = (bench_stat){2100, 2000, 2300, 200};
  j = bench_ceilings_json(&c);
  assert_float_equal(json_real_value(at(j, "emptyPass.ns.median")), 2100, 0);
  assert_int_equal(json_integer_value(at(j, "emptyPass.ns.n")), 200);
  json_decref(j);
  /* no timestamps used (a CPU adapter or none at all) says so; no transfers measured: no keys */
  c.timed = false;
  c.has_transfers = false;
  j = bench_ceilings_json(&c);
  assert_true(json_is_false(at(j, "timestampsUsed")));
  assert_non_null(strstr(json_string_value(at(j, "timeSource")), "wall time of back-to-back dispatches"));
  assert_null(json_object_get(j, "upload"));
  assert_null(json_object_get(j, "download"));
  json_decref(j);
}

/* The resident-call breakdown: the H200 SparseAttention decode figures of issue 14 (460 us resident for 144 us
 * of passes), the derived gap and wait past the span, the floors, and the parts left out when not measured. */
static void breakdown_json_and_text(void **state) {
  (void)state;
  bench_breakdown b = {.resident = {460e3, 440e3, 500e3, 600},
                       .run = {40e3, 38e3, 45e3, 600},
                       .wait = {420e3, 400e3, 455e3, 600},
                       .has_timestamps = true,
                       .timestamps_trusted = true,
                       .timed_call = {480e3, 470e3, 520e3, 60},
                       .timed_run = {42e3, 40e3, 50e3, 60},
                       .timed_wait = {430e3, 420e3, 460e3, 60},
                       .timed_gpu = {144e3, 143e3, 146e3, 60},
                       .timed_span = {160e3, 158e3, 165e3, 60},
                       .warm_gpu = {143e3, 142e3, 145e3, 30},
                       .warm_span = {150e3, 149e3, 152e3, 30},
                       .has_submit_wait = true,
                       .submit_wait_ns = 18e3,
                       .has_empty_pass = true,
                       .empty_pass_ns = 2.5e3};
  json_t *j = bench_breakdown_json(&b);
  assert_float_equal(json_real_value(at(j, "residentNs.median")), 460e3, 0);
  assert_float_equal(json_real_value(at(j, "runNs.median")), 40e3, 0);
  assert_int_equal(json_integer_value(at(j, "waitNs.n")), 600);
  assert_true(json_is_true(at(j, "timestampsTrusted")));
  assert_float_equal(json_real_value(at(j, "timedCall.wallNs.median")), 480e3, 0);
  assert_float_equal(json_real_value(at(j, "timedCall.runNs.median")), 42e3, 0);
  assert_float_equal(json_real_value(at(j, "timedCall.waitNs.median")), 430e3, 0);
  assert_float_equal(json_real_value(at(j, "timedCall.gpuNs.median")), 144e3, 0);
  assert_float_equal(json_real_value(at(j, "timedCall.spanNs.median")), 160e3, 0);
  assert_float_equal(json_real_value(at(j, "timedCall.gapNs")), 16e3, 1e-9);           /* span - passes */
  assert_float_equal(json_real_value(at(j, "timedCall.waitPastSpanNs")), 270e3, 1e-9); /* wait - span */
  assert_float_equal(json_real_value(at(j, "warm.gpuNs.median")), 143e3, 0);
  assert_float_equal(json_real_value(at(j, "warm.spanNs.median")), 150e3, 0);
  assert_float_equal(json_real_value(at(j, "floor.submitWaitNs")), 18e3, 0);
  assert_float_equal(json_real_value(at(j, "floor.emptyPassNs")), 2.5e3, 0);
  json_decref(j);
  char line[1024];
  bench_breakdown_text(&b, line, sizeof line);
  assert_string_equal(line,
                      "resident 460.0 us = run 40.0 + wait 420.0 | timed call 480.0 = run 42.0 + wait 430.0 (+ read), "
                      "GPU passes 144.0, span 160.0; warm GPU 143.0, span 150.0 | floor: submit + wait 18.0, empty "
                      "pass 2.5");
  char small[16]; /* truncated, still terminated */
  bench_breakdown_text(&b, small, sizeof small);
  assert_int_equal(strlen(small), 15);
  /* no timestamp-query, no floors: only the resident split */
  bench_breakdown plain = {.resident = b.resident, .run = b.run, .wait = b.wait};
  j = bench_breakdown_json(&plain);
  assert_null(json_object_get(j, "timedCall"));
  assert_null(json_object_get(j, "warm"));
  assert_null(json_object_get(j, "timestampsTrusted"));
  assert_int_equal(json_object_size(at(j, "floor")), 0);
  json_decref(j);
  bench_breakdown_text(&plain, line, sizeof line);
  assert_string_equal(line, "resident 460.0 us = run 40.0 + wait 420.0");
  plain.has_timestamps = true; /* a CPU adapter's timestamps say so */
  bench_breakdown_text(&plain, line, sizeof line);
  assert_non_null(strstr(line, "timed call (a CPU adapter's timestamps)"));
}

/* `wgk bench --first-call`: the call is load + prepare + run + wait + read (the context and the inputs apart),
 * of wall and of CPU time; every phase in the JSON with both; the cache's counts only when it is on. */
static void first_call_json_and_text(void **state) {
  (void)state;
  bench_first_call f = {.instance_ns = 1e6,
                        .adapter_ns = 450e6,
                        .cache_open_ns = 0.5e6,
                        .device_ns = 200e6,
                        .describe_ns = 0.1e6,
                        .shader_ns = 10e6,
                        .pipeline_ns = 9e6,
                        .shaders = 1,
                        .pipelines = 1,
                        .has_cache = true,
                        .cache_loaded = 2};
  const double wall[BENCH_PHASES] = {700e6, 3e6, 200e6, 20e6, 12e6, 80e6, 10e6, 0.4e6};
  const double cpu[BENCH_PHASES] = {190e6, 2e6, 70e6, 9e6, 3e6, 25e6, 3e6, 0.4e6};
  memcpy(f.wall_ns, wall, sizeof wall);
  memcpy(f.cpu_ns, cpu, sizeof cpu);
  assert_float_equal(bench_first_call_ns(&f, false), 125e6, 1e-3);
  assert_float_equal(bench_first_call_ns(&f, true), 42e6, 1e-3);
  json_t *j = bench_first_call_json(&f);
  assert_float_equal(json_real_value(at(j, "callNs")), 125e6, 1e-3);
  assert_float_equal(json_real_value(at(j, "callCpuNs")), 42e6, 1e-3);
  assert_float_equal(json_real_value(at(j, "withContextNs")), 825e6, 1e-3);
  assert_int_equal(json_object_size(at(j, "phases")), BENCH_PHASES);
  for (int p = 0; p < BENCH_PHASES; p++) {
    json_t *ph = json_object_get(at(j, "phases"), bench_phase_name((bench_phase)p));
    assert_non_null(ph);
    assert_float_equal(json_real_value(json_object_get(ph, "wallNs")), wall[p], 0);
    assert_float_equal(json_real_value(json_object_get(ph, "cpuNs")), cpu[p], 0);
  }
  assert_non_null(at(j, "phases.secondCall"));
  assert_float_equal(json_real_value(at(j, "context.adapterNs")), 450e6, 0);
  assert_float_equal(json_real_value(at(j, "context.pipelineCacheOpenNs")), 0.5e6, 0);
  assert_float_equal(json_real_value(at(j, "shaderNs")), 10e6, 0);
  assert_int_equal(json_integer_value(at(j, "pipelines")), 1);
  assert_int_equal(json_integer_value(at(j, "pipelineCache.loaded")), 2);
  assert_int_equal(json_integer_value(at(j, "pipelineCache.stored")), 0);
  json_decref(j);
  char text[2048];
  bench_first_call_text(&f, text, sizeof text);
  assert_non_null(strstr(text, "first call: 125.0 ms wall, 42.0 ms CPU"));
  assert_non_null(strstr(text, "with the context 825.0 ms"));
  assert_non_null(strstr(text, " wait 80.0 / 25.0,"));
  assert_non_null(strstr(text, "pipeline cache: 2 loaded, 0 missed, 0 stored"));
  f.has_cache = false;
  j = bench_first_call_json(&f);
  assert_null(json_object_get(j, "pipelineCache"));
  json_decref(j);
  bench_first_call_text(&f, text, sizeof text);
  assert_non_null(strstr(text, "pipeline cache: off"));
  assert_string_equal(bench_phase_name(BENCH_PHASES), "?");
}

/* Issue 14's goals from the ceilings: transfer floor = in / upload + out / download; overhead = resident / bare. */
static void goals_of_a_case(void **state) {
  (void)state;
  bench_ceilings c = {.has_transfers = true, .has_submit_wait = true};
  c.upload.gbps = 20; /* bytes per ns */
  c.download.gbps = 10;
  c.submit_wait = (bench_stat){.median = 20000, .n = 200};
  /* 2e6 bytes in: 100 us; 1e6 out: 100 us; floor 200 us. e2e 500 us - resident 24 us = 476 us: 2.38x, missed */
  bench_goal_figures f = {2000000, 1000000, 500000, 24000, 8000, 0, NULL, NULL};
  bench_goals g = bench_goals_of(&c, &f);
  assert_true(g.has_transfer);
  assert_float_equal(g.transfer_floor_ns, 200000, 1e-6);
  assert_float_equal(g.transfer_ns, 476000, 1e-6);
  assert_false(g.transfer_met);
  f.e2e_ns = 264000;
  g = bench_goals_of(&c, &f);
  assert_float_equal(g.transfer_ratio, 1.2, 1e-12);
  assert_true(g.transfer_met);
  assert_true(g.has_overhead);
  assert_float_equal(g.overhead_ratio, 1.2, 1e-12);
  assert_true(g.overhead_met);
  assert_float_equal(g.host_ratio, 0.8, 1e-12);
  json_t *j = bench_goals_json(&g);
  assert_float_equal(json_real_value(at(j, "transfer.floorNs")), 200000, 1e-6);
  assert_float_equal(json_real_value(at(j, "transfer.goal")), WGK_BENCH_TRANSFER_GOAL, 0);
  assert_true(json_is_true(at(j, "transfer.met")));
  assert_float_equal(json_real_value(at(j, "transfer.uploadGbps")), 20, 0);
  assert_non_null(strstr(json_string_value(at(j, "transfer.ceilingsTimed")), ": the start"));
  assert_float_equal(json_real_value(at(j, "overhead.submitWaitNs")), 20000, 0);
  assert_string_equal(json_string_value(at(j, "overhead.submitWaitTimed")), "with the ceilings");
  assert_true(json_is_true(at(j, "overhead.met")));
  json_decref(j);
  /* the bare submission timed beside the resident calls, when there is one, over the ceilings' (17.9 us at one level
   * of the host, the resident calls at the other) */
  f.bare_beside_ns = 16000;
  g = bench_goals_of(&c, &f);
  assert_true(g.submit_wait_beside);
  assert_float_equal(g.overhead_ratio, 1.5, 1e-12);
  assert_false(g.overhead_met);
  j = bench_goals_json(&g);
  assert_float_equal(json_real_value(at(j, "overhead.submitWaitNs")), 16000, 0);
  assert_string_equal(json_string_value(at(j, "overhead.submitWaitTimed")), "beside the resident calls");
  json_decref(j);
  /* the transfer ceilings timed beside the case: each direction at the faster of the two (a start timed in a slow
   * moment of the link is no ceiling) */
  bench_transfer up = {.gbps = 40}, down = {.gbps = 5};
  f.upload_beside = &up;
  f.download_beside = &down;
  g = bench_goals_of(&c, &f);
  assert_true(g.transfer_beside);
  assert_float_equal(g.upload_gbps, 40, 0);
  assert_float_equal(g.download_gbps, 10, 0);
  assert_float_equal(g.transfer_floor_ns, 150000, 1e-6);        /* 2e6 / 40 + 1e6 / 10 */
  assert_float_equal(g.ratio_beside, 240000.0 / 250000, 1e-12); /* at 40 and 5 alone: 50 + 200 us */
  j = bench_goals_json(&g);
  assert_non_null(strstr(json_string_value(at(j, "transfer.ceilingsTimed")), ": beside"));
  assert_float_equal(json_real_value(at(j, "transfer.ratioAtBesideCeilings")), 0.96, 1e-12);
  json_decref(j);
  up.gbps = 19; /* both slower: the start's, as without them */
  g = bench_goals_of(&c, &f);
  assert_false(g.transfer_beside);
  assert_float_equal(g.transfer_floor_ns, 200000, 1e-6);
  f = (bench_goal_figures){1, 1, 2, 24000, 8000, 20000, NULL, NULL};
  c.has_submit_wait = false; /* beside alone is enough */
  g = bench_goals_of(&c, &f);
  assert_true(g.has_overhead && g.submit_wait_beside);
  assert_float_equal(g.overhead_ratio, 1.2, 1e-12);
  c.has_submit_wait = true;
  /* nothing measured: no goals, no keys */
  c.has_transfers = c.has_submit_wait = false;
  f = (bench_goal_figures){1, 1, 2, 1, 1, 0, NULL, NULL};
  g = bench_goals_of(&c, &f);
  assert_false(g.has_transfer || g.has_overhead);
  j = bench_goals_json(&g);
  assert_int_equal(json_object_size(j), 0);
  json_decref(j);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stat_median_and_percentiles),
      cmocka_unit_test(spread_of_repeats),
      cmocka_unit_test(series_pools_repeats),
      cmocka_unit_test(series_deals_repeats),
      cmocka_unit_test(irq_counts_of_a_driver),
      cmocka_unit_test(irq_cpus_a_burst_grew),
      cmocka_unit_test(cpu_lists_written),
      cmocka_unit_test(keep_off_moves_every_thread),
      cmocka_unit_test(busy_of_sequential_passes),
      cmocka_unit_test(busy_counts_overlap_once),
      cmocka_unit_test(busy_skips_unwritten_and_reversed),
      cmocka_unit_test(span_of_passes),
      cmocka_unit_test(consistent_figures),
      cmocka_unit_test(inconsistent_figures_say_why),
      cmocka_unit_test(repeats_agree_within_tolerance),
      cmocka_unit_test(copy_variants_near_the_best),
      cmocka_unit_test(ceilings_json_shape),
      cmocka_unit_test(goals_of_a_case),
      cmocka_unit_test(breakdown_json_and_text),
      cmocka_unit_test(first_call_json_and_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
