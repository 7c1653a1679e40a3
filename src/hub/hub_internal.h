/* What the Hub client's files share: the network settings, one GET, the cache's file operations. */
#ifndef WGK_HUB_HUB_INTERNAL_H
#define WGK_HUB_HUB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hub/hub.h"

/* Bounds on what the Hub can make one operation spend (docs/limits.md gives the reasons). */
#define HUB_FILE_MAX_BYTES WGK_HUB_FILE_MAX_BYTES   /* one file: no load could read a bigger one */
#define HUB_TOTAL_MAX_BYTES ((size_t)512 << 20)     /* every body of one operation together (WGK_HUB_MAX_BYTES) */
#define HUB_SMALL_FILE_MAX_BYTES ((size_t)64 << 10) /* a ref, the token file */
#define HUB_LOCKFILE_MAX_BYTES ((size_t)16 << 20)   /* wgk.lock */

/* Settings read from the environment once per operation. */
typedef struct hub_net {
  char *endpoint;      /* HF_ENDPOINT without a trailing '/', default https://huggingface.co */
  char *shown;         /* the endpoint as messages print it: any user:password@ replaced by "***@" */
  char *token;         /* HF_TOKEN, else the first line of $HF_HOME/token; NULL = none */
  bool offline;        /* HF_HUB_OFFLINE set to 1/true/yes/on */
  int attempts;        /* tries per request (WGK_HUB_RETRIES, default 4, >= 1) */
  long backoff_ms;     /* first pause between tries, doubled each time (WGK_HUB_BACKOFF_MS, default 500) */
  long timeout_s;      /* connect timeout and stall window (WGK_HUB_TIMEOUT, default 30) */
  long min_rate;       /* bytes/s a transfer must keep up over timeout_s (WGK_HUB_MIN_RATE, default 1024) */
  long deadline_s;     /* the whole operation, every request and retry (WGK_HUB_DEADLINE, default 900) */
  double started;      /* util_now_s() at hub_net_init */
  size_t received;     /* body bytes kept so far in this operation */
  size_t max_total;    /* bound on received (WGK_HUB_MAX_BYTES, default HUB_TOTAL_MAX_BYTES) */
  const util_log *log; /* download progress and retries (hub_options.log; NULL: nowhere) */
} hub_net;

wgk_status hub_net_init(hub_net *net, const util_log *log, util_error *err);
void hub_net_free(hub_net *net);

/* One answered GET: the body, the X-Repo-Commit header of the first hop that had one, and the Hub's ETag. */
typedef struct hub_body {
  char *data; /* malloc'ed, NUL-terminated */
  size_t len;
  size_t cap;       /* allocated for data (grown geometrically) */
  char commit[41];  /* "" when no hop sent X-Repo-Commit */
  bool etag_linked; /* etag came from X-Linked-Etag */
  char etag[72];    /* X-Linked-Etag of any hop, else the final answer's ETag; quotes and W/ stripped; "" = none */
  bool unreachable; /* set on failure when the Hub gave no HTTP answer at all (connect, DNS, timeout) */
} hub_body;

/* GETs url (following up to 10 redirects; the token goes only to the endpoint's scheme://host:port),
 * retrying 5xx, 429, timeouts and dropped connections. what names the object for messages
 * ("repo r, revision v1, file f"). A non-2xx final answer is an error with an actionable message. A body over
 * HUB_FILE_MAX_BYTES, or one taking the operation past HUB_TOTAL_MAX_BYTES, is refused as soon as its length is
 * announced or reached; a transfer slower than min_rate for timeout_s, or running past the deadline, ends. */
wgk_status hub_http_get(hub_net *net, const char *url, const char *repo, const char *rev, const char *file,
                        hub_body *out /* OUT */, util_error *err);
void hub_body_free(hub_body *b);

/* The Hub's content ETags: git's blob id, sha1("blob <len>\0" + data), for a file kept in git; the SHA-256 for an
 * LFS file. A blob in the cache is named as huggingface_hub names it: by the ETag the Hub sent (X-Linked-Etag, else
 * ETag), when that ETag is one of the two and matches the bytes; otherwise (no ETag, or one of another kind) by the
 * bytes' SHA-256. */
bool hub_git_sha1_hex(const void *data, size_t len, char hex[41]);
/* The blob name for data received with etag ("" = none), into name (65 bytes). */
void hub_blob_name(const char *etag, const void *data, size_t len, char name[65]);
/* Whether name is a content name of data (40 hex: its git blob id; 64 hex: its SHA-256). */
bool hub_blob_name_ok(const char *name, const void *data, size_t len);
/* Whether name has the shape of a content name (40 or 64 lower-case hex digits). */
bool hub_blob_name_shape(const char *name);

/* sha256 hex (64 chars + NUL) of data; of a base64 digest (false when it is not one). */
bool hub_sha256_hex(const void *data, size_t len, char hex[65]);
bool hub_b64_to_hex(const char *b64, char hex[65]);

/* Joins with '/', malloc'ed (NULL when out of memory). */
char *hub_path(const char *a, const char *b);
/* mkdir -p. */
bool hub_mkdirs(const char *path);
/* Writes data to path atomically: a temp file beside it, fsync, rename. */
wgk_status hub_write_atomic(const char *path, const void *data, size_t len, util_error *err);
/* Makes path a symlink to target atomically (temp link + rename). */
wgk_status hub_symlink_atomic(const char *target, const char *path, util_error *err);
/* Reads a whole file of at most cap bytes: regular files only (a FIFO or a device is refused without blocking),
 * NUL-terminated; NULL when absent, unreadable, not regular or too big (err, nullable, says which). */
char *hub_read_all(const char *path, size_t cap, size_t *len /* OUT, nullable */, util_error *err);
/* url with any user:password@ replaced by "***@", malloc'ed (NULL when out of memory). */
char *hub_url_shown(const char *url);

/* The repo's writer lock: <cache>/.locks/kernels--org--name/wgk.lock, flock(LOCK_EX). Returns the fd, or
 * -1 with err set. Under the lock, leftover temp files of interrupted writers are removed. */
int hub_lock_repo(const char *cache, const char *repo, util_error *err);
void hub_unlock_repo(int fd);

/* A snapshot's build/webgpu folder is complete when its metadata.json exists (wgk writes it last) and every file its
 * digest.files lists is there (huggingface_hub may have fetched only some). */
bool hub_snapshot_complete(const char *repo_dir, const char *commit);
/* <repo_dir>/snapshots/<commit>/build/webgpu, malloc'ed. */
char *hub_snapshot_dir(const char *repo_dir, const char *commit);

/* True for exactly 40 hex digits. */
bool hub_is_commit(const char *s);

#endif
