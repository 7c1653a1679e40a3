/* Reading a package's bench.json for `wgk bench` and `wgk tune`. */
#include <stdio.h>

#include "cli/bench_report.h"
#include "cli/cli_util.h"
#include "runtime/runtime_access.h"

wgk_bench_suite *wgk_cli_load_bench(const char *cmd, wgk_kernel *k) {
  const char *text = NULL;
  size_t len = 0;
  wgk_error err = {0};
  char source[4096];
  snprintf(source, sizeof source, "%s/bench.json", wgk_pkg_dir(wgk_rt_kernel_package(k)));
  wgk_bench_suite *suite = NULL;
  wgk_status st = wgk_pkg_read_file(wgk_rt_kernel_package(k), "bench.json", &text, &len, &err);
  if (!st) st = wgk_bench_suite_parse(text, len, source, &suite, &err);
  if (st) {
    char msg[WGK_ERROR_MESSAGE_MAX + 1024];
    wgk_error_format(&err, msg, sizeof msg);
    wgk_cli_error(cmd, "%s", msg);
  }
  return suite;
}
