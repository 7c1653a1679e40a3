/*
 * wgk: WebGPU kernel packages, natively.
 *
 * The one public header of libwgk. Every object is an opaque handle; every function that can fail
 * returns a wgk_status and leaves its OUT parameters NULL on failure. wgk_*_destroy(NULL) is a no-op.
 * There is no global state: everything hangs off a wgk_context.
 */
#ifndef WGK_H
#define WGK_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WGK_BUILDING)
#define WGK_API __attribute__((visibility("default")))
#else
#define WGK_API
#endif

/* Status codes. Only ever appended to: a code keeps its number forever. */
typedef enum wgk_status {
  WGK_OK = 0,
  WGK_ERR_INVALID_ARGUMENT = 1, /* a caller passed a bad value (NULL handle, unknown name ...) */
  WGK_ERR_OUT_OF_MEMORY = 2,    /* a host allocation failed */
  WGK_ERR_IO = 3,               /* a file could not be read or written */
  WGK_ERR_PARSE = 4,            /* JSON, expression, template, .npy or protobuf text is malformed */
  WGK_ERR_MANIFEST = 5,         /* the manifest breaks a rule of the format */
  WGK_ERR_DIGEST = 6,           /* a package file does not match its metadata digest */
  WGK_ERR_EVAL = 7,             /* an expression or template failed while evaluating */
  WGK_ERR_CALL = 8,             /* a call breaks the op contract (port, dtype, rank, attribute, value) */
  WGK_ERR_NO_VARIANT = 9,       /* no variant of the kernel accepts the call on this device */
  WGK_ERR_NO_ADAPTER = 10,      /* no WebGPU adapter (no Vulkan driver) */
  WGK_ERR_DEVICE = 11,          /* device creation failed, or the device was lost */
  WGK_ERR_SHADER = 12,          /* WGSL failed to compile */
  WGK_ERR_GPU = 13,             /* a WebGPU validation or runtime error */
  WGK_ERR_LIMIT = 14,           /* a request exceeds a device or language limit */
  WGK_ERR_TIMEOUT = 15,         /* a wait on the GPU timed out */
  WGK_ERR_UNSUPPORTED = 16,     /* valid, but not supported by this device or build */
  WGK_ERR_NOT_FOUND = 17,       /* a package, port, file or case does not exist */
} wgk_status;

/* A short English text for a status code; never NULL. */
WGK_API const char *wgk_status_str(wgk_status status);

#ifdef __cplusplus
}
#endif
#endif /* WGK_H */
