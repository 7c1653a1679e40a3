/* One validator (issue 38 item 1): the same mistake made in a seed-format manifest and in its spec 2.1 twin gets the
 * same rule text, each pointing into its own file. Every case edits both base texts; the expected line and column are
 * where a needle first occurs in the edited text (found here with strstr, not by the loader), and the expected JSON
 * path is the one of that text's own format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/manifest.h"
#include "test_manifest.h"

static const char seed_base[] =
    "{\n"
    "\"domain\": \"test\", \"name\": \"Copy\",\n"
    "\"inputs\": [ { \"role\": \"X\", \"dtype\": \"T\" } ],\n"
    "\"outputs\": [ { \"role\": \"Y\", \"dtype\": \"T\", \"shape\": \"shapes.X\" } ],\n"
    "\"typeConstraints\": { \"T\": [\"float32\"] },\n"
    "\"args\": { \"x\": { \"kind\": \"tensor\", \"semantic\": \"X\" }, \"y\": { \"kind\": \"tensor\", \"semantic\": "
    "\"Y\" } "
    "},\n"
    "\"tunables\": { \"WG\": 64 },\n"
    "\"bindingSets\": { \"s\": [\n"
    "  { \"name\": \"x\", \"arg\": \"x\", \"buffer\": { \"type\": \"read-only-storage\" }, \"elementType\": \"$T\" },\n"
    "  { \"name\": \"y\", \"arg\": \"y\", \"buffer\": { \"type\": \"storage\" }, \"elementType\": \"$T\" } ] },\n"
    "\"variants\": [ { \"id\": \"main\", \"passes\": [ { \"id\": \"copy\", \"name\": \"copy\",\n"
    "  \"source\": { \"shader\": \"copy.wgsl.jinja\" }, \"bindings\": \"s\",\n"
    "  \"dispatch\": { \"threads\": \"numel(shapes.X)\", \"workgroupSize\": \"tunables.WG\" } } ] } ]\n"
    "}\n";

static const char spec_base[] =
    "{\n"
    "\"domain\": \"test\", \"name\": \"Copy\",\n"
    "\"inputs\": { \"X\": { \"dtype\": \"T\" } },\n"
    "\"outputs\": { \"Y\": { \"dtype\": \"T\", \"shape\": \"shapes.X\" } },\n"
    "\"typeConstraints\": { \"T\": [\"float32\"] },\n"
    "\"tunables\": { \"WG\": { \"default\": 64 } },\n"
    "\"variants\": [ { \"id\": \"main\", \"passes\": [ { \"id\": \"copy\", \"shader\": \"copy.wgsl.jinja\",\n"
    "  \"bindings\": [\n"
    "  { \"name\": \"x\", \"arg\": \"X\", \"buffer\": \"read-only-storage\", \"elementType\": \"$T\" },\n"
    "  { \"name\": \"y\", \"arg\": \"Y\", \"buffer\": \"storage\", \"elementType\": \"$T\" } ],\n"
    "  \"dispatch\": { \"threads\": \"numel(shapes.X)\", \"workgroupSize\": \"tunables.WG\" } } ] } ]\n"
    "}\n";

/* One mistake: an edit of each base (from -> to, first occurrence), where its error must point, and the rule. */
typedef struct mistake {
  const char *what;
  const char *seed_from, *seed_to, *seed_needle, *seed_path;
  const char *spec_from, *spec_to, *spec_needle, *spec_path;
  int needle_offset; /* characters past the needle's start (an expression's text starts after its quote) */
  const char *rule;  /* the message after "file:line:column: path: " */
} mistake;

static const mistake mistakes[] = {
    {"a dtype no one knows", "[\"float32\"]", "[\"float32\", \"float64\"]", "\"float64\"", "typeConstraints.T[1]",
     "[\"float32\"]", "[\"float32\", \"float64\"]", "\"float64\"", "typeConstraints.T[1]", 0,
     "typeConstraints.T has unsupported logical dtype \"float64\" (known: float32 float16 int32 uint32 int64 int16 "
     "int8 uint8 bool)"},
    {"a buffer type misspelled", "\"read-only-storage\"", "\"readonly\"", "\"readonly\"",
     "bindingSets.s[0].buffer.type", "\"read-only-storage\"", "\"readonly\"", "\"readonly\"",
     "variants[0].passes[0].bindings[0].buffer", 0,
     "pass copy bindings[0].buffer must be read-only-storage, storage or uniform"},
    {"one WGSL name bound twice", "{ \"name\": \"y\"", "{ \"name\": \"x\"", "{ \"name\": \"x\", \"arg\": \"y\"",
     "bindingSets.s[1]", "{ \"name\": \"y\"", "{ \"name\": \"x\"", "{ \"name\": \"x\", \"arg\": \"Y\"",
     "variants[0].passes[0].bindings[1]", 0, "pass copy binds the WGSL name \"x\" twice"},
    {"a binding key misspelled", "\"elementType\": \"$T\" } ]", "\"elementTyp\": \"$T\" } ]", "\"elementTyp\"",
     "bindingSets.s[1].elementTyp", "\"elementType\": \"$T\" } ]", "\"elementTyp\": \"$T\" } ]", "\"elementTyp\"",
     "variants[0].passes[0].bindings[1].elementTyp", 0, "pass copy bindings[1] has unknown key 'elementTyp'"},
    {"a pinned axis in a dispatch shorthand", "\"tunables.WG\" }", "\"tunables.WG\", \"x\": 1 }", "\"x\": 1",
     "variants[0].passes[0].dispatch.x", "\"tunables.WG\" }", "\"tunables.WG\", \"x\": 1 }", "\"x\": 1",
     "variants[0].passes[0].dispatch.x", 0,
     "pass copy dispatch shorthand has unknown key 'x' (spec 2.0 has no pinned axes; write the explicit x/y/z grid)"},
    {"an unknown variant key", "{ \"id\": \"main\",", "{ \"id\": \"main\", \"colour\": 1,", "\"colour\"",
     "variants[0].colour", "{ \"id\": \"main\",", "{ \"id\": \"main\", \"colour\": 1,", "\"colour\"",
     "variants[0].colour", 0, "variant main has unknown key 'colour'"},
    {"a tunable default that is a list", "\"WG\": 64", "\"WG\": [64]", "[64]", "tunables.WG", "\"default\": 64",
     "\"default\": [64]", "[64]", "tunables.WG.default", 0,
     "tunables.WG.default must be a finite number, string or boolean"},
    {"a derive shadowing a scope name",
     "\"tunables\":", "\"derive\": { \"shapes\": \"1\" }, \"tunables\":", "\"shapes\": \"1\"", "derive.shapes",
     "\"tunables\":", "\"derive\": { \"shapes\": \"1\" }, \"tunables\":", "\"shapes\": \"1\"", "derive.shapes", 0,
     "derive.shapes would shadow a scope name templates and expressions already bind; rename the derive"},
    {"an expression that does not parse", "\"numel(shapes.X)\"", "\"numel(shapes.X\"", "\"numel(shapes.X\"",
     "variants[0].passes[0].dispatch.threads", "\"numel(shapes.X)\"", "\"numel(shapes.X\"", "\"numel(shapes.X\"",
     "variants[0].passes[0].dispatch.threads", 0, NULL},
    {"a default outside the allowed values", "\"tunables\":",
     "\"attributes\": { \"mode\": 2 }, \"attributeConstraints\": { \"mode\": { \"values\": [0, 1] } }, \"tunables\":",
     "[0, 1]", "attributeConstraints.mode.values", "\"tunables\":",
     "\"attributes\": { \"mode\": { \"default\": 2 } }, \"attributeConstraints\": { \"mode\": { \"values\": [0, 1] } "
     "}, \"tunables\":",
     "[0, 1]", "attributeConstraints.mode.values", 0,
     "default attribute mode=2 is not in attributeConstraints.mode.values"},
    {"a pass without dispatch",
     ",\n  \"dispatch\": { \"threads\": \"numel(shapes.X)\", \"workgroupSize\": \"tunables.WG\" }", "",
     "{ \"id\": \"copy\"", "variants[0].passes[0]",
     ",\n  \"dispatch\": { \"threads\": \"numel(shapes.X)\", \"workgroupSize\": \"tunables.WG\" }", "",
     "{ \"id\": \"copy\"", "variants[0].passes[0]", 0, "pass copy requires dispatch"},
};

/* base with its first `from` replaced by `to`. */
static char *edited(const char *base, const char *from, const char *to) {
  const char *hit = strstr(base, from);
  assert_non_null(hit);
  size_t n = strlen(base) - strlen(from) + strlen(to);
  char *out = malloc(n + 1);
  assert_non_null(out);
  snprintf(out, n + 1, "%.*s%s%s", (int)(hit - base), base, to, hit + strlen(from));
  return out;
}

/* "line:column" of the first occurrence of needle in text, plus offset characters (ASCII texts). */
static void where(const char *text, const char *needle, int offset, char *buf, size_t size) {
  const char *hit = strstr(text, needle);
  assert_non_null(hit);
  int line = 1;
  const char *bol = text;
  for (const char *p = text; p < hit; p++)
    if (*p == '\n') {
      line++;
      bol = p + 1;
    }
  snprintf(buf, size, "%d:%d", line, (int)(hit - bol) + 1 + offset);
}

/* Loads text (which must fail) and returns its formatted error. */
static void error_of(const char *text, const char *source, char *buf, size_t size) {
  manifest_model *m = NULL;
  util_error err;
  util_error_clear(&err);
  wgk_status st = manifest_load_text(text, strlen(text), source, &m, &err);
  manifest_free(m);
  util_error_format(&err, buf, size);
  if (st == WGK_OK) printf("%s loaded, but it holds a mistake:\n%s\n", source, text);
  assert_int_not_equal(st, WGK_OK);
}

/* "file:line:column: path: rule" -> the position and the path, and the rule. */
static void split(const char *msg, const char *source, char *pos, char *path, const char **rule) {
  size_t n = strlen(source);
  assert_true(strncmp(msg, source, n) == 0 && msg[n] == ':');
  const char *p = msg + n + 1;
  const char *colon = strchr(strchr(p, ':') + 1, ':');
  snprintf(pos, 32, "%.*s", (int)(colon - p), p);
  const char *q = colon + 2, *end = strstr(q, ": ");
  assert_non_null(end);
  snprintf(path, 256, "%.*s", (int)(end - q), q);
  *rule = end + 2;
}

void one_validator_same_rule(void **state) {
  (void)state;
  /* both bases load: the edits alone make the mistakes */
  char msg[4096];
  for (int f = 0; f < 2; f++) {
    manifest_model *m = NULL;
    util_error err;
    util_error_clear(&err);
    const char *base = f ? spec_base : seed_base;
    if (manifest_load_text(base, strlen(base), "base.json", &m, &err) != WGK_OK) {
      util_error_format(&err, msg, sizeof msg);
      printf("%s\n", msg);
    }
    assert_non_null(m);
    assert_int_equal(m->format, f ? WGK_MANIFEST_SPEC21 : WGK_MANIFEST_SEED);
    manifest_free(m);
  }
  for (size_t i = 0; i < sizeof mistakes / sizeof mistakes[0]; i++) {
    const mistake *c = &mistakes[i];
    char *seed = edited(seed_base, c->seed_from, c->seed_to), *spec = edited(spec_base, c->spec_from, c->spec_to);
    char seed_msg[4096], spec_msg[4096], seed_pos[32], spec_pos[32], seed_path[256], spec_path[256], want[32];
    const char *seed_rule, *spec_rule;
    error_of(seed, "seed.json", seed_msg, sizeof seed_msg);
    error_of(spec, "spec.json", spec_msg, sizeof spec_msg);
    printf("%s\n  seed: %s\n  spec: %s\n", c->what, seed_msg, spec_msg);
    split(seed_msg, "seed.json", seed_pos, seed_path, &seed_rule);
    split(spec_msg, "spec.json", spec_pos, spec_path, &spec_rule);
    assert_string_equal(seed_rule, spec_rule);
    if (c->rule) assert_string_equal(seed_rule, c->rule);
    where(seed, c->seed_needle, c->needle_offset, want, sizeof want);
    assert_string_equal(seed_pos, want);
    where(spec, c->spec_needle, c->needle_offset, want, sizeof want);
    assert_string_equal(spec_pos, want);
    assert_string_equal(seed_path, c->seed_path);
    assert_string_equal(spec_path, c->spec_path);
    free(seed);
    free(spec);
  }
}
