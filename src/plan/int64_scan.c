/* Opaque int64 in WGSL, as the public loader checks it (its bundle, before a pass is bound).
 *
 * A port of logical dtype int64 without a `storage` projection is bound as `array<vec2<u32>>` holding the 8
 * bytes of each element unchanged; a kernel may copy and select whole elements of it, nothing else. The loader
 * enforces that on the rendered WGSL of every pass that binds such a tensor, with a textual scan that this file
 * repeats step by step, so that wgk accepts and refuses exactly the same sources:
 *   1. comments are removed (`//` to the end of the line; `/ * ... * /` nested, their newlines kept);
 *   2. every `name[...]` (an identifier, optional blanks, a bracket, up to the matching bracket) becomes a
 *      marker when `name` is an opaque int64 binding of the pass, else `name[index]`;
 *   3. `let|var NAME (: TYPE)? = MARKER;` makes NAME an alias: every whole-word NAME becomes the marker (at most
 *      8 rounds, for aliases of aliases);
 *   4. `( MARKER )` becomes the marker, until nothing changes;
 *   5. the source is refused when a marker is followed by `.`, `[` or an operator, preceded by an operator, or
 *      is the first argument of min, max, abs, clamp, bitcast, f32, i32 or u32 (with an optional `<...>`).
 * Operators: == != <= >= << >> and each of + * / % < > & | ^ ~ ! -.
 * Every character of the transformed text remembers where in the rendered WGSL it came from, so the refusal
 * names the template line of the offending element and its WGSL line and column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner_internal.h"

#define MARK "__opaque_int64_value__"
#define MARK_LEN (sizeof MARK - 1)

typedef struct text {
  char *s;    /* NUL-terminated */
  size_t *at; /* at[i]: offset in the rendered WGSL that s[i] came from */
  size_t n, cap;
  bool failed;
} text;

static void put(text *t, char c, size_t at) {
  if (t->failed) return;
  if (t->n + 2 > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    char *s = realloc(t->s, cap);
    if (s) t->s = s;
    size_t *a = s ? realloc(t->at, cap * sizeof *a) : NULL;
    if (!s || !a) {
      t->failed = true;
      return;
    }
    t->at = a;
    t->cap = cap;
  }
  t->s[t->n] = c;
  t->at[t->n++] = at;
  t->s[t->n] = '\0';
}

static void put_str(text *t, const char *s, size_t at) {
  for (; *s; s++) put(t, *s, at);
}

static void text_free(text *t) {
  free(t->s);
  free(t->at);
  *t = (text){0};
}

static bool is_word(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
static bool is_word_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool is_op(char c) { return c && strchr("+*/%<>&|^~!-", c) != NULL; }

static size_t skip_blanks(const text *t, size_t i) {
  while (i < t->n && is_blank(t->s[i])) i++;
  return i;
}

static bool mark_at(const text *t, size_t i) { return i + MARK_LEN <= t->n && memcmp(t->s + i, MARK, MARK_LEN) == 0; }

/* Step 1 (the loader's comment stripper). */
static void strip_comments(const char *src, text *out) {
  size_t n = strlen(src), i = 0;
  while (i < n) {
    if (src[i] == '/' && src[i + 1] == '/') {
      while (i < n && src[i] != '\n') i++;
      continue;
    }
    if (src[i] == '/' && src[i + 1] == '*') {
      int depth = 1;
      for (i += 2; i < n && depth > 0;) {
        if (src[i] == '/' && src[i + 1] == '*') {
          depth++;
          i += 2;
          continue;
        }
        if (src[i] == '*' && src[i + 1] == '/') {
          depth--;
          i += 2;
          continue;
        }
        if (src[i] == '\n') put(out, '\n', i);
        i++;
      }
      continue;
    }
    put(out, src[i], i);
    i++;
  }
}

static bool is_named(const char *name, size_t len, const char *const *names, size_t n_names) {
  for (size_t k = 0; k < n_names; k++)
    if (strlen(names[k]) == len && memcmp(names[k], name, len) == 0) return true;
  return false;
}

/* Step 2: every indexed access. */
static void mark_accesses(const text *in, const char *const *names, size_t n_names, text *out) {
  size_t i = 0;
  while (i < in->n) {
    size_t e = i;
    if (is_word_start(in->s[i])) {
      while (e < in->n && is_word(in->s[e])) e++;
      size_t b = skip_blanks(in, e);
      if (b < in->n && in->s[b] == '[') {
        size_t u = b + 1;
        for (int depth = 1; u < in->n && depth > 0; u++) depth += in->s[u] == '[' ? 1 : in->s[u] == ']' ? -1 : 0;
        if (is_named(in->s + i, e - i, names, n_names)) {
          put_str(out, MARK, in->at[i]);
        } else {
          for (size_t k = i; k < e; k++) put(out, in->s[k], in->at[k]);
          put_str(out, "[index]", in->at[b]);
        }
        i = u;
        continue;
      }
    }
    put(out, in->s[i], in->at[i]);
    i++;
  }
}

/* `let|var NAME (\s*:[^=;]+)? \s*=\s* MARK \s*;` at i: the end of the match and NAME, else 0. */
static size_t alias_at(const text *t, size_t i, size_t *name, size_t *name_len) {
  const char *s = t->s;
  if (i > 0 && is_word(s[i - 1])) return 0;
  if (strncmp(s + i, "let", 3) != 0 && strncmp(s + i, "var", 3) != 0) return 0;
  size_t j = i + 3;
  if (j >= t->n || !is_blank(s[j])) return 0;
  j = skip_blanks(t, j);
  if (j >= t->n || !is_word_start(s[j])) return 0;
  *name = j;
  while (j < t->n && is_word(s[j])) j++;
  *name_len = j - *name;
  size_t k = skip_blanks(t, j);
  if (k < t->n && s[k] == ':') {
    size_t m = k + 1;
    while (m < t->n && s[m] != '=' && s[m] != ';') m++;
    if (m == k + 1 || m >= t->n || s[m] != '=') return 0;
    j = m;
  }
  j = skip_blanks(t, j);
  if (j >= t->n || s[j] != '=') return 0;
  j = skip_blanks(t, j + 1);
  if (!mark_at(t, j)) return 0;
  j = skip_blanks(t, j + MARK_LEN);
  return j < t->n && s[j] == ';' ? j + 1 : 0;
}

static void replace_word(const text *in, const char *word, size_t len, text *out) {
  for (size_t i = 0; i < in->n;) {
    bool hit = (i == 0 || !is_word(in->s[i - 1])) && i + len <= in->n && memcmp(in->s + i, word, len) == 0 &&
               (i + len == in->n || !is_word(in->s[i + len]));
    if (hit) {
      put_str(out, MARK, in->at[i]);
      i += len;
      continue;
    }
    put(out, in->s[i], in->at[i]);
    i++;
  }
}

/* Step 3: aliases, at most 8 rounds. */
static void mark_aliases(text *t) {
  for (int round = 0; round < 8 && !t->failed; round++) {
    char **found = NULL;
    size_t n_found = 0;
    for (size_t i = 0; i < t->n;) {
      size_t name = 0, len = 0, end = alias_at(t, i, &name, &len);
      if (!end) {
        i++;
        continue;
      }
      if (!(len == MARK_LEN && memcmp(t->s + name, MARK, MARK_LEN) == 0)) {
        char **grown = realloc(found, (n_found + 1) * sizeof *grown);
        char *copy = grown ? strndup(t->s + name, len) : NULL;
        if (grown) found = grown;
        if (!copy) {
          t->failed = true;
          break;
        }
        found[n_found++] = copy;
      }
      i = end;
    }
    for (size_t k = 0; k < n_found && !t->failed; k++) {
      text next = {0};
      replace_word(t, found[k], strlen(found[k]), &next);
      if (next.failed)
        t->failed = true;
      else {
        text_free(t);
        *t = next;
      }
    }
    for (size_t k = 0; k < n_found; k++) free(found[k]);
    free(found);
    if (n_found == 0) break;
  }
}

/* Step 4: `( MARK )` -> MARK until nothing changes. */
static void unwrap_parens(text *t) {
  for (bool changed = true; changed && !t->failed;) {
    changed = false;
    text next = {0};
    for (size_t i = 0; i < t->n;) {
      if (t->s[i] == '(') {
        size_t j = skip_blanks(t, i + 1);
        if (mark_at(t, j)) {
          size_t k = skip_blanks(t, j + MARK_LEN);
          if (k < t->n && t->s[k] == ')') {
            put_str(&next, MARK, t->at[j]);
            i = k + 1;
            changed = true;
            continue;
          }
        }
      }
      put(&next, t->s[i], t->at[i]);
      i++;
    }
    if (next.failed) {
      t->failed = true;
      text_free(&next);
      break;
    }
    text_free(t);
    *t = next;
  }
}

static bool keyword_ends_at(const text *t, size_t e) {
  static const char *const kw[] = {"min", "max", "abs", "clamp", "bitcast", "f32", "i32", "u32"};
  for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++) {
    size_t len = strlen(kw[k]);
    if (e >= len && memcmp(t->s + e - len, kw[k], len) == 0 && (e == len || !is_word(t->s[e - len - 1]))) return true;
  }
  return false;
}

static size_t skip_blanks_back(const text *t, size_t i) {
  while (i > 0 && is_blank(t->s[i - 1])) i--;
  return i;
}

/* Step 5 for the marker at k. */
static bool refused_at(const text *t, size_t k) {
  const char *s = t->s;
  size_t a = skip_blanks(t, k + MARK_LEN);
  if (a < t->n && (s[a] == '.' || s[a] == '[' || is_op(s[a]) || (s[a] == '=' && s[a + 1] == '='))) return true;
  size_t b = skip_blanks_back(t, k);
  if (b > 0 && (is_op(s[b - 1]) || (s[b - 1] == '=' && b > 1 && strchr("=!<>", s[b - 2])))) return true;
  if (b == 0 || s[b - 1] != '(') return false;
  size_t e = skip_blanks_back(t, b - 1);
  if (e > 0 && s[e - 1] == '>') { /* min<T>( ... : a `<...>` with no '>' inside, not empty */
    for (size_t q = e - 1; q-- > 0 && s[q] != '>';)
      if (s[q] == '<' && q + 1 < e - 1 && keyword_ends_at(t, skip_blanks_back(t, q))) return true;
    return false;
  }
  return keyword_ends_at(t, e);
}

size_t plan_opaque_int64_scan(const char *wgsl, const char *const *names, size_t n_names) {
  text stripped = {0}, marked = {0};
  strip_comments(wgsl, &stripped);
  mark_accesses(&stripped, names, n_names, &marked);
  bool failed = stripped.failed || marked.failed;
  text_free(&stripped);
  if (!failed) mark_aliases(&marked);
  if (!failed) unwrap_parens(&marked);
  size_t where = marked.failed || failed ? (size_t)-2 : (size_t)-1;
  for (const char *m = marked.s ? strstr(marked.s, MARK) : NULL; m && where == (size_t)-1; m = strstr(m + 1, MARK))
    if (refused_at(&marked, (size_t)(m - marked.s))) where = marked.at[m - marked.s];
  text_free(&marked);
  return where;
}

/* The dtype a port has in this call: the caller's tensor, else the inferred output. */
static const char *port_dtype(const plan_call *call, const plan_result *plan, int port) {
  if (call->ports[port].present) return call->ports[port].dtype;
  for (size_t o = 0; o < plan->n_outputs; o++)
    if (plan->outputs[o].port == port) return plan->outputs[o].dtype;
  return NULL;
}

static bool same_ignoring_blanks(const char *a, const char *b) {
  for (;; a++, b++) {
    while (is_blank(*a)) a++;
    while (is_blank(*b)) b++;
    if (*a != *b) return false;
    if (!*a) return true;
  }
}

static wgk_status refuse(plan_planner *p, const plan_pass *pass, const char *const *names, size_t n_names, size_t where,
                         util_error *err) {
  const char *w = pass->wgsl;
  int line = 1, column = 1;
  size_t start = 0;
  for (size_t i = 0; i < where && w[i]; i++) {
    if (w[i] == '\n') {
      line++;
      column = 1;
      start = i + 1;
    } else
      column++;
  }
  size_t len = strcspn(w + start, "\n");
  const char *file = NULL;
  int tline = 0;
  bool mapped = tmpl_linemap_lookup(&pass->linemap, line - pass->wgsl_line_offset, &file, &tline);
  char bound[256] = "";
  for (size_t k = 0, used = 0; k < n_names && used + 1 < sizeof bound; k++) {
    int n = snprintf(bound + used, sizeof bound - used, "%s%s", k ? ", " : "", names[k]);
    if (n < 0) break;
    used += (size_t)n;
  }
  const manifest_pos *pos = &pass->source->pos;
  return util_error_at(
      err, WGK_ERR_SHADER,
      util_pos_make(mapped ? file : p->m->source, mapped ? tline : pos->line, mapped ? column : pos->column), pos->path,
      "pass %s: Opaque int64 storage permits whole-element copies and selection only; value arithmetic, "
      "comparisons, and word extraction are unsupported (opaque int64 bindings: %s; WGSL line %d, "
      "column %d of %s: `%.*s`)",
      pass->id ? pass->id : pass->source->id, bound, line, column, pass->label ? pass->label : "",
      (int)(len < 100 ? len : 100), w + start);
}

wgk_status plan_check_opaque_int64(plan_planner *p, const plan_call *call, const plan_result *plan, util_error *err) {
  for (size_t i = 0; i < plan->n_passes; i++) {
    const plan_pass *pass = &plan->passes[i];
    const char *names[64];
    size_t n_names = 0;
    for (size_t b = 0; b < pass->n_bindings; b++) {
      const plan_binding *pb = &pass->bindings[b];
      if (pb->buffer == WGK_BUFFER_UNIFORM || pb->port < 0) continue;
      const manifest_port *port = &p->m->ports[pb->port];
      const char *dtype = port_dtype(call, plan, pb->port);
      if (port->storage_dtype || !dtype || strcmp(dtype, "int64") != 0) continue;
      if (!same_ignoring_blanks(pb->wgsl_type, "vec2<u32>")) {
        const manifest_binding *mb = &pass->source->bindings->bindings[b];
        return plan_fail_at(err, WGK_ERR_CALL, p->m, &mb->pos,
                            "%s variant %s pass %s: int64 binding %s must use vec2<u32>, got %s (port %s is int64 "
                            "without a storage projection: its 8 bytes per element are bound unchanged)",
                            p->m->op_id, plan->variant->id, pass->id ? pass->id : pass->source->id, pb->name,
                            pb->wgsl_type, port->name);
      }
      if (n_names < sizeof names / sizeof names[0]) names[n_names++] = pb->name;
    }
    if (n_names == 0 || !pass->wgsl) continue;
    size_t where = plan_opaque_int64_scan(pass->wgsl, names, n_names);
    if (where == (size_t)-2) return util_error_oom(err, NULL, pass->source->id);
    if (where != (size_t)-1) return refuse(p, pass, names, n_names, where, err);
  }
  return WGK_OK;
}
