/* Per-CPU interrupt counts of one driver from /proc/interrupts (bench/irq.h). */
#include "bench/irq.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/affinity.h"
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
  char *num_end = NULL;
  long irq = strtol(p, &num_end, 10);
  while (num_end && num_end < colon && isspace((unsigned char)*num_end)) num_end++;
  if (num_end == colon && irq >= 0 && out->n_irqs < BENCH_IRQ_MAX_LINES) out->irq[out->n_irqs++] = (int)irq;
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

/* The text of a small file under /proc (NUL-terminated); NULL where it cannot be read. */
static char *read_text(const char *path) {
  unsigned char *text = NULL;
  size_t len = 0;
  util_error err = {0};
  if (util_file_read_all(path, 16u << 20, &text, &len, &err) != WGK_OK) return NULL;
  return (char *)text;
}

static bool read_counts(const char *proc, const char *driver, bench_irq_counts *out) {
  memset(out, 0, sizeof *out);
  char path[4096];
  snprintf(path, sizeof path, "%s/interrupts", proc);
  char *text = read_text(path);
  bool ok = text && bench_irq_parse(text, driver, out);
  free(text);
  return ok;
}

bool bench_irq_read(const char *driver, bench_irq_counts *out) { return read_counts("/proc", driver, out); }

/* The CPUs of proc/irq/N/NAME added to cpus; false when it cannot be read as a CPU list. */
static bool add_affinity(const char *proc, int irq, const char *name, bool cpus[BENCH_IRQ_MAX_CPUS]) {
  char path[4096];
  bool these[BENCH_IRQ_MAX_CPUS];
  snprintf(path, sizeof path, "%s/irq/%d/%s", proc, irq, name);
  char *text = read_text(path);
  bool ok = text && bench_cpu_list_parse(text, these);
  free(text);
  for (int c = 0; ok && c < BENCH_IRQ_MAX_CPUS; c++) cpus[c] |= these[c];
  return ok;
}

bool bench_irq_cpus(const char *proc, const char *driver, bool cpus[BENCH_IRQ_MAX_CPUS]) {
  memset(cpus, 0, BENCH_IRQ_MAX_CPUS * sizeof *cpus);
  bench_irq_counts counts;
  if (!read_counts(proc, driver, &counts)) return false;
  bool any = false;
  for (int i = 0; i < counts.n_irqs; i++)
    any |= add_affinity(proc, counts.irq[i], "effective_affinity_list", cpus) ||
           add_affinity(proc, counts.irq[i], "smp_affinity_list", cpus);
  return any;
}

int bench_irq_busiest(const bench_irq_counts *before, const bench_irq_counts *after) {
  int best = -1;
  uint64_t most = 0;
  for (int c = 0; c < after->n_cpus && c < before->n_cpus; c++) {
    uint64_t grew = after->count[c] > before->count[c] ? after->count[c] - before->count[c] : 0;
    if (grew > most) {
      most = grew;
      best = c;
    }
  }
  return best;
}
