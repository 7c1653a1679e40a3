/* Compute pipelines with an explicit bind group layout, and the bind groups that fill it. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <stdio.h>
#include <stdlib.h>

static WGPUBufferBindingType binding_type(gpu_binding_type t) {
  switch (t) {
  case WGK_GPU_BINDING_READ_ONLY_STORAGE:
    return WGPUBufferBindingType_ReadOnlyStorage;
  case WGK_GPU_BINDING_STORAGE:
    return WGPUBufferBindingType_Storage;
  case WGK_GPU_BINDING_UNIFORM:
    return WGPUBufferBindingType_Uniform;
  }
  return WGPUBufferBindingType_BindingNotUsed;
}

static wgk_status check_types(const gpu_binding_type *types, size_t count, util_error *err) {
  if (count > WGK_GPU_MAX_BINDINGS || (count && !types))
    return util_error_plain(err, WGK_ERR_LIMIT, "%zu bindings (wgk's limit is %d)", count, WGK_GPU_MAX_BINDINGS);
  for (size_t i = 0; i < count; i++)
    if (binding_type(types[i]) == WGPUBufferBindingType_BindingNotUsed)
      return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "binding %zu: unknown type %d", i, (int)types[i]);
  return WGK_OK;
}

static void build(gpu_device *dev, gpu_pipeline *p, const gpu_shader *shader, const char *entry, const char *label) {
  WGPUBindGroupLayoutEntry entries[WGK_GPU_MAX_BINDINGS] = {0};
  for (size_t i = 0; i < p->count; i++) {
    entries[i].binding = (uint32_t)i;
    entries[i].visibility = WGPUShaderStage_Compute;
    entries[i].buffer.type = binding_type(p->types[i]);
  }
  WGPUBindGroupLayoutDescriptor bgl = {NULL, gpu_sv(label), p->count, entries};
  p->layout = wgpuDeviceCreateBindGroupLayout(dev->device, &bgl);
  WGPUPipelineLayoutDescriptor pl = {NULL, gpu_sv(label), 1, &p->layout, 0};
  WGPUPipelineLayout layout = wgpuDeviceCreatePipelineLayout(dev->device, &pl);
  WGPUComputePipelineDescriptor desc = {
      .label = gpu_sv(label),
      .layout = layout,
      .compute = {.module = shader->module, .entryPoint = gpu_sv(entry ? entry : "main")},
  };
  p->pipeline = wgpuDeviceCreateComputePipeline(dev->device, &desc);
  wgpuPipelineLayoutRelease(layout);
}

wgk_status gpu_pipeline_create(gpu_device *dev, const gpu_shader *shader, const gpu_binding_type *types, size_t count,
                               const char *entry, const char *label, gpu_pipeline **out, util_error *err) {
  *out = NULL;
  wgk_status s = gpu_device_check(dev, err);
  if (s == WGK_OK) s = check_types(types, count, err);
  if (s == WGK_OK && !shader) s = util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "no shader");
  if (s) return s;
  gpu_pipeline *p = calloc(1, sizeof *p);
  if (!p) return util_error_oom(err, NULL, NULL);
  p->count = count;
  for (size_t i = 0; i < count; i++) p->types[i] = types[i];
  char what[160];
  snprintf(what, sizeof what, "creating pipeline '%s'", label ? label : "");
  gpu_progress pr;
  gpu_progress_start(&pr, dev, "compiling", label);
  gpu_scope_push(dev);
  build(dev, p, shader, entry, label);
  s = gpu_scope_pop(dev, what, err);
  gpu_progress_stop(&pr);
  if (s == WGK_OK && (!p->pipeline || !p->layout)) s = util_error_plain(err, WGK_ERR_GPU, "%s failed", what);
  if (s != WGK_OK) {
    gpu_pipeline_destroy(p);
    return s;
  }
  *out = p;
  return WGK_OK;
}

void gpu_pipeline_destroy(gpu_pipeline *p) {
  if (!p) return;
  if (p->pipeline) wgpuComputePipelineRelease(p->pipeline);
  if (p->layout) wgpuBindGroupLayoutRelease(p->layout);
  free(p);
}

/* The checks whose WebGPU messages would be least clear: count, range, alignment, binding size limit. */
static wgk_status check_binding(const gpu_device *dev, gpu_binding_type type, const gpu_binding *b, size_t i,
                                util_error *err) {
  char what[32];
  snprintf(what, sizeof what, "binding %zu", i);
  if (!b->buffer) return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, what, "no buffer");
  uint64_t size = b->size ? b->size : b->buffer->size - (b->offset <= b->buffer->size ? b->offset : b->buffer->size);
  wgk_status s = gpu_buffer_check_range(b->buffer, b->offset, size, what, err);
  if (s) return s;
  const device_limits *l = &dev->desc.limits;
  bool uniform = type == WGK_GPU_BINDING_UNIFORM;
  uint64_t align = uniform ? l->minUniformBufferOffsetAlignment : l->minStorageBufferOffsetAlignment;
  uint64_t max = uniform ? l->maxUniformBufferBindingSize : l->maxStorageBufferBindingSize;
  if (align && b->offset % align)
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, what, "offset %llu is not a multiple of %llu",
                         (unsigned long long)b->offset, (unsigned long long)align);
  if (size > max)
    return util_error_in(err, WGK_ERR_LIMIT, NULL, what, "binding of %llu bytes exceeds the device's %s of %llu bytes",
                         (unsigned long long)size,
                         uniform ? "maxUniformBufferBindingSize" : "maxStorageBufferBindingSize",
                         (unsigned long long)max);
  return WGK_OK;
}

wgk_status gpu_bind_group_create(gpu_device *dev, const gpu_pipeline *pipeline, const gpu_binding *bindings,
                                 size_t count, const char *label, gpu_bind_group **out, util_error *err) {
  *out = NULL;
  wgk_status s = gpu_device_check(dev, err);
  if (s) return s;
  if (!pipeline || count != pipeline->count || (count && !bindings))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, NULL, label, "%zu bindings given, the pipeline has %zu", count,
                         pipeline ? pipeline->count : 0);
  WGPUBindGroupEntry entries[WGK_GPU_MAX_BINDINGS] = {0};
  for (size_t i = 0; i < count; i++) {
    if ((s = check_binding(dev, pipeline->types[i], &bindings[i], i, err))) return s;
    entries[i].binding = (uint32_t)i;
    entries[i].buffer = bindings[i].buffer->buffer;
    entries[i].offset = bindings[i].offset;
    entries[i].size = bindings[i].size ? bindings[i].size : WGPU_WHOLE_SIZE;
  }
  gpu_bind_group *g = calloc(1, sizeof *g);
  if (!g) return util_error_oom(err, NULL, NULL);
  WGPUBindGroupDescriptor desc = {NULL, gpu_sv(label), pipeline->layout, count, entries};
  gpu_scope_push(dev);
  g->group = wgpuDeviceCreateBindGroup(dev->device, &desc);
  s = gpu_scope_pop(dev, "creating a bind group", err);
  if (s == WGK_OK && !g->group) s = util_error_plain(err, WGK_ERR_GPU, "creating a bind group failed");
  if (s != WGK_OK) {
    gpu_bind_group_destroy(g);
    return s;
  }
  *out = g;
  return WGK_OK;
}

void gpu_bind_group_destroy(gpu_bind_group *g) {
  if (!g) return;
  if (g->group) wgpuBindGroupRelease(g->group);
  free(g);
}
