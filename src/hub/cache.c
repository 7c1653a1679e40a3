/* The disk cache in huggingface_hub's layout (see hub.h): paths, atomic writes, the per-repo lock,
 * listing, verifying and removing repos. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/env.h"
#include "hub/hub_internal.h"
#include "util/digest.h"
#include "util/file_read.h"
#include "util/sha.h"

#define REPO_PREFIX "kernels--"
#define TMP_MARK ".wgk-incomplete-"

bool hub_is_commit(const char *s) {
  size_t n = 0;
  for (; s && s[n]; n++)
    if (!strchr("0123456789abcdefABCDEF", s[n])) return false;
  return n == 40;
}

char *hub_escape(const char *s, char *out, size_t size) {
  size_t n = 0;
  if (!size) return out;
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    bool plain = *p >= 0x20 && *p < 0x7f && *p != '\\';
    if (n + (plain ? 1 : 4) >= size) break; /* whole characters only, room for the NUL */
    if (plain)
      out[n++] = (char)*p;
    else
      n += (size_t)snprintf(out + n, size - n, "\\x%02x", *p);
  }
  out[n] = '\0';
  return out;
}

static bool part_ok(const char *p, size_t n) {
  if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) return false;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      return false;
  }
  return true;
}

bool hub_repo_id_ok(const char *id) {
  const char *slash = id ? strchr(id, '/') : NULL;
  if (!slash || strchr(slash + 1, '/')) return false;
  /* "--" would make the cache folder name kernels--a--b ambiguous. */
  if (strstr(id, "--")) return false;
  return part_ok(id, (size_t)(slash - id)) && part_ok(slash + 1, strlen(slash + 1));
}

char *hub_path(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  while (na > 1 && a[na - 1] == '/') na--;
  char *p = malloc(na + nb + 2);
  if (!p) return NULL;
  memcpy(p, a, na);
  p[na] = '/';
  memcpy(p + na + 1, b, nb + 1);
  return p;
}

char *hub_cache_root(void) {
  const char *v = util_env("HF_HUB_CACHE");
  if (v && *v) return strdup(v);
  if ((v = util_env("HF_HOME")) && *v) return hub_path(v, "hub");
  if ((v = util_env("XDG_CACHE_HOME")) && *v) return hub_path(v, "huggingface/hub");
  if ((v = util_env("HOME")) && *v) return hub_path(v, ".cache/huggingface/hub");
  return NULL;
}

char *hub_repo_dir(const char *cache, const char *repo) {
  const char *slash = strchr(repo, '/');
  if (!slash) return NULL;
  size_t n = strlen(cache) + strlen(repo) + sizeof REPO_PREFIX + 8;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/" REPO_PREFIX "%.*s--%s", cache, (int)(slash - repo), repo, slash + 1);
  return p;
}

bool hub_snapshot_bound(char *real_root) {
  char *commit = real_root ? strrchr(real_root, '/') : NULL;
  if (!commit || commit == real_root || !hub_is_commit(commit + 1)) return false;
  static const char snaps[] = "/snapshots";
  size_t k = sizeof snaps - 1, n = (size_t)(commit - real_root);
  if (n <= k || strncmp(commit - k, snaps, k) != 0) return false;
  char *repo_end = commit - k;
  *repo_end = '\0';
  const char *base = strrchr(real_root, '/');
  bool ok =
      base && strncmp(base + 1, REPO_PREFIX, strlen(REPO_PREFIX)) == 0 && strstr(base + 1 + strlen(REPO_PREFIX), "--");
  if (!ok) *repo_end = '/';
  return ok;
}

char *hub_snapshot_dir(const char *repo_dir, const char *commit) {
  size_t n = strlen(repo_dir) + strlen(commit) + 32;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/snapshots/%s/build/webgpu", repo_dir, commit);
  return p;
}

bool hub_snapshot_complete(const char *repo_dir, const char *commit) {
  char *dir = hub_snapshot_dir(repo_dir, commit);
  char *meta = dir ? hub_path(dir, "metadata.json") : NULL;
  size_t len = 0;
  char *text = meta ? hub_read_all(meta, HUB_FILE_MAX_BYTES, &len, NULL) : NULL;
  json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
  json_t *files = json_object_get(json_object_get(doc, "digest"), "files");
  bool ok = json_is_object(files);
  const char *rel;
  json_t *v;
  json_object_foreach(files, rel, v) {
    char *p = ok && util_pkg_relpath_ok(rel) ? hub_path(dir, rel) : NULL;
    struct stat st;
    ok = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    if (!ok) break;
  }
  json_decref(doc);
  free(text);
  free(meta);
  free(dir);
  return ok;
}
bool hub_mkdirs(const char *path) {
  char *p = strdup(path);
  if (!p) return false;
  bool ok = true;
  for (char *s = p + 1; ok; s++) {
    if (*s == '/' || *s == '\0') {
      char c = *s;
      *s = '\0';
      if (mkdir(p, 0777) != 0 && errno != EEXIST) ok = false;
      *s = c;
      if (!c) break;
    }
  }
  free(p);
  return ok;
}

static void hex_of(const unsigned char *md, char hex[65]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) {
    hex[2 * i] = digits[md[i] >> 4];
    hex[2 * i + 1] = digits[md[i] & 15];
  }
  hex[64] = '\0';
}

bool hub_sha256_hex(const void *data, size_t len, char hex[65]) {
  unsigned char md[32];
  util_sha256(data, len, md);
  hex_of(md, hex);
  return true;
}

bool hub_git_sha1_hex(const void *data, size_t len, char hex[41]) {
  static const char digits[] = "0123456789abcdef";
  char head[48];
  int n = snprintf(head, sizeof head, "blob %zu", len);
  unsigned char md[20];
  util_sha_ctx c;
  util_sha1_init(&c);
  util_sha_update(&c, head, (size_t)n + 1); /* with its NUL */
  util_sha_update(&c, data, len);
  util_sha_final(&c, md);
  for (int i = 0; i < 20; i++) {
    hex[2 * i] = digits[md[i] >> 4];
    hex[2 * i + 1] = digits[md[i] & 15];
  }
  hex[40] = '\0';
  return true;
}

bool hub_blob_name_shape(const char *name) {
  size_t n = 0;
  for (; name[n]; n++)
    if (!strchr("0123456789abcdef", name[n])) return false;
  return n == 40 || n == 64;
}

bool hub_blob_name_ok(const char *name, const void *data, size_t len) {
  char hex[65];
  size_t n = strlen(name);
  if (!hub_blob_name_shape(name)) return false;
  if (n == 40) return hub_git_sha1_hex(data, len, hex) && strcmp(hex, name) == 0;
  return hub_sha256_hex(data, len, hex) && strcmp(hex, name) == 0;
}

void hub_blob_name(const char *etag, const void *data, size_t len, char name[65]) {
  char low[72];
  size_t n = 0;
  for (; etag && etag[n] && n < sizeof low - 1; n++) low[n] = (char)tolower((unsigned char)etag[n]);
  low[n] = '\0';
  if (hub_blob_name_ok(low, data, len)) {
    memcpy(name, low, n + 1);
    return;
  }
  hub_sha256_hex(data, len, name);
}

bool hub_b64_to_hex(const char *b64, char hex[65]) {
  unsigned char md[48];
  hex[0] = '\0';
  if (!util_pkg_digest_well_formed(b64)) return false;
  if (util_base64_decode(b64, WGK_PKG_DIGEST_B64_LEN, md) != 32) return false;
  hex_of(md, hex);
  return true;
}

/* A temp name beside path: <path>.wgk-incomplete-<pid>-<n>. */
static char *temp_beside(const char *path) {
  static unsigned counter;
  unsigned k = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
  size_t n = strlen(path) + 64;
  char *t = malloc(n);
  if (t) snprintf(t, n, "%s" TMP_MARK "%ld-%u-%ld", path, (long)getpid(), k, (long)time(NULL));
  return t;
}

wgk_status hub_write_atomic(const char *path, const void *data, size_t len, util_error *err) {
  char *tmp = temp_beside(path);
  if (!tmp) return util_error_oom(err, path, NULL);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t off = 0; ok && off < len;) {
    ssize_t w = write(fd, (const char *)data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      ok = false;
    else
      off += (size_t)w;
  }
  int saved = errno;
  if (ok && fsync(fd) != 0) ok = false, saved = errno;
  if (fd >= 0 && close(fd) != 0 && ok) ok = false, saved = errno;
  if (ok && rename(tmp, path) != 0) ok = false, saved = errno;
  if (!ok) unlink(tmp);
  free(tmp);
  if (!ok) return util_error_in(err, WGK_ERR_IO, path, NULL, "cannot write: %s", strerror(saved));
  return WGK_OK;
}

wgk_status hub_symlink_atomic(const char *target, const char *path, util_error *err) {
  char *tmp = temp_beside(path);
  if (!tmp) return util_error_oom(err, path, NULL);
  bool ok = symlink(target, tmp) == 0 && rename(tmp, path) == 0;
  int saved = errno;
  if (!ok) unlink(tmp);
  free(tmp);
  if (!ok) return util_error_in(err, WGK_ERR_IO, path, NULL, "cannot link to %s: %s", target, strerror(saved));
  return WGK_OK;
}

char *hub_read_all(const char *path, size_t cap, size_t *len, util_error *err) {
  unsigned char *data = NULL;
  size_t n = 0;
  util_error local;
  util_error_clear(&local);
  if (util_file_read_all(path, cap, &data, &n, err ? err : &local) != WGK_OK) return NULL;
  if (len) *len = n;
  return (char *)data;
}

char *hub_ref_read(const char *path) {
  char *text = hub_read_all(path, HUB_SMALL_FILE_MAX_BYTES, NULL, NULL);
  if (text) text[strcspn(text, "\r\n")] = '\0';
  return text;
}

/* Removes the temp files an interrupted writer left under the folder dfd (recursively); the lock is held. Never
 * follows a symlink: a linked folder is not entered, so nothing outside the repo folder is touched. Takes dfd. */
static void sweep_temps_at(int dfd, int depth) {
  DIR *d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (strstr(e->d_name, TMP_MARK)) {
      if (!S_ISDIR(st.st_mode)) unlinkat(dirfd(d), e->d_name, 0);
    } else if (S_ISDIR(st.st_mode) && depth < 32) {
      int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) sweep_temps_at(sub, depth + 1);
    }
  }
  closedir(d);
}

static void sweep_temps(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) sweep_temps_at(fd, 0);
}

/* The repo folder, when it exists, must be a real folder: a symlink there would lead writes, the sweep and rm
 * outside the cache. */
static wgk_status repo_dir_real(const char *repo_dir, const char *repo, util_error *err) {
  struct stat st;
  if (lstat(repo_dir, &st) != 0 || S_ISDIR(st.st_mode)) return WGK_OK;
  return util_error_in(err, WGK_ERR_IO, repo_dir, repo,
                       "%s in the cache: wgk neither follows nor writes through it (remove it, or make it a folder)",
                       S_ISLNK(st.st_mode) ? "is a symbolic link" : "is not a folder");
}

int hub_lock_repo(const char *cache, const char *repo, util_error *err) {
  char *repo_dir = hub_repo_dir(cache, repo);
  char *locks = hub_path(cache, ".locks");
  const char *base = repo_dir ? strrchr(repo_dir, '/') + 1 : NULL;
  char *dir = locks && base ? hub_path(locks, base) : NULL;
  char *file = dir ? hub_path(dir, "wgk.lock") : NULL;
  int fd = -1;
  if (!file)
    util_error_oom(err, cache, repo);
  else if (repo_dir_real(repo_dir, repo, err) != WGK_OK) {
  } else if (!hub_mkdirs(dir))
    util_error_in(err, WGK_ERR_IO, dir, repo, "cannot create the lock folder: %s", strerror(errno));
  else if ((fd = open(file, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644)) < 0)
    util_error_in(err, WGK_ERR_IO, file, repo, "cannot open the lock: %s", strerror(errno));
  else {
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {}
    if (r != 0) {
      util_error_in(err, WGK_ERR_IO, file, repo, "cannot lock: %s", strerror(errno));
      close(fd);
      fd = -1;
    } else {
      sweep_temps(repo_dir);
    }
  }
  free(file);
  free(dir);
  free(locks);
  free(repo_dir);
  return fd;
}

void hub_unlock_repo(int fd) {
  if (fd < 0) return;
  flock(fd, LOCK_UN);
  close(fd);
}

/* ---- listing, verifying, removing --------------------------------------------------------- */

wgk_status hub_cache_each(const char *cache, hub_repo_fn fn, void *user, util_error *err) {
  struct dirent **names = NULL;
  int n = scandir(cache, &names, NULL, alphasort);
  if (n < 0) {
    if (errno == ENOENT) return WGK_OK;
    return util_error_in(err, WGK_ERR_IO, cache, NULL, "cannot read the cache: %s", strerror(errno));
  }
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name;
    const char *sep =
        strncmp(name, REPO_PREFIX, strlen(REPO_PREFIX)) == 0 ? strstr(name + strlen(REPO_PREFIX), "--") : NULL;
    if (sep) {
      char repo[512];
      const char *org = name + strlen(REPO_PREFIX);
      snprintf(repo, sizeof repo, "%.*s/%s", (int)(sep - org), org, sep + 2);
      if (hub_repo_id_ok(repo)) fn(cache, repo, user);
    }
    free(names[i]);
  }
  free(names);
  return WGK_OK;
}

/* Checks one file metadata.json (meta_path) lists, rel with its base64 digest v, in the snapshot folder dir; returns 1
 * when it is wrong (printed to out), 0 when it is right or missing (counted in *missing: the snapshot is then
 * incomplete, not wrong). */
static int verify_listed(const char *dir, const char *meta_path, const char *rel, const json_t *v, FILE *out,
                         int *missing) {
  char *p = util_pkg_relpath_ok(rel) ? hub_path(dir, rel) : NULL;
  char want[65], got[65] = "";
  size_t n = 0;
  struct stat ls, st;
  util_error why;
  util_error_clear(&why);
  char link[4096];
  ssize_t k = p ? readlink(p, link, sizeof link - 1) : -1;
  if (k >= 0) link[k] = '\0';
  int bad = 1;
  if (!p) {
    if (out) fprintf(out, "%s: digest.files lists '%s', not a relative path inside the package\n", meta_path, rel);
  } else if (!json_is_string(v) || !hub_b64_to_hex(json_string_value(v), want)) {
    if (out) fprintf(out, "%s: digest of '%s' is not a base64 SHA-256\n", meta_path, rel);
  } else if (lstat(p, &ls) != 0 || (S_ISLNK(ls.st_mode) && stat(p, &st) != 0)) {
    (*missing)++;
    bad = 0;
  } else if (k < 0 || link[0] == '/' || !strstr(link, "blobs/") || !hub_blob_name_shape(strrchr(link, '/') + 1)) {
    if (out) fprintf(out, "%s: not a relative link into blobs/ named by a content hash\n", p);
  } else {
    char *bytes = hub_read_all(p, HUB_FILE_MAX_BYTES, &n, &why);
    if (!bytes) {
      if (out) fprintf(out, "%s: %s\n", p, why.message);
    } else if (!hub_sha256_hex(bytes, n, got) || strcmp(got, want) != 0) {
      if (out) fprintf(out, "%s: digest mismatch: expected sha256 %s (metadata.json), got %s\n", p, want, got);
    } else
      bad = 0;
    free(bytes);
  }
  free(p);
  return bad;
}

/* Checks one snapshot by metadata.json's digests; returns the number of problems printed. Files of a snapshot
 * huggingface_hub filled only in part are missing, not wrong: the snapshot is incomplete (never loaded from) and
 * `wgk download` completes it. Files metadata.json does not list (the card, other builds) are checked as blobs. */
static int verify_snapshot(const char *repo_dir, const char *commit, FILE *out) {
  int bad = 0, missing = 0, listed = 0;
  char *dir = hub_snapshot_dir(repo_dir, commit);
  char *meta_path = dir ? hub_path(dir, "metadata.json") : NULL;
  size_t len = 0;
  util_error why;
  util_error_clear(&why);
  struct stat ms;
  bool meta_there = meta_path && lstat(meta_path, &ms) == 0;
  char *text = meta_there ? hub_read_all(meta_path, HUB_FILE_MAX_BYTES, &len, &why) : NULL;
  json_t *meta = text ? json_loadb(text, len, 0, NULL) : NULL;
  json_t *files = json_object_get(json_object_get(meta, "digest"), "files");
  if (!meta_there) {
    if (out)
      fprintf(out, "%s: incomplete snapshot (no metadata.json), not loaded from; wgk download completes it\n",
              dir ? dir : commit);
  } else if (!text) {
    if (out) fprintf(out, "%s: %s\n", meta_path, why.message);
    bad++;
  } else if (!json_is_object(files)) {
    if (out) fprintf(out, "%s: no digest.files object\n", meta_path);
    bad++;
  }
  const char *rel;
  json_t *v;
  json_object_foreach(files, rel, v) {
    listed++;
    bad += verify_listed(dir, meta_path, rel, v, out, &missing);
  }
  if (missing && out)
    fprintf(out,
            "%s: incomplete snapshot (%d of %d listed files missing), not loaded from; wgk download completes it\n",
            dir, missing, listed);
  json_decref(meta);
  free(text);
  free(meta_path);
  free(dir);
  return bad;
}

/* Checks one file of blobs/ (name): it hashes to its name; a partial download or a leftover temp file is named, not
 * counted. Returns 1 when it is wrong (printed to out). */
static int verify_blob(const char *blobs, const char *name, FILE *out) {
  char *p = hub_path(blobs, name);
  size_t n = 0;
  util_error why;
  util_error_clear(&why);
  bool skip = strstr(name, TMP_MARK) || strstr(name, ".incomplete");
  char *bytes = p && !skip ? hub_read_all(p, HUB_FILE_MAX_BYTES, &n, &why) : NULL;
  char got[65] = "";
  char shown[256];
  hub_escape(name, shown, sizeof shown);
  int bad = 0;
  if (strlen(name) > 11 && strcmp(name + strlen(name) - 11, ".incomplete") == 0) {
    if (out) fprintf(out, "%s/%s: a partial download of huggingface_hub (it resumes it)\n", blobs, shown);
  } else if (strstr(name, TMP_MARK)) {
    if (out)
      fprintf(out, "%s/%s: leftover temp file of an interrupted download (the next download removes it)\n", blobs,
              shown);
  } else if (!hub_blob_name_shape(name)) {
    if (out) fprintf(out, "%s/%s: not named by a content hash (40 or 64 hex digits)\n", blobs, shown);
    bad = 1;
  } else if (!bytes) {
    if (out) fprintf(out, "%s/%s: %s\n", blobs, shown, why.message);
    bad = 1;
  } else if (!hub_blob_name_ok(name, bytes, n)) {
    bool git = strlen(name) == 40;
    if (git)
      hub_git_sha1_hex(bytes, n, got);
    else
      hub_sha256_hex(bytes, n, got);
    if (out)
      fprintf(out, "%s/%s: blob does not hash to its name (%s %s)\n", blobs, shown, git ? "git blob id" : "sha256",
              got);
    bad = 1;
  }
  free(bytes);
  free(p);
  return bad;
}

int hub_cache_verify(const char *cache, const char *repo, void *out_v, util_error *err) {
  FILE *out = out_v;
  char *repo_dir = hub_repo_dir(cache, repo);
  char *snaps = repo_dir ? hub_path(repo_dir, "snapshots") : NULL;
  char *blobs = repo_dir ? hub_path(repo_dir, "blobs") : NULL;
  if (!blobs) {
    free(snaps);
    free(repo_dir);
    return util_error_oom(err, cache, repo), -1;
  }
  DIR *d = opendir(snaps);
  struct stat rs;
  if (!d && stat(repo_dir, &rs) == 0 && S_ISDIR(rs.st_mode)) d = opendir(repo_dir); /* blobs only, no snapshot yet */
  if (!d) {
    util_error_in(err, WGK_ERR_NOT_FOUND, repo_dir, repo, "not in the cache (%s)", strerror(errno));
    free(snaps);
    free(blobs);
    free(repo_dir);
    return -1;
  }
  int bad = 0;
  struct dirent *e;
  bool has_snaps = access(snaps, F_OK) == 0;
  while (has_snaps && (e = readdir(d)))
    if (e->d_name[0] == '.')
      continue;
    else if (!hub_is_commit(e->d_name)) { /* never a folder of huggingface_hub's or wgk's: named raw nowhere */
      char shown[256];
      if (out)
        fprintf(out, "%s/%s: not a commit folder, not loaded from (skipped)\n", snaps,
                hub_escape(e->d_name, shown, sizeof shown));
    } else
      bad += verify_snapshot(repo_dir, e->d_name, out);
  closedir(d);
  if ((d = opendir(blobs))) {
    while ((e = readdir(d)))
      if (e->d_name[0] != '.') bad += verify_blob(blobs, e->d_name, out);
    closedir(d);
  }
  free(snaps);
  free(blobs);
  free(repo_dir);
  return bad;
}

static int remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  DIR *d = opendir(path);
  if (!d) return -1;
  int rc = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char *p = hub_path(path, e->d_name);
    if (!p || remove_tree(p) != 0) rc = -1;
    free(p);
  }
  closedir(d);
  return rmdir(path) == 0 ? rc : -1;
}

wgk_status hub_cache_rm(const char *cache, const char *repo, util_error *err) {
  if (!hub_repo_id_ok(repo))
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, repo, NULL, "not a repo id (org/name: letters, digits, . _ -)");
  char *repo_dir = hub_repo_dir(cache, repo);
  if (!repo_dir) return util_error_oom(err, cache, repo);
  struct stat st;
  if (lstat(repo_dir, &st) != 0) {
    wgk_status s = util_error_in(err, WGK_ERR_NOT_FOUND, repo_dir, repo, "not in the cache");
    free(repo_dir);
    return s;
  }
  if (!S_ISDIR(st.st_mode)) { /* a link (or a file) where the repo folder goes: removed itself, never followed */
    wgk_status s = unlink(repo_dir) == 0
                       ? WGK_OK
                       : util_error_in(err, WGK_ERR_IO, repo_dir, repo, "cannot remove: %s", strerror(errno));
    free(repo_dir);
    return s;
  }
  int fd = hub_lock_repo(cache, repo, err);
  wgk_status s = fd < 0 ? WGK_ERR_IO : WGK_OK;
  /* Renamed first, so no reader ever sees a half-removed repo. */
  char *doomed = s ? NULL : malloc(strlen(repo_dir) + 64);
  if (doomed) snprintf(doomed, strlen(repo_dir) + 64, "%s" TMP_MARK "rm-%ld", repo_dir, (long)getpid());
  if (!s && (!doomed || rename(repo_dir, doomed) != 0 || remove_tree(doomed) != 0))
    s = util_error_in(err, WGK_ERR_IO, repo_dir, repo, "cannot remove: %s", strerror(errno));
  hub_unlock_repo(fd);
  free(doomed);
  free(repo_dir);
  return s;
}
