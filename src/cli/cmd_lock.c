/* `wgk lock REPO[@vN] ... > wgk.lock`: pin each repo's branch (the Hub's newest without @vN) to its commit and file
 * digests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "hub/hub.h"

int cli_cmd_lock(int argc, char **argv) {
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
  if (n == 0 || o.revision || (o.version && n != 1)) {
    if (o.revision)
      cli_error("lock", "a lock pins a branch vN to its commit: give REPO@vN or --version N, not a revision");
    if (o.version && n > 1) cli_error("lock", "--version N goes with one REPO; name several as REPO@vN");
    free(specs);
    return cli_usage("lock");
  }
  /* One way to name a kernel: a bare op id is webgpu-kernels/<op id>; REPO --version N is REPO@vN. */
  char **owned = calloc(n, sizeof *owned);
  if (!owned) {
    free(specs);
    return 1;
  }
  for (size_t k = 0; k < n; k++) {
    const char *at = strrchr(specs[k], '@');
    size_t len = at ? (size_t)(at - specs[k]) : strlen(specs[k]);
    char *id = hub_repo_of(specs[k], len);
    size_t m = id ? strlen(id) + strlen(at ? at : "") + 32 : 0;
    if (id && (owned[k] = malloc(m))) {
      if (at)
        snprintf(owned[k], m, "%s%s", id, at);
      else if (o.version)
        snprintf(owned[k], m, "%s@v%d", id, o.version);
      else
        snprintf(owned[k], m, "%s", id);
      specs[k] = owned[k];
    }
    free(id);
  }
  hub_options ho = {.trust_remote_code = o.trust_remote_code, .log = &cli_log_sink};
  util_error err;
  util_error_clear(&err);
  char *text = NULL;
  wgk_status st = hub_lock(specs, n, &ho, &text, &err);
  for (size_t k = 0; k < n; k++) free(owned[k]);
  free(owned);
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
