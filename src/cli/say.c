/* The CLI's one printer to stderr (say.h). */
#include "cli/say.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

const util_log cli_log_sink = {cli_log, NULL};

void cli_say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

void cli_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "wgk %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cli_log(void *user, wgk_log_kind kind, const char *text) {
  (void)user;
  if (kind == WGK_LOG_LINE) {
    fprintf(stderr, "%s\n", text);
    return;
  }
  if (!isatty(STDERR_FILENO)) return; /* a progress line only where it can be redrawn */
  if (text[0])
    fprintf(stderr, "\r%s", text);
  else
    fprintf(stderr, "\r\033[K");
  fflush(stderr);
}
