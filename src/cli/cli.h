/* The wgk command line: one file per subcommand, each an entry of the table in main.c. */
#ifndef WGK_CLI_H
#define WGK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cli_command {
  const char *name;                  /* first word on the command line */
  const char *summary;               /* one line for `wgk help` */
  int (*run)(int argc, char **argv); /* argv[0] is the subcommand name; returns the exit status */
} cli_command;

/* `wgk CMD --help`: the command's usage with every option explained (src/cli/help.c); false for an unknown CMD. */
bool cli_print_help(const char *cmd, FILE *out);
/* A command called wrongly: its usage lines from the same help text on stderr, and where the options are
 * explained; returns 2, the exit status of a usage error. */
int cli_usage(const char *cmd);

/* Each subcommand file defines one entry point, declared here: int cli_cmd_<name>(int argc, char **argv); */
int cli_cmd_devices(int argc, char **argv);
int cli_cmd_smoke(int argc, char **argv);
int cli_cmd_convert(int argc, char **argv);
int cli_cmd_onnx_test(int argc, char **argv);

int cli_cmd_eval(int argc, char **argv);
int cli_cmd_template(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_test(int argc, char **argv);

struct expr_value;
struct util_error;
/* Loads a --scope JSON file (NULL path: an empty scope); "device" becomes the device object. */
struct expr_value *cli_load_scope(const char *path, struct util_error *err);

int cli_cmd_explain(int argc, char **argv);
int cli_cmd_bench(int argc, char **argv);
int cli_cmd_tune(int argc, char **argv);

/* One adapter as `wgk devices --json` lists it (index: its place in that list). */
struct json_t;
struct device_desc;
struct json_t *cli_adapter_json(const struct device_desc *d, size_t index);
int cli_cmd_render(int argc, char **argv);
int cli_cmd_download(int argc, char **argv);
int cli_cmd_cache(int argc, char **argv);
int cli_cmd_lock(int argc, char **argv);
int cli_cmd_list(int argc, char **argv);
int cli_cmd_pack(int argc, char **argv);
/* `wgk pack DIR [--check]` for another command (cmd names it in messages); quiet: no line on success. Returns the
 * exit status pack would. */
int cli_pack_run(const char *cmd, const char *dir, bool check, bool quiet);
int cli_cmd_check(int argc, char **argv);
struct cli_common;
/* `wgk test DIR --record COMMAND [--case ID]` (src/cli/test_record.c): the expected .npy files from a reference. */
int cli_test_record(const struct cli_common *o, const char *dir, const char *command, const char *filter);

#endif
