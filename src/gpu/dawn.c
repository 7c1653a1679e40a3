/* Dawn's library opened once per process and its functions looked up (gpu/dawn.h). */
#define _GNU_SOURCE /* dladdr */
#define GPU_DAWN_NO_REDIRECT
#include "gpu/dawn.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define DAWN_LIBRARY "libwebgpu_wrapper.so"

gpu_dawn_api gpu_dawn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[768];
static char path[1024];

/* Every function or none: a partial table is never used. */
static bool bind_all(void *lib) {
#define GPU_DAWN_BIND(f)                                                                                            \
  if (!(gpu_dawn.f = (__typeof__(gpu_dawn.f))dlsym(lib, #f))) {                                                     \
    snprintf(why, sizeof why, "%s has no %s: another Dawn build than src/gpu/webgpu_abi.h describes", DAWN_LIBRARY, \
             #f);                                                                                                   \
    return false;                                                                                                   \
  }
  GPU_DAWN_FUNCTIONS(GPU_DAWN_BIND)
#undef GPU_DAWN_BIND
  return true;
}

/* Found as the linked library was: the program's or libwgk's run path (lib/wgk beside an install, the checkout's
 * third_party/dawn in a build), then LD_LIBRARY_PATH and the system's. RTLD_GLOBAL: a caller's own Dawn is this
 * same file, already loaded. */
static void open_once(void) {
  void *lib = dlopen(DAWN_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot load Dawn (%s): %s (scripts/bootstrap.sh installs it)", DAWN_LIBRARY,
             e ? e : "unknown error");
    return;
  }
  if (!bind_all(lib)) return;
  Dl_info info = {0};
  if (dladdr((void *)gpu_dawn.wgpuCreateInstance, &info) && info.dli_fname)
    snprintf(path, sizeof path, "%s", info.dli_fname);
  loaded = true;
}

wgk_status gpu_dawn_load(util_error *err) {
  pthread_once(&once, open_once);
  return loaded ? WGK_OK : util_error_plain(err, WGK_ERR_DEVICE, "%s", why);
}

const char *gpu_dawn_path(void) { return loaded ? path : ""; }
