/* Templates: oracle-checked statements and whitespace rules, includes, errors with positions, line map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/template.h"

typedef struct {
  const char *text, *want;
} tmpl_case;

static const tmpl_case oracle_cases[] = {
#include "template/oracle_cases.inc"
};

/* An in-memory package: name -> text pairs. */
typedef struct {
  const char *const *files;
} mem_pkg;

static wgk_status mem_load(void *ud, const char *path, char **text, size_t *len, util_error *err) {
  const mem_pkg *p = ud;
  for (size_t i = 0; p->files[i]; i += 2)
    if (!strcmp(p->files[i], path)) {
      *text = strdup(p->files[i + 1]);
      *len = strlen(p->files[i + 1]);
      return WGK_OK;
    }
  return util_error_plain(err, WGK_ERR_NOT_FOUND, "no file '%s'", path);
}

static expr_value *scope(void) {
  expr_value *s = expr_value_dict(), *d = expr_value_dict();
  assert_true(expr_value_dict_set(d, "a", expr_value_int(1)));
  assert_true(expr_value_dict_set(d, "b", expr_value_int(2)));
  assert_true(expr_value_dict_set(s, "d", d));
  return s;
}

static wgk_status render(const char *const *files, const char *name, util_dynbuf *out, tmpl_linemap *map,
                         util_error *err) {
  mem_pkg pkg = {files};
  tmpl_loader loader = {mem_load, &pkg, NULL};
  expr_value *s = scope();
  wgk_status st = tmpl_render(name, &loader, s, out, map, err);
  expr_value_release(s);
  return st;
}

static void test_oracle_cases(void **state) {
  (void)state;
  int failures = 0;
  for (size_t i = 0; i < sizeof oracle_cases / sizeof oracle_cases[0]; i++) {
    const char *files[] = {"t.jinja", oracle_cases[i].text, NULL};
    util_error err;
    util_error_clear(&err);
    util_dynbuf out;
    util_dynbuf_init(&out, 0);
    wgk_status st = render(files, "t.jinja", &out, NULL, &err);
    const char *want = oracle_cases[i].want;
    if (want ? st != WGK_OK || strcmp(want, util_dynbuf_str(&out)) : st == WGK_OK) {
      failures++;
      print_message("FAIL %s: got %s (%s)\n", oracle_cases[i].text, util_dynbuf_str(&out), err.message);
    }
    util_dynbuf_free(&out);
  }
  assert_int_equal(failures, 0);
}

static void expect(const char *const *files, const char *name, const char *want_out, const char *want_err) {
  util_error err;
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  wgk_status st = render(files, name, &out, NULL, &err);
  char buf[4096];
  util_error_format(&err, buf, sizeof buf);
  if (want_err) {
    if (st == WGK_OK || strcmp(buf, want_err)) print_message("got: %s\n", st == WGK_OK ? util_dynbuf_str(&out) : buf);
    assert_int_not_equal(st, WGK_OK);
    assert_string_equal(buf, want_err);
  } else {
    if (st != WGK_OK) print_message("error: %s\n", buf);
    assert_int_equal(st, WGK_OK);
    assert_string_equal(util_dynbuf_str(&out), want_out);
  }
  util_dynbuf_free(&out);
}

static void test_includes(void **state) {
  (void)state;
  const char *ok[] = {"main.jinja", "a\n{% include \"lib/x.jinja\" %}\nb", "lib/x.jinja", "X{{ d.a }}\n", NULL};
  expect(ok, "main.jinja", "a\nX1\nb", NULL); /* the loader keeps the included file's final newline */
  /* "./x" is relative to the including file, "a/../b" normalized; a tag inside a line keeps its surroundings */
  const char *rel[] = {"k/main.jinja", "{% include './lib/../y.jinja' %}|{% include \"k/y.jinja\" %}.", "k/y.jinja",
                       "Y", NULL};
  expect(rel, "k/main.jinja", "Y|Y.", NULL);
  const char *indented[] = {"m.jinja", "a\n  {% include 'z.jinja' %}  \nb", "z.jinja", "Z\n", NULL};
  expect(indented, "m.jinja", "a\nZ\nb", NULL);
  const char *cycle[] = {"a.jinja", "{% include 'b.jinja' %}", "b.jinja", "x\n{% include 'a.jinja' %}", NULL};
  expect(cycle, "a.jinja", NULL, "b.jinja:2:1: include cycle: a.jinja -> b.jinja -> a.jinja");
  const char *escape[] = {"a.jinja", "{% include '../secret' %}", NULL};
  expect(escape, "a.jinja", NULL, "a.jinja:1:1: include path '../secret' escapes the package root");
  const char *absolute[] = {"a.jinja", "{% include '/etc/passwd' %}", NULL};
  expect(absolute, "a.jinja", NULL,
         "a.jinja:1:1: no file 'etc/passwd'"); /* the loader: a leading '/' is an empty segment, dropped */
  const char *missing[] = {"a.jinja", "ok\n {% include 'nope.jinja' %}", NULL};
  expect(missing, "a.jinja", NULL, "a.jinja:2:2: no file 'nope.jinja'");
  /* the loader's tag pattern {%\s*include\s+["']([^"']+)["']\s*%}: whitespace of any kind, line ends
   * included (the lines after such a tag still count right), either quote at either end */
  const char *spaced[] = {"a.jinja", "A{%include\n 'y.jinja'\n%}B\n{{ nope.x }}", "y.jinja", "Y", NULL};
  expect(spaced, "a.jinja", NULL, "a.jinja:4:4: unknown name 'nope'");
  const char *quotes[] = {"a.jinja", "A{% include \"y.jinja' %}B", "y.jinja", "Y", NULL};
  expect(quotes, "a.jinja", "AYB", NULL);
  /* a tag with whitespace control is no include for the loader, and its Jinja knows no include statement */
  const char *dash[] = {"a.jinja", "A\n{%- include 'y.jinja' %}B", "y.jinja", "Y", NULL};
  expect(dash, "a.jinja", NULL, "a.jinja:2:5: unknown or unexpected statement 'include'");
  const char *dash2[] = {"a.jinja", "A{% include 'y.jinja' -%}\nB", "y.jinja", "Y", NULL};
  expect(dash2, "a.jinja", NULL, "a.jinja:1:5: unknown or unexpected statement 'include'");
}

/* An error whose text contains want (the position aside). */
static void expect_err_has(const char *const *files, const char *name, const char *want) {
  util_error err;
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  wgk_status st = render(files, name, &out, NULL, &err);
  char buf[4096];
  util_error_format(&err, buf, sizeof buf);
  if (st == WGK_OK || !strstr(buf, want)) print_message("got: %s\nwanted: %s\n", st == WGK_OK ? "success" : buf, want);
  assert_int_not_equal(st, WGK_OK);
  assert_non_null(strstr(buf, want));
  util_dynbuf_free(&out);
}

/* Include expansion is bounded (issue 37, hang 1): a DAG of includes (each file twice the next, 2^16
 * expansions at the depth bound) stops at the include-count bound; the expanded bytes stop at their bound. */
static void test_include_bounds(void **state) {
  (void)state;
  enum { N = 16 };
  static char names[N][16], texts[N][64];
  const char *files[2 * N + 1];
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "f%d.jinja", i);
    if (i + 1 < N)
      snprintf(texts[i], sizeof texts[i], "{%% include 'f%d.jinja' %%}{%% include 'f%d.jinja' %%}", i + 1, i + 1);
    else
      snprintf(texts[i], sizeof texts[i], "x");
    files[2 * i] = names[i];
    files[2 * i + 1] = texts[i];
  }
  files[2 * N] = NULL;
  expect_err_has(files, "f0.jinja", "more than 4096 includes expanded in one template");
  size_t big = WGK_TMPL_MAX_SIZE - 16;
  char *text = malloc(big + 1);
  assert_non_null(text);
  memset(text, 'y', big);
  text[big] = 0;
  const char *bytes[] = {"m.jinja", "{% include 'b.jinja' %}{% include 'b.jinja' %}{% include 'b.jinja' %}", "b.jinja",
                         text, NULL};
  expect_err_has(bytes, "m.jinja", "template with its includes expanded is over 8 MiB (8388608 bytes)");
  free(text);
}

static void test_errors(void **state) {
  (void)state;
  const char *unclosed[] = {"t.jinja", "a\n\n{% for x in [1] %}\n{{ x }}\n", NULL};
  expect(unclosed, "t.jinja", NULL, "t.jinja:4:8: 'endfor' expected (to close 'for' at line 3)");
  const char *unclosed_if[] = {"t.jinja", "{% if true %}{% else %}x", NULL};
  expect(unclosed_if, "t.jinja", NULL, "t.jinja:1:25: 'endif' expected (to close 'if' at line 1)");
  const char *unknown[] = {"t.jinja", "line\n  x {{ 1 + foo }}", NULL};
  expect(unknown, "t.jinja", NULL, "t.jinja:2:12: unknown name 'foo'");
  const char *stray[] = {"t.jinja", "{% endif %}", NULL};
  expect(stray, "t.jinja", NULL, "t.jinja:1:4: unknown or unexpected statement 'endif'");
  const char *unterminated[] = {"t.jinja", "{{ 1 + 2", NULL};
  expect(unterminated, "t.jinja", NULL, "t.jinja:1:9: '}}' expected near 'end of template'");
  const char *comment[] = {"t.jinja", "a {# never closed", NULL};
  expect(comment, "t.jinja", NULL, "t.jinja:1:3: unclosed comment");
  const char *raw[] = {"t.jinja", "{% raw %}{{ x }}{% endraw %}", NULL};
  expect(raw, "t.jinja", "{{ x }}", NULL);
  const char *ns[] = {
      "t.jinja", "{% set ns = namespace(n=0) %}{% for i in [1, 2] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}",
      NULL};
  expect(ns, "t.jinja", "3", NULL);
  const char *ns_dict[] = {"t.jinja", "{% set d = {'a': 1} %}{% set d.a = 2 %}", NULL};
  expect(ns_dict, "t.jinja", NULL, "t.jinja:1:23: cannot assign an attribute of a non-namespace object");
  const char *ns_cycle[] = {"t.jinja", "{% set ns = namespace() %}{% set ns.me = {'x': [ns]} %}", NULL};
  expect(ns_cycle, "t.jinja", NULL, "t.jinja:1:27: cannot store a namespace inside itself");
  const char *loop[] = {"t.jinja", "{% for i in range(2000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}",
                        NULL};
  expect(loop, "t.jinja", NULL, "t.jinja:1:27: too many loop iterations (limit is 1000000)");
  /* Every template error carries line:column (an unclosed raw once said "at line " with no number). */
  const char *raw_open[] = {"t.jinja", "a\n{% raw %}\n{{ x }}", NULL};
  expect(raw_open, "t.jinja", NULL, "t.jinja:3:8: 'endraw' expected (to close 'raw' at line 2)");
  const char *long_set[] = {"t.jinja",
                            "x\n{% set s %}{% for i in range(1000000) "
                            "%}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endset %}",
                            NULL};
  expect(long_set, "t.jinja", NULL, "t.jinja:2:41: output too long (limit is 16 MiB)");
  /* break / continue outside a for loop are refused where they stand (they were accepted and did nothing). */
  const char *brk[] = {"t.jinja", "a\n  {% break %}", NULL};
  expect(brk, "t.jinja", NULL, "t.jinja:2:3: 'break' outside a for loop");
  const char *cont[] = {"t.jinja", "{% if true %}{% continue %}{% endif %}", NULL};
  expect(cont, "t.jinja", NULL, "t.jinja:1:14: 'continue' outside a for loop");
  const char *in_loop[] = {"t.jinja",
                           "{% for i in [1, 2, 3] %}{% if i == 2 %}{% break %}{% endif %}{{ i }}{% endfor %}", NULL};
  expect(in_loop, "t.jinja", "1", NULL);
  const char *rec[] = {"t.jinja", "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", NULL};
  util_error err;
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  assert_int_equal(render(rec, "t.jinja", &out, NULL, &err), WGK_ERR_LIMIT);
  util_dynbuf_free(&out);
}

static void test_linemap(void **state) {
  (void)state;
  const char *files[] = {"main.jinja",
                         "// top\n{% if true %}\nfn a() {}\n{% include 'inc.jinja' %}\n{% endif %}\n{{ 'x' }}\n",
                         "inc.jinja", "// inc 1\n// inc 2\n", NULL};
  util_error err;
  util_error_clear(&err);
  util_dynbuf out;
  util_dynbuf_init(&out, 0);
  tmpl_linemap map;
  tmpl_linemap_init(&map);
  assert_int_equal(render(files, "main.jinja", &out, &map, &err), WGK_OK);
  /* As the public loader: the tag's line is replaced by the file, its final newline kept. */
  assert_string_equal(util_dynbuf_str(&out), "// top\nfn a() {}\n// inc 1\n// inc 2\nx");
  const char *file;
  int line;
  assert_true(tmpl_linemap_lookup(&map, 1, &file, &line));
  assert_string_equal(file, "main.jinja");
  assert_int_equal(line, 1);
  assert_true(tmpl_linemap_lookup(&map, 2, &file, &line));
  assert_int_equal(line, 3);
  assert_true(tmpl_linemap_lookup(&map, 4, &file, &line));
  assert_string_equal(file, "inc.jinja");
  assert_int_equal(line, 2);
  assert_true(tmpl_linemap_lookup(&map, 5, &file, &line));
  assert_string_equal(file, "main.jinja");
  assert_int_equal(line, 6);
  assert_false(tmpl_linemap_lookup(&map, 6, &file, &line));
  tmpl_linemap_free(&map);
  util_dynbuf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_oracle_cases), cmocka_unit_test(test_includes), cmocka_unit_test(test_include_bounds),
      cmocka_unit_test(test_errors),       cmocka_unit_test(test_linemap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
