/* The device's queue submissions (gpu_queue_submit: the deferred upload copies, then the submitter's own work) and
 * the upload copies deferred to the device's next submission (gpu_internal.h, gpu_deferred): an upload of one piece
 * records its staging-to-buffer copy here instead of submitting it alone, and the next submission (a call, a
 * read-back, a wait's flush) carries every recorded copy ahead of its own work, in queue order. A submission
 * rejected for its own work runs none of its command buffers, so the copies are recorded again and go alone
 * (gpu_deferred_rerecord, then gpu_queue_submit): a failed call leaves the tensors made before it as they were. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

wgk_status gpu_deferred_copy(gpu_device *dev, gpu_pool *pool, gpu_buffer *staging, gpu_buffer *dst, uint64_t at,
                             size_t len, util_error *err) {
  gpu_deferred *d = &dev->deferred;
  wgk_status s = WGK_OK;
  if (d->n == GPU_DEFERRED_MAX && (s = gpu_deferred_flush(dev, err)) != WGK_OK) return s;
  if (!d->encoder) {
    WGPUCommandEncoderDescriptor desc = {NULL, gpu_sv("wgk uploads")};
    if (!(d->encoder = wgpuDeviceCreateCommandEncoder(dev->device, &desc)))
      return util_error_plain(err, WGK_ERR_GPU, "creating a command encoder for uploads failed");
  }
  wgpuCommandEncoderCopyBufferToBuffer(d->encoder, staging->buffer, 0, dst->buffer, at, len);
  d->staging[d->n] = staging;
  d->pools[d->n] = pool;
  wgpuBufferAddRef(dst->buffer);
  d->dst[d->n] = dst->buffer;
  d->at[d->n] = at;
  d->len[d->n] = len;
  d->n++;
  dst->deferred_epoch = d->epoch + 1; /* 0 is every new buffer's */
  return WGK_OK;
}

bool gpu_deferred_targets(const gpu_buffer *buf) {
  return buf->dev->deferred.encoder && buf->deferred_epoch == buf->dev->deferred.epoch + 1;
}

WGPUCommandBuffer gpu_deferred_finish(gpu_device *dev) {
  gpu_deferred *d = &dev->deferred;
  if (!d->encoder) return NULL;
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(d->encoder, NULL);
  wgpuCommandEncoderRelease(d->encoder);
  d->encoder = NULL;
  return commands;
}

bool gpu_deferred_rerecord(gpu_device *dev) {
  gpu_deferred *d = &dev->deferred;
  WGPUCommandEncoderDescriptor desc = {NULL, gpu_sv("wgk uploads, again")};
  if (!(d->encoder = wgpuDeviceCreateCommandEncoder(dev->device, &desc))) return false;
  for (int i = 0; i < d->n; i++)
    wgpuCommandEncoderCopyBufferToBuffer(d->encoder, d->staging[i]->buffer, 0, d->dst[i], d->at[i], d->len[i]);
  return true;
}

/* After a failed submission a staging buffer may still be in use: destroyed (released) rather than reused. */
void gpu_deferred_submitted(gpu_device *dev, bool ok) {
  gpu_deferred *d = &dev->deferred;
  for (int i = 0; i < d->n; i++) {
    gpu_upload_recycle(d->pools[i], d->staging[i], ok);
    d->staging[i] = NULL;
    wgpuBufferRelease(d->dst[i]);
    d->dst[i] = NULL;
  }
  d->n = 0;
  d->epoch++;
}

wgk_status gpu_deferred_flush(gpu_device *dev, util_error *err) {
  return dev->deferred.encoder ? gpu_queue_submit(dev, NULL, "submitting uploads", err) : WGK_OK;
}

void gpu_deferred_discard(gpu_device *dev) {
  gpu_deferred *d = &dev->deferred;
  if (d->encoder) wgpuCommandEncoderRelease(d->encoder);
  d->encoder = NULL;
  gpu_deferred_submitted(dev, false);
}

wgk_status gpu_queue_submit(gpu_device *dev, WGPUCommandEncoder own, const char *what, util_error *err) {
  /* Recording errors surface at Finish; the scope ties them to this submit. */
  gpu_scope_push(dev);
  bool had_copies = dev->deferred.n > 0;
  WGPUCommandBuffer copies = gpu_deferred_finish(dev), mine = own ? wgpuCommandEncoderFinish(own, NULL) : NULL;
  WGPUCommandBuffer commands[2];
  size_t n = 0;
  if (copies) commands[n++] = copies;
  if (mine) commands[n++] = mine;
  if (n) {
    wgpuQueueSubmit(dev->queue, n, commands);
    dev->submits++;
  }
  for (size_t i = 0; i < n; i++) wgpuCommandBufferRelease(commands[i]);
  wgk_status s = gpu_scope_pop(dev, what, err);
  /* A rejected submission ran none of its command buffers: the upload copies go again alone, so a call that fails
   * does not take earlier tensors' values with it. */
  if (copies && s != WGK_OK && mine) {
    util_error again = {0}; /* the first submission's error is the one to report */
    if (!gpu_deferred_rerecord(dev) || gpu_queue_submit(dev, NULL, "submitting uploads again", &again) != WGK_OK)
      util_error_append(err,
                        "; the upload copies it carried failed again: tensors made or written since the last "
                        "submission hold no values");
    if (dev->deferred.n) gpu_deferred_submitted(dev, false); /* no encoder for them: dropped */
    return s;
  }
  if (had_copies) gpu_deferred_submitted(dev, s == WGK_OK && copies);
  return s;
}
