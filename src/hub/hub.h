/*
 * The Hub client: kernel packages by repo id, fetched over HTTP(S) with libcurl into a disk cache laid
 * out as huggingface_hub lays out its own, so Hugging Face tools and wgk share it.
 *
 * Where a repo id "org/op.id" is looked for (the package search calls hub_snapshot last; docs/hub.md):
 *   1. the local search path (pkg_options.search_path, WGK_KERNEL_PATH);
 *   2. the disk cache: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub (a version downloaded
 *      wins over the bundled copy of it), then the bundled dirs;
 *   3. the Hub: $HF_ENDPOINT (default https://huggingface.co)
 *      + /kernels/<org>/<name>/resolve/<rev>/build/webgpu/<file>, rev = "v<N>" or a 40-hex commit.
 * A name without a version or revision: hub_pick_version chooses it, once for every source (below).
 *
 * Cache layout, per repo: <cache>/kernels--<org>--<name>/
 *   blobs/<sha256 hex>                         file contents, named by their hash
 *   refs/v<N>                                  the commit branch vN resolved to (one line)
 *   snapshots/<commit>/build/webgpu/<file>     relative symlinks into blobs/
 * and <cache>/.locks/kernels--<org>--<name>/wgk.lock, the flock(2) that serializes writers of one repo.
 * A blob enters the cache only after its SHA-256 matched metadata.json (temp file, fsync, rename); a
 * snapshot is complete once its metadata.json link exists, which is written last. Leftover temp files of
 * an interrupted writer are removed by the next writer, under the lock.
 *
 * Network: HF_HUB_OFFLINE=1 sends no request. A commit-pinned load with a complete snapshot sends none
 * either; a load by version sends one (metadata.json of vN, whose X-Repo-Commit names the commit) and
 * fetches the rest only when that commit is not cached. HF_TOKEN (else $HF_HOME/token) goes as a Bearer
 * header to the HF_ENDPOINT host only, never across a redirect to another host. 5xx answers and dropped
 * connections are retried with backoff (WGK_HUB_RETRIES, default 4 attempts; WGK_HUB_BACKOFF_MS, default
 * 500, doubling); WGK_HUB_TIMEOUT (seconds, default 30) bounds a connection and a stalled transfer.
 *
 * Trust: only the webgpu-kernels org is trusted; any other org needs trust_remote_code.
 */
#ifndef WGK_HUB_HUB_H
#define WGK_HUB_HUB_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"
#include "util/log.h"
#include "wgk.h"

#define WGK_HUB_TRUSTED_ORG "webgpu-kernels"
/* The largest file the Hub client keeps: the package reader's PKG_FILE_MAX_BYTES (src/package checks they agree),
 * since no load could read a bigger one. */
#define WGK_HUB_FILE_MAX_BYTES ((size_t)64 << 20)

typedef struct hub_options {
  int version;            /* branch v<N>; 0 = not given: the newest (hub_pick_version, the Hub answering) */
  const char *revision;   /* 40-hex commit; NULL = not given. At most one of version / revision. */
  bool trust_remote_code; /* allow orgs other than webgpu-kernels */
  const util_log *log;    /* where download progress and retries go (NULL: nowhere) */
  bool repair;            /* check a cached snapshot's every file and fetch again what is missing or corrupted
                             (wgk download); without it a complete snapshot is trusted (each load checks its digests) */
} hub_options;

/* True when id matches ^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$ (and neither part is "." or ".."). */
bool hub_repo_id_ok(const char *id);

/* One way to name a kernel, for every command, the C API and Python: "org/name", "name" (an op id: the org is
 * webgpu-kernels), "org/name@vN" or "org/name@<40 hex>" (also after a bare name). Every rule of the version asked
 * for holds in one place (hub_split_ref): the version and revision given already (the `version` / `revision`
 * parameter, --version / --revision) must be 0..1000000 and a 40-hex commit, and a suffix must agree with them. */
typedef enum hub_ref_problem {
  HUB_REF_OK = 0,
  HUB_REF_VERSION_OPTION,       /* the version given is not 0 .. 1000000 */
  HUB_REF_REVISION_OPTION,      /* the revision given is not a 40-hex commit */
  HUB_REF_SUFFIX_VERSION,       /* "@v..." is not v1 .. v1000000 */
  HUB_REF_VERSION_AND_REVISION, /* "@vN" and a revision given */
  HUB_REF_VERSIONS_DIFFER,      /* "@vN" and another version given */
  HUB_REF_SUFFIX,               /* after '@' neither "vN" nor a 40-hex commit */
  HUB_REF_COMMIT_AND_VERSION,   /* "@<commit>" and a version given */
  HUB_REF_COMMITS_DIFFER,       /* "@<commit>" and another revision given */
} hub_ref_problem;

typedef struct hub_ref {
  int version;          /* IN: the version given (0 = none); OUT: that, or the "@vN" suffix's */
  const char *revision; /* IN: the revision given (NULL = none); OUT: that, or rev (the "@<commit>" suffix's) */
  char rev[41];         /* the suffix's commit, lower case (revision points here: a hub_ref is not copied) */
  size_t base_len;      /* the length of the name, without its "@..." suffix */
  const char *suffix;   /* what follows the '@' in spec; NULL when no suffix was read */
  long suffix_version;  /* N of "@vN"; 0 when none */
  hub_ref_problem problem;
} hub_ref;

/* Splits spec (with read_suffix, at its last '@'; a folder is read without) and holds it against ref's version and
 * revision (set them first); returns ref->problem, reported with its values by hub_ref_error. Reports nothing: the
 * caller knows what it was naming and reports once. A spec without '@' (or read_suffix false) only has the version
 * and revision checked. */
hub_ref_problem hub_split_ref(const char *spec, bool read_suffix, hub_ref *ref /* IN, OUT */);
/* The message of ref->problem (with the values), WGK_ERR_INVALID_ARGUMENT in spec; WGK_OK for HUB_REF_OK. */
wgk_status hub_ref_error(const hub_ref *ref, const char *spec, util_error *err);
/* The repo id of a name: "org/name" as is, a bare op id under webgpu-kernels; malloc'ed (len chars of name). */
char *hub_repo_of(const char *name, size_t len);

/* The cache root ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub); malloc'ed, NULL when there is
 * no HOME either. */
char *hub_cache_root(void);
/* The repo folder <cache>/kernels--<org>--<name>; malloc'ed. */
char *hub_repo_dir(const char *cache, const char *repo);

/* The build/webgpu folder of repo at the version or revision asked, from the cache or fetched into it
 * (rules above); neither version nor revision: the newest version (hub_pick_version with ask_hub). *dir_out and
 * *commit_out (nullable) are malloc'ed. Errors: WGK_ERR_INVALID_ARGUMENT (bad repo id, both version and revision),
 * WGK_ERR_UNSUPPORTED (untrusted org), WGK_ERR_NOT_FOUND (404, offline and not cached), WGK_ERR_IO (network, disk,
 * 401/403), WGK_ERR_DIGEST. */
wgk_status hub_snapshot(const char *repo, const hub_options *opts, char **dir_out /* OUT */,
                        char **commit_out /* OUT, nullable */, util_error *err);

/* THE version rule, for every source (docs/hub.md, "Which version a name without one loads"): a name given with neither
 * a version nor a revision loads the newest contract version wgk can choose, chosen here and nowhere else:
 *   - a load (ask_hub false): the newest version on this machine: the cache's newest complete refs/v<N>
 *     (hub_newest_cached) or the bundled copy's version (`bundled`, its metadata.json "version"; 0 = none),
 *     whichever is higher; no request to choose it. Nothing on this machine: WGK_ERR_NOT_FOUND, saying how to name
 *     one (a load never fetches a version nobody named);
 *   - wgk download / wgk lock (ask_hub true, their source is the Hub): the newest v<N> branch on the Hub, one
 *     request (GET $HF_ENDPOINT/api/kernels/<org>/<name>/refs); the Hub unreachable (no answer at all) and a version
 *     on this machine: that one; offline (HF_HUB_OFFLINE): the newest on this machine, without any request.
 * Then the version chosen loads exactly as NAME@v<N> would. A search-path folder (pkg_options.search_path,
 * WGK_KERNEL_PATH) is not asked: it is taken as it is, whatever version it records (src/package/search.c). The repo's
 * org must be trusted (or trust_remote_code). *version > 0 on success. */
wgk_status hub_pick_version(const char *repo, int bundled, bool ask_hub, const hub_options *opts,
                            int *version /* OUT */, util_error *err);
/* The highest N whose refs/v<N> names a complete snapshot in the cache; 0 when none. Reads the disk only. */
int hub_newest_cached(const char *repo);

/* Whether the cache holds repo's version: refs/v<version> names a complete snapshot. Reads the disk only (no
 * request); such a download wins over the bundled copy of the same version (docs/hub.md, the precedence). */
bool hub_cached_version(const char *repo, int version);

/* When real_root (a realpath) is a snapshot of the cache layout, ".../kernels--<org>--<name>/snapshots/<commit>",
 * cuts it to the repo folder ".../kernels--<org>--<name>" and returns true: a snapshot's files are links into
 * the repo's blobs/, so the repo folder, not the snapshot, bounds where a package file may resolve. */
bool hub_snapshot_bound(char *real_root);

/* s with every byte outside printable ASCII written as \xNN, into out (truncated to size), for printing names and
 * contents read from disk (refs, folder names). Returns out. */
char *hub_escape(const char *s, char *out, size_t size);
/* The text of a ref file (refs/<branch>): its first line, read as a small regular file; malloc'ed, NULL when it is
 * absent, not a regular file or too big. */
char *hub_ref_read(const char *path);

/* ---- the cache, for `wgk cache` ------------------------------------------------------------ */

/* Calls fn once per cached kernel repo (folder kernels--org--name) with its repo id. */
typedef void (*hub_repo_fn)(const char *cache, const char *repo, void *user);
wgk_status hub_cache_each(const char *cache, hub_repo_fn fn, void *user, util_error *err);
/* Checks every complete snapshot of repo: each file listed in its metadata.json is there, links into
 * blobs/, and hashes to its digest; each blob hashes to its name. Prints one line per problem to out
 * (when not NULL); returns the number of problems, or -1 with err set when the repo cannot be read. */
int hub_cache_verify(const char *cache, const char *repo, void *out /* FILE* */, util_error *err);
/* Removes the repo from the cache, under its lock. WGK_ERR_NOT_FOUND when it is not cached. */
wgk_status hub_cache_rm(const char *cache, const char *repo, util_error *err);

/* ---- lockfiles -------------------------------------------------------------------------------
 * wgk.lock (JSON): {"version": 1, "kernels": [{"repo": "org/name", "version": N, "commit": "<40 hex>",
 *                   "files": {"<relpath>": "<base64 sha256>", ...}}, ...]}
 * files are exactly metadata.json's digests plus metadata.json's own digest. */

/* Resolves each "org/name@vN", or "org/name" at the version hub_pick_version chooses (the Hub's newest branch),
 * (fetching as needed) and writes the lockfile text to *json_out. */
wgk_status hub_lock(const char *const *specs, size_t n, const hub_options *opts, char **json_out /* OUT */,
                    util_error *err);
/* Downloads every entry of a lockfile by its commit and checks the snapshot holds exactly the locked
 * files with the locked digests (drift is refused). Each snapshot folder is passed to fn (nullable). */
typedef void (*hub_dir_fn)(const char *repo, const char *dir, void *user);
wgk_status hub_download_lock(const char *lock_path, const hub_options *opts, hub_dir_fn fn, void *user,
                             util_error *err);

#endif
