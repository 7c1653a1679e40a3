/* libFuzzer entry: metadata.json text through the package's shape check (pkg_metadata_load) and, when
 * that accepts it, the match against a shipped manifest (the one its name asks for, else RotaryEmbedding's).
 * The loader reads a file, so each input is written to metadata.json in a scratch folder first.
 * Every input must end in a verdict, never a crash, a leak or undefined behaviour. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "package/pkg_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96];       /* scratch folder and its metadata.json, removed at exit */
static char *real_dir;               /* dir with symlinks resolved: the package root files must stay inside */
static manifest_model *manifests[2]; /* the shipped packages' manifests, loaded once */

static void remove_scratch(void) {
  unlink(file);
  rmdir(dir);
  for (int i = 0; i < 2; i++) manifest_free(manifests[i]);
  free(real_dir);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/wgk-fuzz-meta-XXXXXX");
  if (!mkdtemp(dir) || !(real_dir = realpath(dir, NULL))) abort();
  snprintf(file, sizeof file, "%s/metadata.json", dir);
  static const char *const ops[2] = {"ai.onnx.RotaryEmbedding", "com.microsoft.SparseAttention"};
  for (int i = 0; i < 2; i++) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s/build/webgpu/manifest.json", WGK_FUZZ_KERNEL_DIR, ops[i]);
    util_error err;
    util_error_clear(&err);
    if (manifest_load_file(p, &manifests[i], &err) != WGK_OK) {
      fprintf(stderr, "fuzz_metadata: %s\n", err.message);
      abort();
    }
  }
  atexit(remove_scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!dir[0]) setup();
  FILE *f = fopen(file, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
  pkg_package pkg;
  memset(&pkg, 0, sizeof pkg);
  pkg.dir = dir;
  pkg.root = pkg.real_root = real_dir;
  util_error err;
  util_error_clear(&err);
  if (pkg_metadata_load(&pkg, &err) == WGK_OK) {
    const char *name = json_string_value(json_object_get(pkg.metadata, "name"));
    pkg.manifest = name && !strcmp(name, manifests[1]->op_id) ? manifests[1] : manifests[0];
    (void)pkg_metadata_match(&pkg, &err);
  }
  json_decref(pkg.metadata);
  util_manifest_jpos_free(&pkg.meta_index);
  free(pkg.meta_source);
  return 0;
}
