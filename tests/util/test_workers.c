/* util_workers: every task of a run runs exactly once, on the pool's threads and the caller, run after run, with
 * the threads sleeping or spinning between runs; a pool's threads are started once and kept; a NULL pool or a
 * single task runs on the caller. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "util/workers.h"

#define TASKS 97

typedef struct tally {
  atomic_int runs[TASKS];
  pthread_t caller;
  atomic_int off_caller; /* tasks that ran on another thread */
  atomic_int slow;       /* microseconds each task sleeps, so the threads get a share */
  bool wait_for_help;    /* a task on the caller waits (up to 10 s) until another thread has run one */
} tally;

static void count_task(int k, void *arg) {
  tally *t = arg;
  atomic_fetch_add(&t->runs[k], 1);
  if (!pthread_equal(pthread_self(), t->caller)) atomic_fetch_add(&t->off_caller, 1);
  if (atomic_load(&t->slow)) usleep((useconds_t)atomic_load(&t->slow));
  for (int i = 0; t->wait_for_help && pthread_equal(pthread_self(), t->caller) && i < 100000; i++) {
    if (atomic_load(&t->off_caller) > 0) break;
    usleep(100);
  }
}

static void reset(tally *t, int slow) {
  for (int k = 0; k < TASKS; k++) atomic_init(&t->runs[k], 0);
  t->caller = pthread_self();
  atomic_init(&t->off_caller, 0);
  atomic_init(&t->slow, slow);
  t->wait_for_help = false;
}

static void each_task_once_every_run(void **state) {
  (void)state;
  util_workers *w = util_workers_create(3);
  assert_non_null(w);
  assert_int_equal(util_workers_started(w), 0); /* nothing started before the first run */
  tally t;
  for (int round = 0; round < 50; round++) {
    int n = 1 + round * 2 % TASKS;
    reset(&t, round < 3 ? 200 : 0);
    util_workers_run(w, n, count_task, &t);
    for (int k = 0; k < TASKS; k++) assert_int_equal(atomic_load(&t.runs[k]), k < n ? 1 : 0);
  }
  assert_int_equal(util_workers_started(w), 3); /* started once, kept across runs */
  reset(&t, 0);
  t.wait_for_help = true; /* the caller's first task holds it until a thread has taken one */
  util_workers_run(w, 8, count_task, &t);
  assert_true(atomic_load(&t.off_caller) > 0);
  for (int k = 0; k < 8; k++) assert_int_equal(atomic_load(&t.runs[k]), 1);
  util_workers_destroy(w);
}

static void caller_alone(void **state) {
  (void)state;
  tally t;
  reset(&t, 0);
  util_workers_run(NULL, TASKS, count_task, &t); /* no pool: all here */
  for (int k = 0; k < TASKS; k++) assert_int_equal(atomic_load(&t.runs[k]), 1);
  assert_int_equal(atomic_load(&t.off_caller), 0);
  util_workers *w = util_workers_create(0); /* a pool of no threads */
  reset(&t, 0);
  util_workers_run(w, 5, count_task, &t);
  assert_int_equal(atomic_load(&t.off_caller), 0);
  assert_int_equal(util_workers_started(w), 0);
  reset(&t, 0);
  util_workers_run(w, 0, count_task, &t); /* no task: nothing runs */
  for (int k = 0; k < TASKS; k++) assert_int_equal(atomic_load(&t.runs[k]), 0);
  util_workers_destroy(w);
  util_workers_destroy(NULL);
}

/* What meanwhile saw: the thread it ran on, and the tasks done when it started and when it ended. */
typedef struct beside {
  tally *t;
  pthread_t thread;
  bool wait; /* for the threads to finish a task */
  int calls, done_at_start, done_at_end;
} beside;

static int tasks_done(tally *t) {
  int n = 0;
  for (int k = 0; k < TASKS; k++) n += atomic_load(&t->runs[k]);
  return n;
}

/* Waits (up to 10 s) for the threads to finish a task: the job is theirs before the caller does its own work. */
static void meanwhile_waits_for_a_task(void *arg) {
  beside *b = arg;
  b->thread = pthread_self();
  b->calls++;
  b->done_at_start = tasks_done(b->t);
  for (int i = 0; b->wait && i < 100000 && tasks_done(b->t) == 0; i++) usleep(100);
  b->done_at_end = tasks_done(b->t);
}

/* meanwhile runs once, on the caller, while the pool's threads take the tasks; every task still runs once. Without a
 * pool it runs first, then the tasks, on the caller. */
static void meanwhile_beside_the_threads(void **state) {
  (void)state;
  util_workers *w = util_workers_create(3);
  tally t;
  reset(&t, 100);
  beside b = {&t, 0, true, 0, 0, 0};
  util_workers_run_meanwhile(w, 8, count_task, &t, meanwhile_waits_for_a_task, &b);
  assert_int_equal(b.calls, 1);
  assert_true(pthread_equal(b.thread, pthread_self()));
  assert_true(b.done_at_end > 0); /* the threads worked while it ran */
  for (int k = 0; k < TASKS; k++) assert_int_equal(atomic_load(&t.runs[k]), k < 8 ? 1 : 0);
  util_workers_destroy(w);
  reset(&t, 0);
  b = (beside){&t, 0, false, 0, 0, 0};
  util_workers_run_meanwhile(NULL, 8, count_task, &t, meanwhile_waits_for_a_task, &b);
  assert_int_equal(b.calls, 1);
  assert_int_equal(b.done_at_start, 0);
  assert_int_equal(tasks_done(&t), 8);
  assert_int_equal(atomic_load(&t.off_caller), 0);
}

/* With a spin set, runs back to back (the threads still watching for the next) and runs after a pause longer than
 * the spin (the threads asleep again) each run every task once, on the threads too; destroying the pool while its
 * threads spin stops them. */
static void spinning_threads_take_every_job(void **state) {
  (void)state;
  util_workers *w = util_workers_create(3);
  util_workers_set_spin(w, 2000);
  util_workers_set_spin(NULL, 5); /* accepted */
  tally t;
  for (int round = 0; round < 40; round++) {
    int n = 2 + round % 9;
    reset(&t, round % 4 == 0 ? 100 : 0);
    if (round % 10 == 9) usleep(5000); /* past the spin: asleep */
    util_workers_run(w, n, count_task, &t);
    for (int k = 0; k < TASKS; k++) assert_int_equal(atomic_load(&t.runs[k]), k < n ? 1 : 0);
  }
  reset(&t, 0);
  t.wait_for_help = true; /* the caller's first task holds it until a thread has taken one */
  util_workers_run(w, 8, count_task, &t);
  assert_true(atomic_load(&t.off_caller) > 0);
  assert_int_equal(util_workers_started(w), 3);
  util_workers_destroy(w); /* right after a run: its threads spin */
}

static void destroy_without_run(void **state) {
  (void)state;
  util_workers_destroy(util_workers_create(4));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_task_once_every_run),        cmocka_unit_test(caller_alone),
      cmocka_unit_test(spinning_threads_take_every_job), cmocka_unit_test(destroy_without_run),
      cmocka_unit_test(meanwhile_beside_the_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
