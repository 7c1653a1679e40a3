/* Device descriptions read from JSON, for planning without a GPU (`wgk explain --device FILE.json`). */
#ifndef WGK_DEVICE_DEVICE_JSON_H
#define WGK_DEVICE_DEVICE_JSON_H

#include <jansson.h>

#include "device/device_desc.h"
#include "util/error.h"

/* Unknown feature names and WebGPU limits wgk does not plan with are ignored; missing limits keep the WebGPU
 * defaults. An unknown key or a wrong-typed value is WGK_ERR_PARSE naming it (file:line:column when read from text),
 * and leaves *out at the defaults. */
wgk_status device_desc_from_text(const char *text, size_t len, const char *source, device_desc *out, util_error *err);
wgk_status device_desc_from_json(const json_t *json, const char *source, device_desc *out, util_error *err);
wgk_status device_desc_load(const char *path, device_desc *out, util_error *err);

#endif
