/* .npy reading and writing. The header is a Python dict literal; we parse exactly the three keys numpy writes
 * ('descr', 'fortran_order', 'shape') with a small cursor scanner and refuse anything else by name. */
#include "util/npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct cursor {
  const char *p, *end; /* remaining header text */
  const char *src;     /* file name for errors */
  util_error *err;
} cursor;

typedef struct npy_header {
  wgk_dtype dtype;
  int rank;
  int64_t dims[WGK_HOST_MAX_RANK];
  int seen; /* bit mask of keys seen: 1 descr, 2 fortran_order, 4 shape */
} npy_header;

static wgk_status fail(cursor *c, const char *fmt, const char *arg) {
  return util_error_in(c->err, WGK_ERR_PARSE, c->src, NULL, fmt, arg);
}

static void skip_ws(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool eat(cursor *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return true;
  }
  return false;
}

/* A quoted Python string without escapes, copied into buf. */
static wgk_status read_str(cursor *c, const char *what, char *buf, size_t size) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return fail(c, "npy header: expected a quoted string%s", "");
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\0') return fail(c, "npy header: %s contains a NUL byte (header strings are plain text)", what);
    if (n + 1 >= size || *c->p == '\\') return fail(c, "npy header: string too long or escaped%s", "");
    buf[n++] = *c->p++;
  }
  if (c->p >= c->end) return fail(c, "npy header: unterminated string%s", "");
  c->p++;
  buf[n] = 0;
  return WGK_OK;
}

static wgk_dtype parse_descr(const char *d) {
  static const struct {
    const char *s;
    wgk_dtype t;
  } wide[] = {{"<f4", WGK_DTYPE_FLOAT32}, {"<f2", WGK_DTYPE_FLOAT16}, {"<i4", WGK_DTYPE_INT32},
              {"<u4", WGK_DTYPE_UINT32},  {"<i8", WGK_DTYPE_INT64},   {"<i2", WGK_DTYPE_INT16}};
  for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
    if (strcmp(d, wide[i].s) == 0) return wide[i].t;
  /* One-byte types have no byte order: numpy writes '|', other writers '<' or '='. */
  if (strlen(d) == 3 && (d[0] == '|' || d[0] == '<' || d[0] == '=')) {
    if (strcmp(d + 1, "i1") == 0) return WGK_DTYPE_INT8;
    if (strcmp(d + 1, "u1") == 0) return WGK_DTYPE_UINT8;
    if (strcmp(d + 1, "b1") == 0) return WGK_DTYPE_BOOL;
  }
  return WGK_DTYPE_INVALID;
}

static wgk_status read_descr(cursor *c, npy_header *h) {
  char d[32];
  wgk_status st = read_str(c, "'descr'", d, sizeof d);
  if (st != WGK_OK) return st;
  if ((h->dtype = parse_descr(d)) != WGK_DTYPE_INVALID) return WGK_OK;
  if (d[0] == '>') return fail(c, "npy: big-endian dtype '%s' is not supported", d);
  return fail(c, "npy: unsupported dtype '%s' (expected <f4 <f2 <i4 <u4 <i8 <i2 <i1 <u1 |b1)", d);
}

static wgk_status read_bool(cursor *c, bool *v) {
  skip_ws(c);
  size_t left = (size_t)(c->end - c->p);
  if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
    *v = true;
    c->p += 4;
  } else if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
    *v = false;
    c->p += 5;
  } else {
    return fail(c, "npy header: fortran_order must be True or False%s", "");
  }
  return WGK_OK;
}

static wgk_status read_dim(cursor *c, int64_t *v) {
  skip_ws(c);
  int64_t x = 0;
  const char *start = c->p;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    if (x > (INT64_MAX - 9) / 10) return fail(c, "npy header: dimension too large%s", "");
    x = x * 10 + (*c->p++ - '0');
  }
  if (c->p == start) return fail(c, "npy header: expected a non-negative integer in shape%s", "");
  if (c->p < c->end && *c->p == 'L') /* Python 2 long suffix */
    c->p++;
  *v = x;
  return WGK_OK;
}

/* (), (5,), (2, 3) and (2, 3,) */
static wgk_status read_shape(cursor *c, npy_header *h) {
  if (!eat(c, '(')) return fail(c, "npy header: shape must be a tuple%s", "");
  h->rank = 0;
  while (!eat(c, ')')) {
    if (h->rank == WGK_HOST_MAX_RANK) return fail(c, "npy header: rank above the limit of 8%s", "");
    wgk_status st = read_dim(c, &h->dims[h->rank++]);
    if (st != WGK_OK) return st;
    if (!eat(c, ',')) {
      if (eat(c, ')')) break;
      return fail(c, "npy header: expected ',' or ')' in shape%s", "");
    }
  }
  return WGK_OK;
}

static wgk_status read_entry(cursor *c, npy_header *h) {
  char key[32];
  wgk_status st = read_str(c, "a key", key, sizeof key);
  if (st != WGK_OK) return st;
  if (!eat(c, ':')) return fail(c, "npy header: expected ':' after '%s'", key);
  int bit = strcmp(key, "descr") == 0 ? 1 : strcmp(key, "fortran_order") == 0 ? 2 : strcmp(key, "shape") == 0 ? 4 : 0;
  if (!bit) return fail(c, "npy header: unknown key '%s'", key);
  if (h->seen & bit) return fail(c, "npy header: duplicate key '%s'", key);
  h->seen |= bit;
  if (bit == 1) return read_descr(c, h);
  if (bit == 4) return read_shape(c, h);
  bool fortran = false;
  if ((st = read_bool(c, &fortran)) == WGK_OK && fortran)
    return fail(c, "npy: Fortran-order arrays are not supported (save with np.ascontiguousarray)%s", "");
  return st;
}

static wgk_status parse_dict(cursor *c, npy_header *h) {
  if (!eat(c, '{')) return fail(c, "npy header: expected '{'%s", "");
  while (!eat(c, '}')) {
    wgk_status st = read_entry(c, h);
    if (st != WGK_OK) return st;
    if (!eat(c, ',') && !(skip_ws(c), c->p < c->end && *c->p == '}'))
      return fail(c, "npy header: expected ',' or '}'%s", "");
  }
  skip_ws(c);
  if (c->p != c->end) return fail(c, "npy header: text after the dict%s", "");
  if (h->seen != 7)
    return fail(c, "npy header: missing %s",
                !(h->seen & 1)   ? "'descr'"
                : !(h->seen & 2) ? "'fortran_order'"
                                 : "'shape'");
  return WGK_OK;
}

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Magic, version and header length (not yet checked against the bytes that follow). */
static wgk_status read_preamble(const unsigned char *b, size_t len, cursor *c, size_t *header_len, size_t *header_off) {
  if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0) return fail(c, "not a .npy file (bad magic)%s", "");
  unsigned major = b[6];
  if (major == 1) {
    *header_len = (size_t)b[8] | (size_t)b[9] << 8;
    *header_off = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return fail(c, "npy: truncated preamble%s", "");
    *header_len = le32(b + 8);
    *header_off = 12;
  } else {
    return fail(c, "npy: unsupported format version%s", "");
  }
  if (*header_len > WGK_NPY_MAX_HEADER) return fail(c, "npy: header length above the limit of 65536 bytes%s", "");
  return WGK_OK;
}

/* Magic, version and header length; leaves the cursor on the dict text. */
static wgk_status parse_preamble(const unsigned char *b, size_t len, cursor *c, size_t *data_off) {
  size_t hl = 0, off = 0;
  wgk_status st = read_preamble(b, len, c, &hl, &off);
  if (st != WGK_OK) return st;
  if (hl > len - off) return fail(c, "npy: truncated header%s", "");
  c->p = (const char *)b + off;
  c->end = c->p + hl;
  *data_off = off + hl;
  return WGK_OK;
}

/* Preamble and dict of a header image; *data_off where the data starts, *data_bytes what the shape needs. */
static wgk_status parse_header(const unsigned char *b, size_t len, cursor *c, npy_header *h, size_t *data_off,
                               size_t *data_bytes) {
  wgk_status st = parse_preamble(b, len, c, data_off);
  if (st == WGK_OK) st = parse_dict(c, h);
  if (st != WGK_OK) return st;
  size_t esize = wgk_dtype_size(h->dtype), numel = 0;
  if (!util_host_shape_numel(h->rank, h->dims, esize, &numel))
    return util_error_in(c->err, WGK_ERR_LIMIT, c->src, NULL,
                         "npy: shape too large (above the host limit of %llu bytes)",
                         (unsigned long long)WGK_HOST_MAX_BYTES);
  *data_bytes = numel * esize;
  return WGK_OK;
}

static wgk_status size_mismatch(cursor *c, size_t expected, size_t actual) {
  return util_error_in(c->err, WGK_ERR_PARSE, c->src, NULL,
                       "npy: %s data: the header's dtype and shape need %zu data bytes, the file has %zu",
                       actual < expected ? "truncated" : "trailing", expected, actual);
}

wgk_status util_npy_parse(const void *buf, size_t len, const char *source, util_host_tensor **out, util_error *err) {
  *out = NULL;
  const unsigned char *b = buf;
  cursor c = {NULL, NULL, source ? source : "<npy>", err};
  npy_header h = {0};
  size_t off = 0, bytes = 0;
  wgk_status st = parse_header(b, len, &c, &h, &off, &bytes);
  if (st != WGK_OK) return st;
  if (len - off != bytes) return size_mismatch(&c, bytes, len - off);
  if ((st = util_host_tensor_create(h.dtype, h.rank, h.dims, out)) != WGK_OK)
    return util_error_in(err, st, c.src, NULL, "npy: cannot allocate the array (%zu bytes)", bytes);
  if (bytes) memcpy((*out)->data, b + off, bytes);
  return WGK_OK;
}

/* Reads exactly n bytes at the current position; false on a short read. */
static bool read_exact(FILE *f, void *dst, size_t n) { return n == 0 || fread(dst, 1, n, f) == n; }

/* The file is opened and checked first (a regular file), its header read and parsed, and the data size the
 * header declares compared with the file's size, all before the data buffer is allocated: /dev/zero, a FIFO
 * or a header claiming 60 GiB costs nothing. */
static wgk_status read_file(FILE *f, const char *path, uint64_t max_bytes, const char *bound, size_t *data_bytes,
                            util_host_tensor **out, util_error *err) {
  cursor c = {NULL, NULL, path, err};
  struct stat sb;
  if (fstat(fileno(f), &sb) != 0) return util_error_in(err, WGK_ERR_IO, path, NULL, "cannot stat: %s", strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, path, NULL,
                         "npy: %s, not a regular file; a .npy input must be a regular file",
                         S_ISDIR(sb.st_mode)    ? "a directory"
                         : S_ISCHR(sb.st_mode)  ? "a character device"
                         : S_ISFIFO(sb.st_mode) ? "a FIFO"
                         : S_ISBLK(sb.st_mode)  ? "a block device"
                                                : "a special file");
  size_t file_size = (size_t)sb.st_size;
  unsigned char pre[12];
  size_t pre_len = file_size < sizeof pre ? file_size : sizeof pre, hl = 0, hoff = 0;
  if (!read_exact(f, pre, pre_len)) return util_error_in(err, WGK_ERR_IO, path, NULL, "read error");
  wgk_status st = read_preamble(pre, pre_len, &c, &hl, &hoff);
  if (st != WGK_OK) return st;
  if (hl > file_size - hoff) return fail(&c, "npy: truncated header%s", "");
  size_t image = hoff + hl, off = 0, bytes = 0;
  unsigned char *head = malloc(image + 1);
  if (!head) return util_error_oom(err, path, NULL);
  /* The preamble read may already reach past a short header (an empty one is 10 bytes): copy only the header's
   * part, and go back to where the data starts. */
  size_t have = pre_len < image ? pre_len : image;
  memcpy(head, pre, have);
  npy_header h = {0};
  if (image > have ? !read_exact(f, head + have, image - have) : fseek(f, (long)image, SEEK_SET) != 0)
    st = util_error_in(err, WGK_ERR_IO, path, NULL, "read error");
  if (!st) st = parse_header(head, image, &c, &h, &off, &bytes);
  free(head);
  if (!st && file_size - off != bytes) st = size_mismatch(&c, bytes, file_size - off);
  /* the bound (the device's maxBufferSize) from the header, before a data byte is read or allocated */
  if (!st && bound && (uint64_t)bytes > max_bytes)
    st = util_error_in(err, WGK_ERR_LIMIT, path, NULL,
                       "npy: the header's dtype and shape need %zu data bytes, above the device's %s of %llu bytes",
                       bytes, bound, (unsigned long long)max_bytes);
  if (data_bytes) *data_bytes = bytes;
  if (st || !out) return st;
  if (!st && (st = util_host_tensor_create(h.dtype, h.rank, h.dims, out)) != WGK_OK)
    return util_error_in(err, st, path, NULL, "npy: cannot allocate the array (%zu bytes)", bytes);
  if (!st && !read_exact(f, (*out)->data, bytes)) {
    util_host_tensor_free(*out);
    *out = NULL;
    st = util_error_in(err, WGK_ERR_IO, path, NULL, "read error (the file changed while read?)");
  }
  return st;
}

static wgk_status open_read(const char *path, uint64_t max_bytes, const char *bound, size_t *data_bytes,
                            util_host_tensor **out, util_error *err) {
  if (out) *out = NULL;
  if (!path || !*path) return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, "<npy>", NULL, "npy: empty file name");
  /* O_NONBLOCK: opening a FIFO without a writer must not hang before fstat refuses it */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (!f) {
    int e = errno;
    if (fd >= 0) close(fd);
    return util_error_in(err, e == ENOENT ? WGK_ERR_NOT_FOUND : WGK_ERR_IO, path, NULL, "cannot open: %s", strerror(e));
  }
  wgk_status st = read_file(f, path, max_bytes, bound, data_bytes, out, err);
  fclose(f);
  return st;
}

wgk_status util_npy_read(const char *path, util_host_tensor **out, util_error *err) {
  return open_read(path, 0, NULL, NULL, out, err);
}

wgk_status util_npy_read_max(const char *path, uint64_t max_bytes, const char *bound, util_host_tensor **out,
                             util_error *err) {
  return open_read(path, max_bytes, bound, NULL, out, err);
}

wgk_status util_npy_check(const char *path, size_t *data_bytes, util_error *err) {
  size_t unused;
  return open_read(path, 0, NULL, data_bytes ? data_bytes : &unused, NULL, err);
}

static const char *descr_of(wgk_dtype d) {
  switch (d) {
  case WGK_DTYPE_FLOAT32:
    return "<f4";
  case WGK_DTYPE_FLOAT16:
    return "<f2";
  case WGK_DTYPE_INT32:
    return "<i4";
  case WGK_DTYPE_UINT32:
    return "<u4";
  case WGK_DTYPE_INT64:
    return "<i8";
  case WGK_DTYPE_INT8:
    return "|i1";
  case WGK_DTYPE_UINT8:
    return "|u1";
  case WGK_DTYPE_BOOL:
    return "|b1";
  case WGK_DTYPE_INT16:
    return "<i2";
  case WGK_DTYPE_INVALID:
    break;
  }
  return NULL;
}

/* The dict, padded with spaces and a final newline so data starts on a 64-byte boundary. */
static size_t format_header(const util_host_tensor *t, char *h, size_t size) {
  int n = snprintf(h, size, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr_of(t->dtype));
  for (int i = 0; i < t->rank; i++)
    n += snprintf(h + n, size - (size_t)n, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
  n += snprintf(h + n, size - (size_t)n, "%s), }", t->rank == 1 ? "," : "");
  size_t pre = 10, total = (pre + (size_t)n + 1 + 63) / 64 * 64; /* rank <= 8 always fits version 1.0 */
  memset(h + n, ' ', total - pre - (size_t)n - 1);
  h[total - pre - 1] = '\n';
  return total - pre;
}

wgk_status util_npy_write(const char *path, const util_host_tensor *t, util_error *err) {
  if (!descr_of(t->dtype) || t->rank < 0 || t->rank > WGK_HOST_MAX_RANK)
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, path, NULL, "npy: cannot write dtype %s",
                         wgk_dtype_name(t->dtype));
  char h[512];
  size_t hl = format_header(t, h, sizeof h);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 0xff), (unsigned char)(hl >> 8)};
  FILE *f = fopen(path, "wb");
  if (!f) return util_error_in(err, WGK_ERR_IO, path, NULL, "cannot create: %s", strerror(errno));
  size_t bytes = util_host_tensor_bytes(t);
  bool ok =
      fwrite(pre, 1, 10, f) == 10 && fwrite(h, 1, hl, f) == hl && (!bytes || fwrite(t->data, 1, bytes, f) == bytes);
  if (fclose(f) != 0) ok = false;
  return ok ? WGK_OK : util_error_in(err, WGK_ERR_IO, path, NULL, "write failed: %s", strerror(errno));
}
