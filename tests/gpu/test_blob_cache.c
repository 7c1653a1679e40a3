/* The persistent pipeline cache's files (gpu/blob_cache.h), GPU-free: Dawn's two-step load, another key under
 * the same file name, corrupt files ignored and removed, no temporary file left, the size cap, the folder, only
 * regular files read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/blob_cache.h"

static char root[4096];

static int setup(void **state) {
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/blobs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(root));
  *state = root;
  return 0;
}

/* Files in dir: blobs (*.bin) and anything else (temporary files). */
static void count_files(const char *dir, int *blobs, int *others, long long *bytes) {
  *blobs = *others = 0;
  *bytes = 0;
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *de;
  while ((de = readdir(d))) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    size_t n = strlen(de->d_name);
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    assert_int_equal(stat(path, &st), 0);
    if (n > 4 && strcmp(de->d_name + n - 4, ".bin") == 0) {
      (*blobs)++;
      *bytes += st.st_size;
    } else {
      (*others)++;
    }
  }
  closedir(d);
}

/* As Dawn asks: the size first, then the bytes. */
static size_t load(gpu_blob_cache *c, const char *key, char *out, size_t size) {
  size_t n = gpu_blob_cache_load(key, strlen(key), NULL, 0, c);
  if (n == 0 || n > size) return n;
  return gpu_blob_cache_load(key, strlen(key), out, n, c);
}

static void stores_and_loads_across_opens(void **state) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/a/b/c", (const char *)*state);
  gpu_blob_cache *c = gpu_blob_cache_open(dir, 1 << 20);
  assert_non_null(c);
  char out[64];
  assert_int_equal(load(c, "key one", out, sizeof out), 0);
  gpu_blob_cache_store("key one", 7, "value one", 9, c);
  gpu_blob_cache_store("key two", 7, "value 2", 7, c);
  gpu_blob_cache_close(c);
  c = gpu_blob_cache_open(dir, 1 << 20); /* a second process: only the files */
  assert_int_equal(load(c, "key one", out, sizeof out), 9);
  assert_memory_equal(out, "value one", 9);
  assert_int_equal(load(c, "key two", out, sizeof out), 7);
  assert_memory_equal(out, "value 2", 7);
  assert_int_equal(load(c, "key three", out, sizeof out), 0);
  gpu_blob_counts n = gpu_blob_cache_counts(c);
  assert_int_equal(n.loaded, 2);
  assert_int_equal(n.missed, 1);
  assert_int_equal(n.stored, 0);
  int blobs, others;
  long long bytes;
  count_files(dir, &blobs, &others, &bytes);
  assert_int_equal(blobs, 2);
  assert_int_equal(others, 0); /* written under a temporary name, renamed */
  gpu_blob_cache_close(c);
}

/* Every corruption of a blob file is a miss, counted, and the file goes; a good store afterwards works. */
static void ignores_corrupt_files(void **state) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/corrupt", (const char *)*state);
  static const char *const kinds[] = {"flip a value byte", "truncate", "bad magic", "append", "empty"};
  for (int kind = 0; kind < 5; kind++) {
    gpu_blob_cache *c = gpu_blob_cache_open(dir, 1 << 20);
    assert_non_null(c);
    gpu_blob_cache_store("k", 1, "0123456789", 10, c);
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[4300] = "";
    while ((de = readdir(d)))
      if (strstr(de->d_name, ".bin")) snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    closedir(d);
    assert_true(path[0]);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    if (kind == 0) fseek(f, -3, SEEK_END), fputc('X', f);
    if (kind == 1) assert_int_equal(ftruncate(fileno(f), 20), 0);
    if (kind == 2) fputc('Z', f);
    if (kind == 3) fseek(f, 0, SEEK_END), fputs("more", f);
    if (kind == 4) assert_int_equal(ftruncate(fileno(f), 0), 0);
    fclose(f);
    char out[16];
    if (load(c, "k", out, sizeof out) != 0) fail_msg("%s: loaded", kinds[kind]);
    gpu_blob_counts n = gpu_blob_cache_counts(c);
    if (n.corrupt != 1 || n.loaded != 0) fail_msg("%s: corrupt %llu", kinds[kind], (unsigned long long)n.corrupt);
    assert_int_not_equal(access(path, F_OK), 0); /* removed */
    gpu_blob_cache_store("k", 1, "fine", 4, c);
    assert_int_equal(load(c, "k", out, sizeof out), 4);
    assert_memory_equal(out, "fine", 4);
    unlink(path);
    gpu_blob_cache_close(c);
  }
}

/* A file written for another key under the same name (a hash collision, simulated by renaming) is a miss. */
static void another_keys_file_is_a_miss(void **state) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/collide", (const char *)*state);
  gpu_blob_cache *c = gpu_blob_cache_open(dir, 1 << 20);
  gpu_blob_cache_store("first", 5, "AAAA", 4, c);
  DIR *d = opendir(dir);
  struct dirent *de;
  char from[4300] = "", to[4300] = "";
  while ((de = readdir(d)))
    if (strstr(de->d_name, ".bin")) snprintf(from, sizeof from, "%s/%s", dir, de->d_name);
  closedir(d);
  gpu_blob_cache_store("second", 6, "BBBB", 4, c);
  d = opendir(dir);
  while ((de = readdir(d))) {
    char p[4300];
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    if (strstr(de->d_name, ".bin") && strcmp(p, from) != 0) snprintf(to, sizeof to, "%s", p);
  }
  closedir(d);
  assert_int_equal(rename(from, to), 0); /* "second"'s file now holds "first"'s blob */
  char out[8];
  assert_int_equal(load(c, "second", out, sizeof out), 0);
  gpu_blob_cache_close(c);
}

/* The folder stays under the cap: the oldest files go; a blob over the cap is not written. */
static void keeps_under_the_cap(void **state) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/cap", (const char *)*state);
  enum { CAP = 4096, VALUE = 500 };
  gpu_blob_cache *c = gpu_blob_cache_open(dir, CAP);
  char value[VALUE], key[32];
  memset(value, 7, sizeof value);
  for (int i = 0; i < 40; i++) {
    snprintf(key, sizeof key, "key %d", i);
    gpu_blob_cache_store(key, strlen(key), value, sizeof value, c);
  }
  int blobs, others;
  long long bytes;
  count_files(dir, &blobs, &others, &bytes);
  if (bytes > CAP) fail_msg("%lld bytes in the folder, cap %d", bytes, CAP);
  assert_true(blobs > 0);
  gpu_blob_counts n = gpu_blob_cache_counts(c);
  assert_int_equal(n.stored, 40);
  assert_true(n.evicted >= (uint64_t)(40 - blobs));
  char out[VALUE];
  assert_int_equal(load(c, "key 39", out, sizeof out), VALUE); /* the newest stays */
  char big[CAP];
  memset(big, 1, sizeof big);
  gpu_blob_cache_store("big", 3, big, sizeof big, c);
  assert_int_equal(gpu_blob_cache_counts(c).stored, 40);
  gpu_blob_cache_close(c);
}

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "a FIFO in the pipeline cache blocked the load\n";
  if (write(2, msg, sizeof msg - 1) < 0) _exit(1);
  _exit(1);
}

/* Only a regular file within the byte cap is read (issue 37): a FIFO under a blob's name is a miss without
 * blocking (no writer ever comes), and a blob file larger than the cache's cap is a miss without being read. */
static void reads_only_regular_files_within_the_cap(void **state) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/fifo", (const char *)*state);
  gpu_blob_cache *c = gpu_blob_cache_open(dir, 1 << 20);
  assert_non_null(c);
  gpu_blob_cache_store("fifo key", 8, "value", 5, c);
  DIR *d = opendir(dir);
  struct dirent *de;
  char path[4300] = "";
  while ((de = readdir(d)))
    if (strstr(de->d_name, ".bin")) snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
  closedir(d);
  assert_true(path[0]);
  assert_int_equal(unlink(path), 0);
  assert_int_equal(mkfifo(path, 0600), 0);
  signal(SIGALRM, on_alarm);
  alarm(20);
  char out[16];
  assert_int_equal(load(c, "fifo key", out, sizeof out), 0);
  alarm(0);
  assert_int_equal(unlink(path), 0);
  gpu_blob_cache_close(c);

  char big[3000];
  memset(big, 5, sizeof big);
  c = gpu_blob_cache_open(dir, 1 << 20);
  gpu_blob_cache_store("big key", 7, big, sizeof big, c);
  assert_int_equal(load(c, "big key", big, sizeof big), sizeof big);
  gpu_blob_cache_close(c);
  c = gpu_blob_cache_open(dir, 1024); /* the same file, now over the cap */
  assert_int_equal(load(c, "big key", big, sizeof big), 0);
  gpu_blob_cache_close(c);
}

static void folder_from_xdg_or_home(void **state) {
  (void)state;
  char out[4096];
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  assert_true(gpu_blob_cache_dir("adapter A", out, sizeof out));
  assert_int_equal(strncmp(out, "/x/cache/wgk/pipelines/", 23), 0);
  char other[4096];
  assert_true(gpu_blob_cache_dir("adapter B", other, sizeof other));
  assert_string_not_equal(out, other); /* another adapter or driver: another folder */
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/h", 1);
  assert_true(gpu_blob_cache_dir("adapter A", out, sizeof out));
  assert_int_equal(strncmp(out, "/h/.cache/wgk/pipelines/", 24), 0);
  assert_null(gpu_blob_cache_open("", 100));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stores_and_loads_across_opens), cmocka_unit_test(ignores_corrupt_files),
      cmocka_unit_test(another_keys_file_is_a_miss),   cmocka_unit_test(keeps_under_the_cap),
      cmocka_unit_test(folder_from_xdg_or_home),       cmocka_unit_test(reads_only_regular_files_within_the_cap),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
