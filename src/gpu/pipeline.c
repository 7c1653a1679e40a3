/* Compute pipelines with an explicit bind group layout, and the bind groups that fill it. */
#include "gpu/gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>

static WGPUBufferBindingType binding_type(wgk_gpu_binding_type t) {
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

static wgk_status check_types(const wgk_gpu_binding_type *types, size_t count, wgk_error *err) {
  if (count > WGK_GPU_MAX_BINDINGS || (count && !types))
    return wgk_error_set(err, WGK_ERR_LIMIT, NULL, 0, 0, NULL, "%zu bindings (wgk's limit is %d)", count,
                         WGK_GPU_MAX_BINDINGS);
  for (size_t i = 0; i < count; i++)
    if (binding_type(types[i]) == WGPUBufferBindingType_BindingNotUsed)
      return wgk_error_set(err, WGK_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, "binding %zu: unknown type %d", i,
                           (int)types[i]);
  return WGK_OK;
}

static void build(wgk_gpu_device *dev, wgk_gpu_pipeline *p, const wgk_gpu_shader *shader, const char *entry,
                  const char *label) {
  WGPUBindGroupLayoutEntry entries[WGK_GPU_MAX_BINDINGS] = {0};
  for (size_t i = 0; i < p->count; i++) {
    entries[i].binding = (uint32_t)i;
    entries[i].visibility = WGPUShaderStage_Compute;
    entries[i].buffer.type = binding_type(p->types[i]);
  }
  WGPUBindGroupLayoutDescriptor bgl = {NULL, wgk_gpu_sv(label), p->count, entries};
  p->layout = wgpuDeviceCreateBindGroupLayout(dev->device, &bgl);
  WGPUPipelineLayoutDescriptor pl = {NULL, wgk_gpu_sv(label), 1, &p->layout, 0};
  WGPUPipelineLayout layout = wgpuDeviceCreatePipelineLayout(dev->device, &pl);
  WGPUComputePipelineDescriptor desc = {
      .label = wgk_gpu_sv(label),
      .layout = layout,
      .compute = {.module = shader->module, .entryPoint = wgk_gpu_sv(entry ? entry : "main")},
  };
  p->pipeline = wgpuDeviceCreateComputePipeline(dev->device, &desc);
  wgpuPipelineLayoutRelease(layout);
}

wgk_status wgk_gpu_pipeline_create(wgk_gpu_device *dev, const wgk_gpu_shader *shader, const wgk_gpu_binding_type *types,
                                   size_t count, const char *entry, const char *label, wgk_gpu_pipeline **out,
                                   wgk_error *err) {
  *out = NULL;
  wgk_status s = wgk_gpu_device_check(dev, err);
  if (s == WGK_OK) s = check_types(types, count, err);
  if (s == WGK_OK && !shader) s = wgk_error_set(err, WGK_ERR_INVALID_ARGUMENT, NULL, 0, 0, NULL, "no shader");
  if (s) return s;
  wgk_gpu_pipeline *p = calloc(1, sizeof *p);
  if (!p) return wgk_error_set(err, WGK_ERR_OUT_OF_MEMORY, NULL, 0, 0, NULL, "out of memory");
  p->count = count;
  for (size_t i = 0; i < count; i++) p->types[i] = types[i];
  char what[160];
  snprintf(what, sizeof what, "creating pipeline '%s'", label ? label : "");
  wgk_gpu_progress pr;
  wgk_gpu_progress_start(&pr, "compiling", label);
  wgk_gpu_scope_push(dev);
  build(dev, p, shader, entry, label);
  s = wgk_gpu_scope_pop(dev, what, err);
  wgk_gpu_progress_stop(&pr);
  if (s == WGK_OK && (!p->pipeline || !p->layout))
    s = wgk_error_set(err, WGK_ERR_GPU, NULL, 0, 0, NULL, "%s failed", what);
  if (s != WGK_OK) {
    wgk_gpu_pipeline_destroy(p);
    return s;
  }
  *out = p;
  return WGK_OK;
}

void wgk_gpu_pipeline_destroy(wgk_gpu_pipeline *p) {
  if (!p) return;
  if (p->pipeline) wgpuComputePipelineRelease(p->pipeline);
  if (p->layout) wgpuBindGroupLayoutRelease(p->layout);
  free(p);
}

/* The checks whose WebGPU messages would be least clear: count, range, alignment, binding size limit. */
static wgk_status check_binding(const wgk_gpu_device *dev, wgk_gpu_binding_type type, const wgk_gpu_binding *b,
                                size_t i, wgk_error *err) {
  char what[32];
  snprintf(what, sizeof what, "binding %zu", i);
  if (!b->buffer) return wgk_error_set(err, WGK_ERR_INVALID_ARGUMENT, NULL, 0, 0, what, "no buffer");
  uint64_t size = b->size ? b->size : b->buffer->size - (b->offset <= b->buffer->size ? b->offset : b->buffer->size);
  wgk_status s = wgk_gpu_buffer_check_range(b->buffer, b->offset, size, what, err);
  if (s) return s;
  const wgk_device_limits *l = &dev->desc.limits;
  bool uniform = type == WGK_GPU_BINDING_UNIFORM;
  uint64_t align = uniform ? l->minUniformBufferOffsetAlignment : l->minStorageBufferOffsetAlignment;
  uint64_t max = uniform ? l->maxUniformBufferBindingSize : l->maxStorageBufferBindingSize;
  if (align && b->offset % align)
    return wgk_error_set(err, WGK_ERR_INVALID_ARGUMENT, NULL, 0, 0, what, "offset %llu is not a multiple of %llu",
                         (unsigned long long)b->offset, (unsigned long long)align);
  if (size > max)
    return wgk_error_set(err, WGK_ERR_LIMIT, NULL, 0, 0, what,
                         "binding of %llu bytes exceeds the device's %s of %llu bytes", (unsigned long long)size,
                         uniform ? "maxUniformBufferBindingSize" : "maxStorageBufferBindingSize",
                         (unsigned long long)max);
  return WGK_OK;
}

wgk_status wgk_gpu_bind_group_create(wgk_gpu_device *dev, const wgk_gpu_pipeline *pipeline,
                                     const wgk_gpu_binding *bindings, size_t count, const char *label,
                                     wgk_gpu_bind_group **out, wgk_error *err) {
  *out = NULL;
  wgk_status s = wgk_gpu_device_check(dev, err);
  if (s) return s;
  if (!pipeline || count != pipeline->count || (count && !bindings))
    return wgk_error_set(err, WGK_ERR_INVALID_ARGUMENT, NULL, 0, 0, label, "%zu bindings given, the pipeline has %zu",
                         count, pipeline ? pipeline->count : 0);
  WGPUBindGroupEntry entries[WGK_GPU_MAX_BINDINGS] = {0};
  for (size_t i = 0; i < count; i++) {
    if ((s = check_binding(dev, pipeline->types[i], &bindings[i], i, err))) return s;
    entries[i].binding = (uint32_t)i;
    entries[i].buffer = bindings[i].buffer->buffer;
    entries[i].offset = bindings[i].offset;
    entries[i].size = bindings[i].size ? bindings[i].size : WGPU_WHOLE_SIZE;
  }
  wgk_gpu_bind_group *g = calloc(1, sizeof *g);
  if (!g) return wgk_error_set(err, WGK_ERR_OUT_OF_MEMORY, NULL, 0, 0, NULL, "out of memory");
  WGPUBindGroupDescriptor desc = {NULL, wgk_gpu_sv(label), pipeline->layout, count, entries};
  wgk_gpu_scope_push(dev);
  g->group = wgpuDeviceCreateBindGroup(dev->device, &desc);
  s = wgk_gpu_scope_pop(dev, "creating a bind group", err);
  if (s == WGK_OK && !g->group) s = wgk_error_set(err, WGK_ERR_GPU, NULL, 0, 0, NULL, "creating a bind group failed");
  if (s != WGK_OK) {
    wgk_gpu_bind_group_destroy(g);
    return s;
  }
  *out = g;
  return WGK_OK;
}

void wgk_gpu_bind_group_destroy(wgk_gpu_bind_group *g) {
  if (!g) return;
  if (g->group) wgpuBindGroupRelease(g->group);
  free(g);
}
