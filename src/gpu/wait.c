/* Listening to the device: waiting on Dawn futures and catching errors in scopes (every wait of the GPU layer goes
 * through gpu_await, so timed out, wait failed and callback failed are always told apart; every zero-timeout poll
 * through poll_once, gpu_poll_once outside this file), and gpu_device_check, which reports what the device's
 * callbacks recorded (a loss, an error an earlier command left pending) before anything else is asked of it. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"
#include "util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

WGPUStringView gpu_sv(const char *s) {
  return s ? (WGPUStringView){s, strlen(s)} : (WGPUStringView){NULL, WGPU_STRLEN};
}

void gpu_sv_copy(char *dst, size_t size, WGPUStringView sv) {
  if (size == 0) return;
  size_t n = !sv.data ? 0 : sv.length == WGPU_STRLEN ? strlen(sv.data) : sv.length;
  if (n >= size) n = size - 1;
  if (n) memcpy(dst, sv.data, n);
  dst[n] = '\0';
}

void *gpu_async_new(size_t size) { return calloc(1, size); }

void gpu_async_free(gpu_async *st) {
  if (st && !st->orphaned) free(st);
}

bool gpu_async_orphaned(gpu_async *st) {
  if (!st->orphaned) return false;
  free(st);
  return true;
}

static const char *async_status_name(uint32_t status) {
  switch (status) {
  case 1:
    return "success";
  case 2:
    return "callback cancelled";
  case 3:
    return "error";
  case 4:
    return "aborted";
  default:
    return "unknown status";
  }
}

/* One zero-timeout poll of future: its callback runs here if it is done. */
static WGPUWaitStatus poll_once(WGPUInstance instance, WGPUFuture future) {
  WGPUFutureWaitInfo info = {future, 0};
  return wgpuInstanceWaitAny(instance, 1, &info, 0);
}

bool gpu_poll_once(gpu_device *dev, WGPUFuture future) {
  return poll_once(dev->instance, future) == WGPUWaitStatus_Success;
}

/* poll_loop's sleep policies: none between polls, or POLL_SLEEP_NS first, doubled while under POLL_SLEEP_MAX_NS. */
#define POLL_SPIN 0
#define POLL_SLEEP_NS 20000
#define POLL_SLEEP_MAX_NS 1000000

/* Zero-timeout polls of future until it is done, the poll fails, or budget_ns has passed (then TimedOut). Between
 * polls: nothing with POLL_SPIN (a short GPU job is seen done at once rather than after the wake-up of a blocking
 * wait), else a sleep of sleep_ns that grows (POLL_SLEEP_NS, for an instance created without timed waits, a
 * caller's: a long kernel costs no CPU and a short one little latency). */
static WGPUWaitStatus poll_loop(WGPUInstance instance, WGPUFuture future, uint64_t budget_ns, long sleep_ns) {
  uint64_t deadline = util_now_ns() + budget_ns;
  for (;;) {
    WGPUWaitStatus s = poll_once(instance, future);
    if (s != WGPUWaitStatus_TimedOut || util_now_ns() >= deadline) return s;
    if (sleep_ns) {
      nanosleep(&(struct timespec){0, sleep_ns}, NULL);
      if (sleep_ns < POLL_SLEEP_MAX_NS) sleep_ns *= 2;
    }
  }
}

static wgk_status await(WGPUInstance instance, bool *timed, uint64_t spin_ns, WGPUFuture future, gpu_async *st,
                        uint32_t timeout_ms, const char *what, util_error *err) {
  WGPUFutureWaitInfo info = {future, 0};
  uint64_t timeout_ns = (uint64_t)timeout_ms * 1000000u;
  uint64_t t0 = util_now_ns();
  WGPUWaitStatus s = spin_ns ? poll_loop(instance, future, spin_ns < timeout_ns ? spin_ns : timeout_ns, POLL_SPIN)
                             : WGPUWaitStatus_TimedOut;
  if (s == WGPUWaitStatus_TimedOut) {
    uint64_t spent = util_now_ns() - t0;
    timeout_ns = spent < timeout_ns ? timeout_ns - spent : 0;
    s = *timed ? wgpuInstanceWaitAny(instance, 1, &info, timeout_ns) : WGPUWaitStatus_UnsupportedTimeout;
  }
  if (s == WGPUWaitStatus_UnsupportedTimeout) {
    *timed = false;
    s = poll_loop(instance, future, timeout_ns, POLL_SLEEP_NS);
  }
  if (!st->done) st->orphaned = true;
  if (s == WGPUWaitStatus_TimedOut)
    return util_error_plain(err, WGK_ERR_TIMEOUT, "timed out after %u ms waiting for %s", timeout_ms, what);
  if (s != WGPUWaitStatus_Success || !st->done)
    return util_error_plain(err, WGK_ERR_GPU, "waiting for %s failed (WaitAny status %d%s)", what, (int)s,
                            st->done ? "" : ", callback not called");
  if (st->status != WGPU_ASYNC_SUCCESS)
    return util_error_plain(err, WGK_ERR_GPU, "%s failed: %s%s%s", what, async_status_name(st->status),
                            st->message[0] ? ": " : "", st->message);
  return WGK_OK;
}

wgk_status gpu_await(gpu_device *dev, WGPUInstance instance, WGPUFuture future, gpu_async *st, uint32_t timeout_ms,
                     const char *what, util_error *err) {
  if (poll_once(instance, future) == WGPUWaitStatus_Success) /* done already (an error scope, a finished map): no
                                                               progress thread to start and join on a terminal */
    return await(instance, &dev->timed_wait, 0, future, st, timeout_ms, what, err);
  gpu_progress pr;
  char label[160];
  snprintf(label, sizeof label, "(%s; a first run compiles its shaders)", what);
  gpu_progress_start(&pr, dev, "the GPU is busy", label); /* CPU drivers compile at the first dispatch */
  wgk_status s = await(instance, &dev->timed_wait, dev->spin_ns, future, st, timeout_ms, what, err);
  gpu_progress_stop(&pr);
  return s;
}

wgk_status gpu_await_instance(WGPUInstance instance, WGPUFuture future, gpu_async *st, uint32_t timeout_ms,
                              const char *what, util_error *err) {
  bool timed = true;
  return await(instance, &timed, 0, future, st, timeout_ms, what, err);
}

/* ---- error scopes ---- */

typedef struct scope_result {
  gpu_async async;
  WGPUErrorType type;
} scope_result;

static void on_pop(uint32_t status, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
  if (gpu_async_orphaned(u1)) return;
  scope_result *r = u1;
  r->async.done = true;
  r->async.status = status;
  r->type = type;
  gpu_sv_copy(r->async.message, sizeof r->async.message, message);
}

void gpu_scope_push(gpu_device *dev) {
  wgpuDevicePushErrorScope(dev->device, WGPUErrorFilter_OutOfMemory);
  wgpuDevicePushErrorScope(dev->device, WGPUErrorFilter_Validation);
}

static wgk_status pop_one(gpu_device *dev, const char *what, util_error *err) {
  scope_result *r = gpu_async_new(sizeof *r);
  if (!r) return util_error_oom(err, NULL, NULL);
  WGPUPopErrorScopeCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_pop, r, NULL};
  WGPUFuture f = wgpuDevicePopErrorScope(dev->device, cb);
  char label[160];
  snprintf(label, sizeof label, "the error scope of %s", what);
  wgk_status s = gpu_await(dev, dev->instance, f, &r->async, WGK_GPU_INTERNAL_TIMEOUT_MS, label, err);
  if (s == WGK_OK && r->type != WGPUErrorType_NoError) {
    const char *kind = r->type == WGPUErrorType_OutOfMemory  ? "out of GPU memory"
                       : r->type == WGPUErrorType_Validation ? "validation error"
                                                             : "internal error";
    s = util_error_plain(err, WGK_ERR_GPU, "%s: %s: %s", what, kind, r->async.message);
  }
  gpu_async_free(&r->async);
  return s;
}

wgk_status gpu_scope_pop(gpu_device *dev, const char *what, util_error *err) {
  wgk_status v = pop_one(dev, what, err); /* validation, pushed last */
  wgk_status m = pop_one(dev, what, err); /* out of memory */
  return v != WGK_OK ? v : m;
}

wgk_status gpu_device_check(gpu_device *dev, util_error *err) {
  if (dev && dev->external && !dev->lost && dev->lost_future.id && gpu_poll_once(dev, dev->lost_future)) {
    dev->lost = true;
    snprintf(dev->lost_message, sizeof dev->lost_message,
             "device lost: the caller's WGPUDevice (wgk_context_options.wgpu_device) was destroyed or lost; "
             "nothing ran");
  }
  /* No device, a lost one (for good), or an error an earlier command left pending (reported once). */
  wgk_status s = !dev ? WGK_ERR_INVALID_ARGUMENT : dev->lost ? WGK_ERR_DEVICE : dev->pending;
  if (s == WGK_OK) return WGK_OK;
  s = util_error_plain(err, s, "%s", !dev ? "no device" : dev->lost ? dev->lost_message : dev->pending_message);
  if (dev && !dev->lost) dev->pending = WGK_OK;
  return s;
}
