#include "util/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens path for reading if it is a regular file of at most max_bytes (O_NONBLOCK: a FIFO must not hang the
 * open; fstat then refuses anything but a regular file, and a file larger than max_bytes before a byte is read). */
static wgk_status open_regular(const char *path, size_t max_bytes, FILE **out, util_error *err) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return util_error_in(err, errno == ENOENT ? WGK_ERR_NOT_FOUND : WGK_ERR_IO, path, NULL, "cannot open: %s",
                         strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return util_error_in(err, WGK_ERR_IO, path, NULL, "not a regular file: only regular files are read");
  }
  if ((uint64_t)sb.st_size > (uint64_t)max_bytes) {
    close(fd);
    return util_error_in(err, WGK_ERR_LIMIT, path, NULL, "file too large: %llu bytes, above the limit of %zu",
                         (unsigned long long)sb.st_size, max_bytes);
  }
  *out = fdopen(fd, "rb");
  if (!*out) {
    close(fd);
    return util_error_in(err, WGK_ERR_IO, path, NULL, "cannot open: %s", strerror(errno));
  }
  return WGK_OK;
}

/* Reads f to its end into a NUL-terminated buffer of *n bytes: WGK_ERR_LIMIT past max_bytes (the file may grow
 * after fstat), WGK_ERR_IO on a read error, WGK_ERR_OUT_OF_MEMORY. */
static wgk_status read_stream(FILE *f, size_t max_bytes, unsigned char **data, size_t *len) {
  size_t cap = 4096, n = 0;
  unsigned char *buf = malloc(cap + 1);
  wgk_status st = buf ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  while (st == WGK_OK) {
    if (n == cap) { /* grow geometrically, never past the cap (+1 byte to detect an over-long file) */
      size_t ncap = cap > max_bytes / 2 ? max_bytes + 1 : cap * 2;
      unsigned char *nb = ncap > cap ? realloc(buf, ncap + 1) : NULL;
      if (!nb) {
        st = ncap > cap ? WGK_ERR_OUT_OF_MEMORY : WGK_ERR_LIMIT;
        break;
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n > max_bytes)
      st = WGK_ERR_LIMIT;
    else if (got == 0)
      break;
  }
  if (st == WGK_OK && ferror(f)) st = WGK_ERR_IO;
  if (st != WGK_OK) {
    free(buf);
    return st;
  }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return WGK_OK;
}

wgk_status util_file_read_all(const char *path, size_t max_bytes, unsigned char **data, size_t *len, util_error *err) {
  *data = NULL;
  *len = 0;
  FILE *f = NULL;
  wgk_status st = open_regular(path, max_bytes, &f, err);
  if (st != WGK_OK) return st;
  st = read_stream(f, max_bytes, data, len);
  fclose(f);
  if (st == WGK_ERR_OUT_OF_MEMORY) return util_error_oom(err, path, NULL);
  if (st != WGK_OK)
    return util_error_in(err, st, path, NULL, "%s", st == WGK_ERR_LIMIT ? "file too large" : "read error");
  return WGK_OK;
}
