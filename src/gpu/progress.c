/* Progress of a long wait on a terminal (gpu_internal.h, gpu_progress). */
#include "gpu/gpu_internal.h"
#include "util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *progress_main(void *arg) {
  gpu_progress *pr = arg;
  pthread_mutex_lock(&pr->lock);
  long wait_ms = pr->after_ms ? pr->after_ms : 500;
  while (!pr->done) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000;
    until.tv_nsec += (wait_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&pr->done_cond, &pr->lock, &until);
    if (pr->done) break;
    util_log_say(pr->log, WGK_LOG_PROGRESS, "wgk: %s ... %.0f s", pr->label, util_now_s() - pr->start_s);
    pr->shown = true;
    wait_ms = 500;
  }
  if (pr->shown) util_log_say(pr->log, WGK_LOG_PROGRESS, "%s", "");
  pthread_mutex_unlock(&pr->lock);
  return NULL;
}

void gpu_progress_start(gpu_progress *pr, const gpu_device *dev, const char *doing, const char *label) {
  memset(pr, 0, sizeof *pr);
  if (!dev || dev->progress_after_ms < 0 || !util_log_on(&dev->log)) return;
  pr->log = &dev->log;
  pr->after_ms = dev->progress_after_ms;
  snprintf(pr->label, sizeof pr->label, "%s %s", doing, label ? label : "");
  pr->start_s = util_now_s();
  if (pr->after_ms == 0) { /* at once (tests): drawn here, so even a wait shorter than a thread start shows */
    util_log_say(pr->log, WGK_LOG_PROGRESS, "wgk: %s ... 0 s", pr->label);
    pr->shown = true;
  }
  pthread_mutex_init(&pr->lock, NULL);
  pthread_cond_init(&pr->done_cond, NULL);
  pr->running = pthread_create(&pr->thread, NULL, progress_main, pr) == 0;
  if (!pr->running) {
    if (pr->shown) util_log_say(pr->log, WGK_LOG_PROGRESS, "%s", "");
    pthread_cond_destroy(&pr->done_cond);
    pthread_mutex_destroy(&pr->lock);
  }
}

void gpu_progress_stop(gpu_progress *pr) {
  if (!pr->running) return;
  pthread_mutex_lock(&pr->lock);
  pr->done = true;
  pthread_cond_signal(&pr->done_cond);
  pthread_mutex_unlock(&pr->lock);
  pthread_join(pr->thread, NULL);
  pthread_cond_destroy(&pr->done_cond);
  pthread_mutex_destroy(&pr->lock);
}
