/* `wgk lock REPO@vN ... > wgk.lock`: pin each repo's branch to its commit and file digests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "hub/hub.h"

int cmd_lock(int argc, char **argv) {
  cli_common o = {0};
  const char **specs = calloc((size_t)argc, sizeof *specs);
  size_t n = 0;
  if (!specs) return 1;
  for (int i = 1; i < argc; i++) {
    int r = cli_common_option("lock", argc, argv, &i, &o);
    if (r < 0) {
      free(specs);
      return 2;
    }
    if (r > 0) continue;
    if (argv[i][0] == '-') {
      cli_error("lock", "unexpected option '%s'", argv[i]);
      free(specs);
      return 2;
    }
    specs[n++] = argv[i];
  }
  if (n == 0 || o.version || o.revision) {
    free(specs);
    return cli_usage("lock");
  }
  hub_options ho = {.trust_remote_code = o.trust_remote_code, .log = &cli_log_sink};
  util_error err;
  util_error_clear(&err);
  char *text = NULL;
  wgk_status st = hub_lock(specs, n, &ho, &text, &err);
  free(specs);
  if (st) {
    char msg[4096];
    util_error_format(&err, msg, sizeof msg);
    cli_error("lock", "%s", msg);
    return 1;
  }
  printf("%s\n", text);
  free(text);
  return 0;
}
