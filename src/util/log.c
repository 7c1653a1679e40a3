#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

void util_log_say(const util_log *log, wgk_log_kind kind, const char *fmt, ...) {
  if (!util_log_on(log)) return;
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  log->fn(log->user, kind, text);
}
