#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const wgk_cli_command commands[] = {
    /* Each subcommand adds its line here. */
    {"help", "print this list", NULL},
    {"devices", "list WebGPU adapters: facts, features, limits (--json)", wgk_cmd_devices},
    {"onnx-test", "run ONNX node-test folders through the kernel packages (--rtol --atol --adapter)",
     wgk_cmd_onnx_test},
    {"smoke", "run y = a*x + b on the GPU and check every element (--adapter SEL)", wgk_cmd_smoke},
    {"eval", "print what {{ EXPR }} renders", wgk_cmd_eval},
    {"template", "render a template file", wgk_cmd_template},
    {"explain", "plan a call: variant, rejections, outputs, dispatch, uniforms (--json)", wgk_cmd_explain},
    {"render", "print the WGSL a call would run (--pass ID)", wgk_cmd_render},
    {"list", "packages on the search path and in the Hub cache: op id, version, revision, verified (--json)",
     wgk_cmd_list},
    {"info", "a package's contract: ports, attributes, tunables, variants", wgk_cmd_info},
    {"convert", "turn a seed-format package into a manifest spec 2.1 package (SRC DST)", wgk_cmd_convert},
    {"run", "run a kernel on .npy inputs, print and write its outputs", wgk_cmd_run},
    {"test", "run a package's test.json cases on the device", wgk_cmd_test},
    {"bench", "time a package's bench.json cases against the device's ceilings (--json FILE)", wgk_cmd_bench},
    {"download", "fetch a repo (--version N | --revision SHA) or a lockfile (--lock) into the Hub cache",
     wgk_cmd_download},
    {"cache", "the Hub cache: ls, verify [REPO...], rm REPO", wgk_cmd_cache},
    {"lock", "pin REPO@vN ... to commits and file digests (JSON on stdout)", wgk_cmd_lock},
    {"tune", "sweep a package's tunables per bench case, store the best per device (--show)", wgk_cmd_tune},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: wgk <command> [options]\n       wgk help <command> | wgk <command> --help | wgk --version\n\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

/* `wgk --version`: the version, the Dawn build it runs on, and the source commit (set at configure time). */
static int version(void) {
  printf("wgk %s\nDawn: npm bun-webgpu-linux-x64 %s (libwebgpu_wrapper.so)\nsource commit (at configure): %s\n",
         WGK_VERSION_STRING, WGK_DAWN_PACKAGE_VERSION, WGK_SOURCE_COMMIT);
  return 0;
}

static bool asks_help(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[2], "-h") == 0) return true;
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0) return true;
  return false;
}

static const wgk_cli_command *find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (commands[i].run && strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr), 2;
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) return version();
  if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    if (argc < 3) return usage(stdout), 0;
    if (find(argv[2]) && wgk_cli_print_help(argv[2], stdout)) return 0;
    fprintf(stderr, "wgk help: unknown command '%s'\n", argv[2]);
    return usage(stderr), 2;
  }
  const wgk_cli_command *c = find(argv[1]);
  if (!c) {
    fprintf(stderr, "wgk: unknown command '%s'\n", argv[1]);
    return usage(stderr), 2;
  }
  if (asks_help(argc, argv) && wgk_cli_print_help(c->name, stdout)) return 0;
  return c->run(argc - 1, argv + 1);
}
