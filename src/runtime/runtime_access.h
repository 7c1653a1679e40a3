/*
 * What the tools (src/testcase, src/bench) and the CLI may see of the runtime's handles: accessors, not the
 * struct layouts of runtime_internal.h (which only src/runtime includes). Each returns a borrowed pointer, valid
 * while the handle lives; none takes the context lock (the tools and the CLI use a context from one thread).
 */
#ifndef WGK_RUNTIME_ACCESS_H
#define WGK_RUNTIME_ACCESS_H

#include <stdbool.h>

#include "wgk.h"

#include "device/device_desc.h"
#include "expr/expr.h"
#include "gpu/gpu.h"
#include "manifest/manifest.h"
#include "package/package.h"
#include "plan/plan.h"
#include "util/dynbuf.h"

/* wgk_kernel_load for a package the tool already opened (pkg_open), so it is read once: pkg is taken (freed on
 * failure, the context's message set); the same planner, tuning cache and refusal policy as any kernel. */
wgk_status rt_kernel_load_package(wgk_context *ctx, pkg_package *pkg, wgk_kernel **out /* OUT */);

const manifest_model *rt_kernel_manifest(const wgk_kernel *k);     /* the kernel's manifest model */
pkg_package *rt_kernel_package(const wgk_kernel *k);               /* its package files */
wgk_context *rt_kernel_context(const wgk_kernel *k);               /* the context it was loaded in */
wgk_context *rt_tensor_context(const wgk_tensor *t);               /* the context a tensor belongs to */
gpu_device *rt_context_device(const wgk_context *ctx);             /* the context's device */
const device_desc *rt_context_device_desc(const wgk_context *ctx); /* its features and limits */

/* The plan of the call's last run, and whether tunables came from the tuning cache; NULL before a run.
 * Valid until the call runs again or is destroyed (for `wgk run --verbose` / `--wgsl` and tests). */
const plan_result *rt_call_plan(const wgk_call *call, bool *tuned /* OUT, nullable */);

/* The plan wgk_call_run would make for ports (shapes and dtypes; no tensors needed) and these attributes, args
 * and tunables, which replace the call's: the same plan cache, tuning cache and refusal policy (a NO_VARIANT
 * led by the op's host check). *tuned: whether the tuning cache's tunables were taken. The plan is valid until
 * the kernel plans again. For `wgk explain` and `wgk render`. */
wgk_status rt_call_explain(wgk_call *c, const plan_tensor *ports, const expr_value *attrs, const expr_value *args,
                           const expr_value *tunables, const plan_result **plan /* OUT */, bool *tuned /* OUT */);

/* A NO_VARIANT refusal led by the op's host check, as wgk_call_run words it: when the op's host check refuses
 * these ports (shapes and dtypes only) and attributes, its message comes first in *err and the list of
 * rejections under it; otherwise *err is left as it is. For `wgk explain` on a described device. */
void rt_host_check_headline(const manifest_model *m, const plan_tensor *ports, const expr_value *attrs,
                            util_error *err);

/* The timed passes of the call's last plan as wgk_call_gpu_time last read them: up to max (label, ns) pairs, ns
 * each pass's share of the busy time (the shares sum to that read's GPU time; a split call's sub-calls summed per
 * pass). Returns the count, 0 before a timed run's read. Labels are valid as rt_call_plan's result. */
size_t rt_call_pass_times(const wgk_call *call, size_t max, const char **names /* OUT */, uint64_t *ns /* OUT */);
/* The GPU span of that read: the first pass's begin to the last pass's end (gaps between passes included); 0
 * before a timed run's read. */
uint64_t rt_call_gpu_span(const wgk_call *call);

/* Time the context spent creating shader modules and pipelines so far (ns): `wgk bench --first-call`. */
void rt_context_compile_ns(const wgk_context *ctx, double *shader_ns /* OUT */, double *pipeline_ns /* OUT */);
/* The process's CPU time over the same (ns): `wgk run -v`'s compile. */
double rt_context_compile_cpu_ns(const wgk_context *ctx);

/* The tuning cache's shape key of the call's inputs (runtime/tuning.h). */
bool rt_call_shape_key(const wgk_call *call, util_dynbuf *out);

#endif
