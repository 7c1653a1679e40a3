/* The persistent pipeline cache behind Dawn's blob-cache callbacks (gpu/blob_cache.h). */
#include "util/env.h"
#include "gpu/blob_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "WGKBLOB1"
#define HEADER 32 /* magic, key bytes, value bytes, checksum of key and value (u64 each) */

struct gpu_blob_cache {
  pthread_mutex_t lock;
  char dir[4096];
  uint64_t max_bytes;
  uint64_t total; /* bytes of the blob files, as last counted plus what was stored since */
  gpu_blob_counts counts;
  /* Dawn asks for the size, then for the bytes: the blob read for the first is kept for the second. */
  void *memo_key;
  size_t memo_key_size;
  void *memo_value;
  size_t memo_value_size;
};

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
#define FNV0 0xcbf29ce484222325ull

static bool mkdirs(const char *path) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) return false;
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return false;
      *p = '/';
    }
  return mkdir(tmp, 0700) == 0 || errno == EEXIST;
}

static bool is_blob(const char *name) {
  size_t n = strlen(name);
  return n == 20 && strcmp(name + 16, ".bin") == 0;
}

/* Bytes of the blob files; with evict, removes the oldest until the total is at most keep. */
static uint64_t sweep(gpu_blob_cache *c, bool evict, uint64_t keep) {
  DIR *d = opendir(c->dir);
  if (!d) return 0;
  typedef struct entry {
    char name[24];
    time_t mtime;
    uint64_t bytes;
  } entry;
  entry *list = NULL;
  size_t n = 0, cap = 0;
  uint64_t total = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    char path[4200];
    struct stat st;
    if (!is_blob(de->d_name)) continue;
    snprintf(path, sizeof path, "%s/%s", c->dir, de->d_name);
    if (stat(path, &st) != 0) continue;
    total += (uint64_t)st.st_size;
    if (!evict) continue;
    if (n == cap) {
      entry *grown = realloc(list, (cap = cap ? cap * 2 : 64) * sizeof *list);
      if (!grown) break;
      list = grown;
    }
    snprintf(list[n].name, sizeof list[n].name, "%s", de->d_name);
    list[n].mtime = st.st_mtime;
    list[n++].bytes = (uint64_t)st.st_size;
  }
  closedir(d);
  while (evict && total > keep && n > 0) {
    size_t oldest = 0;
    for (size_t i = 1; i < n; i++)
      if (list[i].mtime < list[oldest].mtime) oldest = i;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->dir, list[oldest].name);
    if (unlink(path) == 0) {
      total -= list[oldest].bytes;
      c->counts.evicted++;
    }
    list[oldest] = list[--n];
  }
  free(list);
  return total;
}

gpu_blob_cache *gpu_blob_cache_open(const char *dir, uint64_t max_bytes) {
  if (!dir || !*dir || strlen(dir) >= 4000 || !mkdirs(dir)) return NULL;
  gpu_blob_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pthread_mutex_init(&c->lock, NULL);
  snprintf(c->dir, sizeof c->dir, "%s", dir);
  c->max_bytes = max_bytes;
  c->total = sweep(c, false, 0);
  return c;
}

static void memo_clear(gpu_blob_cache *c) {
  free(c->memo_key);
  free(c->memo_value);
  c->memo_key = c->memo_value = NULL;
  c->memo_key_size = c->memo_value_size = 0;
}

void gpu_blob_cache_close(gpu_blob_cache *c) {
  if (!c) return;
  memo_clear(c);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

const char *gpu_blob_cache_path(const gpu_blob_cache *c) { return c ? c->dir : ""; }

gpu_blob_counts gpu_blob_cache_counts(gpu_blob_cache *c) {
  gpu_blob_counts n = {0};
  if (!c) return n;
  pthread_mutex_lock(&c->lock);
  n = c->counts;
  pthread_mutex_unlock(&c->lock);
  return n;
}

static void file_of(const gpu_blob_cache *c, const void *key, size_t key_size, char *out, size_t size) {
  snprintf(out, size, "%s/%016llx.bin", c->dir, (unsigned long long)fnv(FNV0, key, key_size));
}

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The blob of key from its file into the memo; false when absent, another key's, or corrupt (then removed).
 * Only a regular file of at most the cache's byte cap is read: opened without blocking (a FIFO put there must
 * not hang a pipeline compile), its size from fstat before a byte is read (no store writes a larger file). */
static bool read_blob(gpu_blob_cache *c, const void *key, size_t key_size) {
  char path[4200];
  file_of(c, key, key_size, path, sizeof path);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > c->max_bytes) {
    close(fd); /* not ours to read or remove: a miss, counted as corrupt */
    c->counts.corrupt++;
    return false;
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return false;
  }
  unsigned char h[HEADER];
  bool ok = fread(h, 1, HEADER, f) == HEADER && memcmp(h, MAGIC, 8) == 0;
  uint64_t ks = ok ? get64(h + 8) : 0, vs = ok ? get64(h + 16) : 0, sum = ok ? get64(h + 24) : 0;
  ok = ok && ks < (1u << 20) && vs < (1ull << 32) && (uint64_t)st.st_size == HEADER + ks + vs;
  void *k = ok ? malloc(ks ? ks : 1) : NULL, *v = ok ? malloc(vs ? vs : 1) : NULL;
  ok = ok && k && v && fread(k, 1, ks, f) == ks && fread(v, 1, vs, f) == vs;
  ok = ok && fnv(fnv(FNV0, k, ks), v, vs) == sum;
  fclose(f);
  bool mine = ok && ks == key_size && memcmp(k, key, key_size) == 0;
  if (!ok) {
    c->counts.corrupt++;
    unlink(path);
  }
  if (!mine) {
    free(k);
    free(v);
    return false;
  }
  memo_clear(c);
  c->memo_key = k;
  c->memo_key_size = ks;
  c->memo_value = v;
  c->memo_value_size = vs;
  return true;
}

size_t gpu_blob_cache_load(const void *key, size_t key_size, void *value, size_t value_size, void *userdata) {
  gpu_blob_cache *c = userdata;
  if (!c || !key) return 0;
  pthread_mutex_lock(&c->lock);
  bool memo = c->memo_key && c->memo_key_size == key_size && memcmp(c->memo_key, key, key_size) == 0;
  if (!memo) memo = read_blob(c, key, key_size);
  size_t got = 0;
  if (!memo) {
    c->counts.missed++;
  } else if (!value || value_size == 0) {
    got = c->memo_value_size; /* the size; the bytes come with the next call */
  } else {
    got = c->memo_value_size;
    if (value_size >= got) {
      memcpy(value, c->memo_value, got);
      c->counts.loaded++;
    }
    memo_clear(c);
  }
  pthread_mutex_unlock(&c->lock);
  return got;
}

void gpu_blob_cache_store(const void *key, size_t key_size, const void *value, size_t value_size, void *userdata) {
  gpu_blob_cache *c = userdata;
  uint64_t bytes = HEADER + (uint64_t)key_size + value_size;
  if (!c || !key || (!value && value_size) || bytes > c->max_bytes) return;
  pthread_mutex_lock(&c->lock);
  char path[4200], tmp[4300];
  file_of(c, key, key_size, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", c->dir);
  int fd = mkstemp(tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (fd >= 0 && !f) close(fd);
  unsigned char h[HEADER];
  memcpy(h, MAGIC, 8);
  put64(h + 8, key_size);
  put64(h + 16, value_size);
  put64(h + 24, fnv(fnv(FNV0, key, key_size), value, value_size));
  bool ok = f && fwrite(h, 1, HEADER, f) == HEADER && fwrite(key, 1, key_size, f) == key_size &&
            fwrite(value, 1, value_size, f) == value_size;
  if (f && fclose(f) != 0) ok = false;
  if (ok && rename(tmp, path) == 0) {
    c->counts.stored++;
    c->total += bytes;
    if (c->total > c->max_bytes) c->total = sweep(c, true, c->max_bytes - c->max_bytes / 4);
  } else if (fd >= 0) {
    unlink(tmp);
  }
  pthread_mutex_unlock(&c->lock);
}

bool gpu_blob_cache_dir(const char *adapter_id, char *out, size_t size) {
  const char *xdg = util_env("XDG_CACHE_HOME"), *home = util_env("HOME");
  unsigned long long h = (unsigned long long)fnv(FNV0, adapter_id, strlen(adapter_id));
  int n = xdg && *xdg     ? snprintf(out, size, "%s/wgk/pipelines/%016llx", xdg, h)
          : home && *home ? snprintf(out, size, "%s/.cache/wgk/pipelines/%016llx", home, h)
                          : -1;
  return n > 0 && (size_t)n < size;
}
