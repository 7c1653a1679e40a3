/* The template renderer: walks the statement tree with a chain of scopes, keeping the line map. */
#include "template/tmpl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum flow { FLOW_OK, FLOW_BREAK, FLOW_CONTINUE, FLOW_ERROR } flow;

typedef struct renderer {
  const wgk_tmpl *t; /* what is rendered */
  wgk_error *err;
  long iterations; /* loop iterations so far, bounded by WGK_TMPL_MAX_ITERATIONS */
  int calls;       /* nested macro calls */
} renderer;

/* Output with its line map: the map gets an entry each time a new output line starts. */
typedef struct sink {
  wgk_dynbuf *out;
  wgk_tmpl_linemap *map; /* NULL when not wanted */
  bool at_line_start;
} sink;

static bool map_line(sink *o, const wgk_srcmap *m, size_t at) {
  wgk_tmpl_linemap *map = o->map;
  if (map->count == map->cap) {
    size_t cap = map->cap ? map->cap * 2 : 64;
    wgk_tmpl_line *l = realloc(map->lines, cap * sizeof *l);
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
  map->lines[map->count++] = (wgk_tmpl_line){fi, m->line[k]};
  return true;
}

/* Appends bytes; src_at(i) is the source offset byte i came from (fixed when from an expression). */
static bool emit(sink *o, const wgk_srcmap *m, const char *s, size_t len, size_t src, bool per_byte) {
  for (size_t i = 0; i < len; i++) {
    if (o->map && (o->at_line_start || o->out->len == 0) && !map_line(o, m, per_byte ? src + i : src)) return false;
    o->at_line_start = s[i] == '\n';
    if (o->out->len == 0 && !o->map) o->at_line_start = false;
    if (!wgk_dynbuf_append_char(o->out, s[i])) return false;
  }
  return true;
}

static flow render_body(renderer *r, const wgk_body *b, wgk_expr_scope *scope, sink *o);

static flow fail(renderer *r, const wgk_stmt *s, wgk_status st, const char *msg) {
  const wgk_srcmap *m = &r->t->src.map;
  size_t k = s->start < m->len ? s->start : m->len;
  wgk_error_set(r->err, st, m->files[m->file[k]], m->line[k], m->col[k], NULL, "%s", msg);
  return FLOW_ERROR;
}

/* Sets an error at byte `at` of the expanded source (clamped to its end), so every message has a line and column. */
static void fail_pos(renderer *r, size_t at, wgk_status st, const char *msg) {
  const wgk_srcmap *m = &r->t->src.map;
  size_t k = at < m->len ? at : m->len;
  if (!wgk_error_is_set(r->err))
    wgk_error_set(r->err, st, m->files[m->file[k]], m->line[k], m->col[k], NULL, "%s", msg);
}

static size_t body_start(const wgk_body *b) { return b && b->n ? b->items[0]->start : 0; }

/* A failed emit or print: the output limit when a buffer reached it, else out of memory. */
static flow fail_out(renderer *r, const wgk_stmt *s, const wgk_dynbuf *a, const wgk_dynbuf *b) {
  return (a && a->over) || (b && b->over)
             ? fail(r, s, WGK_ERR_LIMIT, "output too long (limit is " WGK_TMPL_MAX_OUTPUT_TEXT ")")
             : fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
}

static wgk_value *eval(renderer *r, const wgk_node *n, wgk_expr_scope *scope) {
  wgk_eval ev = {.scope = scope, .source = NULL, .err = r->err};
  return wgk_expr_eval_node(&ev, n);
}

static flow output(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope, sink *o) {
  wgk_value *v = eval(r, s->expr, scope);
  if (!v) return FLOW_ERROR;
  wgk_dynbuf b;
  wgk_dynbuf_init(&b, WGK_TMPL_MAX_OUTPUT);
  bool ok = wgk_value_print(v, &b) && emit(o, &r->t->src.map, wgk_dynbuf_str(&b), b.len, s->start, false);
  flow f = ok ? FLOW_OK : fail_out(r, s, &b, o->out);
  wgk_dynbuf_free(&b);
  wgk_value_release(v);
  return f;
}

/* Binds a NAME or TUPLE target to v in dict vars. */
/* Whether v is, or holds somewhere inside, the container c (storing it into c would make a cycle). */
static int holds(const wgk_value *v, const wgk_value *c, int depth) {
  if (v == c) return 1;
  if (depth > WGK_TMPL_MAX_BLOCK_DEPTH * 100) return -1;
  wgk_value_kind k = wgk_value_kind_of(v);
  if (k != WGK_VALUE_LIST && k != WGK_VALUE_DICT) return 0;
  for (size_t i = 0; i < wgk_value_len(v); i++) {
    int h = holds(k == WGK_VALUE_LIST ? wgk_value_list_at(v, i) : v->u.dict.vals[i], c, depth + 1);
    if (h) return h;
  }
  return 0;
}

/* {% set obj.name = v %}: obj must be a namespace() (the oracle's rule); it changes in place. */
static bool bind_member(renderer *r, const wgk_stmt *s, const wgk_node *target, const wgk_value *v,
                        wgk_expr_scope *scope) {
  wgk_value *obj = eval(r, target->a, scope);
  if (!obj) return false;
  bool ok = false;
  int h;
  if (obj->kind != WGK_VALUE_DICT || !obj->is_namespace)
    fail(r, s, WGK_ERR_EVAL, "cannot assign an attribute of a non-namespace object");
  else if ((h = holds(v, obj, 0)) > 0)
    fail(r, s, WGK_ERR_EVAL, "cannot store a namespace inside itself");
  else if (h < 0)
    fail(r, s, WGK_ERR_LIMIT, "value nested too deeply");
  else if (!(ok = wgk_value_dict_set(obj, target->str, wgk_value_ref(v))))
    fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  wgk_value_release(obj);
  return ok;
}

static bool bind(renderer *r, const wgk_stmt *s, const wgk_node *target, const wgk_value *v, wgk_value *vars) {
  if (target->kind == WGK_N_NAME)
    return wgk_value_dict_set(vars, target->str, wgk_value_ref(v)) ||
           fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory") == FLOW_OK;
  if (wgk_value_kind_of(v) != WGK_VALUE_LIST) {
    fail(r, s, WGK_ERR_EVAL, "cannot unpack a non-list value");
    return false;
  }
  if (wgk_value_len(v) != target->n) {
    fail(r, s, WGK_ERR_EVAL, wgk_value_len(v) < target->n ? "too few items to unpack" : "too many items to unpack");
    return false;
  }
  for (size_t i = 0; i < target->n; i++)
    if (!wgk_value_dict_set(vars, target->items[i]->str, wgk_value_ref(wgk_value_list_at(v, i)))) {
      fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
      return false;
    }
  return true;
}

static flow render_if(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope, sink *o) {
  wgk_value *c = eval(r, s->expr, scope);
  if (!c) return FLOW_ERROR;
  bool t = wgk_value_truthy(c);
  wgk_value_release(c);
  return render_body(r, t ? &s->body : &s->alt, scope, o);
}

static wgk_value *loop_info(size_t i, size_t n, const wgk_value *items) {
  wgk_value *d = wgk_value_dict();
  bool ok = d && wgk_value_dict_set(d, "index", wgk_value_int((int64_t)i + 1)) &&
            wgk_value_dict_set(d, "index0", wgk_value_int((int64_t)i)) &&
            wgk_value_dict_set(d, "revindex", wgk_value_int((int64_t)(n - i))) &&
            wgk_value_dict_set(d, "revindex0", wgk_value_int((int64_t)(n - i - 1))) &&
            wgk_value_dict_set(d, "first", wgk_value_bool(i == 0)) &&
            wgk_value_dict_set(d, "last", wgk_value_bool(i == n - 1)) &&
            wgk_value_dict_set(d, "length", wgk_value_int((int64_t)n)) &&
            wgk_value_dict_set(d, "previtem",
                               wgk_value_ref(i > 0 ? wgk_value_list_at(items, i - 1) : wgk_value_undefined())) &&
            wgk_value_dict_set(d, "nextitem",
                               wgk_value_ref(i + 1 < n ? wgk_value_list_at(items, i + 1) : wgk_value_undefined()));
  if (!ok) {
    wgk_value_release(d);
    return NULL;
  }
  return d;
}

/* The items a for loop visits: a list, or a dict's keys; filtered by `if cond` first, as the oracle does. */
static wgk_value *loop_items(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope) {
  wgk_value *it = eval(r, s->expr, scope);
  if (!it) return NULL;
  if (it->kind == WGK_VALUE_DICT) {
    wgk_value *keys = wgk_expr_method(it, "keys"), *k = NULL;
    if (keys) keys->u.func.fn(keys, NULL, 0, NULL, scope, &k, r->err);
    wgk_value_release(keys);
    wgk_value_release(it);
    it = k;
    if (!it) {
      fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
      return NULL;
    }
  }
  if (it->kind != WGK_VALUE_LIST) {
    wgk_value_release(it);
    fail(r, s, WGK_ERR_EVAL, "for loop needs a list or a dict");
    return NULL;
  }
  if (!s->cond) return it;
  wgk_value *kept = wgk_value_list(), *vars = wgk_value_dict();
  wgk_expr_scope inner = {vars, scope};
  for (size_t i = 0; kept && vars && i < it->u.list.len; i++) {
    if (!bind(r, s, s->target, it->u.list.items[i], vars)) {
      wgk_value_release(kept);
      kept = NULL;
      break;
    }
    wgk_value *c = eval(r, s->cond, &inner);
    if (!c) {
      wgk_value_release(kept);
      kept = NULL;
      break;
    }
    if (wgk_value_truthy(c) && !wgk_value_list_append(kept, wgk_value_ref(it->u.list.items[i]))) {
      wgk_value_release(kept);
      kept = NULL;
    }
    wgk_value_release(c);
  }
  wgk_value_release(vars);
  wgk_value_release(it);
  return kept;
}

static flow render_for(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope, sink *o) {
  wgk_value *items = loop_items(r, s, scope);
  if (!items) return wgk_error_is_set(r->err) ? FLOW_ERROR : fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  wgk_value *vars = wgk_value_dict();
  wgk_expr_scope inner = {vars, scope};
  flow f = vars ? FLOW_OK : fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  size_t n = items->u.list.len;
  bool ran = false;
  for (size_t i = 0; f != FLOW_ERROR && i < n; i++) {
    if (++r->iterations > WGK_TMPL_MAX_ITERATIONS) {
      f = fail(r, s, WGK_ERR_LIMIT, "too many loop iterations (limit is 1000000)");
      break;
    }
    wgk_value *loop = loop_info(i, n, items);
    if (!loop || !wgk_value_dict_set(vars, "loop", loop)) {
      f = fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
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
  wgk_value_release(vars);
  wgk_value_release(items);
  return f;
}

/* Renders a body into a string value (set blocks, macros, filter blocks). */
static wgk_value *render_to_string(renderer *r, const wgk_body *b, wgk_expr_scope *scope) {
  wgk_dynbuf buf;
  wgk_dynbuf_init(&buf, WGK_TMPL_MAX_OUTPUT);
  sink o = {&buf, NULL, false};
  flow f = render_body(r, b, scope, &o);
  wgk_value *v = NULL;
  if (f != FLOW_ERROR && !buf.failed)
    v = wgk_value_string_n(wgk_dynbuf_str(&buf), buf.len);
  else
    fail_pos(r, body_start(b), buf.over ? WGK_ERR_LIMIT : WGK_ERR_OUT_OF_MEMORY,
             buf.over ? "output too long (limit is " WGK_TMPL_MAX_OUTPUT_TEXT ")" : "out of memory");
  wgk_dynbuf_free(&buf);
  return v;
}

static flow render_set(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope) {
  wgk_value *v = s->expr ? eval(r, s->expr, scope) : render_to_string(r, &s->body, scope);
  if (!v) return FLOW_ERROR;
  bool ok = s->target->kind == WGK_N_MEMBER ? bind_member(r, s, s->target, v, scope)
                                            : bind(r, s, s->target, v, (wgk_value *)scope->vars);
  wgk_value_release(v);
  return ok ? FLOW_OK : FLOW_ERROR;
}

/* A macro's closure: the renderer and the statement; the scope is the caller's (the oracle's dynamic rule). */
typedef struct macro_data {
  renderer *r;
  const wgk_stmt *s;
  const wgk_node *params; /* parameter list (names and name=default) */
  const wgk_body *body;
  const wgk_expr_scope *lexical; /* caller(): the scope of the call statement; NULL for macros */
  const wgk_value *caller;       /* the caller() to expose inside, or NULL */
} macro_data;

static wgk_status call_macro(const wgk_value *fn, const wgk_value *const *args, size_t nargs, const wgk_value *kw,
                             const wgk_expr_scope *scope, wgk_value **out, wgk_error *err) {
  macro_data *m = fn->u.func.data;
  renderer *r = m->r;
  size_t np = m->params ? m->params->n : 0;
  if (nargs > np)
    return wgk_error_set(err, WGK_ERR_EVAL, NULL, 0, 0, NULL, "macro %s takes not more than %zu argument(s)",
                         fn->u.func.name, np);
  if (++r->calls > WGK_TMPL_MAX_CALL_DEPTH) {
    r->calls--;
    return wgk_error_set(err, WGK_ERR_LIMIT, NULL, 0, 0, NULL, "macro calls nested too deeply (limit is %d)",
                         WGK_TMPL_MAX_CALL_DEPTH);
  }
  wgk_value *vars = wgk_value_dict();
  wgk_expr_scope inner = {vars, m->lexical ? m->lexical : scope};
  wgk_status st = vars ? WGK_OK : WGK_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; st == WGK_OK && kw && i < wgk_value_len(kw); i++) {
    bool known = false;
    for (size_t k = 0; k < np; k++) known = known || !strcmp(m->params->items[k]->str, wgk_value_dict_key_at(kw, i));
    if (!known)
      st = wgk_error_set(err, WGK_ERR_EVAL, NULL, 0, 0, NULL, "macro %s takes no keyword argument '%s'",
                         fn->u.func.name, wgk_value_dict_key_at(kw, i));
  }
  for (size_t i = 0; st == WGK_OK && i < np; i++) { /* every parameter bound first, then defaults evaluated */
    const wgk_node *p = m->params->items[i];
    const wgk_value *v = i < nargs ? args[i] : wgk_value_dict_get(kw, p->str);
    if (!wgk_value_dict_set(vars, p->str, wgk_value_ref(v ? v : wgk_value_undefined()))) st = WGK_ERR_OUT_OF_MEMORY;
  }
  for (size_t i = 0; st == WGK_OK && i < np; i++) {
    const wgk_node *p = m->params->items[i];
    if (p->kind != WGK_N_KWARG || i < nargs || wgk_value_dict_get(kw, p->str)) continue;
    wgk_value *d = eval(r, p->a, &inner);
    if (!d || !wgk_value_dict_set(vars, p->str, d)) st = d ? WGK_ERR_OUT_OF_MEMORY : err->status;
  }
  if (st == WGK_OK && m->caller && !wgk_value_dict_set(vars, "caller", wgk_value_ref(m->caller)))
    st = WGK_ERR_OUT_OF_MEMORY;
  if (st == WGK_OK && !(*out = render_to_string(r, m->body, &inner)))
    st = wgk_error_is_set(err) ? err->status : WGK_ERR_OUT_OF_MEMORY;
  wgk_value_release(vars);
  r->calls--;
  if (st == WGK_ERR_OUT_OF_MEMORY && !wgk_error_is_set(err)) wgk_error_set(err, st, NULL, 0, 0, NULL, "out of memory");
  return st;
}

static wgk_value *macro_value(renderer *r, const wgk_stmt *s, const char *name, const wgk_node *params,
                              const wgk_expr_scope *lexical) {
  macro_data *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  *m = (macro_data){r, s, params, &s->body, lexical, NULL};
  return wgk_expr_func_with_data(name, call_macro, m, free);
}

static flow render_macro(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope) {
  wgk_value *f = macro_value(r, s, s->target->str, s->params, NULL);
  if (!f || !wgk_value_dict_set((wgk_value *)scope->vars, s->target->str, f))
    return fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  return FLOW_OK;
}

/* {% call(params) m(args) %}body{% endcall %}: m runs with caller() rendering body in this scope. */
static flow render_call(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope, sink *o) {
  wgk_value *caller = macro_value(r, s, "caller", s->params, scope);
  wgk_value *fn = caller ? eval(r, s->expr->a, scope) : NULL;
  wgk_value **args = NULL, *kw = NULL, *res = NULL;
  size_t nargs = 0;
  wgk_eval ev = {.scope = scope, .err = r->err};
  if (fn && fn->kind == WGK_VALUE_FUNC && fn->u.func.fn == call_macro &&
      wgk_expr_eval_args(&ev, s->expr->items, s->expr->n, &args, &nargs, &kw)) {
    macro_data *m = fn->u.func.data, saved = *m;
    m->caller = caller; /* this call only */
    res = wgk_expr_call_value(&ev, s->expr, fn, (const wgk_value *const *)args, nargs, kw);
    *m = saved;
    wgk_expr_free_args(args, nargs, kw);
  } else if (fn && !wgk_error_is_set(r->err)) {
    fail(r, s, WGK_ERR_EVAL, "call needs a macro");
  }
  flow f = res ? FLOW_OK : FLOW_ERROR;
  if (res) {
    wgk_dynbuf b;
    wgk_dynbuf_init(&b, WGK_TMPL_MAX_OUTPUT);
    if (!wgk_value_print(res, &b) || !emit(o, &r->t->src.map, wgk_dynbuf_str(&b), b.len, s->start, false))
      f = fail_out(r, s, &b, o->out);
    wgk_dynbuf_free(&b);
  }
  if (!caller && !wgk_error_is_set(r->err)) f = fail(r, s, WGK_ERR_OUT_OF_MEMORY, "out of memory");
  wgk_value_release(res);
  wgk_value_release(fn);
  wgk_value_release(caller);
  return f;
}

static flow render_filter(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope, sink *o) {
  wgk_value *text = render_to_string(r, &s->body, scope);
  if (!text) return FLOW_ERROR;
  wgk_eval ev = {.scope = scope, .err = r->err};
  wgk_value *v = wgk_expr_apply_filter(&ev, s->expr, text);
  wgk_value_release(text);
  if (!v) return FLOW_ERROR;
  wgk_dynbuf b;
  wgk_dynbuf_init(&b, WGK_TMPL_MAX_OUTPUT);
  flow f = wgk_value_print(v, &b) && emit(o, &r->t->src.map, wgk_dynbuf_str(&b), b.len, s->start, false)
               ? FLOW_OK
               : fail_out(r, s, &b, o->out);
  wgk_dynbuf_free(&b);
  wgk_value_release(v);
  return f;
}

static flow render_stmt(renderer *r, const wgk_stmt *s, wgk_expr_scope *scope, sink *o) {
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

static flow render_body(renderer *r, const wgk_body *b, wgk_expr_scope *scope, sink *o) {
  for (size_t i = 0; i < b->n; i++) {
    flow f = render_stmt(r, b->items[i], scope, o);
    if (f != FLOW_OK) return f;
  }
  return FLOW_OK;
}

wgk_status wgk_tmpl_render_parsed(const wgk_tmpl *t, const wgk_value *scope, wgk_dynbuf *out, wgk_tmpl_linemap *map,
                                  wgk_error *err) {
  renderer r = {.t = t, .err = err};
  wgk_value *globals = wgk_value_dict();
  if (!globals) return wgk_error_set(err, WGK_ERR_OUT_OF_MEMORY, NULL, 0, 0, NULL, "out of memory");
  wgk_expr_scope user = {scope, NULL}, top = {globals, &user};
  sink o = {out, map, true};
  flow f = render_body(&r, &t->body, &top, &o);
  wgk_value_release(globals);
  if (f == FLOW_ERROR) {
    fail_pos(&r, body_start(&t->body), WGK_ERR_EVAL, "render failed");
    return err ? err->status : WGK_ERR_EVAL;
  }
  if (out->failed) {
    fail_pos(&r, t->src.map.len, out->over ? WGK_ERR_LIMIT : WGK_ERR_OUT_OF_MEMORY,
             out->over ? "output too long (limit is " WGK_TMPL_MAX_OUTPUT_TEXT ")" : "out of memory");
    return err ? err->status : WGK_ERR_LIMIT;
  }
  return WGK_OK;
}
