/* Reading a whole (binary) file into memory with a size cap; errors name the file. */
#ifndef WGK_UTIL_FILE_READ_H
#define WGK_UTIL_FILE_READ_H

#include "util/error.h"

/* *data is malloc'ed (free it), NUL-terminated one past *len for convenience; NULL on failure.
 * Files larger than max_bytes fail with WGK_ERR_LIMIT, before any byte is read; anything but a regular file
 * (a folder, a FIFO, /dev/zero) fails with WGK_ERR_IO without being read. */
wgk_status util_file_read_all(const char *path, size_t max_bytes, unsigned char **data /* OUT */, size_t *len /* OUT */,
                              util_error *err);

#endif
