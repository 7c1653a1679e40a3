/* What a device allows of each variant of a manifest (requires.c): decided once, when a planner is made for that
 * device. */
#ifndef WGK_PLAN_REQUIRES_H
#define WGK_PLAN_REQUIRES_H

#include "device/device_desc.h"
#include "expr/value.h"
#include "manifest/manifest.h"

/* Per manifest variant, why the device d (device_value: its `device` scope entry) cannot run it (its spec 2.1
 * `requires`, then its buffers per shader stage against the device's limits), NULL where it can. NULL when out of
 * memory. */
char **plan_device_reasons(const manifest_model *m, const device_desc *d, const expr_value *device_value);
void plan_device_reasons_free(char **reasons, size_t n);

#endif
