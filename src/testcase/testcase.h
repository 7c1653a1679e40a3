/*
 * test.json: a package's correctness cases (the schema is ours: docs/package-format.md), their inputs
 * (inline data, seeded generators, or .npy files of the package), the references built into wgk or expected .npy
 * files, and the double-precision comparison.
 * `wgk test` runs them; `wgk bench` and `wgk tune` reuse the parser and the generators.
 *
 * Lifecycle:
 *   1. tc_suite_parse(text, len, source, &suite, err)  parse and check the whole document; a syntax
 *      error names source:line:column, a semantic error its JSON path (and its line and column)
 *   2. for each suite->cases[i]: tc_input_make() per input (host tensors), run, tc_compare()
 *      (tc_run_case() does all of it against a loaded kernel)
 *   3. tc_suite_free(suite)                           NULL is a no-op
 *
 * A case field missing from the case is taken from "defaults"; object fields (inputs, attrs, args,
 * tunables, tolerance) merge per key, the case winning.
 */
#ifndef WGK_RUNTIME_TESTCASE_H
#define WGK_RUNTIME_TESTCASE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/ops.h"
#include "util/error.h"
#include "util/tensor_host.h"

#define WGK_TC_SCHEMA 1 /* the "schema" value this reader understands */

typedef enum tc_gen_kind {
  WGK_TC_DATA = 0,  /* inline "data" (flat or nested list; "NaN", "Infinity", "-Infinity" allowed) */
  WGK_TC_UNIFORM,   /* [lo, hi) for floats (defaults -1, 1); [lo, hi] for integers */
  WGK_TC_NORMAL,    /* mean (0), std (1) */
  WGK_TC_ARANGE,    /* start + i * step (0, 1), i the flat index */
  WGK_TC_POSITIONS, /* offset + index along the last axis: position ids (batch, seq) */
  WGK_TC_CONST,     /* every element = value */
  WGK_TC_OP,        /* an op's generator (src/ops/<op id>/generators.c), found by name in src/ops/registry.c */
  WGK_TC_NPY,       /* "npy": a .npy file of the package (path relative to build/webgpu), read digest-checked */
} tc_gen_kind;

/* Where a value came from, for messages. */
typedef struct tc_pos {
  int line, column; /* 1-based; 0 when unknown */
  char *path;       /* JSON path, owned */
} tc_pos;

typedef struct tc_input {
  char *key;       /* bind key or ONNX port name, as the case gives it */
  wgk_dtype dtype; /* element type */
  int rank;        /* number of dims (an op generator with own_shape may leave it -1) */
  int64_t dims[WGK_HOST_MAX_RANK];
  tc_gen_kind kind;                     /* inline data or a generator */
  const json_t *data;                   /* WGK_TC_DATA: the list (borrowed from the suite) */
  uint64_t seed;                        /* random generators */
  double a, b;                          /* lo/hi, mean/std, start/step, offset, value, base: by kind */
  const ops_generator *op_gen;          /* WGK_TC_OP: the generator */
  double params[WGK_OP_GEN_MAX_PARAMS]; /* WGK_TC_OP: its parameters, in op_gen->params order */
  char *npy;                            /* WGK_TC_NPY: the file, relative to build/webgpu (owned); dtype
                                         * WGK_DTYPE_INVALID and rank -1 when the case leaves them to the file */
  tc_pos pos;                           /* the input's object */
} tc_input;

/* A named JSON value (attribute, arg, tunable). */
typedef struct tc_value {
  char *name;          /* owned */
  const json_t *value; /* borrowed from the suite's document */
  tc_pos pos;          /* where it was given */
} tc_value;

typedef struct tc_tolerance {
  double rtol, atol; /* pass iff |got - want| <= atol + rtol * |want| (numpy.isclose) */
} tc_tolerance;

typedef struct tc_expected {
  char *key;       /* output bind key or port name */
  wgk_dtype dtype; /* NONE: the output's own dtype */
  int rank;        /* -1 when no shape is given (then the output is not preallocated) */
  int64_t dims[WGK_HOST_MAX_RANK];
  const json_t *data; /* borrowed list; NULL when npy gives the values */
  char *npy;          /* a .npy file of the package (relative to build/webgpu) holding the values (owned), or NULL */
  tc_pos pos;
} tc_expected;

typedef struct tc_case {
  char *id;          /* canonical id, usable as a filter */
  char *description; /* "" when absent */
  tc_input *inputs;  /* in document order (defaults first) */
  size_t n_inputs;
  char **absent; /* ports left unset on purpose */
  size_t n_absent;
  tc_value *attrs, *args, *tunables;
  size_t n_attrs, n_args, n_tunables;
  const ops_hooks *reference; /* the op whose reference gives the expected outputs, or NULL: inline data */
  tc_expected *expected;      /* inline expected outputs */
  size_t n_expected;
  tc_tolerance tol[WGK_DTYPE_INT16 + 1]; /* by output dtype; integers exact unless given */
  char **requires;                       /* device features ("shader-f16") */
  size_t n_requires;
  char *expect_error; /* the call must be refused with a message containing it; NULL = must run */
  char *variant;      /* the variant the planner must pick; NULL = any */
  /* variantWithout: {feature: variant}: on a device without the feature (the first such in file order), the
   * variant the planner must pick instead of `variant`. Flattened pairs: feature, variant id, ... */
  char **variant_without;
  size_t n_variant_without; /* pairs */
  tc_pos pos;               /* the case object */
} tc_case;

typedef struct tc_suite {
  char *source; /* file name used in messages */
  tc_case *cases;
  size_t n_cases;
  json_t *root; /* the document (owns every borrowed json_t) */
} tc_suite;

wgk_status tc_suite_parse(const char *text, size_t len, const char *source, tc_suite **out /* OUT */, util_error *err);
void tc_suite_free(tc_suite *suite);

/* True when the case id equals filter or contains it (NULL or "" matches every case). */
bool tc_case_matches(const tc_case *c, const char *filter);

/* The host limit on one test or bench input: 2^28 elements (each staged as a double while it is made). */
#define WGK_TC_MAX_ELEMENTS ((uint64_t)1 << 28)
/* The bytes one input will take in its dtype (0 for a layout generator, shaped by its parameters);
 * WGK_ERR_LIMIT when the shape overflows or exceeds WGK_TC_MAX_ELEMENTS. */
wgk_status tc_input_bytes(const tc_input *in, uint64_t *bytes /* OUT */);
/* Builds the host tensor of one input (inline data converted, or generated); refuses one over the host limit
 * before allocating. source names the suite. */
wgk_status tc_input_make(const tc_input *in, const char *source, util_host_tensor **out /* OUT */, util_error *err);
/* A package's files, for the .npy inputs and expected outputs: the package a case runs from. */
struct pkg_package;
/* tc_input_make, and a WGK_TC_NPY input read from pkg (digest-checked) and checked against the dtype and shape
 * the case gives; every error names the case's position, the file and both values. */
wgk_status tc_input_load(const tc_input *in, struct pkg_package *pkg, const char *source,
                         util_host_tensor **out /* OUT */, util_error *err);
/* An expected output's .npy file (e->npy) from pkg, checked against the shape the case gives. */
wgk_status tc_expected_load(const tc_expected *e, struct pkg_package *pkg, const char *source,
                            util_host_tensor **out /* OUT */, util_error *err);
/* True when the case compares some output against a .npy file (what `wgk test --record` writes). */
bool tc_case_has_npy_expected(const tc_case *c);
/* Inline expected data as doubles; *out has *count elements (malloc'ed). */
wgk_status tc_expected_values(const tc_expected *e, const char *source, double **out /* OUT */, size_t *count /* OUT */,
                              util_error *err);

/* ---- comparison -------------------------------------------------------------------------- */

typedef struct tc_compare_result {
  bool pass;          /* every element within tolerance, non-finite values matching */
  double max_abs;     /* largest |got - want| over finite pairs */
  double max_rel;     /* largest |got - want| / |want| over finite pairs with want != 0 */
  size_t n_bad;       /* elements outside tolerance */
  size_t n_nonfinite; /* got NaN or inf where want is finite */
  size_t worst;       /* index of the worst element: the first non-finite mismatch, else the largest excess */
  double worst_got, worst_want;
  double used; /* largest |got - want| / (atol + rtol * |want|) over finite pairs: <= 1 passes; 0 when
                * every pair is exact; INFINITY when an exact tolerance (0, 0) was missed */
} tc_compare_result;

void tc_compare(const double *got, const double *want, size_t n, tc_tolerance tol, tc_compare_result *out /* OUT */);

/* The tolerance used when a case gives none for a dtype: float32 1e-5/1e-6, float16 1e-2/1e-3, others exact. */
tc_tolerance tc_default_tolerance(wgk_dtype dtype);

/* "(i0, i1, ...)" of flat index i in dims, into buf. */
void tc_unravel(size_t i, int rank, const int64_t *dims, char *buf, size_t size);

/* ---- running against a kernel ------------------------------------------------------------ */

typedef enum tc_verdict {
  WGK_TC_PASS = 0, /* every expected output within tolerance (or the call refused as expected) */
  WGK_TC_FAIL = 1, /* a mismatch, a refusal not expected, or a run expected to be refused */
  WGK_TC_SKIP = 2, /* the device lacks a required feature: "not supported", not failed */
} tc_verdict;

typedef struct tc_outcome {
  tc_verdict verdict;
  char variant[128]; /* the variant the planner chose; "" when the call did not run */
  double max_abs;    /* over every compared output */
  double max_rel;
  double used;         /* the largest share of its tolerance any compared element used (tc_compare_result) */
  tc_tolerance tol;    /* the tolerance of the output that used the largest share (of the first when none used any) */
  wgk_dtype tol_dtype; /* its dtype; WGK_DTYPE_INVALID when no output was compared */
  util_error why;      /* the verdict's text, on the one error path: FAIL (WGK_ERR_CALL) what went wrong (worst element,
                          tolerance, or the refusal); SKIP (WGK_ERR_UNSUPPORTED) the reason; PASS (WGK_OK) a note or "" */
} tc_outcome;

/* Host tensors <-> wgk tensors (same dtype names, host layout). */
wgk_status tc_upload(wgk_context *ctx, const util_host_tensor *h, wgk_tensor **out /* OUT */);
wgk_status tc_download(wgk_tensor *t, util_host_tensor **out /* OUT */);

/* Attributes and args (JSON values) and tunables (integers) onto a call; a refusal is the context's message. */
wgk_status tc_set_values(wgk_call *call, const tc_value *attrs, size_t n_attrs, const tc_value *args, size_t n_args,
                         const tc_value *tunables, size_t n_tunables);

/* Runs one case on kernel k (its context's device decides SKIPs) and judges it. Outputs with a known shape
 * and dtype are caller-owned tensors filled with NaN bits before the run, so an element the kernel never
 * writes fails. Returns WGK_OK whenever *out holds a verdict. source names the suite in messages. */
wgk_status tc_run_case(wgk_kernel *k, const tc_case *c, const char *source, tc_outcome *out /* OUT */);

#endif
