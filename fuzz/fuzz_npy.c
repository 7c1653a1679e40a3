/* libFuzzer entry: .npy bytes parsed from memory and read back from a file; both readers must agree (same
 * status, same tensor), and an accepted tensor converts to doubles and back. Never a crash, leak or UB, and
 * never "out of memory": the header's shape must be checked against the data before anything is allocated. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64]; /* one scratch file per process, removed at exit */

static void remove_scratch(void) { unlink(path); }

static bool write_scratch(const uint8_t *data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/wgk-fuzz-npy-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) abort();
    close(fd);
    atexit(remove_scratch);
  }
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

static bool same(const util_host_tensor *a, const util_host_tensor *b) {
  return a->dtype == b->dtype && a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof a->dims) &&
         util_host_tensor_bytes(a) == util_host_tensor_bytes(b) &&
         (!util_host_tensor_bytes(a) || !memcmp(a->data, b->data, util_host_tensor_bytes(a)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  util_error err;
  util_error_clear(&err);
  util_host_tensor *mem = NULL, *file = NULL;
  wgk_status st_mem = util_npy_parse(data, size, "fuzz.npy", &mem, &err);
  if (!write_scratch(data, size)) abort();
  wgk_status st_file = util_npy_read(path, &file, &err);
  if (st_mem == WGK_ERR_OUT_OF_MEMORY || st_file == WGK_ERR_OUT_OF_MEMORY) abort();
  if ((st_mem == WGK_OK) != (st_file == WGK_OK)) abort(); /* the two readers disagree */
  if (mem && file && !same(mem, file)) abort();
  if (mem) {
    size_t n = util_host_tensor_numel(mem);
    double *vals = malloc(sizeof(double) * (n + 1));
    if (vals) {
      util_host_tensor_to_double(mem, vals);
      util_host_tensor_from_double(mem, vals);
      free(vals);
    }
  }
  util_host_tensor_free(mem);
  util_host_tensor_free(file);
  return 0;
}
