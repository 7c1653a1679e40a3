/* Per-CPU interrupt counts of one driver from /proc/interrupts (bench/irq.h). */
#include "bench/irq.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file_read.h"
#include "util/text.h"

/* The CPU columns of the header line [p, end): its "CPUn" words. */
static int header_cpus(const char *p, const char *end) {
  int n = 0;
  while (p < end) {
    while (p < end && isspace((unsigned char)*p)) p++;
    if (p + 3 <= end && strncmp(p, "CPU", 3) == 0) n++;
    while (p < end && !isspace((unsigned char)*p)) p++;
  }
  return n;
}

/* One line [p, end) added to out when its name matches; true when it did. */
static bool add_line(const char *p, const char *end, const char *driver, bench_irq_counts *out) {
  const char *colon = memchr(p, ':', (size_t)(end - p));
  if (!colon) return false;
  uint64_t counts[BENCH_IRQ_MAX_CPUS];
  const char *q = colon + 1;
  for (int c = 0; c < out->n_cpus; c++) {
    char *next = NULL;
    counts[c] = strtoull(q, &next, 10);
    if (next == q || next > end) return false; /* fewer columns (a summary line such as ERR:) */
    q = next;
  }
  if (!util_contains_nocase(q, (size_t)(end - q), driver)) return false;
  for (int c = 0; c < out->n_cpus; c++) out->count[c] += counts[c];
  return true;
}

bool bench_irq_parse(const char *text, const char *driver, bench_irq_counts *out) {
  memset(out, 0, sizeof *out);
  if (!text || !driver || !*driver) return false;
  const char *end = strchr(text, '\n');
  if (!end) return false;
  out->n_cpus = header_cpus(text, end);
  if (out->n_cpus <= 0 || out->n_cpus > BENCH_IRQ_MAX_CPUS) return false;
  bool any = false;
  for (const char *p = end + 1; *p; p = *end ? end + 1 : end) {
    end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    any |= add_line(p, end, driver, out);
  }
  return any;
}

bool bench_irq_read(const char *driver, bench_irq_counts *out) {
  memset(out, 0, sizeof *out);
  unsigned char *text = NULL;
  size_t len = 0;
  util_error err = {0};
  if (util_file_read_all("/proc/interrupts", 16u << 20, &text, &len, &err) != WGK_OK) return false;
  bool ok = bench_irq_parse((const char *)text, driver, out);
  free(text);
  return ok;
}

static uint64_t growth(const bench_irq_counts *before, const bench_irq_counts *after, int c) {
  return after->count[c] > before->count[c] ? after->count[c] - before->count[c] : 0;
}

int bench_irq_grown(const bench_irq_counts *before, const bench_irq_counts *after, bool cpus[BENCH_IRQ_MAX_CPUS]) {
  memset(cpus, 0, BENCH_IRQ_MAX_CPUS * sizeof *cpus);
  int n_cpus = after->n_cpus < before->n_cpus ? after->n_cpus : before->n_cpus, n = 0;
  uint64_t most = 0;
  for (int c = 0; c < n_cpus; c++)
    if (growth(before, after, c) > most) most = growth(before, after, c);
  for (int c = 0; most && c < n_cpus; c++)
    if (growth(before, after, c) * 10 >= most) cpus[c] = true, n++;
  return n;
}

int bench_irq_busiest(const bench_irq_counts *before, const bench_irq_counts *after) {
  int best = -1;
  uint64_t most = 0;
  for (int c = 0; c < after->n_cpus && c < before->n_cpus; c++) {
    uint64_t grew = growth(before, after, c);
    if (grew > most) {
      most = grew;
      best = c;
    }
  }
  return best;
}
