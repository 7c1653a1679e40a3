/* Internal layout of values, shared by the files of src/expr and src/template. */
#ifndef WGK_EXPR_VALUE_INT_H
#define WGK_EXPR_VALUE_INT_H

#include "expr/value.h"

struct expr_value {
  int refs;             /* reference count; < 0 for the static singletons (never freed) */
  expr_value_kind kind; /* which member of u is live */
  bool is_tuple;        /* a LIST written as a tuple (prints the same) */
  bool is_set;          /* a LIST of names with a .has(name) method (device.features) */
  bool is_namespace;    /* a DICT made by namespace(): `{% set ns.name = v %}` changes it in place */
  union {
    bool b;
    int64_t i;
    double d;
    struct {
      char *s;
      size_t len;
    } str; /* owned, NUL-terminated */
    struct {
      expr_value **items;
      size_t len, cap;
    } list; /* owned references */
    struct {
      char **keys;
      expr_value **vals;
      size_t len, cap;
    } dict; /* insertion order */
    struct {
      char *name;        /* for messages */
      expr_native_fn fn; /* the code */
      expr_value *self;  /* bound object or NULL (owned reference) */
      void *data;        /* closure data (template macros), freed by data_free */
      void (*data_free)(void *);
    } func;
  } u;
};

/* A callable with closure data; data_free(data) runs when the value dies (also if creation fails). */
expr_value *expr_func_with_data(const char *name, expr_native_fn fn, void *data, void (*data_free)(void *));
/* A new INT, or an "integer overflow past 2^53" error when out of range. */
expr_value *expr_int_checked(double d, util_error *err);
/* The JS `==` of two values (loose equality of the raw values; lists/dicts by identity). */
bool expr_loose_eq(const expr_value *a, const expr_value *b);
/* The JS `===` used by `in` and unique: numbers by value, strings by content, containers by identity. */
bool expr_strict_eq(const expr_value *a, const expr_value *b);
/* Oracle type names for messages: "IntegerValue" style is not kept; we say "integer", "list", ... */
const char *expr_type_name(const expr_value *v);
/* The raw-value string of JavaScript's String(v.value) (used by `~`, join): floats without ".0". */
bool expr_print_raw(const expr_value *v, util_dynbuf *out);
/* JSON text as the oracle's toJSON writes it; undefined_as_null picks tojson vs print behaviour. */
bool expr_print_json(const expr_value *v, util_dynbuf *out, int indent, int depth, bool undefined_as_null,
                     util_error *err);

/* memmem without feature macros: first needle in hay, NULL if absent (needle "" is found at hay). */
const char *expr_find(const char *hay, size_t hlen, const char *needle, size_t nlen);

#endif
