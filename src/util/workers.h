/*
 * A pool of host threads for splitting large host work (the conversions of staged transfers) across cores.
 * Threads start on first use and wait for work until the pool is destroyed, so a call pays a wake-up, not a
 * thread start (tens of microseconds, as much as a 1 MiB fill takes). One run at a time: the owner serialises.
 */
#ifndef WGK_UTIL_WORKERS_H
#define WGK_UTIL_WORKERS_H

typedef struct util_workers util_workers;

typedef void (*util_task_fn)(int k, void *arg);

/* A pool that will use up to max_threads threads besides its caller's; NULL when out of memory. */
util_workers *util_workers_create(int max_threads);

/* Stops and joins the threads; NULL is accepted. */
void util_workers_destroy(util_workers *w);

/* Runs task(k, arg) for every k in [0, n), on the caller and the pool's threads, and returns when all have run.
 * Where a thread cannot start, the others (the caller at least) run its share; a NULL pool runs all here. */
void util_workers_run(util_workers *w, int n, util_task_fn task, void *arg);

/* util_workers_run, with meanwhile(marg) run on the caller once the pool's threads have the job and before it takes
 * tasks itself: host work of the caller's (a queue submission) overlapping theirs. Without a pool (or n <= 1),
 * meanwhile runs first, then the tasks, all on the caller. */
void util_workers_run_meanwhile(util_workers *w, int n, util_task_fn task, void *arg, void (*meanwhile)(void *),
                                void *marg);

/* After a job the pool's threads watch for the next one, and the caller for the job's last tasks, for up to us
 * microseconds before they sleep (0, the default: they sleep at once). A sleeping thread takes tens of
 * microseconds to wake on a server; a spin costs a core for as long. */
void util_workers_set_spin(util_workers *w, unsigned us);

/* Threads started so far (for tests). */
int util_workers_started(const util_workers *w);
/* The most threads it starts (the caller's not counted) and its spin in microseconds, as set (for tests). */
int util_workers_max(const util_workers *w);
unsigned util_workers_spin(const util_workers *w);

#endif
