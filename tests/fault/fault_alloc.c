/* The allocation wrappers behind fault_alloc.h (linked with -Wl,--wrap=...). */
#include "fault/fault_alloc.h"

#include <execinfo.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

json_t *__real_json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error);
json_t *__real_json_loads(const char *input, size_t flags, json_error_t *error);
json_t *__real_json_loadf(FILE *input, size_t flags, json_error_t *error);
json_t *__real_json_load_file(const char *path, size_t flags, json_error_t *error);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

/* Dawn may call back into wgk from its own threads: the counter is atomic. */
static atomic_bool armed;
static atomic_long counted;
static atomic_long fail_at;
static atomic_bool fired;

static void *trace[32];
static int trace_depth;

static bool fail_now(void) {
  if (!atomic_load(&armed)) return false;
  long n = atomic_fetch_add(&counted, 1) + 1;
  if (n != atomic_load(&fail_at)) return false;
  atomic_store(&fired, true);
  static int want = -1;
  if (want < 0) want = getenv("WGK_FAULT_TRACE") != NULL;
  if (want) trace_depth = backtrace(trace, 32);
  return true;
}

void fault_print_trace(void) {
  if (trace_depth) backtrace_symbols_fd(trace, trace_depth, 1);
}

void *__wrap_malloc(size_t size) { return fail_now() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t size) { return fail_now() ? NULL : __real_realloc(p, size); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fail_now() ? NULL : __real_strndup(s, n); }

/* jansson 2.14's parser does not survive its own allocation failures (a crash inside json_loadb; a string
 * losing a character, "SparseAttention" read as "parseAttention"): a parse is one allocation point here, failed
 * as jansson reports an out-of-memory error, and the allocations inside it are neither counted nor failed.
 * Every other allocation jansson makes for wgk (values built, packed, dumped) is. */
static _Thread_local bool in_parser;

static void *json_malloc(size_t size) { return !in_parser && fail_now() ? NULL : __real_malloc(size); }

static json_t *parse_failed(json_error_t *error) {
  if (error) {
    memset(error, 0, sizeof *error);
    error->line = error->column = -1;
    error->position = 0;
    snprintf(error->source, sizeof error->source, "<fault injection>");
    snprintf(error->text, sizeof error->text, "out of memory");
    error->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory; /* what json_error_code reads */
  }
  return NULL;
}

#define PARSE(call)                             \
  do {                                          \
    if (fail_now()) return parse_failed(error); \
    in_parser = true;                           \
    json_t *j_ = (call);                        \
    in_parser = false;                          \
    return j_;                                  \
  } while (0)

json_t *__wrap_json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error);
json_t *__wrap_json_loads(const char *input, size_t flags, json_error_t *error);
json_t *__wrap_json_loadf(FILE *input, size_t flags, json_error_t *error);
json_t *__wrap_json_load_file(const char *path, size_t flags, json_error_t *error);
json_t *__wrap_json_loadb(const char *buffer, size_t buflen, size_t flags, json_error_t *error) {
  PARSE(__real_json_loadb(buffer, buflen, flags, error));
}
json_t *__wrap_json_loads(const char *input, size_t flags, json_error_t *error) {
  PARSE(__real_json_loads(input, flags, error));
}
json_t *__wrap_json_loadf(FILE *input, size_t flags, json_error_t *error) {
  PARSE(__real_json_loadf(input, flags, error));
}
json_t *__wrap_json_load_file(const char *path, size_t flags, json_error_t *error) {
  PARSE(__real_json_load_file(path, flags, error));
}
static void json_free(void *p) { free(p); }

void fault_install(void) { json_set_alloc_funcs(json_malloc, json_free); }

void fault_arm(long n) {
  atomic_store(&armed, false);
  atomic_store(&counted, 0);
  atomic_store(&fail_at, n);
  atomic_store(&fired, false);
  atomic_store(&armed, true);
}

void fault_disarm(void) { atomic_store(&armed, false); }
long fault_count(void) { return atomic_load(&counted); }
bool fault_fired(void) { return atomic_load(&fired); }
