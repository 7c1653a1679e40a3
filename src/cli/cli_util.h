/*
 * Helpers shared by the subcommands: the options every package command takes, key=value arguments,
 * shapes, values as JSON, opening a context and a kernel with the error printed.
 */
#ifndef WGK_CLI_UTIL_H
#define WGK_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cli/say.h"
#include "util/error.h"
#include "wgk.h"

/* Options common to the package commands. */
typedef struct cli_common {
  const char *adapter;    /* --adapter SEL: index or name substring */
  int version;            /* --version N (0: not given) */
  const char *revision;   /* --revision SHA (40 hex) */
  bool strict;            /* --strict: refuse unverified packages */
  bool verbose;           /* --verbose */
  bool trust_remote_code; /* --trust-remote-code: a repo of another org than webgpu-kernels */
} cli_common;

/* If argv[*i] is a common option, consumes it (and its value) and returns 1; 0 if it is not one;
 * -1 after printing an error (missing or bad value). cmd names the command in messages. */
int cli_common_option(const char *cmd, int argc, char **argv, int *i, cli_common *o);

/* The value after an option (argv[*i + 1]), advancing *i; NULL (error printed) when missing. */
const char *cli_value(const char *cmd, int argc, char **argv, int *i);

/* "key=value": copies key into key_buf, points *value after '='. false when there is no '=' or no key. */
bool cli_split_kv(const char *arg, char *key_buf, size_t key_size, const char **value /* OUT */);

/* The largest dim and the largest integer magnitude a command-line value may have: 2^53, where doubles stop
 * being exact (the expression language computes in double). */
#define WGK_CLI_MAX_EXACT 9007199254740992LL

/* "2x4x3x8" (or "" / "scalar" for rank 0) into dims; false on anything else, with why (one line naming the
 * dim, the rank limit WGK_MAX_DIMS or the dim limit 2^53) set in why (WGK_ERR_INVALID_ARGUMENT). */
bool cli_parse_shape(const char *text, int *rank /* OUT */, int64_t *dims /* OUT, WGK_MAX_DIMS */, util_error *why);

/* v as JSON text when it parses as JSON, else as a JSON string ("--attr mode=fast"). malloc'ed. */
char *cli_value_json(const char *v);
/* The same, checked: NULL after printing "wgk <cmd>: <opt> <key>: ..." when v is meant as a number but is not
 * one wgk holds exactly (an integer past 2^53 or past int64, a real past double range, nan, inf). */
char *cli_value_json_checked(const char *cmd, const char *opt, const char *key, const char *v);
/* An integer in [lo, hi] (decimal, the whole text); false after printing an error naming opt and the range. */
bool cli_int(const char *cmd, const char *opt, const char *v, long long lo, long long hi, long long *out);

/* Every "key=value" of list[n] well-formed (key non-empty, below key_size) and each key given once; false
 * after printing an error naming opt, the key and both values. allow_empty: an empty value is fine. */
bool cli_kv_list_ok(const char *cmd, const char *opt, const char *const *list, int n, size_t key_size,
                    bool allow_empty);
/* A single-valued option given once: stores v in *slot, or prints "<opt> given twice" and returns false. */
bool cli_once(const char *cmd, const char *opt, const char **slot, const char *v);

/* Every command's --json: doc on stdout as indented JSON, keys in their order, then a newline; takes the
 * reference (NULL, as a failed json_pack gives, is out of memory). flags: more json_dumps flags (0, or
 * JSON_REAL_PRECISION(n)). 0, or 1 after printing "wgk <cmd>: out of memory". */
int cli_print_json(const char *cmd, json_t *doc, size_t flags);

/* A --json FILE: doc written to path as cli_print_json prints it; takes the reference. false after printing
 * "wgk <cmd>: cannot write <path>" (or out of memory, for a NULL doc). */
bool cli_write_json(const char *cmd, const char *path, json_t *doc);

/* The longest --out folder or --json file name: room for "/<port key>.npy" in a 4096-byte path. */
#define WGK_CLI_MAX_PATH 3800

/* An output folder that exists as a writable folder or whose parent does (it is made later). */
bool cli_check_out_dir(const char *cmd, const char *opt, const char *path);
/* An output file whose folder exists and is writable, and that is not itself a folder. */
bool cli_check_out_file(const char *cmd, const char *opt, const char *path);

/* Opens the package without a GPU (version, revision, strict, trust_remote_code), for checking arguments against it
 * before a context exists; NULL after printing the error. The command then hands it to cli_open or cli_load: each
 * package is read once. */
struct pkg_package;
struct pkg_package *cli_pkg_open(const char *cmd, const cli_common *o, const char *pkg);

/* Creates the context (adapter, verbose) and loads the kernel from pkg (taken, as cli_load); prints the
 * unverified-package warning. On failure prints the error, destroys what it made, returns false. */
bool cli_open(const char *cmd, const cli_common *o, struct pkg_package *pkg, wgk_context **ctx /* OUT */,
              wgk_kernel **kernel /* OUT */);

/* The second half of cli_open: the kernel of pkg (from cli_pkg_open; taken, freed on failure) in a context made
 * apart, through the library's load (planner, tuning cache, refusal policy: rt_kernel_load_package); prints the
 * unverified-package warning; on failure prints the error and returns false (the context stays). */
bool cli_load(const char *cmd, struct pkg_package *pkg, wgk_context *ctx, wgk_kernel **kernel /* OUT */);

#endif
