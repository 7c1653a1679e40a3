/* Expected outputs in double, from a built-in reference or from a case's inline data. */
#ifndef WGK_RUNTIME_TC_REF_H
#define WGK_RUNTIME_TC_REF_H

#include "manifest/manifest.h"
#include "testcase/testcase.h"

#define WGK_TC_MAX_OUTPUTS 16

typedef struct tc_ref_output {
  const char *names[2]; /* output names to try in order (port, bind key, or the in/out input) */
  wgk_dtype dtype;      /* the output's dtype; NONE when unknown */
  int rank;             /* -1 when unknown */
  int64_t dims[WGK_HOST_MAX_RANK];
  double *values; /* owned */
  size_t count;   /* number of values */
} tc_ref_output;

typedef struct tc_ref_outputs {
  tc_ref_output out[WGK_TC_MAX_OUTPUTS];
  size_t n;
} tc_ref_outputs;

/* The reference's outputs for case c whose inputs (in c->inputs order) are inputs[]. NONE: no outputs. */
wgk_status tc_reference_run(const manifest_model *m, const tc_case *c, util_host_tensor *const *inputs,
                            tc_ref_outputs *out /* OUT */, util_error *err);
void tc_ref_outputs_free(tc_ref_outputs *o);

#endif
