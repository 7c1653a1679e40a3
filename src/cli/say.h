/*
 * The CLI's one printer to stderr: every message, error, warning and progress line of wgk's commands goes out
 * through these, and the library's diagnostics come here through wgk_context_options.log (cli_log).
 */
#ifndef WGK_CLI_SAY_H
#define WGK_CLI_SAY_H

#include "util/log.h"
#include "wgk.h"

/* fmt as printf on stderr, as given (the caller ends a line with its newline). */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "wgk <cmd>: <message>" and a newline on stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The library's log (a wgk_log_fn; user unused): a line as a line; progress redrawn in place, and erased when it
 * is over, on a terminal only. */
void cli_log(void *user, wgk_log_kind kind, const char *text);

/* cli_log as the layers below the API take it (hub_options.log, pkg_options.log). */
extern const util_log cli_log_sink;

#endif
