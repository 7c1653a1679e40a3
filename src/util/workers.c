/* A persistent host thread pool: a job is n tasks claimed one by one under the pool's lock by its threads and the
 * caller; a generation count wakes the threads for each job, a done count wakes the caller. Where a spin is set,
 * threads and caller watch those counts for that long before they sleep on the condition variables. */
#include "util/workers.h"
#include "util/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#define WORKERS_MAX 64

struct util_workers {
  pthread_mutex_t lock;
  pthread_cond_t work;     /* a new job or stop */
  pthread_cond_t finished; /* the job's last task done */
  pthread_t threads[WORKERS_MAX];
  int max_threads, started;
  atomic_bool stop;
  atomic_ulong generation; /* jobs posted (changed under the lock; watched without it while spinning) */
  util_task_fn task;
  void *arg;
  int n, next;      /* the job's tasks, the next to claim */
  atomic_int done;  /* the job's tasks done (as generation) */
  unsigned spin_us; /* how long a thread watches for the next job, or the caller for the last task, before sleeping */
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Watches *generation for up to us microseconds, without the lock: returns once it is no longer seen, or stop. */
static void spin_for_job(util_workers *w, unsigned long seen, unsigned us) {
  double until = util_now_us() + us;
  while (atomic_load(&w->generation) == seen && !atomic_load(&w->stop) && util_now_us() < until) cpu_relax();
}

/* Watches the done count for up to us microseconds, without the lock: returns once all n tasks are done. */
static void spin_for_done(util_workers *w, int n, unsigned us) {
  double until = util_now_us() + us;
  while (atomic_load(&w->done) < n && util_now_us() < until) cpu_relax();
}

/* Claims and runs the job's tasks until none is left; called with the lock held, returns with it held. */
static void drain(util_workers *w) {
  while (w->next < w->n) {
    int k = w->next++;
    util_task_fn task = w->task;
    void *arg = w->arg;
    pthread_mutex_unlock(&w->lock);
    task(k, arg);
    pthread_mutex_lock(&w->lock);
    if (++w->done == w->n) pthread_cond_signal(&w->finished);
  }
}

static void *worker(void *p) {
  util_workers *w = p;
  pthread_mutex_lock(&w->lock);
  unsigned long seen = 0; /* started inside a run, so the job at hand is one this thread has not seen */
  for (;;) {
    if (w->spin_us && !w->stop && w->generation == seen) { /* waking from the wait costs tens of microseconds */
      unsigned us = w->spin_us;
      pthread_mutex_unlock(&w->lock);
      spin_for_job(w, seen, us);
      pthread_mutex_lock(&w->lock);
    }
    while (!w->stop && w->generation == seen) pthread_cond_wait(&w->work, &w->lock);
    if (w->stop) break;
    seen = w->generation;
    drain(w);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

util_workers *util_workers_create(int max_threads) {
  util_workers *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  if (pthread_mutex_init(&w->lock, NULL) != 0) goto fail_lock;
  if (pthread_cond_init(&w->work, NULL) != 0) goto fail_work;
  if (pthread_cond_init(&w->finished, NULL) != 0) goto fail_finished;
  w->max_threads = max_threads < 0 ? 0 : max_threads > WORKERS_MAX ? WORKERS_MAX : max_threads;
  return w;
fail_finished:
  pthread_cond_destroy(&w->work);
fail_work:
  pthread_mutex_destroy(&w->lock);
fail_lock:
  free(w);
  return NULL;
}

void util_workers_destroy(util_workers *w) {
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  w->stop = true;
  pthread_cond_broadcast(&w->work);
  pthread_mutex_unlock(&w->lock);
  for (int i = 0; i < w->started; i++) pthread_join(w->threads[i], NULL);
  pthread_cond_destroy(&w->finished);
  pthread_cond_destroy(&w->work);
  pthread_mutex_destroy(&w->lock);
  free(w);
}

/* Starts threads up to min(max_threads, wanted); called with the lock held. A failed start stops trying. */
static void grow(util_workers *w, int wanted) {
  if (wanted > w->max_threads) wanted = w->max_threads;
  while (w->started < wanted && pthread_create(&w->threads[w->started], NULL, worker, w) == 0) w->started++;
  if (w->started < wanted) w->max_threads = w->started;
}

void util_workers_run(util_workers *w, int n, util_task_fn task, void *arg) {
  util_workers_run_meanwhile(w, n, task, arg, NULL, NULL);
}

void util_workers_run_meanwhile(util_workers *w, int n, util_task_fn task, void *arg, void (*meanwhile)(void *),
                                void *marg) {
  if (!w || n <= 1) {
    if (meanwhile) meanwhile(marg);
    for (int k = 0; k < n; k++) task(k, arg);
    return;
  }
  pthread_mutex_lock(&w->lock);
  grow(w, n - 1);
  w->task = task;
  w->arg = arg;
  w->n = n;
  w->next = 0;
  w->done = 0;
  w->generation++;
  pthread_cond_broadcast(&w->work);
  if (meanwhile) {
    pthread_mutex_unlock(&w->lock);
    meanwhile(marg);
    pthread_mutex_lock(&w->lock);
  }
  drain(w);
  if (w->spin_us && w->done < n) {
    unsigned us = w->spin_us;
    pthread_mutex_unlock(&w->lock);
    spin_for_done(w, n, us);
    pthread_mutex_lock(&w->lock);
  }
  while (w->done < w->n) pthread_cond_wait(&w->finished, &w->lock);
  w->n = 0; /* a thread waking late finds nothing to claim */
  pthread_mutex_unlock(&w->lock);
}

void util_workers_set_spin(util_workers *w, unsigned us) {
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  w->spin_us = us;
  pthread_mutex_unlock(&w->lock);
}

int util_workers_started(const util_workers *w) { return w ? w->started : 0; }

int util_workers_max(const util_workers *w) { return w ? w->max_threads : 0; }
unsigned util_workers_spin(const util_workers *w) { return w ? w->spin_us : 0; }
