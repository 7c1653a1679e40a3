/*
 * NumPy .npy files, versions 1.0 and 2.0 (3.0 read too: same layout, UTF-8 header), little-endian, C order.
 * dtypes: <f4 <f2 <i4 <u4 <i8 <i1 <u1 |i1 |u1 |b1 (and '=' or '<' for the one-byte ones).
 * Every error names the file: "path: message" (source = path).
 */
#ifndef WGK_UTIL_NPY_H
#define WGK_UTIL_NPY_H

#include "util/error.h"
#include "util/tensor_host.h"

#define WGK_NPY_MAX_HEADER 65536 /* header bytes accepted; numpy itself refuses above 10000 by default */

wgk_status util_npy_read(const char *path, util_host_tensor **out /* OUT */, util_error *err);
/* As util_npy_read, refusing (before reading or allocating the data) a file whose header declares more than
 * max_bytes data bytes; bound names the limit in the message ("maxBufferSize"). */
wgk_status util_npy_read_max(const char *path, uint64_t max_bytes, const char *bound, util_host_tensor **out /* OUT */,
                             util_error *err);
/* Every check of util_npy_read but the data's: the file, its header, the size it declares against the file's;
 * *data_bytes the size the header declares. Reads the header only. */
wgk_status util_npy_check(const char *path, size_t *data_bytes /* OUT, may be NULL */, util_error *err);
/* Parses a whole .npy image from memory; source names it in errors. */
wgk_status util_npy_parse(const void *buf, size_t len, const char *source, util_host_tensor **out /* OUT */,
                          util_error *err);
/* Writes version 1.0 (a rank <= 8 header always fits), header padded so data starts at a multiple of 64. */
wgk_status util_npy_write(const char *path, const util_host_tensor *t, util_error *err);

#endif
