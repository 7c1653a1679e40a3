/*
 * Diagnostics that are not errors (wgk_log_kind): a layer says them through the caller's wgk_log_fn, or nowhere.
 * The library never prints; the CLI's printer (src/cli/say.c) is the one callback that writes them out.
 */
#ifndef WGK_UTIL_LOG_H
#define WGK_UTIL_LOG_H

#include "wgk.h"

typedef struct util_log {
  wgk_log_fn fn; /* NULL: nowhere */
  void *user;
} util_log;

/* Whether log goes anywhere (log may be NULL). */
static inline bool util_log_on(const util_log *log) { return log && log->fn; }

/* Formats one text of kind and hands it to log; nothing when log is off. */
void util_log_say(const util_log *log, wgk_log_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
