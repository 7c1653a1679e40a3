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

/* A seed manifest read as spec 2.1 (seed.c fills it, origin.c keeps it): each translated value's JSON path and the seed
 * path it came from. */
typedef struct manifest_origin_entry {
  char *to;   /* path in the translated spec 2.1 JSON */
  char *from; /* path in the seed JSON (the file) */
} manifest_origin_entry;

typedef struct manifest_origin {
  manifest_origin_entry *entries; /* sorted by `to` once the translation is done */
  size_t n, cap;                  /* entries used and allocated */
  bool failed;                    /* an allocation failed */
} manifest_origin;

typedef struct manifest_rd {
  manifest_model *m;               /* the model being filled; m->internal holds the arena */
  const util_manifest_jpos *index; /* value positions of the text */
  util_error *err;                 /* where the first error goes */
  util_dynbuf path;                /* JSON path of the value being read */
  const manifest_binding *handles; /* spec 2.1 top-level `bindings` entries, normalized */
  const char **handle_names;       /* their handles */
  size_t n_handles;                /* number of handles */
  const manifest_origin *origin;   /* reading a translated seed: where each value came from; NULL otherwise */
  bool seed;                       /* reading a translated seed (its wgk extensions are allowed) */
} manifest_rd;

/* Bounds of variant families (docs/limits.md): variants after expansion, and the bytes of their JSON text. */
#define MANIFEST_MAX_VARIANTS 100000
#define MANIFEST_MAX_EXPANDED_BYTES ((size_t)64 << 20)

/* Zeroed memory owned by the model; NULL (and an error set) when out of memory. */
void *manifest_alloc(manifest_rd *rd, size_t count, size_t size);
const char *manifest_strdup(manifest_rd *rd, const char *s);
void manifest_arena_free(void *arena);

/* Path steps; each returns a mark for manifest_pop. */
size_t manifest_push_key(manifest_rd *rd, const char *key);
size_t manifest_push_index(manifest_rd *rd, size_t i);
void manifest_pop(manifest_rd *rd, size_t mark);

/* Position of the current value, with the path copied into the arena. */
manifest_pos manifest_here(manifest_rd *rd);

/* Raise WGK_ERR_MANIFEST at the current value / at the current member's key. Return the status. */
wgk_status manifest_fail(manifest_rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
wgk_status manifest_fail_key(manifest_rd *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, with another status (e.g. WGK_ERR_UNSUPPORTED). */
wgk_status manifest_fail_status(manifest_rd *rd, wgk_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same as manifest_fail, at the member key of the current object (at the key itself when at_key). */
wgk_status manifest_fail_in(manifest_rd *rd, const char *key, bool at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* text (the value of obj.key) as a WGSL identifier ([A-Za-z_][A-Za-z0-9_]*) when wgsl, else as an id of letters,
 * digits and _ . - : an error at the value naming `what` and the rule otherwise. */
wgk_status manifest_check_name(manifest_rd *rd, const char *key, const char *text, const char *what, bool wgsl);

/* Writes v compactly (cut to about 60 characters) for messages. */
void manifest_show(const json_t *v, char *buf, size_t size);

/* obj (the current value) must be an object whose keys are all in allowed (NULL-terminated). */
wgk_status manifest_object(manifest_rd *rd, const json_t *obj, const char *what, const char *const *allowed);
/* The current value v must have JSON type t; what names it in the message ("a string"). */
wgk_status manifest_expect(manifest_rd *rd, const json_t *v, json_type t, const char *what);

/* Member getters on obj (the current value). A missing required key is an error at obj; a missing
 * optional key leaves *out as it was and returns WGK_OK. */
wgk_status manifest_get_string(manifest_rd *rd, const json_t *obj, const char *key, bool required, const char **out);
wgk_status manifest_get_bool(manifest_rd *rd, const json_t *obj, const char *key, bool required, bool *out);
wgk_status manifest_get_int(manifest_rd *rd, const json_t *obj, const char *key, bool required, int *out);
/* An expression: a non-empty string, or an integer (kept as its decimal text). */
wgk_status manifest_get_expr(manifest_rd *rd, const json_t *obj, const char *key, bool required, manifest_expr *out);
/* The current value v as an expression (string or integer). */
wgk_status manifest_read_expr(manifest_rd *rd, const json_t *v, manifest_expr *out);
/* The current value v as a named value: a string is an expression, other non-null JSON a literal. */
wgk_status manifest_read_value(manifest_rd *rd, const char *name, const json_t *v, manifest_value *out);
/* Reads an object of name -> value (constants, template inputs) at obj.key. */
wgk_status manifest_get_values(manifest_rd *rd, const json_t *obj, const char *key, const manifest_value **out,
                               size_t *n);

/* The seed format (seed.c): translates the seed JSON into spec 2.1 JSON (*out, new), recording where each value came
 * from in map; then, after the spec 2.1 reader read the translation, sets what the seed model carries beyond it. */
wgk_status manifest_seed_translate(manifest_rd *rd, const json_t *seed, json_t **out, manifest_origin *map);
wgk_status manifest_seed_finish(manifest_rd *rd, const json_t *seed);
/* The origin map (origin.c): an entry recorded (false when out of memory: the map is marked failed), the entries
 * sorted once the translation is done, the map freed. */
bool manifest_origin_add(manifest_origin *map, const char *to, const char *from);
void manifest_origin_sort(manifest_origin *map);
void manifest_origin_free(manifest_origin *map);
/* The path to show for a value at path: its seed path when rd reads a translated seed (scratch may hold it), else
 * path itself. */
const char *manifest_origin_path(const manifest_rd *rd, const char *path, util_dynbuf *scratch);

/* Stages of the spec 2.1 reader (spec21_*.c), in the order load.c calls them. */
wgk_status manifest_spec21_top(manifest_rd *rd, const json_t *root);
wgk_status manifest_spec21_types(manifest_rd *rd, const json_t *root);
wgk_status manifest_spec21_ports(manifest_rd *rd, const json_t *root);
wgk_status manifest_spec21_args(manifest_rd *rd, const json_t *root);
wgk_status manifest_spec21_attributes(manifest_rd *rd, const json_t *root);
wgk_status manifest_spec21_tunables(manifest_rd *rd, const json_t *obj, const manifest_tunable **out, size_t *n);
/* A derive object (manifest, variant or pass) at obj.key; manifest_level also refuses type variable names. */
wgk_status manifest_spec21_derive(manifest_rd *rd, const json_t *obj, const char *key, bool manifest_level,
                                  manifest_derive **out, size_t *n);
/* A `when` / `demoteWhen` list at obj.key. */
wgk_status manifest_spec21_clauses(manifest_rd *rd, const json_t *obj, const char *key, const manifest_expr **out,
                                   size_t *n);
/* A `requires` object at obj.key; *out NULL when absent or empty. */
wgk_status manifest_spec21_requires(manifest_rd *rd, const json_t *obj, const char *key, manifest_requires **out);
/* The top-level `bindings` handles (read before the variants). */
wgk_status manifest_spec21_handles(manifest_rd *rd, const json_t *root);
/* One pass's `bindings` list into a fresh binding set; v gives the intermediates. */
wgk_status manifest_spec21_pass_bindings(manifest_rd *rd, const json_t *list, const manifest_variant *v,
                                         const char *pass_id, manifest_binding_set *set);
wgk_status manifest_spec21_variants(manifest_rd *rd, const json_t *root);
/* Expands variant families into a flat list of (variant JSON, JSON path of its template). */
typedef struct manifest_family_item {
  const json_t *json; /* the variant object (borrowed from the root or from m->expanded) */
  char *path;         /* JSON path of the object (or of the family template it came from); arena-owned */
} manifest_family_item;
wgk_status manifest_spec21_expand(manifest_rd *rd, const json_t *variants, manifest_family_item **out, size_t *n);
/* True when name is a scope name a derive may not shadow (the loader's reserved list). */
bool manifest_reserved_name(const char *name);
bool manifest_identifier(const char *s);
/* NULL when s may name a WGSL binding; else what kind of word it is (keyword, type, reserved word). */
const char *manifest_wgsl_word(const char *s);
/* Spec 2.1 dtype names: the logical dtypes of the loader (with int16). */
bool manifest_spec21_dtype(const char *dtype);

#endif
