/* Logical dtypes (the table: util/dtype.h) and their GPU storage (docs/call-semantics.md), as the public loader stores
 * them (its dtype table): int8 / int16 / uint8 / bool widened to one 32-bit word per element (int8 and int16
 * sign-extended) and narrowed back to their low 8 or 16 bits on read (the loader's Int8Array / Int16Array / Uint8Array
 * of the words; bool reads back as its low byte != 0); int64 as 64 bits, or as 32-bit words where a port projects it
 * (widened back on read: int32 sign-extended, uint32 zero-extended). */
#include <string.h>

#include "runtime/runtime_internal.h"
#include "util/dtype.h"

wgk_dtype rt_dtype_of(const char *logical) { return wgk_dtype_from_name(logical); }

static size_t gpu_size(wgk_dtype dtype) {
  const util_dtype_info *d = util_dtype_info_of(dtype);
  return d ? d->storage_bytes : 0;
}

size_t rt_storage_bytes(wgk_dtype dtype, int64_t numel) {
  size_t bytes = (size_t)numel * gpu_size(dtype);
  bytes = (bytes + 3) & ~(size_t)3;
  return bytes < 4 ? 4 : bytes;
}

bool rt_to_storage(wgk_dtype dtype, const void *host, int64_t numel, void *storage) {
  size_t n = (size_t)numel;
  switch (dtype) {
  case WGK_DTYPE_INT8: {
    const int8_t *s = host;
    int32_t *d = storage;
    for (size_t i = 0; i < n; i++) d[i] = s[i];
    return true;
  }
  case WGK_DTYPE_INT16: {
    const uint8_t *s = host;
    int32_t *d = storage;
    for (size_t i = 0; i < n; i++) {
      int16_t v;
      memcpy(&v, s + 2 * i, 2);
      d[i] = v;
    }
    return true;
  }
  case WGK_DTYPE_UINT8:
  case WGK_DTYPE_BOOL: {
    const uint8_t *s = host;
    uint32_t *d = storage;
    for (size_t i = 0; i < n; i++) d[i] = dtype == WGK_DTYPE_BOOL ? s[i] != 0 : s[i];
    return true;
  }
  case WGK_DTYPE_INVALID:
    return false;
  default:
    memcpy(storage, host, n * wgk_dtype_size(dtype));
    return true;
  }
}

bool rt_from_storage(wgk_dtype dtype, const void *storage, int64_t numel, void *host) {
  size_t n = (size_t)numel;
  switch (dtype) {
  case WGK_DTYPE_INT8: {
    const uint32_t *s = storage;
    uint8_t *d = host; /* the low byte, two's complement */
    for (size_t i = 0; i < n; i++) d[i] = (uint8_t)s[i];
    return true;
  }
  case WGK_DTYPE_INT16: {
    const uint32_t *s = storage;
    uint8_t *d = host;
    for (size_t i = 0; i < n; i++) {
      uint16_t v = (uint16_t)s[i];
      memcpy(d + 2 * i, &v, 2);
    }
    return true;
  }
  case WGK_DTYPE_UINT8:
  case WGK_DTYPE_BOOL: {
    const uint32_t *s = storage;
    uint8_t *d = host;
    for (size_t i = 0; i < n; i++) d[i] = dtype == WGK_DTYPE_BOOL ? (uint8_t)s[i] != 0 : (uint8_t)s[i];
    return true;
  }
  case WGK_DTYPE_INVALID:
    return false;
  default:
    memcpy(host, storage, n * wgk_dtype_size(dtype));
    return true;
  }
}

bool rt_from_stored(wgk_dtype dtype, wgk_dtype storage, const void *words, int64_t numel, void *host) {
  if (dtype != WGK_DTYPE_INT64 || storage == WGK_DTYPE_INT64) return rt_from_storage(dtype, words, numel, host);
  const uint8_t *s = words;
  int64_t *d = host;
  for (int64_t i = 0; i < numel; i++) {
    uint32_t w;
    memcpy(&w, s + 4 * i, 4);
    d[i] = storage == WGK_DTYPE_INT32 ? (int64_t)(int32_t)w : (int64_t)w;
  }
  return storage == WGK_DTYPE_INT32 || storage == WGK_DTYPE_UINT32;
}

wgk_dtype rt_port_storage(const manifest_port *port, wgk_dtype dtype) {
  if (dtype != WGK_DTYPE_INT64 || !port || !port->storage_dtype) return dtype;
  return strcmp(port->storage_dtype, "uint32") == 0 ? WGK_DTYPE_UINT32 : WGK_DTYPE_INT32;
}

size_t rt_port_element_bytes(const manifest_port *port, wgk_dtype dtype) {
  if (port && port->packed && dtype == WGK_DTYPE_UINT8) return 1; /* four to a word */
  return gpu_size(rt_port_storage(port, dtype));
}
