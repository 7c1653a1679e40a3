/* Kernel packages built in a temp folder: the seed manifest, a template, and a metadata.json whose
 * digests this test computes itself (OpenSSL SHA256 + its own base64), independently of the code under test. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <jansson.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "package/package.h"
#include "util/wgk_test.h"

#define TEMPLATE "rotary-embedding.wgsl.jinja"
#define OP_ID "ai.onnx.RotaryEmbedding"

typedef enum mutation { VALID, DOTDOT, MISSING_VARIANT, WRONG_NAME, NO_META, EXTRA_VARIANT, NO_VERSION } mutation;

static char tmp[256]; /* the temp folder of the current test */

static void b64(const unsigned char *in, size_t n, char *out) {
  static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
    out[o++] = a[v >> 18 & 63];
    out[o++] = a[v >> 12 & 63];
    out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? a[v & 63] : '=';
  }
  out[o] = '\0';
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) {
    buf[n] = '\0';
    *len = (size_t)n;
  }
  return buf;
}

static void write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}

static void digest_of(const char *path, char *out) {
  size_t len;
  char *data = read_all(path, &len);
  assert_non_null(data);
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256((const unsigned char *)data, len, md);
  b64(md, sizeof md, out);
  free(data);
}

static void write_metadata(const char *dir, mutation mu) {
  char path[512], d[64];
  json_t *files = json_object();
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  digest_of(path, d);
  json_object_set_new(files, "manifest.json", json_string(d));
  snprintf(path, sizeof path, "%s/" TEMPLATE, dir);
  digest_of(path, d);
  json_object_set_new(files, TEMPLATE, json_string(d));
  if (mu == DOTDOT) json_object_set_new(files, "../README.md", json_string(d));
  json_t *variants = json_object();
  const char *ids[] = {"rank3_cache2_pos", "rank4_cache2_pos", "rank3_cache3", "rank4_cache3", "extra"};
  size_t n = mu == MISSING_VARIANT ? 3 : mu == EXTRA_VARIANT ? 5 : 4;
  for (size_t i = 0; i < n; i++) json_object_set_new(variants, ids[i], json_pack("[s]", TEMPLATE));
  json_t *meta = json_pack("{s:s, s:i, s:{s:s}, s:s, s:o, s:{s:s, s:o}, s:{s:s}}", "name",
                           mu == WRONG_NAME ? "ai.onnx.Rotary" : OP_ID, "version", 1, "backend", "type", "webgpu",
                           "manifestSpecVersion", "1", "variants", variants, "digest", "algorithm", "sha256", "files",
                           files, "provenance", "source", "test");
  assert_non_null(meta);
  if (mu == NO_VERSION) json_object_del(meta, "version");
  snprintf(path, sizeof path, "%s/metadata.json", dir);
  assert_int_equal(json_dump_file(meta, path, JSON_INDENT(2)), 0);
  json_decref(meta);
}

/* Builds <root>/build/webgpu with the seed manifest, a template, an unlisted test.json and metadata. */
static void make_pkg(const char *root, mutation mu) {
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/build", root);
  mkdir(root, 0755);
  mkdir(dir, 0755);
  snprintf(dir, sizeof dir, "%s/build/webgpu", root);
  assert_int_equal(mkdir(dir, 0755), 0);
  size_t len;
  snprintf(path, sizeof path, "%s/tests/manifest/valid/rotary-embedding.manifest.json", getenv("WGK_SOURCE_DIR"));
  char *seed = read_all(path, &len);
  assert_non_null(seed);
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  write_file(path, seed, len);
  free(seed);
  snprintf(path, sizeof path, "%s/" TEMPLATE, dir);
  const char *tmpl = "{{ env.wgsl.resourceDeclarations }}\n@compute @workgroup_size(64) fn main() {}\n";
  write_file(path, tmpl, strlen(tmpl));
  snprintf(path, sizeof path, "%s/test.json", dir);
  write_file(path, "{}", 2);
  if (mu != NO_META) write_metadata(dir, mu);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

static int setup(void **state) {
  (void)state;
  snprintf(tmp, sizeof tmp, "/tmp/wgk-pkg-test-XXXXXX");
  return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static wgk_status try_open(const char *what, const pkg_options *opts, pkg_package **pkg, char *msg, size_t size) {
  util_error err;
  util_error_clear(&err);
  wgk_status st = pkg_open(what, opts, pkg, &err);
  util_error_format(&err, msg, size);
  if (st == WGK_OK)
    assert_non_null(*pkg);
  else
    assert_null(*pkg);
  return st;
}

static void valid_package_loads(void **state) {
  (void)state;
  char root[300], msg[4096];
  snprintf(root, sizeof root, "%s/pkg", tmp);
  make_pkg(root, VALID);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_OK);
  assert_true(pkg_is_verified(pkg));
  assert_null(pkg_warning(pkg));
  assert_string_equal(pkg_op_id(pkg), OP_ID);
  assert_string_equal(pkg_root(pkg), root);
  assert_int_equal(pkg_version(pkg), 1);
  assert_int_equal(pkg_manifest(pkg)->n_variants, 4);
  const char *data, *again;
  size_t len;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(pkg_read_file(pkg, TEMPLATE, &data, &len, &err), WGK_OK);
  assert_non_null(strstr(data, "@compute"));
  assert_int_equal(pkg_read_file(pkg, TEMPLATE, &again, &len, &err), WGK_OK);
  assert_ptr_equal(data, again); /* cached */
  assert_int_equal(pkg_read_file(pkg, "test.json", &data, &len, &err), WGK_ERR_DIGEST);
  assert_null(data);
  util_error_format(&err, msg, sizeof msg);
  assert_non_null(strstr(msg, "not listed"));
  util_error_clear(&err);
  assert_int_equal(pkg_read_file(pkg, "../README.md", &data, &len, &err), WGK_ERR_INVALID_ARGUMENT);
  pkg_free(pkg);
  pkg_free(NULL);
}

static void digest_mismatch_refused(void **state) {
  (void)state;
  char root[300], path[400], msg[4096], want[64], got[64];
  snprintf(root, sizeof root, "%s/pkg", tmp);
  make_pkg(root, VALID);
  snprintf(path, sizeof path, "%s/build/webgpu/" TEMPLATE, root);
  digest_of(path, want);
  write_file(path, "tampered\n", 9);
  digest_of(path, got);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_OK); /* templates are read lazily */
  const char *data;
  size_t len;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(pkg_read_file(pkg, TEMPLATE, &data, &len, &err), WGK_ERR_DIGEST);
  util_error_format(&err, msg, sizeof msg);
  assert_non_null(strstr(msg, want));
  assert_non_null(strstr(msg, got));
  assert_non_null(strstr(msg, TEMPLATE));
  pkg_free(pkg);
  /* A tampered manifest fails the open itself. */
  snprintf(path, sizeof path, "%s/build/webgpu/manifest.json", root);
  FILE *f = fopen(path, "ab");
  fputs(" ", f);
  fclose(f);
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_ERR_DIGEST);
  assert_non_null(strstr(msg, "manifest.json: sha256 mismatch: expected "));
}

static void bad_metadata_refused(void **state) {
  (void)state;
  const struct {
    mutation mu;
    wgk_status st;
    const char *text;
  } cases[] = {
      {DOTDOT, WGK_ERR_MANIFEST, "digest.files[\"../README.md\"]: '../README.md': a package path must be relative"},
      {MISSING_VARIANT, WGK_ERR_MANIFEST, "variants: manifest variant 'rank4_cache3' is not listed"},
      {EXTRA_VARIANT, WGK_ERR_MANIFEST, "variants.extra: variant 'extra' is not in the manifest"},
      {WRONG_NAME, WGK_ERR_MANIFEST,
       "name: name 'ai.onnx.Rotary' is not the manifest's op id 'ai.onnx.RotaryEmbedding'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char root[300], msg[4096];
    snprintf(root, sizeof root, "%s/pkg%zu", tmp, i);
    make_pkg(root, cases[i].mu);
    pkg_package *pkg = NULL;
    wgk_status st = try_open(root, NULL, &pkg, msg, sizeof msg);
    printf("case %zu: %s\n", i, msg);
    assert_int_equal(st, cases[i].st);
    assert_non_null(strstr(msg, cases[i].text));
    assert_non_null(strstr(msg, "metadata.json:"));
  }
}

static void unverified_folder(void **state) {
  (void)state;
  char root[300], msg[4096];
  snprintf(root, sizeof root, "%s/local", tmp);
  make_pkg(root, NO_META);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_OK);
  assert_false(pkg_is_verified(pkg));
  assert_non_null(pkg_warning(pkg));
  assert_non_null(strstr(pkg_warning(pkg), "unverified"));
  assert_null(strchr(pkg_warning(pkg), '\n'));
  const char *data;
  size_t len;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(pkg_read_file(pkg, "test.json", &data, &len, &err), WGK_OK);
  pkg_free(pkg);
  pkg_options strict = {.strict = true};
  assert_int_equal(try_open(root, &strict, &pkg, msg, sizeof msg), WGK_ERR_DIGEST);
  assert_non_null(strstr(msg, "strict"));
}

static void search_path(void **state) {
  (void)state;
  char kernels[300], root[400], msg[4096], env[800];
  snprintf(kernels, sizeof kernels, "%s/kernels", tmp);
  mkdir(kernels, 0755);
  snprintf(root, sizeof root, "%s/" OP_ID, kernels);
  make_pkg(root, VALID);
  snprintf(env, sizeof env, "%s/nowhere:%s", tmp, kernels);
  setenv("WGK_KERNEL_PATH", env, 1);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open("webgpu-kernels/" OP_ID, NULL, &pkg, msg, sizeof msg), WGK_OK);
  assert_string_equal(pkg_root(pkg), root);
  pkg_free(pkg);
  pkg_options v1 = {.version = 1, .revision = "0123456789abcdef0123456789abcdef01234567"};
  assert_int_equal(try_open(OP_ID, &v1, &pkg, msg, sizeof msg), WGK_OK);
  assert_string_equal(pkg_revision(pkg), v1.revision);
  pkg_free(pkg);
  pkg_options v2 = {.version = 2};
  assert_int_equal(try_open(OP_ID, &v2, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, "version 2"));
  assert_int_equal(try_open("ai.onnx.Missing", NULL, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, kernels));
  assert_int_equal(try_open("../etc", NULL, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  /* opts->search_path comes first. */
  pkg_options sp = {.search_path = kernels};
  unsetenv("WGK_KERNEL_PATH");
  assert_int_equal(try_open(OP_ID, &sp, &pkg, msg, sizeof msg), WGK_OK);
  pkg_free(pkg);
}

/* No package file may resolve outside the package root: a symlinked template, manifest or metadata pointing
 * out is refused naming the file and the rule; a symlink that stays inside is fine. */
static void symlinks_stay_inside(void **state) {
  (void)state;
  char root[300], path[400], target[400], msg[4096];
  snprintf(root, sizeof root, "%s/local", tmp);
  make_pkg(root, NO_META);
  snprintf(target, sizeof target, "%s/secret.txt", tmp);
  write_file(target, "root:x:0:0\n", 11);
  snprintf(path, sizeof path, "%s/build/webgpu/leak.wgsl.jinja", root);
  assert_int_equal(symlink(target, path), 0);
  snprintf(path, sizeof path, "%s/build/webgpu/inside.json", root);
  assert_int_equal(symlink("manifest.json", path), 0);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_OK);
  const char *data = "untouched";
  size_t len = 0;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(pkg_read_file(pkg, "leak.wgsl.jinja", &data, &len, &err), WGK_ERR_DIGEST);
  assert_null(data);
  util_error_format(&err, msg, sizeof msg);
  assert_non_null(strstr(msg, "leak.wgsl.jinja"));
  assert_non_null(strstr(msg, "secret.txt, outside the package root"));
  util_error_clear(&err);
  assert_int_equal(pkg_read_file(pkg, "inside.json", &data, &len, &err), WGK_OK);
  pkg_free(pkg);
  /* the manifest itself pointing out: the open fails */
  snprintf(path, sizeof path, "%s/build/webgpu/manifest.json", root);
  snprintf(target, sizeof target, "%s/outside.json", tmp);
  assert_int_equal(rename(path, target), 0);
  assert_int_equal(symlink(target, path), 0);
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_ERR_DIGEST);
  assert_non_null(strstr(msg, "'manifest.json' resolves to"));
  assert_non_null(strstr(msg, "outside the package root"));
  /* a verified package's metadata.json pointing out */
  snprintf(root, sizeof root, "%s/verified", tmp);
  make_pkg(root, VALID);
  snprintf(path, sizeof path, "%s/build/webgpu/metadata.json", root);
  snprintf(target, sizeof target, "%s/meta-outside.json", tmp);
  assert_int_equal(rename(path, target), 0);
  assert_int_equal(symlink(target, path), 0);
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_ERR_DIGEST);
  assert_non_null(strstr(msg, "'metadata.json' resolves to"));
}

/* A version the package cannot confirm (no "version" in metadata.json, or no metadata at all) is refused,
 * naming the package and both values; it is never adopted. */
static void unconfirmed_version_refused(void **state) {
  (void)state;
  char root[300], msg[4096];
  snprintf(root, sizeof root, "%s/nover", tmp);
  make_pkg(root, NO_VERSION);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_OK);
  assert_int_equal(pkg_version(pkg), 0);
  pkg_free(pkg);
  pkg_options v7 = {.version = 7};
  assert_int_equal(try_open(root, &v7, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, root));
  assert_non_null(
      strstr(msg, "version 7 asked, but the package here records no version (metadata.json has no \"version\")"));
  snprintf(root, sizeof root, "%s/local", tmp);
  make_pkg(root, NO_META);
  assert_int_equal(try_open(root, &v7, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, "unverified"));
}

/* A repo id is found on the search path only: a ./webgpu-kernels/<op id> (or ./<op id>) folder in the working
 * directory does not shadow it; ./ opens that folder on purpose. */
static void working_directory_does_not_shadow(void **state) {
  (void)state;
  char kernels[300], root[400], shadow[400], msg[4096], cwd[4096];
  snprintf(kernels, sizeof kernels, "%s/kernels", tmp);
  mkdir(kernels, 0755);
  snprintf(root, sizeof root, "%s/" OP_ID, kernels);
  make_pkg(root, VALID);
  snprintf(shadow, sizeof shadow, "%s/webgpu-kernels", tmp);
  mkdir(shadow, 0755);
  snprintf(shadow, sizeof shadow, "%s/webgpu-kernels/" OP_ID, tmp);
  make_pkg(shadow, NO_META);
  snprintf(shadow, sizeof shadow, "%s/" OP_ID, tmp);
  make_pkg(shadow, NO_META);
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(tmp), 0);
  setenv("WGK_KERNEL_PATH", kernels, 1);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open("webgpu-kernels/" OP_ID, NULL, &pkg, msg, sizeof msg), WGK_OK);
  assert_string_equal(pkg_root(pkg), root);
  assert_true(pkg_is_verified(pkg));
  pkg_free(pkg);
  assert_int_equal(try_open(OP_ID, NULL, &pkg, msg, sizeof msg), WGK_OK);
  assert_string_equal(pkg_root(pkg), root);
  pkg_free(pkg);
  assert_int_equal(try_open("./webgpu-kernels/" OP_ID, NULL, &pkg, msg, sizeof msg), WGK_OK);
  assert_false(pkg_is_verified(pkg));
  pkg_free(pkg);
  /* not on the search path: the error says how to open the folder here */
  unsetenv("WGK_KERNEL_PATH");
  assert_int_equal(try_open("webgpu-kernels/ai.onnx.Shadowed", NULL, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  mkdir("local.Op", 0755);
  assert_int_equal(try_open("local.Op", NULL, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, "write ./local.Op to open it"));
  assert_int_equal(chdir(cwd), 0);
}

/* What went wrong while finding a package is reported once, in the name asked for (or the folder it led to), with
 * everything the search learned; an error already set is kept (the first wins). */
static void one_report_per_failure(void **state) {
  (void)state;
  char kernels[300], want[1024], msg[4096], hub[300];
  snprintf(kernels, sizeof kernels, "%s/kernels", tmp);
  mkdir(kernels, 0755);
  snprintf(want, sizeof want, "%s/x.Empty", kernels);
  mkdir(want, 0755); /* found for the id x.Empty, but empty */
  snprintf(hub, sizeof hub, "%s/hub", tmp);
  setenv("HF_HUB_CACHE", hub, 1); /* an empty cache: nothing downloaded */
  setenv("WGK_BUNDLED_KERNELS", "0", 1);
  pkg_options sp = {.search_path = kernels};
  pkg_package *pkg = NULL;
  assert_int_equal(try_open("x.Empty", &sp, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  snprintf(want, sizeof want,
           "%s/x.Empty: found for x.Empty, but not a kernel package (no build/webgpu/ and no manifest.json)", kernels);
  assert_string_equal(msg, want);
  assert_int_equal(try_open(kernels, &sp, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  snprintf(want, sizeof want, "%s: not a kernel package (no build/webgpu/ and no manifest.json)", kernels);
  assert_string_equal(msg, want);
  assert_int_equal(try_open("./no/such/dir", &sp, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  assert_string_equal(msg, "./no/such/dir: no such folder");
  assert_int_equal(try_open("", &sp, &pkg, msg, sizeof msg), WGK_ERR_INVALID_ARGUMENT);
  assert_string_equal(msg, "an empty package name: give a package folder or a repo id (webgpu-kernels/<op id>)");
  assert_int_equal(try_open("x.Empty@v0", &sp, &pkg, msg, sizeof msg), WGK_ERR_INVALID_ARGUMENT);
  assert_string_equal(msg, "x.Empty@v0: '@v0': after '@' give a version (vN, e.g. @v1) or a 40-hex commit");
  /* Not found locally, and nothing in the cache: the version rule's message, with the dirs the search tried, once. */
  assert_int_equal(try_open("x.Missing", &sp, &pkg, msg, sizeof msg), WGK_ERR_NOT_FOUND);
  assert_non_null(strstr(msg, "webgpu-kernels/x.Missing: no version of it is on this machine"));
  snprintf(want, sizeof want, " (not found locally either; searched: %s)", kernels);
  char *at = strstr(msg, want);
  assert_non_null(at);
  assert_string_equal(at, want);
  assert_ptr_equal(strstr(msg, "not found locally"), at + 2); /* once */
  setenv("WGK_BUNDLED_KERNELS", "2", 1);
  assert_int_equal(try_open("x.Missing", &sp, &pkg, msg, sizeof msg), WGK_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(msg, "environment variable WGK_BUNDLED_KERNELS: must be 0 (off) or 1 (on), not \"2\""));
  unsetenv("WGK_BUNDLED_KERNELS");
  unsetenv("HF_HUB_CACHE");
  util_error err;
  util_error_clear(&err);
  util_error_plain(&err, WGK_ERR_IO, "an earlier error");
  assert_int_equal(pkg_open("./no/such/dir", &sp, &pkg, &err), WGK_ERR_NOT_FOUND);
  assert_string_equal(err.message, "an earlier error");
}

/* `wgk pack DIR` (the one digest writer) makes an edited package open verified again. */
static void repacked_by_wgk_pack(void **state) {
  (void)state;
  const char *cli = getenv("WGK_CLI");
  assert_non_null(cli); /* tests/package/tests.cmake sets it to the wgk binary */
  char root[300], path[400], cmd[1200], msg[4096];
  snprintf(root, sizeof root, "%s/scripted", tmp);
  make_pkg(root, VALID);
  snprintf(path, sizeof path, "%s/build/webgpu/" TEMPLATE, root);
  write_file(path, "// changed\n", 11);
  snprintf(cmd, sizeof cmd, "'%s' pack '%s' > /dev/null", cli, root);
  assert_int_equal(system(cmd), 0);
  pkg_package *pkg = NULL;
  assert_int_equal(try_open(root, NULL, &pkg, msg, sizeof msg), WGK_OK);
  const char *data;
  size_t len;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(pkg_read_file(pkg, TEMPLATE, &data, &len, &err), WGK_OK);    /* rewritten digest */
  assert_int_equal(pkg_read_file(pkg, "test.json", &data, &len, &err), WGK_OK); /* now listed */
  pkg_free(pkg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(valid_package_loads, setup, teardown),
      cmocka_unit_test_setup_teardown(digest_mismatch_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_metadata_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(unverified_folder, setup, teardown),
      cmocka_unit_test_setup_teardown(search_path, setup, teardown),
      cmocka_unit_test_setup_teardown(repacked_by_wgk_pack, setup, teardown),
      cmocka_unit_test_setup_teardown(symlinks_stay_inside, setup, teardown),
      cmocka_unit_test_setup_teardown(unconfirmed_version_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(working_directory_does_not_shadow, setup, teardown),
      cmocka_unit_test_setup_teardown(one_report_per_failure, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
