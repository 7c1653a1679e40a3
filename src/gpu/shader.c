/* Shader modules from WGSL; compilation messages become WGK_ERR_SHADER errors at a WGSL line and column. */
#include "gpu/gpu_internal.h"
#include "gpu/dawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct compile_result {
  gpu_async async;
  bool failed;                      /* at least one error message */
  int line, column;                 /* of the first error */
  char text[WGK_ERROR_MESSAGE_MAX]; /* the first error, then "; line:col: message" for the others */
} compile_result;

static void append_message(compile_result *r, const WGPUCompilationMessage *m) {
  char msg[512];
  gpu_sv_copy(msg, sizeof msg, m->message);
  size_t used = strlen(r->text);
  if (!r->failed) {
    r->failed = true;
    r->line = (int)m->lineNum;
    r->column = (int)m->linePos;
    snprintf(r->text, sizeof r->text, "%s", msg);
  } else if (used + 8 < sizeof r->text) {
    snprintf(r->text + used, sizeof r->text - used, "; %d:%d: %s", (int)m->lineNum, (int)m->linePos, msg);
  }
}

static void on_compilation_info(uint32_t status, const WGPUCompilationInfo *info, void *u1, void *u2) {
  if (gpu_async_orphaned(u1)) return;
  compile_result *r = u1;
  r->async.done = true;
  r->async.status = status;
  for (size_t i = 0; info && i < info->messageCount; i++)
    if (info->messages[i].type == WGPUCompilationMessageType_Error) append_message(r, &info->messages[i]);
}

/* Compilation messages of a module just created; WGK_ERR_SHADER at the first error's position. */
static wgk_status check_compilation(gpu_device *dev, WGPUShaderModule module, const char *source, util_error *err) {
  compile_result *r = gpu_async_new(sizeof *r);
  if (!r) return util_error_oom(err, NULL, NULL);
  WGPUCompilationInfoCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_compilation_info, r, NULL};
  WGPUFuture f = wgpuShaderModuleGetCompilationInfo(module, cb);
  wgk_status s = gpu_await(dev, dev->instance, f, &r->async, WGK_GPU_INTERNAL_TIMEOUT_MS,
                           "the shader's compilation messages", err);
  if (s == WGK_OK && r->failed) s = util_error_at(err, WGK_ERR_SHADER, UTIL_POS(source, *r), NULL, "%s", r->text);
  gpu_async_free(&r->async);
  return s;
}

wgk_status gpu_shader_create(gpu_device *dev, const char *wgsl, const char *label, gpu_shader **out, util_error *err) {
  *out = NULL;
  wgk_status s = gpu_device_check(dev, err);
  if (s) return s;
  if (!wgsl) return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT, "no WGSL text");
  const char *source = label ? label : "<wgsl>";
  gpu_shader *shader = calloc(1, sizeof *shader);
  if (!shader) return util_error_oom(err, NULL, NULL);
  WGPUShaderSourceWGSL code = {{NULL, WGPUSType_ShaderSourceWGSL}, gpu_sv(wgsl)};
  WGPUShaderModuleDescriptor desc = {&code.chain, gpu_sv(label)};
  gpu_scope_push(dev);
  shader->module = wgpuDeviceCreateShaderModule(dev->device, &desc);
  /* The compilation messages carry line and column; the scope's copy of the same error is dropped. */
  util_error scope = {0};
  if (shader->module) s = check_compilation(dev, shader->module, source, err);
  gpu_scope_pop(dev, "compiling the shader", &scope);
  if (s == WGK_OK && scope.status) {
    s = scope.status == WGK_ERR_GPU ? WGK_ERR_SHADER : scope.status;
    util_error_in(err, s, source, NULL, "%s", scope.message);
  }
  if (s == WGK_OK && !shader->module) s = util_error_in(err, WGK_ERR_SHADER, source, NULL, "shader creation failed");
  if (s != WGK_OK) {
    gpu_shader_destroy(shader);
    return s;
  }
  *out = shader;
  return WGK_OK;
}

void gpu_shader_destroy(gpu_shader *shader) {
  if (!shader) return;
  if (shader->module) wgpuShaderModuleRelease(shader->module);
  free(shader);
}
