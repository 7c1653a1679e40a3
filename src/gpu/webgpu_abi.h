/*
 * Our own declaration of the part of webgpu.h that wgk uses, for the Dawn in
 * libwebgpu_wrapper.so (npm bun-webgpu-linux-x64 0.1.7, webgpu.h of about April-May 2025).
 * Work in progress: handles first, the rest follows with size and offset checks.
 */
#ifndef WGK_GPU_WEBGPU_ABI_H
#define WGK_GPU_WEBGPU_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUBufferImpl *WGPUBuffer;

#endif
