#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const wgk_cli_command commands[] = {
    /* Each subcommand adds its line here. */
    {"help", "print this list", NULL},
    {"devices", "list WebGPU adapters: facts, features, limits (--json)", wgk_cmd_devices},
    {"onnx-test", "run ONNX node-test folders through the kernel packages (--rtol --atol --adapter)", wgk_cmd_onnx_test},
    {"smoke", "run y = a*x + b on the GPU and check every element (--adapter SEL)", wgk_cmd_smoke},
    {"eval", "print what {{ EXPR }} renders", wgk_cmd_eval},
    {"template", "render a template file", wgk_cmd_template},
    {"explain", "plan a call: variant, rejections, outputs, dispatch, uniforms (--json)", wgk_cmd_explain},
    {"render", "print the WGSL a call would run (--pass ID)", wgk_cmd_render},
    {"info", "a package's contract: ports, attributes, tunables, variants", wgk_cmd_info},
    {"convert", "turn a seed-format package into a manifest spec 2.1 package (SRC DST)", wgk_cmd_convert},
    {"run", "run a kernel on .npy inputs, print and write its outputs", wgk_cmd_run},
    {"test", "run a package's test.json cases on the device", wgk_cmd_test},
    {"bench", "time a package's bench.json cases against the device's ceilings (--json FILE)", wgk_cmd_bench},
    {"download", "fetch a repo (--version N | --revision SHA) or a lockfile (--lock) into the Hub cache", wgk_cmd_download},
    {"cache", "the Hub cache: ls, verify [REPO...], rm REPO", wgk_cmd_cache},
    {"lock", "pin REPO@vN ... to commits and file digests (JSON on stdout)", wgk_cmd_lock},
    {"tune", "sweep a package's tunables per bench case, store the best per device (--show)", wgk_cmd_tune},
};

static void usage(FILE *out) {
  fprintf(out, "usage: wgk <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (commands[i].run && strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  }
  fprintf(stderr, "wgk: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
