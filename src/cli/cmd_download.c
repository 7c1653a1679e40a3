/* `wgk download REPO [--version N | --revision SHA]` (neither: the Hub's newest) and `wgk download --lock wgk.lock`:
 * fill the Hub cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_util.h"
#include "hub/hub.h"

static void print_dir(const char *repo, const char *dir, void *user) {
  (void)user;
  printf("%s %s\n", repo, dir);
}

int cli_cmd_download(int argc, char **argv) {
  cli_common o = {0};
  const char *repo = NULL, *lock = NULL;
  for (int i = 1; i < argc; i++) {
    int r = cli_common_option("download", argc, argv, &i, &o);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (strcmp(argv[i], "--lock") == 0) {
      if (!(lock = cli_value("download", argc, argv, &i))) return 2;
    } else if (argv[i][0] == '-' || repo) {
      cli_error("download", "unexpected argument '%s'", argv[i]);
      return cli_usage("download");
    } else {
      repo = argv[i];
    }
  }
  if (!repo == !lock) return cli_usage("download");
  hub_options ho = {
      .version = o.version,
      .revision = o.revision,
      .trust_remote_code = o.trust_remote_code,
      .log = &cli_log_sink,
      .repair = true}; /* a download checks every cached file and fetches again what is missing or corrupted */
  util_error err;
  util_error_clear(&err);
  wgk_status st;
  char *dir = NULL;
  if (lock) {
    if (o.version || o.revision) {
      cli_error("download", "--lock pins every repo itself: no --version or --revision with it");
      return 2;
    }
    st = hub_download_lock(lock, &ho, print_dir, NULL, &err);
  } else {
    /* One way to name a kernel: org/name, name, with @vN or @<commit> (or --version / --revision). */
    hub_ref ref = {.version = ho.version, .revision = ho.revision};
    char *id = NULL;
    st = hub_split_ref(repo, true, &ref) ? hub_ref_error(&ref, repo, &err) : WGK_OK;
    ho.version = ref.version;
    ho.revision = ref.revision;
    if (!st && !(id = hub_repo_of(repo, ref.base_len))) st = util_error_oom(&err, repo, NULL);
    if (!st) st = hub_snapshot(id, &ho, &dir, NULL, &err);
    free(id);
    if (!st) printf("%s\n", dir);
  }
  free(dir);
  if (st) {
    char msg[4096];
    util_error_format(&err, msg, sizeof msg);
    cli_error("download", "%s", msg);
    return 1;
  }
  return 0;
}
