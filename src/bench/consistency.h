/*
 * Whether a benchmark's figures can all be true at once. The GPU time of one call cannot exceed the wall time
 * of the whole call (run + wait: it contains the GPU work), the timestamps of a call (and the span from its first
 * pass's begin to its last pass's end) cannot exceed the wall time of that call, and the timestamps of the last
 * call of a submission of K calls timed alike cannot exceed that submission's wall time per call (the GPU did
 * each call's work inside it, plus the submission and the barriers). A figure that breaks either rule is reported with
 * the reason, never dropped or clamped: it says the measurement is wrong (timestamps latched early, a clock that
 * changed between the series, a slot read from another run), not the kernel.
 */
#ifndef WGK_BENCH_CONSISTENCY_H
#define WGK_BENCH_CONSISTENCY_H

#include <stdbool.h>
#include <stddef.h>

/* Timestamps may exceed the back-to-back wall time per call by this fraction before it counts (calls of one
 * submission may overlap a little at their edges); so may the batch's wall time per call, where it is the GPU
 * figure, the resident call's (two wall times of the same work, apart by noise alone when the kernel dominates). */
#define WGK_BENCH_BATCH_TOLERANCE 0.05

typedef struct bench_figures {
  bool timestamps;           /* gpu_ns from timestamp queries; else it is batch_ns itself */
  double gpu_ns;             /* median GPU time per call (timestamps: of the last call of a warm back-to-back series) */
  double batch_ns;           /* median wall time per call of K back-to-back calls in one submission (timestamps: the
                                very submissions whose last call gave gpu_ns, every call timed alike); <= 0: not
                                measured */
  int batch_calls;           /* K */
  double resident_ns;        /* median wall time of one call (run + wait); <= 0: not measured (a ceiling kernel) */
  double timed_call_ns;      /* median wall time of lone timed calls (run + wait + reading the timestamps); <= 0: not
                                measured */
  double timed_call_gpu_ns;  /* their timestamps (busy union of the passes); <= 0: not measured */
  double timed_call_span_ns; /* their GPU span (first pass's begin to last pass's end); <= 0: not measured.
                                Either past timed_call_ns: broken timestamps (units, stale or early slots). */
} bench_figures;

/* true when every rule holds; else false and reason says which figure breaks which rule, with the values. */
bool bench_consistent(const bench_figures *f, char *reason, size_t size);

/* The repeats of the named series (spreads[i] = bench_spread of its medians) agree within
 * WGK_BENCH_REPEAT_TOLERANCE; else false and reason names each series that disagrees and its spread. */
bool bench_repeats_agree(const char *const *names, const double *spreads, size_t n, char *reason, size_t size);

/* Appends to reason why repeats may disagree where the host was busy: a load average (1 minute, sampled while the
 * case ran) above the cores online means other processes took cores between and within the series, which moves
 * every host-bound figure (resident, a CPU adapter's batch). Nothing when load <= cores or either is unknown
 * (<= 0). */
void bench_load_note(double load, int cores, char *reason, size_t size);

/* The host's 1-minute load average (/proc/loadavg), -1 when unknown. */
double bench_load_average(void);

#endif
