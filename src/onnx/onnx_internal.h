/* Shared between the ONNX reader's files: protobuf-c types stay behind this header. */
#ifndef WGK_ONNX_INTERNAL_H
#define WGK_ONNX_INTERNAL_H

#include "onnx.pb-c.h"
#include "onnx/onnx_reader.h"

#define WGK_ONNX_MAX_FILE ((size_t)1 << 31) /* protobuf's own 2 GiB message limit */

/* A decoded TensorProto -> host tensor (name copied). where says which tensor, for messages. */
wgk_status onnx_tensor_from_proto(const WgkOnnx__TensorProto *tp, const char *source, const char *where,
                                  util_host_tensor **out /* OUT */, util_error *err);
/* strdup of s, or of "" when s is NULL; NULL only when out of memory. */
char *onnx_strdup(const char *s);

#endif
