/*
 * Keeping a benchmark's process off some CPUs (Linux CPU lists and sched_setaffinity). On the H200 a thread that
 * waits on the CPU taking the GPU's interrupts sees each submission done about 40 us late (bench/irq.h), so
 * `wgk bench --off-irq-cpu` moves every thread of its own process off that CPU before it measures. The library
 * never moves its caller's threads; only the benchmark, which is its own caller, does.
 */
#ifndef WGK_BENCH_AFFINITY_H
#define WGK_BENCH_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/irq.h"

/* A Linux CPU list ("14", "0-3,8-11", a trailing newline allowed) as a set of CPUs below BENCH_IRQ_MAX_CPUS;
 * false (cpus left empty) when the text is not one or names a CPU past the set. */
bool bench_cpu_list_parse(const char *text, bool cpus[BENCH_IRQ_MAX_CPUS]);

/* The set as a CPU list ("0-3,8"; "" when empty), cut to cap bytes. */
void bench_cpu_list_format(const bool cpus[BENCH_IRQ_MAX_CPUS], char *out, size_t cap);

/* Moves every thread of this process off cpus (each keeps the rest of its affinity); threads made afterwards
 * inherit it. false, with why, when a thread could run nowhere else or the move fails; then no thread has moved. */
bool bench_keep_off(const bool cpus[BENCH_IRQ_MAX_CPUS], char *why, size_t cap);

#endif
