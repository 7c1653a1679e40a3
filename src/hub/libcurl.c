/* libcurl opened when the Hub client first needs the network, not when the process starts: linked, libcurl and its
 * twenty-odd libraries (TLS, Kerberos, LDAP, SSH, ...) were mapped and relocated before main in every process,
 * about 16 ms of CPU that a local `wgk run` never used (docs/performance.md, "The first call of `wgk run`"). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hub/libcurl.h"
#include "hub/hub_internal.h"

static hub_curl_api api;
static bool api_ok;
static char api_why[512];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* Every function or none: a partial table is never handed out. */
static bool bind_all(void *lib) {
  struct {
    void **slot;
    const char *name;
  } fns[] = {
      {(void **)&api.global_init, "curl_global_init"},
      {(void **)&api.easy_init, "curl_easy_init"},
      {(void **)&api.easy_setopt, "curl_easy_setopt"},
      {(void **)&api.easy_perform, "curl_easy_perform"},
      {(void **)&api.easy_getinfo, "curl_easy_getinfo"},
      {(void **)&api.easy_cleanup, "curl_easy_cleanup"},
      {(void **)&api.easy_strerror, "curl_easy_strerror"},
      {(void **)&api.slist_append, "curl_slist_append"},
      {(void **)&api.slist_free_all, "curl_slist_free_all"},
      {(void **)&api.url, "curl_url"},
      {(void **)&api.url_set, "curl_url_set"},
      {(void **)&api.url_get, "curl_url_get"},
      {(void **)&api.url_cleanup, "curl_url_cleanup"},
      {(void **)&api.free, "curl_free"},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    *fns[i].slot = dlsym(lib, fns[i].name);
    if (!*fns[i].slot) {
      snprintf(api_why, sizeof api_why, "libcurl has no %s (libcurl 7.62 or later is needed)", fns[i].name);
      return false;
    }
  }
  return true;
}

/* curl_global_init is not thread-safe: once per process, with the library, before the first handle (contexts may
 * load on several threads). */
static void open_once(void) {
  void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(api_why, sizeof api_why,
             "cannot load libcurl (libcurl.so.4), which downloads from the Hub: %s (install libcurl4: "
             "scripts/bootstrap.sh does)",
             e ? e : "unknown error");
    return;
  }
  if (!bind_all(lib)) return; /* the library stays loaded: a process opens it once */
  CURLcode c = api.global_init(CURL_GLOBAL_DEFAULT);
  if (c != CURLE_OK) {
    snprintf(api_why, sizeof api_why, "libcurl failed to start: %s", api.easy_strerror(c));
    return;
  }
  api_ok = true;
}

wgk_status hub_curl(const hub_curl_api **out, util_error *err) {
  pthread_once(&api_once, open_once);
  *out = api_ok ? &api : NULL;
  return api_ok ? WGK_OK : util_error_plain(err, WGK_ERR_IO, "%s", api_why);
}
