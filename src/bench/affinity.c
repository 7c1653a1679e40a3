/* Keeping this process off some CPUs (bench/affinity.h). */
#define _GNU_SOURCE /* sched_getaffinity, sched_setaffinity, cpu_set_t */
#include "bench/affinity.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "wgk.h"

void bench_cpu_list_format(const bool cpus[BENCH_IRQ_MAX_CPUS], char *out, size_t cap) {
  if (!cap) return;
  out[0] = '\0';
  size_t len = 0;
  for (int c = 0; c < BENCH_IRQ_MAX_CPUS; c++) {
    if (!cpus[c]) continue;
    int e = c;
    while (e + 1 < BENCH_IRQ_MAX_CPUS && cpus[e + 1]) e++;
    int w = e > c ? snprintf(out + len, cap - len, "%s%d-%d", len ? "," : "", c, e)
                  : snprintf(out + len, cap - len, "%s%d", len ? "," : "", c);
    if (w < 0 || (size_t)w >= cap - len) { /* cut before the entry that does not fit */
      out[len] = '\0';
      return;
    }
    len += (size_t)w;
    c = e;
  }
}

typedef struct thread_mask {
  pid_t tid;
  cpu_set_t was, now;
} thread_mask;

/* The threads of this process (/proc/self/task); NULL with why when they cannot be listed. */
static thread_mask *list_threads(size_t *n, util_error *why) {
  *n = 0;
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return util_error_plain(why, WGK_ERR_IO, "cannot list this process's threads (/proc/self/task): %s",
                            strerror(errno)),
           NULL;
  thread_mask *t = NULL;
  size_t room = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    if (*n == room) {
      room = room * 2 + 16;
      thread_mask *grown = realloc(t, room * sizeof *t);
      if (!grown) {
        free(t);
        closedir(d);
        return util_error_oom(why, NULL, "listing threads"), NULL;
      }
      t = grown;
    }
    t[(*n)++].tid = (pid_t)atol(e->d_name);
  }
  closedir(d);
  if (!t) util_error_plain(why, WGK_ERR_IO, "no thread listed in /proc/self/task");
  return t;
}

/* Each thread's affinity now and without cpus; false with why when one would be left no CPU. A thread gone
 * meanwhile gets tid 0. */
static bool plan_moves(thread_mask *t, size_t n, const bool cpus[BENCH_IRQ_MAX_CPUS], util_error *why) {
  for (size_t i = 0; i < n; i++) {
    if (sched_getaffinity(t[i].tid, sizeof t[i].was, &t[i].was) != 0) {
      if (errno == ESRCH) {
        t[i].tid = 0;
        continue;
      }
      return util_error_plain(why, WGK_ERR_IO, "thread %ld: sched_getaffinity: %s", (long)t[i].tid, strerror(errno)),
             false;
    }
    t[i].now = t[i].was;
    for (int c = 0; c < BENCH_IRQ_MAX_CPUS; c++)
      if (cpus[c]) CPU_CLR(c, &t[i].now);
    if (CPU_COUNT(&t[i].now) == 0) {
      char list[64];
      bench_cpu_list_format(cpus, list, sizeof list);
      return util_error_plain(why, WGK_ERR_INVALID_ARGUMENT,
                              "thread %ld may run only on CPU %s: no other CPU is left to it", (long)t[i].tid, list),
             false;
    }
  }
  return true;
}

bool bench_keep_off(const bool cpus[BENCH_IRQ_MAX_CPUS], util_error *why) {
  size_t n = 0;
  thread_mask *t = list_threads(&n, why);
  if (!t) return false;
  bool ok = plan_moves(t, n, cpus, why);
  size_t moved = 0;
  for (; ok && moved < n; moved++) {
    if (!t[moved].tid || sched_setaffinity(t[moved].tid, sizeof t[moved].now, &t[moved].now) == 0 || errno == ESRCH)
      continue;
    util_error_plain(why, WGK_ERR_IO, "thread %ld: sched_setaffinity: %s", (long)t[moved].tid, strerror(errno));
    ok = false;
    break;
  }
  for (size_t i = 0; !ok && i < moved; i++) /* put back the threads moved before the failure */
    if (t[i].tid) sched_setaffinity(t[i].tid, sizeof t[i].was, &t[i].was);
  free(t);
  return ok;
}
