/* The template renderer: walks the statement tree with a chain of scopes, keeping the line map. */
#include "template/tmpl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum flow { FLOW_OK, FLOW_BREAK, FLOW_CONTINUE, FLOW_ERROR } flow;

typedef struct renderer {
  const tmpl_template *t; /* what is rendered */
  util_error *err;
  long iterations; /* loop iterations so far, bounded by WGK_TMPL_MAX_ITERATIONS */
  int calls;       /* nested macro calls */
  size_t built;    /* bytes of lists and strings its expressions built, bounded by WGK_EXPR_MAX_BUILT_BYTES */
} renderer;

/* Output with its line map: the map gets an entry each time a new output line starts. */
typedef struct sink {
  util_dynbuf *out;
  tmpl_linemap *map; /* NULL when not wanted */
  bool at_line_start;
} sink;

static bool map_line(sink *o, const expr_srcmap *m, size_t at) {
  tmpl_linemap *map = o->map;
  if (map->count == map->cap) {
    size_t cap = map->cap ? map->cap * 2 : 64;
    tmpl_line *l = realloc(map->lines, cap * sizeof *l);
    if (!l) return false;
    map->lines = l;
    map->cap = cap;
  }
  size_t k = at < m->len ? at : m->len;
  /* File names are copied into the map once, so it outlives the template. */
  const char *name = m->files[m->file[k]];
  int fi = -1;
  for (size_t i = 0; i < map->file_count; i++)
    if (!strcmp(map->files[i], name)) fi = (int)i;
  if (fi < 0) {
    char **f = realloc(map->files, (map->file_count + 1) * sizeof *f);
    if (!f) return false;
    map->files = f;
    if (!(f[map->file_count] = strdup(name))) return false;
    fi = (int)map->file_count++;
  }
  map->lines[map->count++] = (tmpl_line){fi, m->line[k]};
  return true;
}

/* Appends bytes; src_at(i) is the source offset byte i came from (fixed when from an expression). */
static bool emit(sink *o, const expr_srcmap *m, const char *s, size_t len, size_t src, bool per_byte) {
  for (size_t i = 0; i < len; i++) {
    if (o->map && (o->at_line_start || o->out->len == 0) && !map_line(o, m, per_byte ? src + i : src)) return false;
    o->at_line_start = s[i] == '\n';
    if (o->out->len == 0 && !o->map) o->at_line_start = false;
    if (!util_dynbuf_append_char(o->out, s[i])) return false;
  }
  return true;
}

static flow render_body(renderer *r, const tmpl_body *b, expr_scope *scope, sink *o);

static flow fail(renderer *r, const tmpl_stmt *s, wgk_status st, const char *msg) {
  const expr_srcmap *m = &r->t->src.map;
  size_t k = s->start < m->len ? s->start : m->len;
  util_error_at(r->err, st, util_pos_make(m->files[m->file[k]], m->line[k], m->col[k]), NULL, "%s",
                msg ? msg : wgk_status_str(st));
  return FLOW_ERROR;
}

/* Sets an error at byte `at` of the expanded source (clamped to its end), so every message has a line and column. */
static void fail_pos(renderer *r, size_t at, wgk_status st, const char *msg) {
  const expr_srcmap *m = &r->t->src.map;
  size_t k = at < m->len ? at : m->len;
  if (!util_error_is_set(r->err))
    util_error_at(r->err, st, util_pos_make(m->files[m->file[k]], m->line[k], m->col[k]), NULL, "%s",
                  msg ? msg : wgk_status_str(st));
}

static size_t body_start(const tmpl_body *b) { return b && b->n ? b->items[0]->start : 0; }

/* A failed emit or print: the output limit when a buffer reached it, else out of memory. */
static flow fail_out(renderer *r, const tmpl_stmt *s, const util_dynbuf *a, const util_dynbuf *b) {
  return (a && a->over) || (b && b->over)
             ? fail(r, s, WGK_ERR_LIMIT, "output too long (limit is " WGK_TMPL_MAX_OUTPUT_TEXT ")")
             : fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
}

static expr_value *eval(renderer *r, const expr_node *n, expr_scope *scope) {
  expr_evaluator ev = {.scope = scope, .source = NULL, .err = r->err, .built = &r->built};
  return expr_eval_node(&ev, n);
}

static flow output(renderer *r, const tmpl_stmt *s, expr_scope *scope, sink *o) {
  expr_value *v = eval(r, s->expr, scope);
  if (!v) return FLOW_ERROR;
  util_dynbuf b;
  util_dynbuf_init(&b, WGK_TMPL_MAX_OUTPUT);
  bool ok = expr_value_print(v, &b) && emit(o, &r->t->src.map, util_dynbuf_str(&b), b.len, s->start, false);
  flow f = ok ? FLOW_OK : fail_out(r, s, &b, o->out);
  util_dynbuf_free(&b);
  expr_value_release(v);
  return f;
}

/* Binds a NAME or TUPLE target to v in dict vars. */
/* Whether v is, or holds somewhere inside, the container c (storing it into c would make a cycle). */
static int holds(const expr_value *v, const expr_value *c, int depth) {
  if (v == c) return 1;
  if (depth > WGK_TMPL_MAX_BLOCK_DEPTH * 100) return -1;
  expr_value_kind k = expr_value_kind_of(v);
  if (k != WGK_VALUE_LIST && k != WGK_VALUE_DICT) return 0;
  for (size_t i = 0; i < expr_value_len(v); i++) {
    int h = holds(k == WGK_VALUE_LIST ? expr_value_list_at(v, i) : v->u.dict.vals[i], c, depth + 1);
    if (h) return h;
  }
  return 0;
}

/* {% set obj.name = v %}: obj must be a namespace() (the oracle's rule); it changes in place. */
static bool bind_member(renderer *r, const tmpl_stmt *s, const expr_node *target, const expr_value *v,
                        expr_scope *scope) {
  expr_value *obj = eval(r, target->a, scope);
  if (!obj) return false;
  bool ok = false;
  int h;
  if (obj->kind != WGK_VALUE_DICT || !obj->is_namespace)
    fail(r, s, WGK_ERR_EVAL, "cannot assign an attribute of a non-namespace object");
  else if ((h = holds(v, obj, 0)) > 0)
    fail(r, s, WGK_ERR_EVAL, "cannot store a namespace inside itself");
  else if (h < 0)
    fail(r, s, WGK_ERR_LIMIT, "value nested too deeply");
  else if (!(ok = expr_value_dict_set(obj, target->str, expr_value_ref(v))))
    fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
  expr_value_release(obj);
  return ok;
}

static bool bind(renderer *r, const tmpl_stmt *s, const expr_node *target, const expr_value *v, expr_value *vars) {
  if (target->kind == WGK_N_NAME)
    return expr_value_dict_set(vars, target->str, expr_value_ref(v)) ||
           fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL) == FLOW_OK;
  if (expr_value_kind_of(v) != WGK_VALUE_LIST) {
    fail(r, s, WGK_ERR_EVAL, "cannot unpack a non-list value");
    return false;
  }
  if (expr_value_len(v) != target->n) {
    fail(r, s, WGK_ERR_EVAL, expr_value_len(v) < target->n ? "too few items to unpack" : "too many items to unpack");
    return false;
  }
  for (size_t i = 0; i < target->n; i++)
    if (!expr_value_dict_set(vars, target->items[i]->str, expr_value_ref(expr_value_list_at(v, i)))) {
      fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
      return false;
    }
  return true;
}

static flow render_if(renderer *r, const tmpl_stmt *s, expr_scope *scope, sink *o) {
  expr_value *c = eval(r, s->expr, scope);
  if (!c) return FLOW_ERROR;
  bool t = expr_value_truthy(c);
  expr_value_release(c);
  return render_body(r, t ? &s->body : &s->alt, scope, o);
}

static expr_value *loop_info(size_t i, size_t n, const expr_value *items) {
  expr_value *d = expr_value_dict();
  bool ok = d && expr_value_dict_set(d, "index", expr_value_int((int64_t)i + 1)) &&
            expr_value_dict_set(d, "index0", expr_value_int((int64_t)i)) &&
            expr_value_dict_set(d, "revindex", expr_value_int((int64_t)(n - i))) &&
            expr_value_dict_set(d, "revindex0", expr_value_int((int64_t)(n - i - 1))) &&
            expr_value_dict_set(d, "first", expr_value_bool(i == 0)) &&
            expr_value_dict_set(d, "last", expr_value_bool(i == n - 1)) &&
            expr_value_dict_set(d, "length", expr_value_int((int64_t)n)) &&
            expr_value_dict_set(d, "previtem",
                                expr_value_ref(i > 0 ? expr_value_list_at(items, i - 1) : expr_value_undefined())) &&
            expr_value_dict_set(d, "nextitem",
                                expr_value_ref(i + 1 < n ? expr_value_list_at(items, i + 1) : expr_value_undefined()));
  if (!ok) {
    expr_value_release(d);
    return NULL;
  }
  return d;
}

/* The items a for loop visits: a list, or a dict's keys; filtered by `if cond` first, as the oracle does. */
static expr_value *loop_items(renderer *r, const tmpl_stmt *s, expr_scope *scope) {
  expr_value *it = eval(r, s->expr, scope);
  if (!it) return NULL;
  if (it->kind == WGK_VALUE_DICT) {
    expr_value *keys = expr_method(it, "keys"), *k = NULL;
    if (keys) keys->u.func.fn(keys, NULL, 0, NULL, scope, &k, r->err);
    expr_value_release(keys);
    expr_value_release(it);
    it = k;
    if (!it) {
      fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
      return NULL;
    }
  }
  if (it->kind != WGK_VALUE_LIST) {
    expr_value_release(it);
    fail(r, s, WGK_ERR_EVAL, "for loop needs a list or a dict");
    return NULL;
  }
  if (!s->cond) return it;
  expr_value *kept = expr_value_list(), *vars = expr_value_dict();
  expr_scope inner = {vars, scope};
  for (size_t i = 0; kept && vars && i < it->u.list.len; i++) {
    if (!bind(r, s, s->target, it->u.list.items[i], vars)) {
      expr_value_release(kept);
      kept = NULL;
      break;
    }
    expr_value *c = eval(r, s->cond, &inner);
    if (!c) {
      expr_value_release(kept);
      kept = NULL;
      break;
    }
    if (expr_value_truthy(c) && !expr_value_list_append(kept, expr_value_ref(it->u.list.items[i]))) {
      expr_value_release(kept);
      kept = NULL;
    }
    expr_value_release(c);
  }
  expr_value_release(vars);
  expr_value_release(it);
  return kept;
}

static flow render_for(renderer *r, const tmpl_stmt *s, expr_scope *scope, sink *o) {
  expr_value *items = loop_items(r, s, scope);
  if (!items) return util_error_is_set(r->err) ? FLOW_ERROR : fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
  expr_value *vars = expr_value_dict();
  expr_scope inner = {vars, scope};
  flow f = vars ? FLOW_OK : fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
  size_t n = items->u.list.len;
  bool ran = false;
  for (size_t i = 0; f != FLOW_ERROR && i < n; i++) {
    if (++r->iterations > WGK_TMPL_MAX_ITERATIONS) {
      f = fail(r, s, WGK_ERR_LIMIT, "too many loop iterations (limit is 1000000)");
      break;
    }
    expr_value *loop = loop_info(i, n, items);
    if (!loop || !expr_value_dict_set(vars, "loop", loop)) {
      f = fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
      break;
    }
    if (!bind(r, s, s->target, items->u.list.items[i], vars)) {
      f = FLOW_ERROR;
      break;
    }
    f = render_body(r, &s->body, &inner, o);
    if (f == FLOW_BREAK) {
      f = FLOW_OK;
      ran = true;
      break;
    }
    if (f == FLOW_CONTINUE) {
      f = FLOW_OK;
      continue;
    }
    ran = true;
  }
  if (f == FLOW_OK && !ran) f = render_body(r, &s->alt, &inner, o);
  expr_value_release(vars);
  expr_value_release(items);
  return f;
}

/* Renders a body into a string value (set blocks, macros, filter blocks). */
static expr_value *render_to_string(renderer *r, const tmpl_body *b, expr_scope *scope) {
  util_dynbuf buf;
  util_dynbuf_init(&buf, WGK_TMPL_MAX_OUTPUT);
  sink o = {&buf, NULL, false};
  flow f = render_body(r, b, scope, &o);
  expr_value *v = NULL;
  if (f != FLOW_ERROR && !buf.failed && (r->built += buf.len) > WGK_EXPR_MAX_BUILT_BYTES) {
    char msg[200];
    snprintf(msg, sizeof msg,
             "lists and strings built here total %zu bytes, above the bound of %zu bytes one "
             "template render may build",
             r->built, WGK_EXPR_MAX_BUILT_BYTES);
    fail_pos(r, body_start(b), WGK_ERR_LIMIT, msg);
  } else if (f != FLOW_ERROR && !buf.failed)
    v = expr_value_string_n(util_dynbuf_str(&buf), buf.len);
  else
    fail_pos(r, body_start(b), buf.over ? WGK_ERR_LIMIT : WGK_ERR_OUT_OF_MEMORY,
             buf.over ? "output too long (limit is " WGK_TMPL_MAX_OUTPUT_TEXT ")" : NULL);
  util_dynbuf_free(&buf);
  return v;
}

static flow render_set(renderer *r, const tmpl_stmt *s, expr_scope *scope) {
  expr_value *v = s->expr ? eval(r, s->expr, scope) : render_to_string(r, &s->body, scope);
  if (!v) return FLOW_ERROR;
  bool ok = s->target->kind == WGK_N_MEMBER ? bind_member(r, s, s->target, v, scope)
                                            : bind(r, s, s->target, v, (expr_value *)scope->vars);
  expr_value_release(v);
  return ok ? FLOW_OK : FLOW_ERROR;
}

/* A macro's closure: the renderer and the statement; the scope is the caller's (the oracle's dynamic rule). */
typedef struct macro_data {
  renderer *r;
  const tmpl_stmt *s;
  const expr_node *params; /* parameter list (names and name=default) */
  const tmpl_body *body;
  const expr_scope *lexical; /* caller(): the scope of the call statement; NULL for macros */
  const expr_value *caller;  /* the caller() to expose inside, or NULL */
} macro_data;

static wgk_status call_macro(const expr_value *fn, const expr_value *const *args, size_t nargs, const expr_value *kw,
                             const expr_scope *scope, expr_value **out, util_error *err) {
  macro_data *m = fn->u.func.data;
  renderer *r = m->r;
  size_t np = m->params ? m->params->n : 0;
  if (nargs > np)
    return util_error_plain(err, WGK_ERR_EVAL, "macro %s takes not more than %zu argument(s)", fn->u.func.name, np);
  if (++r->calls > WGK_TMPL_MAX_CALL_DEPTH) {
    r->calls--;
    return util_error_plain(err, WGK_ERR_LIMIT, "macro calls nested too deeply (limit is %d)", WGK_TMPL_MAX_CALL_DEPTH);
  }
  expr_value *vars = expr_value_dict();
  expr_scope inner = {vars, m->lexical ? m->lexical : scope};
  wgk_status st = vars ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; st == WGK_OK && kw && i < expr_value_len(kw); i++) {
    bool known = false;
    for (size_t k = 0; k < np; k++) known = known || !strcmp(m->params->items[k]->str, expr_value_dict_key_at(kw, i));
    if (!known)
      st = util_error_plain(err, WGK_ERR_EVAL, "macro %s takes no keyword argument '%s'", fn->u.func.name,
                            expr_value_dict_key_at(kw, i));
  }
  for (size_t i = 0; st == WGK_OK && i < np; i++) { /* every parameter bound first, then defaults evaluated */
    const expr_node *p = m->params->items[i];
    const expr_value *v = i < nargs ? args[i] : expr_value_dict_get(kw, p->str);
    if (!expr_value_dict_set(vars, p->str, expr_value_ref(v ? v : expr_value_undefined()))) st = WGK_ERR_OUT_OF_MEMORY;
  }
  for (size_t i = 0; st == WGK_OK && i < np; i++) {
    const expr_node *p = m->params->items[i];
    if (p->kind != WGK_N_KWARG || i < nargs || expr_value_dict_get(kw, p->str)) continue;
    expr_value *d = eval(r, p->a, &inner);
    if (!d || !expr_value_dict_set(vars, p->str, d)) st = d ? WGK_ERR_OUT_OF_MEMORY : err->status;
  }
  if (st == WGK_OK && m->caller && !expr_value_dict_set(vars, "caller", expr_value_ref(m->caller)))
    st = WGK_ERR_OUT_OF_MEMORY;
  if (st == WGK_OK && !(*out = render_to_string(r, m->body, &inner)))
    st = util_error_is_set(err) ? err->status : WGK_ERR_OUT_OF_MEMORY;
  expr_value_release(vars);
  r->calls--;
  if (st == WGK_ERR_OUT_OF_MEMORY && !util_error_is_set(err)) util_error_oom(err, NULL, NULL);
  return st;
}

static expr_value *macro_value(renderer *r, const tmpl_stmt *s, const char *name, const expr_node *params,
                               const expr_scope *lexical) {
  macro_data *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  *m = (macro_data){r, s, params, &s->body, lexical, NULL};
  return expr_func_with_data(name, call_macro, m, free);
}

static flow render_macro(renderer *r, const tmpl_stmt *s, expr_scope *scope) {
  expr_value *f = macro_value(r, s, s->target->str, s->params, NULL);
  if (!f || !expr_value_dict_set((expr_value *)scope->vars, s->target->str, f))
    return fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
  return FLOW_OK;
}

/* {% call(params) m(args) %}body{% endcall %}: m runs with caller() rendering body in this scope. */
static flow render_call(renderer *r, const tmpl_stmt *s, expr_scope *scope, sink *o) {
  expr_value *caller = macro_value(r, s, "caller", s->params, scope);
  expr_value *fn = caller ? eval(r, s->expr->a, scope) : NULL;
  expr_value **args = NULL, *kw = NULL, *res = NULL;
  size_t nargs = 0;
  expr_evaluator ev = {.scope = scope, .err = r->err, .built = &r->built};
  if (fn && fn->kind == WGK_VALUE_FUNC && fn->u.func.fn == call_macro &&
      expr_eval_args(&ev, s->expr->items, s->expr->n, &args, &nargs, &kw)) {
    macro_data *m = fn->u.func.data, saved = *m;
    m->caller = caller; /* this call only */
    res = expr_call_value(&ev, s->expr, fn, (const expr_value *const *)args, nargs, kw);
    *m = saved;
    expr_free_args(args, nargs, kw);
  } else if (fn && !util_error_is_set(r->err)) {
    fail(r, s, WGK_ERR_EVAL, "call needs a macro");
  }
  flow f = res ? FLOW_OK : FLOW_ERROR;
  if (res) {
    util_dynbuf b;
    util_dynbuf_init(&b, WGK_TMPL_MAX_OUTPUT);
    if (!expr_value_print(res, &b) || !emit(o, &r->t->src.map, util_dynbuf_str(&b), b.len, s->start, false))
      f = fail_out(r, s, &b, o->out);
    util_dynbuf_free(&b);
  }
  if (!caller && !util_error_is_set(r->err)) f = fail(r, s, WGK_ERR_OUT_OF_MEMORY, NULL);
  expr_value_release(res);
  expr_value_release(fn);
  expr_value_release(caller);
  return f;
}

static flow render_filter(renderer *r, const tmpl_stmt *s, expr_scope *scope, sink *o) {
  expr_value *text = render_to_string(r, &s->body, scope);
  if (!text) return FLOW_ERROR;
  expr_evaluator ev = {.scope = scope, .err = r->err, .built = &r->built};
  expr_value *v = expr_apply_filter(&ev, s->expr, text);
  expr_value_release(text);
  if (!v) return FLOW_ERROR;
  util_dynbuf b;
  util_dynbuf_init(&b, WGK_TMPL_MAX_OUTPUT);
  flow f = expr_value_print(v, &b) && emit(o, &r->t->src.map, util_dynbuf_str(&b), b.len, s->start, false)
               ? FLOW_OK
               : fail_out(r, s, &b, o->out);
  util_dynbuf_free(&b);
  expr_value_release(v);
  return f;
}

static flow render_stmt(renderer *r, const tmpl_stmt *s, expr_scope *scope, sink *o) {
  switch (s->kind) {
  case WGK_S_TEXT:
    return emit(o, &r->t->src.map, r->t->src.text + s->start, s->len, s->start, true) ? FLOW_OK
                                                                                      : fail_out(r, s, o->out, NULL);
  case WGK_S_OUTPUT:
    return output(r, s, scope, o);
  case WGK_S_IF:
    return render_if(r, s, scope, o);
  case WGK_S_FOR:
    return render_for(r, s, scope, o);
  case WGK_S_SET:
    return render_set(r, s, scope);
  case WGK_S_MACRO:
    return render_macro(r, s, scope);
  case WGK_S_CALL:
    return render_call(r, s, scope, o);
  case WGK_S_FILTER:
    return render_filter(r, s, scope, o);
  case WGK_S_BREAK:
    return FLOW_BREAK;
  case WGK_S_CONTINUE:
    return FLOW_CONTINUE;
  }
  return fail(r, s, WGK_ERR_EVAL, "unknown statement");
}

static flow render_body(renderer *r, const tmpl_body *b, expr_scope *scope, sink *o) {
  for (size_t i = 0; i < b->n; i++) {
    flow f = render_stmt(r, b->items[i], scope, o);
    if (f != FLOW_OK) return f;
  }
  return FLOW_OK;
}

wgk_status tmpl_render_parsed(const tmpl_template *t, const expr_value *scope, util_dynbuf *out, tmpl_linemap *map,
                              util_error *err) {
  renderer r = {.t = t, .err = err};
  expr_value *globals = expr_value_dict();
  if (!globals) return util_error_oom(err, NULL, NULL);
  expr_scope user = {scope, NULL}, top = {globals, &user};
  sink o = {out, map, true};
  flow f = render_body(&r, &t->body, &top, &o);
  expr_value_release(globals);
  if (f == FLOW_ERROR) {
    fail_pos(&r, body_start(&t->body), WGK_ERR_EVAL, "render failed");
    return err ? err->status : WGK_ERR_EVAL;
  }
  if (out->failed) {
    fail_pos(&r, t->src.map.len, out->over ? WGK_ERR_LIMIT : WGK_ERR_OUT_OF_MEMORY,
             out->over ? "output too long (limit is " WGK_TMPL_MAX_OUTPUT_TEXT ")" : NULL);
    return err ? err->status : WGK_ERR_LIMIT;
  }
  return WGK_OK;
}
