/* libcurl's functions that the Hub client calls, from the library opened on first use (src/hub/libcurl.c). */
#ifndef WGK_HUB_LIBCURL_H
#define WGK_HUB_LIBCURL_H

#include <curl/curl.h>

#include "util/error.h"

typedef struct hub_curl_api {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *c, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL *c);
  CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
  void (*easy_cleanup)(CURL *c);
  const char *(*easy_strerror)(CURLcode code);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
  void (*slist_free_all)(struct curl_slist *list);
  CURLU *(*url)(void);
  CURLUcode (*url_set)(CURLU *u, CURLUPart part, const char *content, unsigned int flags);
  CURLUcode (*url_get)(CURLU *u, CURLUPart part, char **content, unsigned int flags);
  void (*url_cleanup)(CURLU *u);
  void (*free)(void *p);
} hub_curl_api;

/* *out: the functions, libcurl loaded and curl_global_init run once per process; NULL and an error (no libcurl, a
 * libcurl without one of them, or its start failed) when the network cannot be used. */
wgk_status hub_curl(const hub_curl_api **out, util_error *err);

#endif
