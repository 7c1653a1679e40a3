#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/say.h"
#include "util/dynbuf.h"
#include "util/suggest.h"
#include "source_commit.h" /* generated at build time: WGK_SOURCE_COMMIT */

static const cli_command commands[] = {
    /* Each subcommand adds its line here. */
    {"help", "print this list", NULL},
    {"devices", "list WebGPU adapters: facts, features, limits (--json)", cli_cmd_devices},
    {"onnx-test", "run ONNX node-test folders through the kernel packages (--rtol --atol --adapter)",
     cli_cmd_onnx_test},
    {"smoke", "run y = a*x + b on the GPU and check every element (--adapter SEL)", cli_cmd_smoke},
    {"eval", "print what {{ EXPR }} renders", cli_cmd_eval},
    {"template", "render a template file", cli_cmd_template},
    {"explain", "plan a call: variant, rejections, outputs, dispatch, uniforms (--json)", cli_cmd_explain},
    {"render", "print the WGSL a call would run (--pass ID)", cli_cmd_render},
    {"list", "packages on the search path and in the Hub cache: op id, version, revision, verified (--json)",
     cli_cmd_list},
    {"info", "a package's contract: ports, attributes, tunables, variants", cli_cmd_info},
    {"convert", "turn a seed-format package into a manifest spec 2.1 package (SRC DST)", cli_cmd_convert},
    {"run", "run a kernel on .npy inputs, print and write its outputs", cli_cmd_run},
    {"test", "run a package's test.json cases on the device", cli_cmd_test},
    {"pack", "write a package's metadata.json: variant template lists, every file's digest (--check)", cli_cmd_pack},
    {"check", "lint a package folder: manifest, metadata, test.json, bench.json, card; each case compiles and runs",
     cli_cmd_check},
    {"bench", "time a package's bench.json cases against the device's ceilings (--json FILE)", cli_cmd_bench},
    {"download", "fetch a repo (--version N | --revision SHA) or a lockfile (--lock) into the Hub cache",
     cli_cmd_download},
    {"cache", "the Hub cache: ls, verify [REPO...], rm REPO", cli_cmd_cache},
    {"lock", "pin REPO@vN ... to commits and file digests (JSON on stdout)", cli_cmd_lock},
    {"tune", "sweep a package's tunables per bench case, store the best per device (--show)", cli_cmd_tune},
};

/* The command list: on stdout when asked for (`wgk help`), else through the one printer to stderr. */
static void usage(bool asked) {
  util_dynbuf text;
  util_dynbuf_init(&text, 0);
  util_dynbuf_printf(&text,
                     "usage: wgk <command> [options]\n       wgk help <command> | wgk <command> --help | "
                     "wgk --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    util_dynbuf_printf(&text, "  %-12s %s\n", commands[i].name, commands[i].summary);
  if (asked)
    fputs(util_dynbuf_str(&text), stdout);
  else
    cli_say("%s", util_dynbuf_str(&text));
  util_dynbuf_free(&text);
}

/* `wgk --version`: the version, the Dawn build it runs on, and the source commit (taken at build time). */
static int version(void) {
  printf("wgk %s\nDawn: npm bun-webgpu-linux-x64 %s (libwebgpu_wrapper.so)\nsource commit: %s\n", WGK_VERSION_STRING,
         WGK_DAWN_PACKAGE_VERSION, WGK_SOURCE_COMMIT);
  return 0;
}

static bool asks_help(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[2], "-h") == 0) return true;
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0) return true;
  return false;
}

static const cli_command *find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (commands[i].run && strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

static const char *command_at(const void *list, size_t i) {
  const cli_command *c = &((const cli_command *)list)[i];
  return c->run || strcmp(c->name, "help") == 0 ? c->name : NULL;
}

/* "wgk[ help]: unknown command 'X'; did you mean 'Y'?" (the suggestion when one is near), then the command list. */
static int unknown_command(const char *prefix, const char *name) {
  const char *near = util_suggest(name, commands, sizeof commands / sizeof commands[0], command_at);
  if (near)
    cli_say("%s: unknown command '%s'; did you mean '%s'?\n", prefix, name, near);
  else
    cli_say("%s: unknown command '%s'\n", prefix, name);
  return usage(false), 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(false), 2;
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) return version();
  if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    if (argc < 3) return usage(true), 0;
    if (find(argv[2]) && cli_print_help(argv[2], stdout)) return 0;
    return unknown_command("wgk help", argv[2]);
  }
  const cli_command *c = find(argv[1]);
  if (!c) return unknown_command("wgk", argv[1]);
  if (asks_help(argc, argv) && cli_print_help(c->name, stdout)) return 0;
  return c->run(argc - 1, argv + 1);
}
