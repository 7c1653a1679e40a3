/* Shared between the node-test files: one folder's model and package, and the comparison. */
#ifndef WGK_ONNX_NODE_TEST_INTERNAL_H
#define WGK_ONNX_NODE_TEST_INTERNAL_H

#include <stddef.h>

#include "manifest/manifest.h"
#include "onnx/node_test.h"
#include "onnx/onnx_reader.h"
#include "package/package.h"

typedef struct onnx_nt_kernel {
  char *op_id;        /* "ai.onnx.RotaryEmbedding" */
  wgk_kernel *kernel; /* loaded through the public API */
  pkg_package *pkg;   /* the same package opened for its manifest's port order */
} onnx_nt_kernel;

struct onnx_node_test_runner {
  wgk_context *ctx;            /* borrowed */
  onnx_node_test_options opts; /* copied */
  onnx_nt_kernel *kernels;     /* loaded so far */
  size_t n_kernels;            /* number of kernels */
};

/* One data set of one folder, everything resolved. */
typedef struct onnx_nt_case {
  onnx_node_test_runner *r; /* the runner */
  const char *dir;          /* the folder */
  const onnx_model *model;  /* its model */
  const onnx_node *node;    /* the single node */
  const onnx_nt_kernel *k;  /* its package */
} onnx_nt_case;

/* Runs data set `set` (a folder name) and sets why to the FAIL reason, or leaves it clear.
 * Returns false for a SKIP (why says why). */
bool onnx_nt_run_set(const onnx_nt_case *c, const char *set, util_error *why);

/* Compares got with want (same shape required) under rtol/atol (< 0: dtype defaults); on a mismatch sets why
 * (WGK_ERR_EVAL) to "worst element [i] got g want w" (or the shape difference) and returns false. */
bool onnx_nt_compare(const util_host_tensor *got, const util_host_tensor *want, double rtol, double atol,
                     util_error *why);

#endif
