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
#include "gpu/gpu.h"
#include "manifest/manifest.h"
#include "package/package.h"
#include "plan/plan.h"
#include "util/dynbuf.h"

const wgk_manifest *wgk_rt_kernel_manifest(const wgk_kernel *k);           /* the kernel's manifest model */
wgk_pkg *wgk_rt_kernel_package(const wgk_kernel *k);                       /* its package files */
wgk_context *wgk_rt_kernel_context(const wgk_kernel *k);                   /* the context it was loaded in */
wgk_context *wgk_rt_tensor_context(const wgk_tensor *t);                   /* the context a tensor belongs to */
wgk_gpu_device *wgk_rt_context_device(const wgk_context *ctx);             /* the context's device */
const wgk_device_desc *wgk_rt_context_device_desc(const wgk_context *ctx); /* its features and limits */

/* The plan of the call's last run, and whether tunables came from the tuning cache; NULL before a run.
 * Valid until the call runs again or is destroyed (for `wgk run --verbose` / `--wgsl` and tests). */
const wgk_plan *wgk_rt_call_plan(const wgk_call *call, bool *tuned /* OUT, nullable */);

/* The tuning cache's shape key of the call's inputs (runtime/tuning.h). */
bool wgk_rt_call_shape_key(const wgk_call *call, wgk_dynbuf *out);

#endif
