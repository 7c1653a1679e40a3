/*
 * Running ONNX backend node tests (a folder with model.onnx and test_data_set_*) through a kernel package:
 * the model's single node names the package (webgpu-kernels/<domain or ai.onnx>.<op_type>), its inputs map by
 * position to the manifest's ONNX-ordered ports (an empty name is an absent optional input), its attributes by
 * name; each data set's input_N.pb feed the call and every output_N.pb is compared with allclose semantics
 * (|got - want| <= atol + rtol * |want|, NaN equal to NaN). Outputs beyond the manifest's plain outputs are its
 * in/out ports in order (SparseAttention's present_key is the past_key buffer, updated in place).
 *
 * Usage:
 *   1. onnx_node_test_runner_create(ctx, &opts, &r)
 *   2. onnx_node_test_run_dir(r, dir, report, ud) for each folder: report() gets one line per data set
 *      (PASS/FAIL) or one for the folder (SKIP, or FAIL when it cannot be read)
 *   3. onnx_node_test_runner_free(r)   -- NULL is a no-op
 * Packages are loaded once per op id and kept by the runner.
 */
#ifndef WGK_ONNX_NODE_TEST_H
#define WGK_ONNX_NODE_TEST_H

#include <stdbool.h>

#include "wgk.h"

typedef enum onnx_node_test_outcome {
  WGK_NODE_TEST_PASS,
  WGK_NODE_TEST_FAIL,
  WGK_NODE_TEST_SKIP
} onnx_node_test_outcome;

typedef struct onnx_node_test_options {
  double rtol, atol; /* < 0: per dtype (float32 1e-3 / 1e-7, float16 1e-2 / 1e-3, others exact) */
  bool strict;       /* refuse unverified packages */
  const char *org;   /* package org; NULL = "webgpu-kernels" */
} onnx_node_test_options;

/* what: "<dir>/<set>" or "<dir>"; detail: the reason for FAIL/SKIP, NULL for PASS. */
typedef void (*onnx_node_test_report)(void *ud, onnx_node_test_outcome outcome, const char *what, const char *detail);

typedef struct onnx_node_test_runner onnx_node_test_runner;

wgk_status onnx_node_test_runner_create(wgk_context *ctx, const onnx_node_test_options *opts,
                                        onnx_node_test_runner **out /* OUT */);
void onnx_node_test_runner_free(onnx_node_test_runner *r);

/* Runs every test_data_set_* of dir (sorted by name). */
void onnx_node_test_run_dir(onnx_node_test_runner *r, const char *dir, onnx_node_test_report report, void *ud);

#endif
