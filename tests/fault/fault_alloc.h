/* Allocation fault injection for tests (after SQLite's test_malloc and jansson's chaos tests).
 *
 * A test executable linked with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup
 * sends every allocation made by the objects linked into it (wgk's static archive and the test) through
 * fault_alloc.c; shared libraries (Dawn, Mesa, libc's own calls) are unaffected. jansson, a shared library
 * whose allocations wgk causes, is routed through the same counter with json_set_alloc_funcs; a JSON parse
 * (json_loadb & co., also wrapped) is one allocation point failed as jansson's out-of-memory error (its parser
 * does not survive its own allocation failures: see fault_alloc.c).
 *
 * Armed with fault_arm(n), the n-th counted allocation returns NULL (once: later ones succeed, a transient
 * fault), so a loop over n = 1, 2, ... fails each allocation of a scenario in turn until one runs through
 * without reaching n. Disarmed, the wrappers only count. */
#ifndef WGK_TESTS_FAULT_ALLOC_H
#define WGK_TESTS_FAULT_ALLOC_H

#include <stdbool.h>

/* Routes jansson's allocations through the counter; call once before any JSON is made. */
void fault_install(void);
/* Starts counting from 0 and fails allocation number n (n >= 1); n = 0 counts without failing. */
void fault_arm(long n);
/* Stops counting and failing. */
void fault_disarm(void);
/* Allocations counted since fault_arm. */
long fault_count(void);
/* Whether the armed failure has happened. */
bool fault_fired(void);
/* With WGK_FAULT_TRACE set: prints the stack of the failed allocation to stdout (debugging). */
void fault_print_trace(void);

#endif
