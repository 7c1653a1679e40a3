/* Device descriptions read from JSON, for planning without a GPU (`wgk explain --device FILE.json`). */
#ifndef WGK_DEVICE_DEVICE_JSON_H
#define WGK_DEVICE_DEVICE_JSON_H

#include <jansson.h>

#include "device/device_desc.h"
#include "util/error.h"

/* Unknown features and limits are ignored; missing limits keep the WebGPU defaults. */
wgk_status wgk_device_desc_from_json(const json_t *json, const char *source, wgk_device_desc *out, wgk_error *err);
wgk_status wgk_device_desc_load(const char *path, wgk_device_desc *out, wgk_error *err);

#endif
