/*
 * The op contract (manifest.json) as an immutable model.
 *
 * The model is shaped after manifest spec 2.1 (docs/package-format.md): ports are one list with a direction,
 * bindings are resolved per pass, variant constants are variant derives, template inputs are pass
 * inputs. Manifest spec 2.1 (§2.2, spec21_*.c) fills it; a seed-format manifest (§2.1) is translated into spec 2.1
 * first and read by the same reader (seed.c), so both go through one set of checks. The format is told by the text
 * (`format`); the planning semantics that differ between them are keyed on it.
 *
 * Lifecycle:
 *   1. manifest_load_file() or manifest_load_text() parses and validates; on failure *out is
 *      NULL and err names source:line:column: json.path: what is wrong.
 *   2. Read the structs directly; everything is read-only and lives as long as the manifest. Pointers
 *      between parts (a binding's port, a pass's binding set) point into the same manifest.
 *   3. manifest_free() releases it all (NULL is a no-op).
 *
 * Positions: every expression keeps the position of the first character of its text (just after the
 * opening quote), so a later stage that finds an error at character k of the text reports column + k
 * (exact while no JSON escape precedes it). Every other part keeps the position of its value (the
 * opening quote of a string, the brace of an object).
 */
#ifndef WGK_MANIFEST_MANIFEST_H
#define WGK_MANIFEST_MANIFEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"
#include "wgk.h"

/* Where a part of the manifest came from. */
typedef struct manifest_pos {
  int line;         /* 1-based line in the manifest source */
  int column;       /* 1-based column in that line, in characters (UTF-8 code points), as jansson counts */
  const char *path; /* JSON path, e.g. "variants[1].passes[0].dispatch.threads" */
} manifest_pos;

/* An expression of the Jinja expression language (docs/expressions.md), not yet parsed. */
typedef struct manifest_expr {
  const char *text; /* the expression text; NULL when the part is absent */
  manifest_pos pos; /* position of text[0] (after the quote) and the JSON path */
} manifest_expr;

/* A named value that is either an expression (a JSON string) or a literal (number, bool, list ...). */
typedef struct manifest_value {
  const char *name;      /* the key: constant, derive or template-input name */
  bool is_expr;          /* true: expr holds the text; false: literal holds the JSON value */
  manifest_expr expr;    /* the expression when is_expr (text NULL otherwise) */
  const json_t *literal; /* borrowed JSON value when !is_expr (NULL otherwise) */
  manifest_pos pos;      /* position of the value */
} manifest_value;

typedef enum manifest_dir {
  WGK_PORT_INPUT = 0,  /* read by the kernel */
  WGK_PORT_OUTPUT = 1, /* written by the kernel */
  WGK_PORT_INOUT = 2,  /* updated in place (a name in both inputs and outputs) */
} manifest_dir;

typedef enum manifest_narrowing {
  WGK_NARROW_NONE = 0,       /* no storage projection */
  WGK_NARROW_CHECKED = 1,    /* every value must fit the storage dtype, or the call fails */
  WGK_NARROW_SATURATING = 2, /* values are clamped to the storage dtype */
} manifest_narrowing;

/* A tensor port. In the seed format the port name is the ONNX name (`role`). */
typedef struct manifest_port {
  const char *name;             /* port name (scope key of shapes./ranks./present.) */
  const char *onnx;             /* ONNX input/output name (the seed's `role`) */
  manifest_dir dir;             /* input, output or in/out */
  int onnx_input_index;         /* position among the ONNX inputs, -1 if not an input */
  int onnx_output_index;        /* position among the ONNX outputs, -1 if not an output */
  const char **bind_keys;       /* caller-facing keys (seed `args` names mapping here) */
  size_t n_bind_keys;           /* number of bind_keys (0 when no arg names this port) */
  const char *type_var;         /* type variable, e.g. "T" */
  const char **dtypes;          /* allowed logical dtypes of type_var (from typeConstraints) */
  size_t n_dtypes;              /* number of dtypes */
  bool has_rank;                /* a rank is declared */
  int rank;                     /* the rank when declared as an integer (rank_expr.text NULL) */
  manifest_expr rank_expr;      /* the rank when declared as an expression ("ranks.X") */
  bool optional;                /* the port may be absent */
  manifest_expr shape;          /* output shape expression; text NULL when absent */
  const char *storage_dtype;    /* storage projection ("uint32"); NULL = stored as its logical dtype */
  manifest_narrowing narrowing; /* how values are narrowed to storage_dtype */
  const char *description;      /* free text, "" when absent */
  bool packed;                  /* spec 2.1 `layout: "packed"`: uint8, four per 32-bit word (inputs only) */
  bool dtype_defaulted;         /* spec 2.1 output without `dtype`: float32, but a binding of it cannot default
                                   its elementType from it (docs/loader-semantics.md, the key table) */
  bool opaque_int64;            /* spec 2.1: logical int64 kept as vec2<u32> (no storage projection) */
  manifest_pos pos;             /* position of the port object */
} manifest_port;

typedef struct manifest_attribute {
  const char *name;            /* ONNX attribute name */
  const json_t *default_value; /* borrowed default; NULL when the attribute has no default */
  const char *description;     /* free text, "" when absent */
  const json_t **values;       /* allowed values (attributeConstraints.<n>.values); NULL = any */
  size_t n_values;             /* number of values */
  bool required;               /* the call must give it */
  manifest_pos pos;            /* position of the default, else of the description or constraint */
} manifest_attribute;

typedef struct manifest_type_constraint {
  const char *name;    /* type variable, e.g. "T" */
  const char **dtypes; /* allowed logical dtypes, manifest order */
  size_t n_dtypes;     /* number of dtypes */
  manifest_pos pos;    /* position of the list */
} manifest_type_constraint;

/* A scalar (non-tensor) arg, spec 2.1 `args`. The seed has none, but accepts kind u32|i32|f32|bool|string. */
typedef struct manifest_scalar_arg {
  const char *name;        /* caller-facing key, visible as args.<name> */
  const char *kind;        /* "u32", "i32", "f32", "bool" or "string" */
  const char *onnx;        /* ONNX name when it maps to one (the seed's `semantic`), else NULL */
  bool required;           /* the call must give it */
  const char *description; /* free text, "" when absent */
  const json_t *one_of;    /* spec 2.1 `oneOf` (string args): allowed values; NULL = any */
  manifest_pos pos;        /* position of the arg object */
} manifest_scalar_arg;

typedef struct manifest_tunable {
  const char *name;            /* visible as tunables.<name> */
  const json_t *default_value; /* borrowed JSON default (a number in the seed; number, string or bool in 2.1) */
  manifest_pos pos;            /* position of the default */
} manifest_tunable;

typedef struct manifest_derive {
  const char *name;      /* visible by bare name and as derive.<name> after evaluation */
  manifest_expr expr;    /* the expression; text NULL when the derive is a literal (spec 2.1) */
  const json_t *literal; /* spec 2.1: a number, bool, or list/object whose strings are expressions */
  manifest_pos pos;      /* position of the value */
} manifest_derive;

typedef enum manifest_buffer {
  WGK_BUFFER_READ_ONLY_STORAGE = 0, /* "read-only-storage" */
  WGK_BUFFER_STORAGE = 1,           /* "storage" (read-write) */
  WGK_BUFFER_UNIFORM = 2,           /* "uniform" (the params struct) */
} manifest_buffer;

typedef enum manifest_scalar {
  WGK_SCALAR_U32 = 0, /* "u32" */
  WGK_SCALAR_I32 = 1, /* "i32" */
  WGK_SCALAR_F32 = 2, /* "f32" */
} manifest_scalar;

typedef struct manifest_field {
  const char *name;            /* WGSL struct member name */
  manifest_scalar type;        /* u32, i32 or f32: 4 bytes each */
  manifest_expr value;         /* expression giving the value at call time; spec 2.1: text NULL when absent */
  bool required;               /* spec 2.1: no value, no same-named arg and no default fails the call (!internal) */
  bool internal;               /* spec 2.1 `internal` */
  const json_t *default_value; /* spec 2.1 `default` (an expression when a string); NULL when absent */
} manifest_field;

/* One binding; its binding index is its position in the set (bind group 0). */
typedef struct manifest_binding {
  const char *name;             /* WGSL variable name */
  manifest_buffer buffer;       /* buffer type */
  const char *arg;              /* bind key of the tensor (storage buffers); NULL for the uniform and intermediates */
  const manifest_port *port;    /* the port behind arg; NULL for the uniform and intermediates */
  const char *intermediate;     /* wgk extension: id of a variant intermediate bound here, else NULL */
  const char *semantic;         /* seed `semantic` label ("X", "kernel.params"); "" when absent */
  const char *element_type;     /* "$T" (type variable) or a WGSL scalar; NULL for the uniform */
  const char *struct_name;      /* uniform struct name ("Params"); NULL for storage buffers */
  const char *length;           /* spec 2.1 fixed length: decimal text or "$derive"; NULL = runtime-sized */
  const manifest_field *fields; /* uniform struct fields in order; NULL for storage buffers */
  size_t n_fields;              /* number of fields */
  manifest_pos pos;             /* position of the binding object */
} manifest_binding;

typedef struct manifest_binding_set {
  const char *name;                 /* set name (seed `bindingSets` key) */
  const manifest_binding *bindings; /* bindings in binding-index order */
  size_t n_bindings;                /* number of bindings */
  manifest_pos pos;                 /* position of the list */
} manifest_binding_set;

typedef enum manifest_dispatch_kind {
  WGK_DISPATCH_THREADS = 0,    /* {threads, workgroupSize}: folded (docs/call-semantics.md step 6) */
  WGK_DISPATCH_WORKGROUPS = 1, /* {workgroups}: a workgroup count, folded the same way */
  WGK_DISPATCH_XYZ = 2,        /* {x, y?, z?}: explicit workgroup counts */
} manifest_dispatch_kind;

typedef struct manifest_dispatch {
  manifest_dispatch_kind kind;  /* which fields below are set */
  manifest_expr threads;        /* THREADS: total invocations */
  manifest_expr workgroup_size; /* THREADS: invocations per workgroup */
  manifest_expr workgroups;     /* WORKGROUPS: workgroup count */
  manifest_expr x, y, z;        /* XYZ: counts per axis; y/z text NULL means 1 */
  manifest_pos pos;             /* position of the dispatch object */
} manifest_dispatch;

/* spec 2.1 `viewAlias`: when both bindings resolve to the same buffer range the pass is skipped. */
typedef struct manifest_view_alias {
  const char *input;  /* a read-only-storage binding of the pass */
  const char *output; /* a storage binding of the pass */
} manifest_view_alias;

typedef struct manifest_pass {
  const char *id;                        /* unique within the variant */
  const char *name;                      /* label (pipeline label) */
  const char *shader;                    /* template file, relative to build/webgpu, "*.wgsl.jinja" */
  const manifest_value *inputs;          /* template inputs (pass derive), manifest order */
  size_t n_inputs;                       /* number of inputs */
  const manifest_binding_set *bindings;  /* the resolved binding set */
  manifest_dispatch dispatch;            /* how many workgroups */
  const manifest_value *profile;         /* spec 2.1 `profile` (bytesMoved, flops ...): evaluated per call */
  size_t n_profile;                      /* number of profile entries */
  int subgroup_collectives_width;        /* spec 2.1: 0 absent, -1 "portable", else a power of two in [4, 128] */
  bool submit_after;                     /* spec 2.1: end the submission after this pass */
  const manifest_view_alias *view_alias; /* spec 2.1 `viewAlias` pairs */
  size_t n_view_alias;                   /* number of pairs */
  manifest_pos pos;                      /* position of the pass object */
} manifest_pass;

/* spec 2.1 pass sequence: a pass, or a repeat group {id, repeat: {index, count}, passes} expanded per call. */
typedef struct manifest_pass_item {
  const manifest_pass *pass;              /* the pass; NULL for a repeat group */
  const char *id;                         /* repeat group id (prefix of the expanded pass ids) */
  const char *index;                      /* index name: repeat.<index> and repeat.<index>_count */
  manifest_expr count;                    /* repetitions, 0..65535, in the variant scope */
  const struct manifest_pass_item *items; /* the group's sequence */
  size_t n_items;                         /* number of items */
  manifest_pos pos;                       /* position of the item */
} manifest_pass_item;

/* spec 2.1 `requires` (manifest and variant merged: features united, limits max, subgroupMinSize max). */
typedef struct manifest_limit_min {
  const char *name; /* a WebGPU limit name */
  double min;       /* the device must report at least this */
} manifest_limit_min;

typedef struct manifest_requires {
  const char **features;                 /* WebGPU feature names */
  size_t n_features;                     /* number of features */
  const manifest_limit_min *limits;      /* minimum limits */
  size_t n_limits;                       /* number of limits */
  int subgroup_min_size;                 /* 0 when absent */
  const json_t *subgroup_matrix_configs; /* list of {componentType?, resultComponentType?, M?, N?, K?}; NULL absent */
} manifest_requires;

/* A scratch buffer of a variant (spec 2.1 `intermediates`, read as a wgk extension of the seed format):
 * allocated by the runtime per plan, never seen by the caller. */
typedef struct manifest_intermediate {
  const char *id;            /* unique within the variant; bindings name it */
  const char *dtype;         /* logical dtype ("float32") or a type variable ("$T") */
  bool shape_is_list;        /* true: dims; false: shape is one expression giving a list */
  manifest_expr shape;       /* the shape expression when !shape_is_list */
  const manifest_expr *dims; /* one expression per dim when shape_is_list */
  size_t n_dims;             /* number of dims */
  bool zero_init;            /* cleared to zero before the first pass of every call */
  manifest_pos pos;          /* position of the intermediate object */
} manifest_intermediate;

typedef struct manifest_variant {
  const char *id;                    /* unique variant id */
  double priority;                   /* higher first; 0 in the seed; ties keep manifest order */
  const manifest_expr *when;         /* clauses, each must evaluate to exactly true (2.1: manifest `when` first) */
  size_t n_when;                     /* number of clauses */
  const manifest_expr *demote_when;  /* spec 2.1: any clause exactly true makes the variant a last resort */
  size_t n_demote_when;              /* number of clauses */
  const char **superseded_by;        /* spec 2.1: an eligible, undemoted variant named here rejects this one */
  const size_t *superseded_by_index; /* the index in manifest_model.variants of each of them (resolved at load) */
  size_t n_superseded_by;            /* number of names */
  const manifest_requires *requires; /* spec 2.1 device requirements (merged); NULL when none */
  const manifest_tunable *tunables;  /* spec 2.1 variant tunable defaults, applied after selection */
  size_t n_tunables;                 /* number of variant tunables */
  const char *description;           /* free text, "" when absent */
  const manifest_value *derive;      /* variant derive (the seed's `constants`), in order */
  size_t n_derive;                   /* number of derives */
  const manifest_intermediate *intermediates; /* scratch buffers, manifest order */
  size_t n_intermediates;                     /* number of intermediates */
  const manifest_pass *passes;                /* passes in submission order (repeat groups flattened, once each) */
  size_t n_passes;                            /* number of passes */
  const manifest_pass_item *sequence;         /* spec 2.1 with repeat groups: the pass tree; NULL = passes as listed */
  size_t n_sequence;                          /* number of top-level items */
  manifest_pos pos;                           /* position of the variant object */
} manifest_variant;

typedef enum manifest_format {
  WGK_MANIFEST_SEED = 1,   /* the older format (docs/package-format.md) */
  WGK_MANIFEST_SPEC21 = 2, /* manifest spec 2.1 (docs/package-format.md, the public loader's) */
} manifest_format;

typedef struct manifest_model {
  manifest_format format;                           /* which format the text was in */
  const char *source;                               /* source name used in positions/errors */
  const char *domain;                               /* "ai.onnx" */
  const char *name;                                 /* "RotaryEmbedding" */
  const char *op_id;                                /* "ai.onnx.RotaryEmbedding" (domain.name) */
  int since_version;                                /* ONNX opset the op is defined since; 0 if absent */
  const char *description;                          /* free text, "" when absent */
  const manifest_port *ports;                       /* inputs in ONNX order, then outputs not also inputs */
  size_t n_ports;                                   /* number of ports */
  const manifest_attribute *attributes;             /* attributes, defaults first then described-only */
  size_t n_attributes;                              /* number of attributes */
  const manifest_type_constraint *type_constraints; /* type variables in manifest order */
  size_t n_type_constraints;                        /* number of type constraints */
  const manifest_scalar_arg *scalar_args;           /* scalar args (none in the seed) */
  size_t n_scalar_args;                             /* number of scalar args */
  const manifest_tunable *tunables;                 /* tunables in order */
  size_t n_tunables;                                /* number of tunables */
  const manifest_derive *derives;                   /* op-level derives, evaluation order */
  size_t n_derives;                                 /* number of derives */
  const manifest_binding_set *binding_sets;         /* none: each pass holds its own (a seed's set name kept) */
  size_t n_binding_sets;                            /* number of binding sets */
  const manifest_variant *variants;                 /* variants in manifest order */
  size_t n_variants;                                /* number of variants */
  const char *conformance;                          /* spec 2.1 `conformance`; NULL when absent */
  json_t *root;                                     /* the parsed JSON (owns literals and strings) */
  json_t *expanded;                                 /* spec 2.1: expanded family variants (owns their strings) */
  json_t *translated;                               /* seed: the spec 2.1 JSON it was read as (owns strings) */
  void *internal;                                   /* allocation arena, private to the loader */
} manifest_model;

/* Parses and validates manifest text. source_name is used in every position and error message. */
wgk_status manifest_load_text(const char *text, size_t len, const char *source_name, manifest_model **out /* OUT */,
                              util_error *err);
/* Reads path and loads it; source name = path as given. */
wgk_status manifest_load_file(const char *path, manifest_model **out /* OUT */, util_error *err);
void manifest_free(manifest_model *m);

/* Look-ups by name; NULL when absent. */
const manifest_port *manifest_find_port(const manifest_model *m, const char *name);
const manifest_port *manifest_find_bind_key(const manifest_model *m, const char *key);
/* By bind key ("x") first, else by port name ("X"): how callers name ports. */
const manifest_port *manifest_find_port_or_key(const manifest_model *m, const char *name);
const manifest_attribute *manifest_find_attribute(const manifest_model *m, const char *name);
const manifest_type_constraint *manifest_find_type(const manifest_model *m, const char *type_var);
const manifest_variant *manifest_find_variant(const manifest_model *m, const char *id);

/* The intermediate of v with this id; NULL when absent. */
const manifest_intermediate *manifest_find_intermediate(const manifest_variant *v, const char *id);

/* The logical dtypes wgk knows: float32 float16 int32 uint32 int64 int8 uint8 bool. */
bool manifest_dtype_known(const char *dtype);

#endif
