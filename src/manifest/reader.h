/*
 * Shared machinery of the manifest readers: an allocation arena owned by the model, the JSON path
 * of the value being read, and typed getters that raise positioned errors. Every getter works "at
 * the current path": the reader pushes a step, reads, pops. Errors point at the value (or, for an
 * unknown key, at the key) and quote the offending value.
 */
#ifndef WGK_MANIFEST_READER_H
#define WGK_MANIFEST_READER_H

#include "util/json_pos.h"
#include "manifest/manifest.h"
#include "util/dynbuf.h"

typedef struct wgk_manifest_rd {
  wgk_manifest *m;                     /* the model being filled; m->internal holds the arena */
  const wgk_manifest_jpos *index;      /* value positions of the text */
  wgk_error *err;                      /* where the first error goes */
  wgk_dynbuf path;                     /* JSON path of the value being read */
  const wgk_manifest_binding *handles; /* spec 2.1 top-level `bindings` entries, normalized */
  const char **handle_names;           /* their handles */
  size_t n_handles;                    /* number of handles */
} wgk_manifest_rd;

/* Zeroed memory owned by the model; NULL (and an error set) when out of memory. */
void *wgk_manifest_alloc(wgk_manifest_rd *rd, size_t count, size_t size);
const char *wgk_manifest_strdup(wgk_manifest_rd *rd, const char *s);
void wgk_manifest_arena_free(void *arena);

/* Path steps; each returns a mark for wgk_manifest_pop. */
size_t wgk_manifest_push_key(wgk_manifest_rd *rd, const char *key);
size_t wgk_manifest_push_index(wgk_manifest_rd *rd, size_t i);
void wgk_manifest_pop(wgk_manifest_rd *rd, size_t mark);

/* Position of the current value, with the path copied into the arena. */
wgk_manifest_pos wgk_manifest_here(wgk_manifest_rd *rd);

/* Raise WGK_ERR_MANIFEST at the current value / at the current member's key. Return the status. */
wgk_status wgk_manifest_fail(wgk_manifest_rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
wgk_status wgk_manifest_fail_key(wgk_manifest_rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, with another status (e.g. WGK_ERR_UNSUPPORTED). */
wgk_status wgk_manifest_fail_status(wgk_manifest_rd *rd, wgk_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same as wgk_manifest_fail, at the member key of the current object (at the key itself when at_key). */
wgk_status wgk_manifest_fail_in(wgk_manifest_rd *rd, const char *key, bool at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* text (the value of obj.key) as a WGSL identifier ([A-Za-z_][A-Za-z0-9_]*) when wgsl, else as an id of letters,
 * digits and _ . - : an error at the value naming `what` and the rule otherwise. */
wgk_status wgk_manifest_check_name(wgk_manifest_rd *rd, const char *key, const char *text, const char *what, bool wgsl);

/* Writes v compactly (cut to about 60 characters) for messages. */
void wgk_manifest_show(const json_t *v, char *buf, size_t size);

/* obj (the current value) must be an object whose keys are all in allowed (NULL-terminated). */
wgk_status wgk_manifest_object(wgk_manifest_rd *rd, const json_t *obj, const char *what, const char *const *allowed);
/* The current value v must have JSON type t; what names it in the message ("a string"). */
wgk_status wgk_manifest_expect(wgk_manifest_rd *rd, const json_t *v, json_type t, const char *what);

/* Member getters on obj (the current value). A missing required key is an error at obj; a missing
 * optional key leaves *out as it was and returns WGK_OK. */
wgk_status wgk_manifest_get_string(wgk_manifest_rd *rd, const json_t *obj, const char *key, bool required,
                                   const char **out);
wgk_status wgk_manifest_get_bool(wgk_manifest_rd *rd, const json_t *obj, const char *key, bool required, bool *out);
wgk_status wgk_manifest_get_int(wgk_manifest_rd *rd, const json_t *obj, const char *key, bool required, int *out);
/* An expression: a non-empty string, or an integer (kept as its decimal text). */
wgk_status wgk_manifest_get_expr(wgk_manifest_rd *rd, const json_t *obj, const char *key, bool required,
                                 wgk_manifest_expr *out);
/* The current value v as an expression (string or integer). */
wgk_status wgk_manifest_read_expr(wgk_manifest_rd *rd, const json_t *v, wgk_manifest_expr *out);
/* The current value v as a named value: a string is an expression, other non-null JSON a literal. */
wgk_status wgk_manifest_read_value(wgk_manifest_rd *rd, const char *name, const json_t *v, wgk_manifest_value *out);
/* Reads an object of name -> value (constants, template inputs) at obj.key. */
wgk_status wgk_manifest_get_values(wgk_manifest_rd *rd, const json_t *obj, const char *key,
                                   const wgk_manifest_value **out, size_t *n);

/* Stages of the seed reader, in the order load.c calls them. */
wgk_status wgk_manifest_seed_types(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_seed_ports(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_seed_attributes(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_seed_args(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_seed_tunables(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_seed_derives(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_seed_bindings(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_seed_variants(wgk_manifest_rd *rd, const json_t *root);
/* wgk extension: a variant's `intermediates` (read before its passes) and the check of a pass's bindings. */
wgk_status wgk_manifest_seed_intermediates(wgk_manifest_rd *rd, const json_t *obj, wgk_manifest_variant *v);
wgk_status wgk_manifest_seed_pass_intermediates(wgk_manifest_rd *rd, const wgk_manifest_pass *p,
                                                const wgk_manifest_variant *v);

/* Stages of the spec 2.1 reader (spec21_*.c), in the order load.c calls them. */
wgk_status wgk_manifest_spec21_top(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_spec21_types(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_spec21_ports(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_spec21_args(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_spec21_attributes(wgk_manifest_rd *rd, const json_t *root);
wgk_status wgk_manifest_spec21_tunables(wgk_manifest_rd *rd, const json_t *obj, const wgk_manifest_tunable **out,
                                        size_t *n);
/* A derive object (manifest, variant or pass) at obj.key; manifest_level also refuses type variable names. */
wgk_status wgk_manifest_spec21_derive(wgk_manifest_rd *rd, const json_t *obj, const char *key, bool manifest_level,
                                      wgk_manifest_derive **out, size_t *n);
/* A `when` / `demoteWhen` list at obj.key. */
wgk_status wgk_manifest_spec21_clauses(wgk_manifest_rd *rd, const json_t *obj, const char *key,
                                       const wgk_manifest_expr **out, size_t *n);
/* A `requires` object at obj.key; *out NULL when absent or empty. */
wgk_status wgk_manifest_spec21_requires(wgk_manifest_rd *rd, const json_t *obj, const char *key,
                                        wgk_manifest_requires **out);
/* The top-level `bindings` handles (read before the variants). */
wgk_status wgk_manifest_spec21_handles(wgk_manifest_rd *rd, const json_t *root);
/* One pass's `bindings` list into a fresh binding set; v gives the intermediates. */
wgk_status wgk_manifest_spec21_pass_bindings(wgk_manifest_rd *rd, const json_t *list, const wgk_manifest_variant *v,
                                             const char *pass_id, wgk_manifest_binding_set *set);
wgk_status wgk_manifest_spec21_variants(wgk_manifest_rd *rd, const json_t *root);
/* Expands variant families into a flat list of (variant JSON, JSON path of its template). */
typedef struct wgk_manifest_family_item {
  const json_t *json; /* the variant object (borrowed from the root or from m->expanded) */
  char *path;         /* JSON path of the object (or of the family template it came from); arena-owned */
} wgk_manifest_family_item;
wgk_status wgk_manifest_spec21_expand(wgk_manifest_rd *rd, const json_t *variants, wgk_manifest_family_item **out,
                                      size_t *n);
/* True when name is a scope name a derive may not shadow (the loader's reserved list). */
bool wgk_manifest_reserved_name(const char *name);
bool wgk_manifest_identifier(const char *s);
/* Spec 2.1 dtype names: the logical dtypes of the loader (with int16). */
bool wgk_manifest_spec21_dtype(const char *dtype);

#endif
