/*
 * `wgk test DIR --record COMMAND`: writes the expected .npy files of DIR's test.json cases from a reference the
 * author gives. For each case with an expected output read from a .npy file ("expected": {"y": {"npy": ...}}),
 * the case's inputs (inline, generated or read) are written to a fresh folder as inputs/<key>.npy with case.json
 * (the case's id, attrs, args, tunables, inputs and the outputs wanted), COMMAND runs there through /bin/sh in the
 * package root with WGK_CASE (the case id) and WGK_CASE_DIR (the folder) set, and every outputs/<key>.npy it wrote
 * becomes the case's expected file. The package is packed before (the files recorded are the files it has) and
 * after (the new files digested), when it has a metadata.json. No GPU is used.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "package/package.h"
#include "testcase/testcase.h"
#include "util/env.h"
#include "util/npy.h"

static void report(const util_error *err) {
  char text[WGK_ERROR_MESSAGE_MAX + 1024];
  util_error_format(err, text, sizeof text);
  cli_error("test", "%s", text);
}

/* mkdir -p of the folders above path (inside the package: the parser refused '..' and absolute names). */
static bool make_parents(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = strchr(buf + 1, '/'); p; p = strchr(p + 1, '/')) {
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return cli_error("test", "--record: cannot make %s: %s", buf, strerror(errno)), false;
    *p = '/';
  }
  return true;
}

/* The case folder: inputs/ and outputs/ (their plain files) and case.json; anything else the reference left there
 * keeps the folder. */
static void remove_tree(const char *dir) {
  char path[4096];
  static const char *const subs[] = {"inputs", "outputs", NULL};
  for (const char *const *s = subs; *s; s++) {
    snprintf(path, sizeof path, "%s/%s", dir, *s);
    DIR *d = opendir(path);
    for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char file[4400];
      snprintf(file, sizeof file, "%s/%s", path, e->d_name);
      unlink(file);
    }
    if (d) closedir(d);
    rmdir(path);
  }
  snprintf(path, sizeof path, "%s/case.json", dir);
  unlink(path);
  rmdir(dir);
}

static json_t *values_json(const tc_value *v, size_t n) {
  json_t *o = json_object();
  for (size_t i = 0; o && i < n; i++) json_object_set(o, v[i].name, (json_t *)v[i].value);
  return o;
}

static json_t *shape_json(const util_host_tensor *t) {
  json_t *a = json_array();
  for (int d = 0; a && d < t->rank; d++) json_array_append_new(a, json_integer(t->dims[d]));
  return a;
}

/* inputs/<key>.npy and case.json in dir. */
static bool write_case(const char *dir, const tc_case *c, pkg_package *pkg, const char *source) {
  char path[4096];
  json_t *doc = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "id", c->id, "attrs", values_json(c->attrs, c->n_attrs),
                          "args", values_json(c->args, c->n_args), "tunables", values_json(c->tunables, c->n_tunables),
                          "inputs", json_object(), "outputs", json_object());
  bool ok = doc != NULL;
  json_t *inputs = json_object_get(doc, "inputs"), *outputs = json_object_get(doc, "outputs");
  for (size_t i = 0; ok && i < c->n_inputs; i++) {
    util_host_tensor *t = NULL;
    util_error err = {0};
    snprintf(path, sizeof path, "%s/inputs/%s.npy", dir, c->inputs[i].key);
    if (tc_input_load(&c->inputs[i], pkg, source, &t, &err) != WGK_OK || util_npy_write(path, t, &err) != WGK_OK) {
      report(&err);
      ok = false;
    } else {
      json_object_set_new(inputs, c->inputs[i].key,
                          json_pack("{s:s, s:o, s:s++}", "dtype", wgk_dtype_name(t->dtype), "shape", shape_json(t),
                                    "file", "inputs/", c->inputs[i].key, ".npy"));
    }
    util_host_tensor_free(t);
  }
  for (size_t i = 0; ok && i < c->n_expected; i++) {
    const tc_expected *e = &c->expected[i];
    if (!e->npy) continue;
    json_t *o = json_pack("{s:s++}", "file", "outputs/", e->key, ".npy");
    if (e->dtype != WGK_DTYPE_INVALID) json_object_set_new(o, "dtype", json_string(wgk_dtype_name(e->dtype)));
    json_object_set_new(outputs, e->key, o);
  }
  snprintf(path, sizeof path, "%s/case.json", dir);
  if (ok && json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
    ok = (cli_error("test", "--record: cannot write %s", path), false);
  json_decref(doc);
  return ok;
}

/* COMMAND through /bin/sh in root, with WGK_CASE and WGK_CASE_DIR set; its exit status (or -1). */
static int run_reference(const char *command, const char *root, const char *case_id, const char *dir) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return cli_error("test", "--record: cannot start the reference: %s", strerror(errno)), -1;
  if (pid == 0) {
    if (chdir(root) != 0 || setenv("WGK_CASE", case_id, 1) != 0 || setenv("WGK_CASE_DIR", dir, 1) != 0) _exit(127);
    execl("/bin/sh", "sh", "-c", command, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Each outputs/<key>.npy the reference wrote, checked as wgk reads .npy files, becomes the case's expected file. */
static bool take_outputs(const char *dir, const tc_case *c, pkg_package *pkg) {
  for (size_t i = 0; i < c->n_expected; i++) {
    const tc_expected *e = &c->expected[i];
    if (!e->npy) continue;
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/outputs/%s.npy", dir, e->key);
    snprintf(to, sizeof to, "%s/%s", pkg_dir(pkg), e->npy);
    util_host_tensor *t = NULL;
    util_error err = {0};
    if (access(from, F_OK) != 0) {
      cli_error("test",
                "--record: case %s: the reference wrote no outputs/%s.npy (in $WGK_CASE_DIR; case.json lists "
                "the outputs wanted)",
                c->id, e->key);
      return false;
    }
    wgk_status st = util_npy_read(from, &t, &err);
    if (!st && e->rank >= 0 && (t->rank != e->rank || memcmp(t->dims, e->dims, sizeof(int64_t) * (size_t)e->rank)))
      st = util_error_plain(&err, WGK_ERR_PARSE, "%s: its shape is not the case's \"shape\"", from);
    if (!st && !make_parents(to))
      st = WGK_ERR_IO;
    else if (!st)
      st = util_npy_write(to, t, &err);
    if (st && util_error_is_set(&err)) report(&err);
    if (!st) {
      printf("recorded %s: %s -> %s (%s, %zu elements)\n", c->id, e->key, e->npy, wgk_dtype_name(t->dtype),
             util_host_tensor_numel(t));
    }
    util_host_tensor_free(t);
    if (st) return false;
  }
  return true;
}

static bool has_metadata(const char *arg) {
  char path[4096];
  struct stat st;
  snprintf(path, sizeof path, "%s/build/webgpu/metadata.json", arg);
  if (stat(path, &st) == 0) return true;
  snprintf(path, sizeof path, "%s/metadata.json", arg);
  return stat(path, &st) == 0;
}

/* One case recorded: its inputs written to a fresh folder, the reference run there, its outputs taken into the
   package; the folder is removed after, kept (and named) when a step failed. */
static bool record_case(const char *command, const tc_case *c, pkg_package *pkg, const char *source) {
  const char *tmp = util_env("TMPDIR");
  char dir[4096], sub[4200];
  snprintf(dir, sizeof dir, "%s/wgk-record-XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    cli_error("test", "--record: cannot make a folder in %s: %s", tmp ? tmp : "/tmp", strerror(errno));
    return false;
  }
  snprintf(sub, sizeof sub, "%s/inputs", dir);
  bool ok = mkdir(sub, 0700) == 0;
  snprintf(sub, sizeof sub, "%s/outputs", dir);
  ok = ok && mkdir(sub, 0700) == 0;
  ok = ok && write_case(dir, c, pkg, source);
  int status = ok ? run_reference(command, pkg_root(pkg), c->id, dir) : -1;
  if (ok && status != 0)
    cli_error("test", "--record: case %s: the reference `%s` exited %d (run in %s, WGK_CASE_DIR=%s)", c->id, command,
              status, pkg_root(pkg), dir);
  ok = ok && status == 0 && take_outputs(dir, c, pkg);
  if (ok)
    remove_tree(dir);
  else
    cli_error("test", "--record: stopped at case %s; its folder is kept: %s", c->id, dir);
  return ok;
}

/* The package folder at arg, repacked first when it has a metadata.json (*packed), opened unverified; NULL after
   saying why, with the exit status in *rc (2: arg is no package folder). */
static pkg_package *open_folder(const cli_common *o, const char *arg, bool *packed, int *rc) {
  char probe[4096];
  struct stat st;
  snprintf(probe, sizeof probe, "%s/build/webgpu/manifest.json", arg);
  bool folder = stat(probe, &st) == 0;
  snprintf(probe, sizeof probe, "%s/manifest.json", arg);
  if (!folder && stat(probe, &st) != 0) {
    cli_error("test",
              "--record writes into a package folder: %s holds no manifest.json (here or in "
              "build/webgpu)",
              arg);
    *rc = 2;
    return NULL;
  }
  *rc = 1;
  *packed = has_metadata(arg);
  if (*packed && cli_pack_run("test", arg, false, true) != 0) return NULL;
  cli_common opened = *o;
  opened.strict = false;
  char *abs = realpath(arg, NULL); /* a folder, never searched for as an id */
  pkg_package *pkg = abs ? cli_pkg_open("test", &opened, abs) : NULL;
  free(abs);
  return pkg;
}

int cli_test_record(const cli_common *o, const char *arg, const char *command, const char *filter) {
  bool packed = false;
  int rc = 0;
  pkg_package *pkg = open_folder(o, arg, &packed, &rc);
  if (!pkg) return rc;
  rc = 0;
  char source[4096];
  snprintf(source, sizeof source, "%s/test.json", pkg_dir(pkg));
  const char *text = NULL;
  size_t len = 0;
  util_error err = {0};
  tc_suite *suite = NULL;
  if (pkg_read_file(pkg, "test.json", &text, &len, &err) != WGK_OK ||
      tc_suite_parse(text, len, source, &suite, &err) != WGK_OK) {
    report(&err);
    pkg_free(pkg);
    return 1;
  }
  int recorded = 0, matched = 0;
  for (size_t i = 0; i < suite->n_cases && rc == 0; i++) {
    const tc_case *c = &suite->cases[i];
    if (!tc_case_matches(c, filter)) continue;
    matched++;
    if (c->expect_error || !tc_case_has_npy_expected(c)) continue;
    if (!record_case(command, c, pkg, source))
      rc = 1;
    else
      recorded++;
  }
  if (rc == 0 && filter && matched == 0)
    rc = (cli_error("test", "--case %s: no test.json case id contains it", filter), 1);
  tc_suite_free(suite);
  pkg_free(pkg);
  if (rc == 0 && recorded == 0)
    printf(
        "no case compares against a .npy file (\"expected\": {\"<output>\": {\"npy\": \"<file>.npy\"}}): nothing "
        "recorded\n");
  if (recorded && packed) {
    if (cli_pack_run("test", arg, false, true) != 0) return 1;
    printf("%d case%s recorded; metadata.json repacked\n", recorded, recorded == 1 ? "" : "s");
  } else if (recorded) {
    printf("%d case%s recorded (no metadata.json: run `wgk pack %s` to digest the files)\n", recorded,
           recorded == 1 ? "" : "s", arg);
  }
  return rc;
}
