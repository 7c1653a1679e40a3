/* Reading a package's bench.json for `wgk bench` and `wgk tune`. */
#include <stdio.h>
#include <string.h>

#include "cli/bench_report.h"
#include "cli/cli_util.h"
#include "runtime/runtime_access.h"

tc_bench_suite *cli_load_bench(const char *cmd, pkg_package *pkg) {
  const char *text = NULL;
  size_t len = 0;
  util_error err = {0};
  char source[4096];
  snprintf(source, sizeof source, "%s/bench.json", pkg_dir(pkg));
  tc_bench_suite *suite = NULL;
  wgk_status st = pkg_read_file(pkg, "bench.json", &text, &len, &err);
  if (!st) st = tc_bench_suite_parse(text, len, source, &suite, &err);
  if (st) {
    char msg[WGK_ERROR_MESSAGE_MAX + 1024];
    util_error_format(&err, msg, sizeof msg);
    cli_error(cmd, "%s", msg);
  }
  return suite;
}

bool cli_bench_filter_ok(const char *cmd, const tc_bench_suite *s, const char *filter) {
  if (!filter) return true;
  char ids[1024];
  size_t n = 0;
  ids[0] = 0;
  for (size_t i = 0; i < s->n_cases; i++) {
    if (strstr(s->cases[i].id, filter)) return true;
    if (n < sizeof ids) n += (size_t)snprintf(ids + n, sizeof ids - n, "%s%s", i ? ", " : "", s->cases[i].id);
  }
  cli_error(cmd, "--case %s: no bench.json case id contains '%s' (cases: %s)", filter, filter, n ? ids : "none");
  return false;
}
