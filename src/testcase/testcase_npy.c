/* .npy files of a package in test.json: inputs ("npy" instead of "data" or "generator") and expected outputs, read
 * through the package (digest-checked when it is verified) and checked against the dtype and shape the case gives. */
#include <stdio.h>
#include <string.h>

#include "package/package.h"
#include "testcase/testcase.h"
#include "util/npy.h"

/* "[2, 3]" into buf. */
static const char *shape_text(int rank, const int64_t *dims, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < rank && n < size; d++)
    n += (size_t)snprintf(buf + n, size - n, "%s%lld", d ? ", " : "", (long long)dims[d]);
  if (n < size) snprintf(buf + n, size - n, "]");
  return buf;
}

/* Reads rel from pkg as a .npy image; the dtype (unless INVALID) and shape (unless rank < 0) must be the file's. */
static wgk_status load(pkg_package *pkg, const char *rel, const char *source, tc_pos pos, const char *what,
                       wgk_dtype dtype, int rank, const int64_t *dims, util_host_tensor **out, util_error *err) {
  *out = NULL;
  const char *data = NULL;
  size_t len = 0;
  wgk_status st = pkg ? pkg_read_file(pkg, rel, &data, &len, err)
                      : util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "no package to read %s from", rel);
  char where[4096];
  snprintf(where, sizeof where, "%s/%s", pkg ? pkg_dir(pkg) : ".", rel);
  if (!st) st = util_npy_parse(data, len, where, out, err);
  if (st) { /* the package's or the reader's message, placed at the case's value */
    char text[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(err, text, sizeof text);
    util_error_clear(err);
    return util_error_value(err, st, source, pos, "%s, file %s: %s", what, rel, text);
  }
  const util_host_tensor *t = *out;
  char want[256], got[256];
  if (dtype != WGK_DTYPE_INVALID && t->dtype != dtype)
    st = util_error_value(err, WGK_ERR_PARSE, source, pos, "%s: %s holds %s, the case says dtype %s", what, rel,
                          wgk_dtype_name(t->dtype), wgk_dtype_name(dtype));
  else if (rank >= 0 && (t->rank != rank || memcmp(t->dims, dims, sizeof(int64_t) * (size_t)rank) != 0))
    st = util_error_value(err, WGK_ERR_PARSE, source, pos, "%s: %s has shape %s, the case says shape %s", what, rel,
                          shape_text(t->rank, t->dims, got, sizeof got), shape_text(rank, dims, want, sizeof want));
  if (st) {
    util_host_tensor_free(*out);
    *out = NULL;
  }
  return st;
}

wgk_status tc_input_load(const tc_input *in, pkg_package *pkg, const char *source, util_host_tensor **out,
                         util_error *err) {
  if (in->kind != WGK_TC_NPY) return tc_input_make(in, source, out, err);
  char what[256];
  snprintf(what, sizeof what, "input '%s'", in->key);
  return load(pkg, in->npy, source, in->pos, what, in->dtype, in->rank, in->dims, out, err);
}

wgk_status tc_expected_load(const tc_expected *e, pkg_package *pkg, const char *source, util_host_tensor **out,
                            util_error *err) {
  char what[256];
  snprintf(what, sizeof what, "expected '%s'", e->key);
  if (!e->npy) {
    *out = NULL;
    return util_error_value(err, WGK_ERR_INVALID_ARGUMENT, source, e->pos, "%s is inline data, not a file", what);
  }
  return load(pkg, e->npy, source, e->pos, what, WGK_DTYPE_INVALID, e->rank, e->dims, out, err);
}

bool tc_case_has_npy_expected(const tc_case *c) {
  for (size_t i = 0; i < c->n_expected; i++)
    if (c->expected[i].npy) return true;
  return false;
}
