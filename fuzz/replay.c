/* Corpus replay without libFuzzer: main() feeds every regular file under the folders (or files) given on the
 * command line to LLVMFuzzerTestOneInput, so a fuzz target's committed corpus runs in ctest with the normal
 * build (and under ASan + UBSan in `make test-asan`). A crash fails the test; so does an empty corpus, so a
 * missing folder cannot pass. Linked with one fuzz_*.c; tests/fuzz/tests.cmake registers one test per target. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return -1;
  }
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      uint8_t *grown = realloc(buf, cap = cap ? cap * 2 : 4096);
      if (!grown) {
        free(buf);
        fclose(f);
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
      }
      buf = grown;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    fprintf(stderr, "%s: read error\n", path);
    return -1;
  }
  /* An exact-size copy, so ASan sees a read past the input's end as libFuzzer would. */
  uint8_t *exact = malloc(len ? len : 1);
  if (!exact) {
    free(buf);
    return -1;
  }
  if (len) memcpy(exact, buf, len);
  free(buf);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  return 1;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Replays path (a file, or every file in a folder, in name order); returns the number replayed, -1 on error. */
static int replay(const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0) {
    fprintf(stderr, "%s: no such file or folder\n", path);
    return -1;
  }
  if (!S_ISDIR(sb.st_mode)) return replay_file(path);
  DIR *d = opendir(path);
  if (!d) {
    fprintf(stderr, "%s: cannot open folder\n", path);
    return -1;
  }
  char **names = NULL;
  size_t n = 0;
  int count = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char **grown = realloc(names, sizeof *names * (n + 1));
    if (!grown || !(grown[n] = malloc(strlen(path) + strlen(e->d_name) + 2))) {
      names = grown ? grown : names;
      count = -1;
      break;
    }
    names = grown;
    sprintf(names[n++], "%s/%s", path, e->d_name);
  }
  closedir(d);
  if (names) qsort(names, n, sizeof *names, compare_names);
  for (size_t i = 0; i < n; i++) {
    if (count >= 0 && stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode)) {
      int r = replay_file(names[i]);
      count = r < 0 ? -1 : count + r;
    }
    free(names[i]);
  }
  free(names);
  return count;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  int total = 0;
  for (int i = 1; i < argc; i++) {
    int r = replay(argv[i]);
    if (r < 0) return 1;
    total += r;
  }
  printf("%s: replayed %d inputs\n", argv[0], total);
  if (total == 0) {
    fprintf(stderr, "%s: no inputs found (an empty corpus tests nothing)\n", argv[0]);
    return 1;
  }
  return 0;
}
