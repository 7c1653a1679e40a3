/* TensorProto -> host tensor: raw_data when present, else the typed field ONNX prescribes for the type. */
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx_internal.h"
#include "util/file_read.h"

char *onnx_strdup(const char *s) { return strdup(s ? s : ""); }

static wgk_status fail(util_error *err, wgk_status st, const char *src, const char *where, const char *msg, size_t a,
                       size_t b) {
  return util_error_in(err, st, src, where, msg, a, b);
}

/* The data the proto holds must fill the shape exactly; checked before the tensor is allocated, so a few bytes
 * of dims cannot ask for gigabytes. */
static wgk_status check_data_size(const WgkOnnx__TensorProto *tp, wgk_dtype dt, size_t numel, const char *src,
                                  const char *where, util_error *err) {
  size_t bytes = numel * wgk_dtype_size(dt); /* cannot overflow: util_host_shape_numel checked it */
  if (tp->has_raw_data)
    return tp->raw_data.len == bytes ? WGK_OK
                                     : fail(err, WGK_ERR_PARSE, src, where,
                                            "raw_data has %zu bytes, the shape needs %zu", tp->raw_data.len, bytes);
  size_t n;
  const char *field;
  switch (dt) {
  case WGK_DTYPE_FLOAT32:
    n = tp->n_float_data;
    field = "float_data";
    break;
  case WGK_DTYPE_INT64:
    n = tp->n_int64_data;
    field = "int64_data";
    break;
  case WGK_DTYPE_UINT32:
    n = tp->n_uint64_data;
    field = "uint64_data";
    break;
  default:
    n = tp->n_int32_data;
    field = "int32_data";
    break;
  }
  if (n != numel)
    return util_error_in(err, WGK_ERR_PARSE, src, where, "%s holds %zu values, the shape needs %zu", field, n, numel);
  return WGK_OK;
}

/* Copies the typed field (its size already checked) into t. */
static void copy_typed(const WgkOnnx__TensorProto *tp, util_host_tensor *t, size_t numel) {
  unsigned char *d = t->data;
  for (size_t i = 0; i < numel; i++) {
    switch (t->dtype) {
    case WGK_DTYPE_FLOAT32:
      memcpy(d + 4 * i, &tp->float_data[i], 4);
      break;
    case WGK_DTYPE_INT64:
      memcpy(d + 8 * i, &tp->int64_data[i], 8);
      break;
    case WGK_DTYPE_UINT32: {
      uint32_t v = (uint32_t)tp->uint64_data[i];
      memcpy(d + 4 * i, &v, 4);
      break;
    }
    case WGK_DTYPE_INT32:
      memcpy(d + 4 * i, &tp->int32_data[i], 4);
      break;
    case WGK_DTYPE_FLOAT16: {
      uint16_t v = (uint16_t)tp->int32_data[i];
      memcpy(d + 2 * i, &v, 2);
      break;
    }
    case WGK_DTYPE_BOOL:
      d[i] = tp->int32_data[i] != 0;
      break;
    case WGK_DTYPE_INT16: {
      int16_t v = (int16_t)tp->int32_data[i];
      memcpy(d + 2 * i, &v, 2);
      break;
    }
    default:
      d[i] = (unsigned char)tp->int32_data[i];
      break; /* int8 / uint8 */
    }
  }
}

wgk_status onnx_tensor_from_proto(const WgkOnnx__TensorProto *tp, const char *src, const char *where,
                                  util_host_tensor **out, util_error *err) {
  *out = NULL;
  if (tp->has_data_location && tp->data_location == 1)
    return util_error_in(err, WGK_ERR_UNSUPPORTED, src, where, "tensor data stored externally is not supported");
  wgk_dtype dt = util_dtype_from_onnx(tp->data_type);
  if (dt == WGK_DTYPE_INVALID)
    return util_error_in(err, WGK_ERR_UNSUPPORTED, src, where, "unsupported data_type %d", (int)tp->data_type);
  if (tp->n_dims > WGK_HOST_MAX_RANK)
    return fail(err, WGK_ERR_LIMIT, src, where, "rank %zu above the limit of %zu", tp->n_dims, WGK_HOST_MAX_RANK);
  size_t numel;
  if (!util_host_shape_numel((int)tp->n_dims, tp->dims, wgk_dtype_size(dt), &numel))
    return util_error_in(err, WGK_ERR_PARSE, src, where, "negative or too large dims");
  wgk_status st = check_data_size(tp, dt, numel, src, where, err);
  if (st != WGK_OK) return st;
  util_host_tensor *t;
  st = util_host_tensor_create(dt, (int)tp->n_dims, tp->dims, &t);
  if (st == WGK_OK) st = util_host_tensor_set_name(t, tp->name);
  if (st != WGK_OK) {
    util_host_tensor_free(t);
    return util_error_in(err, st, src, where, "cannot allocate the tensor");
  }
  if (!tp->has_raw_data)
    copy_typed(tp, t, numel);
  else if (tp->raw_data.len)
    memcpy(t->data, tp->raw_data.data, tp->raw_data.len); /* ONNX raw_data is little-endian, as we are */
  *out = t;
  return WGK_OK;
}

wgk_status onnx_tensor_parse(const void *buf, size_t len, const char *source, util_host_tensor **out, util_error *err) {
  *out = NULL;
  WgkOnnx__TensorProto *tp = wgk_onnx__tensor_proto__unpack(NULL, len, buf);
  if (!tp) return util_error_in(err, WGK_ERR_PARSE, source, NULL, "not a valid TensorProto");
  wgk_status st = onnx_tensor_from_proto(tp, source, NULL, out, err);
  wgk_onnx__tensor_proto__free_unpacked(tp, NULL);
  return st;
}

wgk_status onnx_tensor_read(const char *path, util_host_tensor **out, util_error *err) {
  unsigned char *buf;
  size_t len;
  *out = NULL;
  wgk_status st = util_file_read_all(path, WGK_ONNX_MAX_FILE, &buf, &len, err);
  if (st != WGK_OK) return st;
  st = onnx_tensor_parse(buf, len, path, out, err);
  free(buf);
  return st;
}
