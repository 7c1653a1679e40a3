/*
 * Keeping a benchmark's process off some CPUs (sched_setaffinity). On the H200 a thread that waits on the CPU
 * taking the GPU's interrupts sees each submission done about 40 us late (bench/irq.h), so `wgk bench
 * --off-irq-cpu` moves every thread of its own process off the CPUs a burst of bare submissions interrupted
 * (bench_irq_grown) before it measures. The library never moves its caller's threads; only the benchmark, which
 * is its own caller, does.
 */
#ifndef WGK_BENCH_AFFINITY_H
#define WGK_BENCH_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/irq.h"
#include "util/error.h"

/* A set of CPUs as a Linux CPU list ("0-3,8"; "" when empty), cut to cap bytes. */
void bench_cpu_list_format(const bool cpus[BENCH_IRQ_MAX_CPUS], char *out, size_t cap);

/* Moves every thread of this process off cpus (each keeps the rest of its affinity); threads made afterwards
 * inherit it. false, with why, when a thread could run nowhere else or the move fails; then no thread has moved. */
bool bench_keep_off(const bool cpus[BENCH_IRQ_MAX_CPUS], util_error *why);

#endif
