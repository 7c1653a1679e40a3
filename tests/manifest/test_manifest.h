#ifndef WGK_TEST_MANIFEST_H
#define WGK_TEST_MANIFEST_H
#include <stddef.h>
const char *test_source_dir(void);
char *test_read_file(const char *path, size_t *len);
void golden_invalid_cases(void **state);
void one_validator_same_rule(void **state);
#endif
