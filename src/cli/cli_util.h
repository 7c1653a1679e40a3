/*
 * Helpers shared by the subcommands: the options every package command takes, key=value arguments,
 * shapes, values as JSON, opening a context and a kernel with the error printed.
 */
#ifndef WGK_CLI_UTIL_H
#define WGK_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wgk.h"

/* Options common to the package commands. */
typedef struct wgk_cli_common {
  const char *adapter;  /* --adapter SEL: index or name substring */
  int version;          /* --version N (0: not given) */
  const char *revision; /* --revision SHA (40 hex) */
  bool strict;          /* --strict: refuse unverified packages */
  bool verbose;         /* --verbose */
  bool trust_remote_code; /* --trust-remote-code: a repo of another org than webgpu-kernels */
} wgk_cli_common;

/* If argv[*i] is a common option, consumes it (and its value) and returns 1; 0 if it is not one;
 * -1 after printing an error (missing or bad value). cmd names the command in messages. */
int wgk_cli_common_option(const char *cmd, int argc, char **argv, int *i, wgk_cli_common *o);

/* The value after an option (argv[*i + 1]), advancing *i; NULL (error printed) when missing. */
const char *wgk_cli_value(const char *cmd, int argc, char **argv, int *i);

/* "key=value": copies key into key_buf, points *value after '='. false when there is no '=' or no key. */
bool wgk_cli_split_kv(const char *arg, char *key_buf, size_t key_size, const char **value /* OUT */);

/* "2x4x3x8" (or "" / "scalar" for rank 0) into dims; false on anything else. */
bool wgk_cli_parse_shape(const char *text, int *rank /* OUT */, int64_t *dims /* OUT, WGK_MAX_DIMS */);

/* v as JSON text when it parses as JSON, else as a JSON string ("--attr mode=fast"). malloc'ed. */
char *wgk_cli_value_json(const char *v);

/* "wgk <cmd>: <message>" on stderr. */
void wgk_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Creates the context (adapter, verbose) and loads the kernel (version, revision, strict); prints the
 * unverified-package warning. On failure prints the error, destroys what it made, returns false. */
bool wgk_cli_open(const char *cmd, const wgk_cli_common *o, const char *pkg, wgk_context **ctx /* OUT */,
                  wgk_kernel **kernel /* OUT */);

/* Seconds on a monotonic clock. */
double wgk_cli_now(void);

#endif
