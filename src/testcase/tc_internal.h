/* Internal to the test.json / bench.json readers: the reader state and the shared field readers. */
#ifndef WGK_RUNTIME_TC_INTERNAL_H
#define WGK_RUNTIME_TC_INTERNAL_H

#include <stdarg.h>

#include "util/json_pos.h"
#include "testcase/testcase.h"

typedef struct tc_reader {
  const char *source;       /* file name for messages */
  util_manifest_jpos index; /* JSON path -> line and column */
  util_error *err;          /* where the first error goes */
} tc_reader;

/* Loads the JSON (syntax errors with line:column) and indexes positions. *root is owned by the caller. */
wgk_status tc_parse_root(const char *text, size_t len, const char *source, tc_reader *r, json_t **root,
                         util_error *err);

wgk_status tc_fail(tc_reader *r, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
wgk_status tc_failv(tc_reader *r, bool at_key, const char *path, const char *fmt, va_list ap);
wgk_status tc_check_keys(tc_reader *r, const json_t *obj, const char *path, const char *const *allowed);
/* The top level of test.json and bench.json: checks schema and keys, finds defaults (may be NULL) and cases. */
wgk_status tc_document(tc_reader *r, const json_t *root, const json_t **defaults, const json_t **cases);
wgk_status tc_pos_set(tc_reader *r, tc_pos *pos, const char *path);
/* malloc'ed path strings in the position index's form; NULL when out of memory. */
char *tc_path_key(const char *parent, const char *key);
char *tc_path_index(const char *parent, size_t i);

/* A list of strings, replacing *out; features must be names wgk knows. */
wgk_status tc_read_strings(tc_reader *r, const json_t *v, const char *path, char ***out, size_t *n);
wgk_status tc_check_features(tc_reader *r, char *const *names, size_t n, const char *path);

/* Field readers; a later layer replaces entries of the same name. */
wgk_status tc_read_input_map(tc_reader *r, const json_t *v, const char *path, tc_input **list, size_t *n,
                             bool generators_only);
/* generators_only: bench.json refuses inline data. */
wgk_status tc_read_input(tc_reader *r, tc_input *in, const char *key, const json_t *v, const char *path,
                         bool generators_only);
wgk_status tc_read_values(tc_reader *r, const json_t *v, const char *path, tc_value **list, size_t *n, bool integers);
wgk_status tc_read_tolerance(tc_reader *r, tc_case *c, const json_t *v, const char *path);
wgk_status tc_read_expected(tc_reader *r, tc_case *c, const json_t *v, const char *path);

void tc_input_clear(tc_input *in);
void tc_case_clear(tc_case *c);
void tc_values_free(tc_value *list, size_t n);

#endif
