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

/* dlopen by name, then by path: `dir` + `rel` + the library's name; false where it is not there. */
static void *open_at(const char *dir, const char *rel) {
  char file[1024];
  if (!dir) return dlopen(DAWN_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
  if (snprintf(file, sizeof file, "%s%s/%s", dir, rel, DAWN_LIBRARY) >= (int)sizeof file) return NULL;
  return dlopen(file, RTLD_NOW | RTLD_GLOBAL);
}

/* Found as the linked library was: the program's or libwgk's run path (lib/wgk beside an install, the checkout's
 * third_party/dawn in a build), then LD_LIBRARY_PATH and the system's. Where that fails, the same places by path:
 * a dlopen wrapped by a sanitizer searches the sanitizer's run path, not ours, and a program linking libwgk.a may
 * carry none. So: lib/wgk beside the object holding this code (libwgk.so in lib/, or a program in bin/), then the
 * build's Dawn. RTLD_GLOBAL: a caller's own Dawn is this same file, already loaded. */
static void *open_library(void) {
  void *lib = open_at(NULL, NULL);
  if (lib) return lib;
  const char *first = dlerror();
  snprintf(why, sizeof why, "cannot load Dawn (%s): %s (scripts/bootstrap.sh installs it)", DAWN_LIBRARY,
           first ? first : "unknown error");
  Dl_info self = {0};
  char dir[1024] = "";
  if (dladdr((void *)gpu_dawn_load, &self) && self.dli_fname && strrchr(self.dli_fname, '/')) {
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(self.dli_fname, '/') - self.dli_fname), self.dli_fname);
    if ((lib = open_at(dir, "/wgk")) || (lib = open_at(dir, "/" WGK_DAWN_FROM_BIN))) return lib;
  }
  return open_at(WGK_DAWN_BUILD_DIR, "");
}

static void open_once(void) {
  void *lib = open_library();
  if (!lib || !bind_all(lib)) return;
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
