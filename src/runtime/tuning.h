/*
 * The tuning cache: the best tunables `wgk tune` found, per device and per op + variant + call shape, in one
 * JSON file that later calls read. Path: $WGK_TUNING_CACHE, else $XDG_CACHE_HOME/wgk/tuning.json, else
 * ~/.cache/wgk/tuning.json. Document (docs/performance.md):
 *   {"schema": 1, "entries": [{"device", "op", "variant", "shape", "tunables": {name: int}, ...}]}
 * Other entry keys (case, gpuNs, defaultGpuNs, date) are kept and shown, never needed.
 *
 * Lifecycle: rt_tuning_load() when a kernel is loaded (the entries of that device and op; a missing or
 * malformed file is an empty cache) -> rt_tuning_find() per planned call -> json_decref().
 */
#ifndef WGK_RUNTIME_TUNING_H
#define WGK_RUNTIME_TUNING_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "manifest/manifest.h"
#include "device/device_desc.h"
#include "plan/plan.h"
#include "util/dynbuf.h"
#include "util/error.h"

#define WGK_TUNING_SCHEMA 1

/* The cache file's path; false when neither the variables nor HOME say where. */
bool rt_tuning_path(char *buf, size_t size);

/* "vendor / architecture / device / description": what identifies an adapter and its driver. */
void rt_tuning_device_key(const device_desc *d, char *buf, size_t size);

/* "X:float32[1,32,1,128] cos_cache:float32[4096,64] ...": the present ports in manifest order. */
bool rt_tuning_shape_key(const manifest_model *m, const plan_tensor *ports, util_dynbuf *out);

/* The whole document at path (a fresh one when the file is missing); NULL with err when unreadable. */
json_t *rt_tuning_read(const char *path, util_error *err);

/* The entries of one device and op (a new array, possibly empty; NULL only when out of memory). Errors
 * reading the file count as an empty cache: tuning is an optimisation, never a reason to fail a call. */
json_t *rt_tuning_load(const char *path, const char *device_key, const char *op_id);

/* The stored tunables object of variant + shape among entries; NULL when none. */
const json_t *rt_tuning_find(const json_t *entries, const char *variant, const char *shape);

/* Adds entry (borrowed; needs device, op, variant, shape, tunables) to the file, replacing the entry of the
 * same device, op, variant and shape; makes the folders; writes a temporary file and renames it. */
wgk_status rt_tuning_store(const char *path, const json_t *entry, util_error *err);

#endif
