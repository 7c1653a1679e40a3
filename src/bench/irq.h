/*
 * Which CPU takes a GPU's interrupts (Linux's /proc/interrupts), so a benchmark can tell whether its waits ran on
 * it. On the H200 a thread that waits on the CPU taking the GPU's interrupts sees each submission done about
 * 40 us late (bare submit + wait 48-56 us there, 21 us on any other core), with or without sched_yield between
 * its polls: the slow level of a resident call's time
 * (bench/results/archive-2026-12-02/h200-2026-12-02-dealt-repeats.md).
 */
#ifndef WGK_BENCH_IRQ_H
#define WGK_BENCH_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#define BENCH_IRQ_MAX_CPUS 256

typedef struct bench_irq_counts {
  int n_cpus;                         /* columns of the table */
  uint64_t count[BENCH_IRQ_MAX_CPUS]; /* per CPU: interrupts of the matching lines, summed */
} bench_irq_counts;

/* Sums per CPU the counts of the lines of text (/proc/interrupts' format: a header of CPU columns, then
 * "IRQ: counts... chip hwirq name") whose text after the counts contains driver (case-insensitive, not empty).
 * false when the header is missing or no line matches. */
bool bench_irq_parse(const char *text, const char *driver, bench_irq_counts *out);

/* The same of /proc/interrupts now; false where it cannot be read or no line matches. */
bool bench_irq_read(const char *driver, bench_irq_counts *out);

/* The CPUs whose count grew by at least a tenth of the most any grew, from before to after: those a burst of GPU
 * work interrupted, without a stray few elsewhere. Their number; 0 when none grew. */
int bench_irq_grown(const bench_irq_counts *before, const bench_irq_counts *after, bool cpus[BENCH_IRQ_MAX_CPUS]);

/* The CPU whose count grew most from before to after; -1 when none grew. */
int bench_irq_busiest(const bench_irq_counts *before, const bench_irq_counts *after);

#endif
