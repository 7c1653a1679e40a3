/* `wgk lock REPO[@vN] ... > wgk.lock`: pin each repo's branch (the Hub's newest without @vN) to its commit and file
 * digests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "hub/hub.h"

/* The REPO@vN arguments into specs (*n of them) and the common options into o; -1 when the command line is whole,
   else the exit status. A lock pins a branch: no revision, and --version with one REPO only. */
static int parse_args(int argc, char **argv, cli_common *o, const char **specs, size_t *n) {
  for (int i = 1; i < argc; i++) {
    int r = cli_common_option("lock", argc, argv, &i, o);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (argv[i][0] == '-') return cli_error("lock", "unexpected option '%s'", argv[i]), 2;
    specs[(*n)++] = argv[i];
  }
  if (*n == 0 || o->revision || (o->version && *n != 1)) {
    if (o->revision)
      cli_error("lock", "a lock pins a branch vN to its commit: give REPO@vN or --version N, not a revision");
    if (o->version && *n > 1) cli_error("lock", "--version N goes with one REPO; name several as REPO@vN");
    return cli_usage("lock");
  }
  return -1;
}

/* One way to name a kernel: a bare op id is webgpu-kernels/<op id>; REPO --version N is REPO@vN. Each spec is
   replaced by its full name, held in the returned array (n entries, freed by the caller); NULL without memory. */
static char **full_names(const char **specs, size_t n, int version) {
  char **owned = calloc(n, sizeof *owned);
  for (size_t k = 0; owned && k < n; k++) {
    const char *at = strrchr(specs[k], '@');
    size_t len = at ? (size_t)(at - specs[k]) : strlen(specs[k]);
    char *id = hub_repo_of(specs[k], len);
    size_t m = id ? strlen(id) + strlen(at ? at : "") + 32 : 0;
    if (id && (owned[k] = malloc(m))) {
      if (at)
        snprintf(owned[k], m, "%s%s", id, at);
      else if (version)
        snprintf(owned[k], m, "%s@v%d", id, version);
      else
        snprintf(owned[k], m, "%s", id);
      specs[k] = owned[k];
    }
    free(id);
  }
  return owned;
}

int cli_cmd_lock(int argc, char **argv) {
  cli_common o = {0};
  const char **specs = calloc((size_t)argc, sizeof *specs);
  size_t n = 0;
  if (!specs) return 1;
  int rc = parse_args(argc, argv, &o, specs, &n);
  char **owned = rc < 0 ? full_names(specs, n, o.version) : NULL;
  if (rc >= 0 || !owned) {
    free(specs);
    return rc >= 0 ? rc : 1;
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
