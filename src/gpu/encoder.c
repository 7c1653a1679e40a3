/* Recording (dispatches, copies, timestamp resolves), submission and the wait for submitted work. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

wgk_status gpu_encoder_begin(gpu_device *dev, const char *label, gpu_encoder **out, util_error *err) {
  *out = NULL;
  wgk_status s = gpu_device_check(dev, err);
  if (s) return s;
  gpu_encoder *enc = calloc(1, sizeof *enc);
  if (!enc) return util_error_oom(err, NULL, NULL);
  WGPUCommandEncoderDescriptor desc = {NULL, gpu_sv(label)};
  enc->dev = dev;
  enc->encoder = wgpuDeviceCreateCommandEncoder(dev->device, &desc);
  if (!enc->encoder) {
    free(enc);
    return util_error_plain(err, WGK_ERR_GPU, "creating a command encoder failed");
  }
  *out = enc;
  return WGK_OK;
}

static void end_pass(gpu_encoder *enc) {
  if (!enc->pass) return;
  wgpuComputePassEncoderEnd(enc->pass);
  wgpuComputePassEncoderRelease(enc->pass);
  enc->pass = NULL;
}

static wgk_status check_dispatch(const gpu_encoder *enc, const gpu_pipeline *p, const gpu_bind_group *g, uint32_t x,
                                 uint32_t y, uint32_t z, util_error *err) {
  if (!enc || !p || (!g && p->count))
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "dispatch needs an encoder, a pipeline and a bind group");
  uint32_t max = enc->dev->desc.limits.maxComputeWorkgroupsPerDimension;
  if (x > max || y > max || z > max)
    return util_error_plain(
        err, WGK_ERR_LIMIT,
        "dispatch of %u x %u x %u workgroups exceeds the device's maxComputeWorkgroupsPerDimension of %u", x, y, z,
        max);
  return WGK_OK;
}

static void record(WGPUComputePassEncoder pass, const gpu_pipeline *p, const gpu_bind_group *g, uint32_t x, uint32_t y,
                   uint32_t z) {
  wgpuComputePassEncoderSetPipeline(pass, p->pipeline);
  if (g) wgpuComputePassEncoderSetBindGroup(pass, 0, g->group, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroups(pass, x, y, z);
}

wgk_status gpu_encoder_dispatch(gpu_encoder *enc, const gpu_pipeline *pipeline, const gpu_bind_group *group, uint32_t x,
                                uint32_t y, uint32_t z, util_error *err) {
  wgk_status s = check_dispatch(enc, pipeline, group, x, y, z, err);
  if (s) return s;
  if (!enc->pass) enc->pass = wgpuCommandEncoderBeginComputePass(enc->encoder, NULL);
  record(enc->pass, pipeline, group, x, y, z);
  return WGK_OK;
}

wgk_status gpu_encoder_dispatch_timed(gpu_encoder *enc, const gpu_pipeline *pipeline, const gpu_bind_group *group,
                                      uint32_t x, uint32_t y, uint32_t z, gpu_timer *timer, uint32_t slot,
                                      util_error *err) {
  if (!timer) return gpu_encoder_dispatch(enc, pipeline, group, x, y, z, err);
  wgk_status s = check_dispatch(enc, pipeline, group, x, y, z, err);
  if (s) return s;
  if (slot >= timer->slots)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "timer slot %u of %u", slot, timer->slots);
  end_pass(enc);
  if (timer->resolve_recorded) { /* a new recording: slots it does not write hold another run's values */
    memset(timer->written, 0, timer->slots * sizeof *timer->written);
    timer->resolve_recorded = false;
  }
  timer->written[slot] = true;
  WGPUPassTimestampWrites writes = {NULL, timer->queries, 2 * slot, 2 * slot + 1};
  WGPUComputePassDescriptor desc = {NULL, gpu_sv(NULL), &writes};
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc->encoder, &desc);
  record(pass, pipeline, group, x, y, z);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  return WGK_OK;
}

wgk_status gpu_encoder_copy(gpu_encoder *enc, gpu_buffer *src, uint64_t src_offset, gpu_buffer *dst,
                            uint64_t dst_offset, uint64_t size, util_error *err) {
  if (!enc) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "copy needs an encoder");
  wgk_status s = gpu_buffer_check_range(src, src_offset, size, "copy source", err);
  if (s == WGK_OK) s = gpu_buffer_check_range(dst, dst_offset, size, "copy destination", err);
  if (s) return s;
  end_pass(enc);
  wgpuCommandEncoderCopyBufferToBuffer(enc->encoder, src->buffer, src_offset, dst->buffer, dst_offset, size);
  return WGK_OK;
}

wgk_status gpu_encoder_clear(gpu_encoder *enc, gpu_buffer *buf, uint64_t offset, uint64_t size, util_error *err) {
  if (!enc) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "clear needs an encoder");
  if (offset % 4 || size % 4)
    return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "clear offset and size must be multiples of 4");
  wgk_status s = gpu_buffer_check_range(buf, offset, size, "clear", err);
  if (s) return s;
  end_pass(enc);
  wgpuCommandEncoderClearBuffer(enc->encoder, buf->buffer, offset, size);
  return WGK_OK;
}

wgk_status gpu_encoder_resolve_timer(gpu_encoder *enc, gpu_timer *timer, util_error *err) {
  if (!enc || !timer) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "resolve needs an encoder and a timer");
  end_pass(enc);
  wgpuCommandEncoderResolveQuerySet(enc->encoder, timer->queries, 0, 2 * timer->slots, timer->resolved->buffer, 0);
  wgpuCommandEncoderCopyBufferToBuffer(enc->encoder, timer->resolved->buffer, 0, timer->readback->buffer, 0,
                                       timer->resolved->size);
  timer->resolve_recorded = true;
  return WGK_OK;
}

void gpu_encoder_discard(gpu_encoder *enc) {
  if (!enc) return;
  end_pass(enc);
  wgpuCommandEncoderRelease(enc->encoder);
  free(enc);
}

wgk_status gpu_encoder_submit(gpu_encoder *enc, util_error *err) {
  if (!enc) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "no encoder to submit");
  gpu_device *dev = enc->dev;
  wgk_status s = gpu_device_check(dev, err);
  if (s) {
    gpu_encoder_discard(enc);
    return s;
  }
  end_pass(enc);
  s = gpu_queue_submit(dev, enc->encoder, "submitting recorded work", err); /* deferred upload copies first */
  gpu_encoder_discard(enc);
  return s;
}

typedef struct work_done {
  gpu_async async;
} work_done;

static void on_work_done(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  if (gpu_async_orphaned(u1)) return;
  work_done *w = u1;
  w->async.done = true;
  w->async.status = status;
  gpu_sv_copy(w->async.message, sizeof w->async.message, message);
}

wgk_status gpu_wait(gpu_device *dev, uint32_t timeout_ms, const char *what, util_error *err) {
  wgk_status s = gpu_device_check(dev, err);
  if (!s) s = gpu_deferred_flush(dev, err); /* the work to wait for includes the uploads */
  if (s) return s;
  work_done *w = gpu_async_new(sizeof *w);
  if (!w) return util_error_oom(err, NULL, NULL);
  WGPUQueueWorkDoneCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_work_done, w, NULL};
  WGPUFuture f = wgpuQueueOnSubmittedWorkDone(dev->queue, cb);
  s = gpu_await(dev, dev->instance, f, &w->async, timeout_ms, what ? what : "submitted GPU work", err);
  gpu_async_free(&w->async);
  return s != WGK_OK ? s : gpu_device_check(dev, err);
}
