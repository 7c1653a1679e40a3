/* How values print: `{{ v }}`, JavaScript number text, and the oracle's JSON form. */
#include "expr/value_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest decimal digits that read back to d (d finite, > 0): digits in dig, returns the decimal exponent
 * n such that d = 0.dig * 10^n. This is what JavaScript's Number::toString is defined by. */
static int shortest_digits(double d, char *dig, size_t size) {
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (strtod(buf, NULL) == d || prec == 17) break;
  }
  /* buf is "D.DDDDe[+-]XX" */
  size_t k = 0;
  const char *p = buf;
  for (; *p && *p != 'e'; p++)
    if (*p != '.' && k + 1 < size) dig[k++] = *p;
  while (k > 1 && dig[k - 1] == '0') k--;
  dig[k] = '\0';
  return atoi(p + 1) + 1;
}

bool expr_value_print_js_number(double d, util_dynbuf *out) {
  if (isnan(d)) return util_dynbuf_append_str(out, "NaN");
  if (isinf(d)) return util_dynbuf_append_str(out, d < 0 ? "-Infinity" : "Infinity");
  if (d == 0) return util_dynbuf_append_str(out, "0"); /* -0 prints as 0 too */
  if (d < 0) util_dynbuf_append_char(out, '-');
  char dig[32];
  int n = shortest_digits(fabs(d), dig, sizeof dig);
  int k = (int)strlen(dig);
  if (k <= n && n <= 21) {
    util_dynbuf_append_str(out, dig);
    for (int i = k; i < n; i++) util_dynbuf_append_char(out, '0');
  } else if (0 < n && n <= 21) {
    util_dynbuf_append(out, dig, (size_t)n);
    util_dynbuf_append_char(out, '.');
    util_dynbuf_append_str(out, dig + n);
  } else if (-6 < n && n <= 0) {
    util_dynbuf_append_str(out, "0.");
    for (int i = 0; i < -n; i++) util_dynbuf_append_char(out, '0');
    util_dynbuf_append_str(out, dig);
  } else {
    util_dynbuf_append_char(out, dig[0]);
    if (k > 1) {
      util_dynbuf_append_char(out, '.');
      util_dynbuf_append_str(out, dig + 1);
    }
    util_dynbuf_printf(out, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
  }
  return !out->failed;
}

/* A float as the oracle's FloatValue.toString: whole numbers get ".0" (toFixed(1)), -0 is "-0.0". */
static bool print_float(double d, util_dynbuf *out) {
  if (d == 0 && signbit(d)) return util_dynbuf_append_str(out, "-0.0");
  if (isfinite(d) && d == floor(d) && fabs(d) < 1e21) return util_dynbuf_printf(out, "%.1f", d);
  return expr_value_print_js_number(d, out);
}

static bool json_string(const char *s, size_t len, util_dynbuf *out) {
  util_dynbuf_append_char(out, '"');
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"':
      util_dynbuf_append_str(out, "\\\"");
      break;
    case '\\':
      util_dynbuf_append_str(out, "\\\\");
      break;
    case '\n':
      util_dynbuf_append_str(out, "\\n");
      break;
    case '\r':
      util_dynbuf_append_str(out, "\\r");
      break;
    case '\t':
      util_dynbuf_append_str(out, "\\t");
      break;
    case '\b':
      util_dynbuf_append_str(out, "\\b");
      break;
    case '\f':
      util_dynbuf_append_str(out, "\\f");
      break;
    default:
      if (c < 0x20)
        util_dynbuf_printf(out, "\\u%04x", c);
      else
        util_dynbuf_append_char(out, (char)c);
    }
  }
  return util_dynbuf_append_char(out, '"');
}

static void newline_indent(util_dynbuf *out, int indent, int depth) {
  util_dynbuf_append_char(out, '\n');
  for (int i = 0; i < indent * depth; i++) util_dynbuf_append_char(out, ' ');
}

#define WGK_PRINT_MAX_DEPTH 100 /* nesting printed before giving up (values can't be cyclic, but can be deep) */

bool expr_print_json(const expr_value *v, util_dynbuf *out, int indent, int depth, bool undefined_as_null,
                     util_error *err) {
  if (depth > WGK_PRINT_MAX_DEPTH) {
    util_error_plain(err, WGK_ERR_LIMIT, "value nested too deeply to print (limit is %d)", WGK_PRINT_MAX_DEPTH);
    return false;
  }
  switch (expr_value_kind_of(v)) {
  case WGK_VALUE_UNDEFINED:
    return util_dynbuf_append_str(out, undefined_as_null ? "null" : "undefined");
  case WGK_VALUE_NONE:
    return util_dynbuf_append_str(out, "null");
  case WGK_VALUE_BOOL:
    return util_dynbuf_append_str(out, v->u.b ? "true" : "false");
  case WGK_VALUE_INT:
    return expr_value_print_js_number((double)v->u.i, out);
  case WGK_VALUE_FLOAT:
    if (!isfinite(v->u.d)) return util_dynbuf_append_str(out, "null"); /* JSON.stringify(NaN) */
    return expr_value_print_js_number(v->u.d, out);
  case WGK_VALUE_STRING:
    return json_string(v->u.str.s, v->u.str.len, out);
  case WGK_VALUE_FUNC:
    util_error_plain(err, WGK_ERR_EVAL, "cannot convert a function to JSON");
    return false;
  case WGK_VALUE_LIST:
  case WGK_VALUE_DICT:
    break;
  }
  bool list = v->kind == WGK_VALUE_LIST;
  size_t n = expr_value_len(v);
  util_dynbuf_append_char(out, list ? '[' : '{');
  for (size_t i = 0; i < n; i++) {
    if (i) util_dynbuf_append_str(out, indent ? "," : ", ");
    if (indent) newline_indent(out, indent, depth + 1);
    if (!list) {
      json_string(v->u.dict.keys[i], strlen(v->u.dict.keys[i]), out);
      util_dynbuf_append_str(out, ": ");
    }
    const expr_value *item = list ? v->u.list.items[i] : v->u.dict.vals[i];
    if (!expr_print_json(item, out, indent, depth + 1, undefined_as_null, err)) return false;
  }
  /* The oracle pads an empty list as "[\n<child indent>\n]" but an empty dict as "{\n}". */
  if (indent && !n && list) newline_indent(out, indent, depth + 1);
  if (indent) newline_indent(out, indent, depth);
  return util_dynbuf_append_char(out, list ? ']' : '}');
}

bool expr_value_print(const expr_value *v, util_dynbuf *out) {
  switch (expr_value_kind_of(v)) {
  case WGK_VALUE_UNDEFINED:
  case WGK_VALUE_NONE:
    return !out->failed;
  case WGK_VALUE_BOOL:
    return util_dynbuf_append_str(out, v->u.b ? "true" : "false");
  case WGK_VALUE_INT:
    return expr_value_print_js_number((double)v->u.i, out);
  case WGK_VALUE_FLOAT:
    return print_float(v->u.d, out);
  case WGK_VALUE_STRING:
    return util_dynbuf_append(out, v->u.str.s, v->u.str.len);
  case WGK_VALUE_FUNC:
    return util_dynbuf_printf(out, "<function %s>", v->u.func.name);
  default:
    return expr_print_json(v, out, 0, 0, false, NULL);
  }
}

bool expr_print_raw(const expr_value *v, util_dynbuf *out) {
  switch (expr_value_kind_of(v)) {
  case WGK_VALUE_FLOAT:
    return expr_value_print_js_number(v->u.d, out);
  case WGK_VALUE_LIST: /* String(array of runtime values): items' own toString joined by "," */
    for (size_t i = 0; i < v->u.list.len; i++) {
      if (i) util_dynbuf_append_char(out, ',');
      const expr_value *item = v->u.list.items[i];
      if (item->kind == WGK_VALUE_NONE)
        util_dynbuf_append_str(out, "null");
      else if (item->kind == WGK_VALUE_UNDEFINED)
        util_dynbuf_append_str(out, "undefined");
      else
        expr_value_print(item, out);
    }
    return !out->failed;
  case WGK_VALUE_DICT:
    return util_dynbuf_append_str(out, "[object Map]");
  case WGK_VALUE_NONE:
    return util_dynbuf_append_str(out, "null");
  case WGK_VALUE_UNDEFINED:
    return util_dynbuf_append_str(out, "undefined");
  default:
    return expr_value_print(v, out);
  }
}
