/* Node-test folders: read the model, find its package, run each data set in name order. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/node_test_internal.h"

wgk_status onnx_node_test_runner_create(wgk_context *ctx, const onnx_node_test_options *opts,
                                        onnx_node_test_runner **out) {
  *out = NULL;
  onnx_node_test_runner *r = calloc(1, sizeof *r);
  if (!r) return WGK_ERR_OUT_OF_MEMORY;
  r->ctx = ctx;
  r->opts = opts ? *opts : (onnx_node_test_options){-1, -1, false, NULL};
  *out = r;
  return WGK_OK;
}

void onnx_node_test_runner_free(onnx_node_test_runner *r) {
  if (!r) return;
  for (size_t i = 0; i < r->n_kernels; i++) {
    free(r->kernels[i].op_id);
    wgk_kernel_destroy(r->kernels[i].kernel);
    pkg_free(r->kernels[i].pkg);
  }
  free(r->kernels);
  free(r);
}

/* The package for op_id, loaded on first use; NULL with the reason in why. */
static const onnx_nt_kernel *kernel_for(onnx_node_test_runner *r, const char *op_id, util_error *why) {
  for (size_t i = 0; i < r->n_kernels; i++)
    if (strcmp(r->kernels[i].op_id, op_id) == 0) return &r->kernels[i];
  char id[512];
  snprintf(id, sizeof id, "%s/%s", r->opts.org ? r->opts.org : "webgpu-kernels", op_id);
  pkg_options po = {.strict = r->opts.strict};
  onnx_nt_kernel k = {0};
  if (pkg_open(id, &po, &k.pkg, why) != WGK_OK) return NULL;
  wgk_kernel_options ko = {.strict = r->opts.strict};
  if (wgk_kernel_load(r->ctx, pkg_root(k.pkg), &ko, &k.kernel) != WGK_OK) {
    util_error_plain(why, wgk_context_errcode(r->ctx), "%s: %s", id, wgk_context_errmsg(r->ctx));
    pkg_free(k.pkg);
    return NULL;
  }
  onnx_nt_kernel *grown = realloc(r->kernels, (r->n_kernels + 1) * sizeof *grown);
  k.op_id = strdup(op_id);
  if (!grown || !k.op_id) {
    if (grown) r->kernels = grown;
    free(k.op_id);
    wgk_kernel_destroy(k.kernel);
    pkg_free(k.pkg);
    util_error_oom(why, NULL, id);
    return NULL;
  }
  r->kernels = grown;
  r->kernels[r->n_kernels] = k;
  return &r->kernels[r->n_kernels++];
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The test_data_set_* subfolders of dir, sorted; NULL-terminated, malloc'ed (free each and the array). */
static char **data_sets(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return NULL;
  size_t n = 0, cap = 8;
  char **sets = malloc(cap * sizeof *sets);
  for (struct dirent *e; sets && (e = readdir(d));) {
    if (strncmp(e->d_name, "test_data_set_", 14) != 0) continue;
    if (n + 1 >= cap) {
      char **g = realloc(sets, (cap *= 2) * sizeof *g);
      if (!g) break;
      sets = g;
    }
    if (!(sets[n] = strdup(e->d_name))) break;
    n++;
  }
  closedir(d);
  if (!sets) return NULL;
  sets[n] = NULL;
  qsort(sets, n, sizeof *sets, by_name);
  return sets;
}

static void run_model(onnx_node_test_runner *r, const char *dir, const onnx_model *m, onnx_node_test_report report,
                      void *ud) {
  char text[WGK_ERROR_MESSAGE_MAX + 1024], what[4096];
  util_error why;
  util_error_clear(&why);
  if (m->node_count != 1) {
    snprintf(text, sizeof text, "graph has %zu nodes (expanded function), only single-node models run", m->node_count);
    report(ud, WGK_NODE_TEST_SKIP, dir, text);
    return;
  }
  const onnx_node *node = &m->nodes[0];
  char op_id[512];
  snprintf(op_id, sizeof op_id, "%s.%s", node->domain[0] ? node->domain : "ai.onnx", node->op_type);
  const onnx_nt_kernel *k = kernel_for(r, op_id, &why);
  if (!k) {
    util_error_format(&why, text, sizeof text);
    report(ud, WGK_NODE_TEST_SKIP, dir, text);
    return;
  }
  char **sets = data_sets(dir);
  if (!sets || !sets[0]) {
    report(ud, WGK_NODE_TEST_SKIP, dir, "no test_data_set_* folder");
  } else {
    onnx_nt_case c = {r, dir, m, node, k};
    for (char **s = sets; *s; s++) {
      snprintf(what, sizeof what, "%s/%s", dir, *s);
      util_error_clear(&why);
      bool ran = onnx_nt_run_set(&c, *s, &why);
      util_error_format(&why, text, sizeof text);
      report(ud,
             !ran                      ? WGK_NODE_TEST_SKIP
             : util_error_is_set(&why) ? WGK_NODE_TEST_FAIL
                                       : WGK_NODE_TEST_PASS,
             what, util_error_is_set(&why) ? text : NULL);
    }
  }
  for (char **s = sets; s && *s; s++) free(*s);
  free(sets);
}

void onnx_node_test_run_dir(onnx_node_test_runner *r, const char *dir, onnx_node_test_report report, void *ud) {
  char path[4096], why[4096];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  util_error e;
  util_error_clear(&e);
  onnx_model *m = NULL;
  if (onnx_model_read(path, &m, &e) != WGK_OK) {
    util_error_format(&e, why, sizeof why);
    report(ud, WGK_NODE_TEST_FAIL, dir, why);
    return;
  }
  run_model(r, dir, m, report, ud);
  onnx_model_free(m);
}
