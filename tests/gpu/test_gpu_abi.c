/* Runtime checks of the facts in src/gpu/webgpu_abi.h: Dawn must write exactly the bytes our
 * structs say it does (a poisoned buffer shows how far it wrote), and values must sit at the offsets
 * where sane limits are expected. A layout error then fails here instead of corrupting memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu_internal.h"

#define POISON 0xAB

static size_t written_extent(const unsigned char *bytes, size_t size) {
  size_t end = 0;
  for (size_t i = 0; i < size; i++)
    if (bytes[i] != POISON) end = i + 1;
  return end;
}

static void instance_capabilities(void **state) {
  unsigned char raw[64];
  memset(raw, POISON, sizeof raw);
  WGPUInstanceCapabilities *caps = (WGPUInstanceCapabilities *)raw;
  caps->nextInChain = NULL;
  assert_int_equal(wgpuGetInstanceCapabilities(caps), WGPUStatus_Success);
  assert_true(written_extent(raw, sizeof raw) <= sizeof *caps);
  assert_int_equal(caps->timedWaitAnyEnable, 1);
  assert_true(caps->timedWaitAnyMaxCount >= 1 && caps->timedWaitAnyMaxCount < 4096);
}

static WGPUAdapter default_adapter(WGPUInstance instance) {
  WGPUAdapter adapter = NULL;
  util_error err = {0};
  assert_int_equal(gpu_adapter_select(instance, NULL, &adapter, &err), WGK_OK);
  return adapter;
}

static void adapter_info_and_limits(void **state) {
  WGPUInstance instance = gpu_instance_create();
  assert_non_null(instance);
  WGPUAdapter adapter = default_adapter(instance);

  unsigned char raw[256];
  memset(raw, POISON, sizeof raw);
  WGPUAdapterInfo *info = (WGPUAdapterInfo *)raw;
  info->nextInChain = NULL;
  assert_int_equal(wgpuAdapterGetInfo(adapter, info), WGPUStatus_Success);
  assert_true(written_extent(raw, sizeof raw) <= sizeof *info);
  assert_true(info->backendType >= WGPUBackendType_Null && info->backendType <= WGPUBackendType_OpenGLES);
  assert_true(info->adapterType >= WGPUAdapterType_DiscreteGPU && info->adapterType <= WGPUAdapterType_Unknown);
  assert_true(info->vendor.length < 256 && info->description.length < 1024);
  assert_true(info->subgroupMinSize <= info->subgroupMaxSize && info->subgroupMaxSize <= 128);
  wgpuAdapterInfoFreeMembers(*info);

  memset(raw, POISON, sizeof raw);
  WGPULimits *limits = (WGPULimits *)raw;
  limits->nextInChain = NULL;
  assert_int_equal(wgpuAdapterGetLimits(adapter, limits), WGPUStatus_Success);
  size_t extent = written_extent(raw, sizeof raw);
  printf("# GetLimits wrote %zu of %zu bytes\n", extent, sizeof *limits);
  /* This Dawn stops after maxImmediateSize; the per-stage storage limits stay as we set them. */
  assert_true(extent >= offsetof(WGPULimits, maxImmediateSize) + 4 && extent <= sizeof *limits);
  assert_true(limits->maxBindGroups >= 4 && limits->maxBindGroups <= 64);
  assert_true(limits->maxStorageBufferBindingSize >= 134217728u);
  assert_true(limits->maxBufferSize >= 268435456u);
  assert_true(limits->maxComputeWorkgroupSizeZ >= 64 && limits->maxComputeWorkgroupSizeZ <= 4096);
  assert_true(limits->maxComputeWorkgroupsPerDimension >= 65535);
  uint32_t align = limits->minStorageBufferOffsetAlignment;
  assert_true(align >= 4 && align <= 256 && (align & (align - 1)) == 0);

  WGPUSupportedFeatures features = {0};
  wgpuAdapterGetFeatures(adapter, &features);
  assert_true(features.featureCount < 512);
  wgpuSupportedFeaturesFreeMembers(features);
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(instance_capabilities),
      cmocka_unit_test(adapter_info_and_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
