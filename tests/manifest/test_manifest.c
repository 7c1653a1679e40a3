#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest/manifest.h"
#include "test_manifest.h"

const char *test_source_dir(void) {
  const char *d = getenv("WGK_SOURCE_DIR");
  return d ? d : ".";
}

char *test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) {
    buf[n] = '\0';
    *len = (size_t)n;
  }
  return buf;
}

static manifest_model *load_valid(const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/manifest/valid/%s", test_source_dir(), file);
  manifest_model *m = NULL;
  util_error err;
  util_error_clear(&err);
  wgk_status st = manifest_load_file(path, &m, &err);
  if (st) {
    char buf[4096];
    util_error_format(&err, buf, sizeof buf);
    printf("%s\n", buf);
  }
  assert_int_equal(st, WGK_OK);
  assert_non_null(m);
  return m;
}

/* Line and column (1-based) where needle first occurs in the seed file, found independently of the loader. */
static void find_in_file(const char *file, const char *needle, int *line, int *column) {
  char path[1024];
  size_t len;
  snprintf(path, sizeof path, "%s/tests/manifest/valid/%s", test_source_dir(), file);
  char *text = test_read_file(path, &len);
  assert_non_null(text);
  char *hit = strstr(text, needle);
  assert_non_null(hit);
  *line = 1;
  const char *bol = text;
  for (const char *p = text; p < hit; p++)
    if (*p == '\n') {
      (*line)++;
      bol = p + 1;
    }
  *column = (int)(hit - bol) + 1;
  free(text);
}

/* wgk extension: a variant's intermediates and a binding that names one. */
static void intermediates_load(void **state) {
  (void)state;
  manifest_model *m = load_valid("intermediates.json");
  const manifest_variant *v = &m->variants[0];
  assert_int_equal(v->n_intermediates, 1);
  const manifest_intermediate *it = manifest_find_intermediate(v, "acc");
  assert_non_null(it);
  assert_string_equal(it->dtype, "float32");
  assert_true(it->shape_is_list);
  assert_int_equal(it->n_dims, 2);
  assert_string_equal(it->dims[0].text, "count");
  assert_string_equal(it->dims[1].text, "2");
  assert_true(it->zero_init);
  assert_null(manifest_find_intermediate(v, "nope"));
  assert_int_equal(v->n_passes, 2);
  const manifest_binding *b = &v->passes[1].bindings->bindings[1];
  assert_string_equal(b->intermediate, "acc");
  assert_null(b->port);
  assert_null(b->arg);
  assert_null(v->passes[0].bindings->bindings[0].intermediate);
  manifest_free(m);
}

static void seed_counts(void **state) {
  (void)state;
  manifest_model *m = load_valid("rotary-embedding.manifest.json");
  assert_string_equal(m->op_id, "ai.onnx.RotaryEmbedding");
  assert_int_equal(m->since_version, 23);
  assert_int_equal(m->n_ports, 5); /* 4 inputs + Y */
  assert_int_equal(m->n_variants, 4);
  assert_int_equal(m->n_binding_sets, 0); /* the seed's four sets are resolved into each pass */
  assert_int_equal(m->n_derives, 6);
  assert_int_equal(m->n_type_constraints, 2);
  assert_int_equal(m->n_tunables, 1);
  assert_int_equal(m->n_attributes, 3);
  assert_int_equal(m->n_scalar_args, 0);
  const char *derive_order[] = {"pairDispatchOk", "rank3HeadSize",    "rank3Contract",
                                "rank4Contract",  "rank3PosContract", "rank4PosContract"};
  for (size_t i = 0; i < 6; i++) assert_string_equal(m->derives[i].name, derive_order[i]);
  const char *variant_order[] = {"rank3_cache2_pos", "rank4_cache2_pos", "rank3_cache3", "rank4_cache3"};
  for (size_t i = 0; i < 4; i++) assert_string_equal(m->variants[i].id, variant_order[i]);
  manifest_free(m);
}

static void seed_ports(void **state) {
  (void)state;
  manifest_model *m = load_valid("rotary-embedding.manifest.json");
  const manifest_port *pos = manifest_find_bind_key(m, "positionIds");
  assert_non_null(pos);
  assert_string_equal(pos->name, "position_ids");
  assert_int_equal(pos->dir, WGK_PORT_INPUT);
  assert_int_equal(pos->onnx_input_index, 3);
  assert_true(pos->optional && pos->has_rank);
  assert_int_equal(pos->rank, 2);
  assert_null(pos->rank_expr.text);
  assert_string_equal(pos->storage_dtype, "uint32");
  assert_int_equal(pos->narrowing, WGK_NARROW_CHECKED);
  assert_int_equal(pos->n_dtypes, 1);
  assert_string_equal(pos->dtypes[0], "int64");
  const manifest_port *y = manifest_find_port(m, "Y");
  assert_int_equal(y->dir, WGK_PORT_OUTPUT);
  assert_int_equal(y->onnx_output_index, 0);
  assert_string_equal(y->rank_expr.text, "ranks.X");
  assert_string_equal(y->shape.text, "shapes.X");
  assert_int_equal(y->n_bind_keys, 1);
  assert_string_equal(y->bind_keys[0], "y");
  const manifest_port *x = manifest_find_port(m, "X");
  assert_false(x->has_rank || x->optional);
  assert_string_equal(x->type_var, "T");
  assert_int_equal(x->n_dtypes, 2);
  assert_null(x->storage_dtype);
  const manifest_attribute *nh = manifest_find_attribute(m, "num_heads");
  assert_null(nh->default_value);
  assert_non_null(strstr(nh->description, "attention heads"));
  const manifest_attribute *il = manifest_find_attribute(m, "interleaved");
  assert_int_equal(json_integer_value(il->default_value), 0);
  assert_int_equal(il->n_values, 2);
  assert_int_equal(json_integer_value(m->tunables[0].default_value), 256);
  manifest_free(m);
}

static void seed_bindings_and_passes(void **state) {
  (void)state;
  manifest_model *m = load_valid("rotary-embedding.manifest.json");
  const manifest_variant *v = manifest_find_variant(m, "rank3_cache2_pos");
  assert_int_equal(v->n_when, 2);
  assert_string_equal(v->when[0].text, "rank3PosContract");
  assert_int_equal(v->n_derive, 3);
  assert_string_equal(v->derive[1].name, "usesF16");
  assert_true(v->derive[1].is_expr);
  assert_string_equal(v->derive[1].expr.text, "dtypes.T == \"f16\"");
  assert_int_equal(v->n_passes, 1);
  const manifest_pass *p = &v->passes[0];
  assert_string_equal(p->shader, "rotary-embedding.wgsl.jinja");
  assert_int_equal(p->n_inputs, 2);
  assert_false(p->inputs[0].is_expr);
  assert_int_equal(json_integer_value(p->inputs[0].literal), 3);
  assert_true(p->inputs[1].is_expr);
  assert_string_equal(p->inputs[1].expr.text, "true");
  assert_string_equal(p->bindings->name, "rank3Pos");
  assert_int_equal(p->bindings->n_bindings, 6);
  const manifest_binding *b = &p->bindings->bindings[3];
  assert_string_equal(b->name, "position_ids");
  assert_string_equal(b->port->name, "position_ids");
  assert_string_equal(b->element_type, "$M");
  assert_int_equal(b->buffer, WGK_BUFFER_READ_ONLY_STORAGE);
  const manifest_binding *u = &p->bindings->bindings[5];
  assert_int_equal(u->buffer, WGK_BUFFER_UNIFORM);
  assert_null(u->port);
  assert_string_equal(u->struct_name, "Params");
  assert_int_equal(u->n_fields, 6);
  assert_int_equal(u->fields[3].type, WGK_SCALAR_U32);
  assert_string_equal(u->fields[3].value.text, "rank3HeadSize");
  assert_int_equal(p->bindings->bindings[4].buffer, WGK_BUFFER_STORAGE);
  assert_int_equal(p->dispatch.kind, WGK_DISPATCH_THREADS);
  assert_string_equal(p->dispatch.workgroup_size.text, "tunables.WORKGROUP_SIZE");
  manifest_free(m);
}

static void seed_positions(void **state) {
  (void)state;
  manifest_model *m = load_valid("rotary-embedding.manifest.json");
  int line, column;
  find_in_file("rotary-embedding.manifest.json", "f16Ok(dtypes.T) and ranks.X == 3 and ranks.cos_cache == 3", &line,
               &column);
  const manifest_derive *d = &m->derives[2];
  assert_string_equal(d->name, "rank3Contract");
  assert_int_equal(d->expr.pos.line, line);
  assert_int_equal(d->expr.pos.column, column);
  assert_int_equal(line, 65);
  assert_int_equal(column, 19);
  assert_string_equal(d->expr.pos.path, "derive.rank3Contract");
  const manifest_dispatch *dp = &m->variants[1].passes[0].dispatch;
  assert_string_equal(dp->threads.pos.path, "variants[1].passes[0].dispatch.threads");
  assert_int_equal(dp->threads.pos.line, 257);
  assert_int_equal(dp->threads.pos.column, 27);
  const manifest_binding_set *rank3 = m->variants[2].passes[0].bindings;
  assert_string_equal(rank3->name, "rank3");
  const manifest_field *f = &rank3->bindings[4].fields[6];
  assert_string_equal(f->value.pos.path, "bindingSets.rank3[4].struct.fields[6].value");
  assert_int_equal(f->value.pos.line, 104);
  assert_int_equal(f->value.pos.column, 11);
  assert_int_equal(m->variants[3].when[1].pos.line, 277);
  assert_string_equal(m->variants[3].when[1].pos.path, "variants[3].when[1]");
  manifest_free(m);
}

/* Adds "$comment": "note" to every object of v, at every depth (objects inside lists included). */
static void add_comments(json_t *v) {
  if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++) add_comments(json_array_get(v, i));
  } else if (json_is_object(v)) {
    const char *key;
    json_t *item;
    json_object_foreach(v, key, item) add_comments(item);
    json_object_set_new(v, "$comment", json_string("note"));
  }
}

static manifest_model *load_json(json_t *root, util_error *err) {
  char *text = json_dumps(root, JSON_INDENT(1));
  assert_non_null(text);
  manifest_model *m = NULL;
  util_error_clear(err);
  manifest_load_text(text, strlen(text), "c.json", &m, err);
  free(text);
  return m;
}

/* docs/loader-semantics.md rule 33: a spec 2.1 manifest's `$comment` keys are dropped wherever they stand; one that
 * is not a string is refused. test.EveryKey uses every key, so a comment lands in every kind of object. */
static void spec21_comments_everywhere(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/manifest/spec21/test.EveryKey/build/webgpu/manifest.json", test_source_dir());
  json_error_t jerr;
  json_t *root = json_load_file(path, 0, &jerr);
  assert_non_null(root);
  util_error err;
  manifest_model *plain = load_json(root, &err);
  assert_non_null(plain);
  add_comments(root);
  manifest_model *m = load_json(root, &err);
  if (!m) {
    char buf[4096];
    util_error_format(&err, buf, sizeof buf);
    printf("%s\n", buf);
  }
  assert_non_null(m);
  assert_int_equal(m->n_ports, plain->n_ports);
  assert_int_equal(m->n_attributes, plain->n_attributes);
  assert_int_equal(m->n_derives, plain->n_derives);
  assert_int_equal(m->n_variants, plain->n_variants);
  for (size_t i = 0; i < m->n_variants; i++) {
    assert_int_equal(m->variants[i].n_passes, plain->variants[i].n_passes);
    assert_int_equal(m->variants[i].n_derive, plain->variants[i].n_derive);
    for (size_t j = 0; j < m->variants[i].n_passes; j++) {
      const manifest_binding_set *a = m->variants[i].passes[j].bindings, *b = plain->variants[i].passes[j].bindings;
      assert_int_equal(a->n_bindings, b->n_bindings);
      for (size_t k = 0; k < a->n_bindings; k++) assert_int_equal(a->bindings[k].n_fields, b->bindings[k].n_fields);
    }
  }
  manifest_free(m);
  manifest_free(plain);
  /* A comment that is not a string is refused, naming where it stands. */
  json_t *v0 = json_array_get(json_object_get(root, "variants"), 0);
  json_object_set_new(v0, "$comment", json_integer(3));
  m = load_json(root, &err);
  assert_null(m);
  char buf[4096];
  util_error_format(&err, buf, sizeof buf);
  assert_non_null(strstr(buf, "variants[0].$comment: $comment must be a string, got an integer 3"));
  json_decref(root);
}

static void minimal_loads(void **state) {
  (void)state;
  manifest_model *m = load_valid("minimal.json");
  assert_string_equal(m->op_id, "test.Copy");
  assert_int_equal(m->n_ports, 3);
  assert_int_equal(m->variants[0].derive[1].is_expr, false);
  assert_int_equal(m->variants[0].passes[0].bindings->bindings[2].n_fields, 1);
  manifest_free(m);
}

static void inout_port_and_errors(void **state) {
  (void)state;
  const char *text =
      "{\"domain\":\"d\",\"name\":\"N\",\"inputs\":[{\"role\":\"K\",\"dtype\":\"T\"}],"
      "\"outputs\":[{\"role\":\"K\",\"dtype\":\"T\"}],\"typeConstraints\":{\"T\":[\"float32\"]},"
      "\"args\":{\"k\":{\"kind\":\"tensor\",\"semantic\":\"K\"},\"n\":{\"kind\":\"u32\",\"required\":true}},"
      "\"bindingSets\":{\"s\":[{\"name\":\"k\",\"arg\":\"k\",\"buffer\":{\"type\":\"storage\"},\"elementType\":\"f32\"}"
      "]},"
      "\"variants\":[{\"id\":\"v\",\"passes\":[{\"id\":\"p\",\"name\":\"p\",\"source\":{\"shader\":\"k.wgsl.jinja\"},"
      "\"bindings\":\"s\",\"dispatch\":{\"x\":\"4\",\"z\":2}}]}]}";
  manifest_model *m = NULL;
  util_error err;
  util_error_clear(&err);
  assert_int_equal(manifest_load_text(text, strlen(text), "t.json", &m, &err), WGK_OK);
  assert_int_equal(m->n_ports, 1);
  assert_int_equal(m->ports[0].dir, WGK_PORT_INOUT);
  assert_int_equal(m->n_scalar_args, 1);
  assert_string_equal(m->scalar_args[0].kind, "u32");
  const manifest_dispatch *d = &m->variants[0].passes[0].dispatch;
  assert_int_equal(d->kind, WGK_DISPATCH_XYZ);
  assert_string_equal(d->z.text, "2");
  assert_null(d->y.text);
  manifest_free(m);
  /* Missing files and bad arguments are errors, never crashes. */
  assert_int_equal(manifest_load_file("/nonexistent/manifest.json", &m, &err), WGK_ERR_NOT_FOUND);
  assert_null(m);
  util_error_clear(&err);
  /* Only a regular file is read: a device or a FIFO is refused before a byte is read (a FIFO hung before). */
  assert_int_equal(manifest_load_file("/dev/zero", &m, &err), WGK_ERR_IO);
  assert_non_null(strstr(err.message, "not a regular file"));
  util_error_clear(&err);
  char fifo[4096];
  snprintf(fifo, sizeof fifo, "%s/manifest-fifo-%d.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  assert_int_equal(mkfifo(fifo, 0600), 0);
  assert_int_equal(manifest_load_file(fifo, &m, &err), WGK_ERR_IO);
  assert_null(m);
  unlink(fifo);
  util_error_clear(&err);
  assert_int_equal(manifest_load_text("[1, 2]", 6, "a.json", &m, &err), WGK_ERR_MANIFEST);
  util_error_clear(&err);
  assert_int_equal(manifest_load_text("", 0, "a.json", &m, &err), WGK_ERR_PARSE);
  manifest_free(NULL);
}

/* Every prefix of the seed is either a parse error or (the whole text) a manifest: no crash, no leak. */
static void truncated_texts(void **state) {
  (void)state;
  char path[1024];
  size_t len;
  snprintf(path, sizeof path, "%s/tests/manifest/valid/minimal.json", test_source_dir());
  char *text = test_read_file(path, &len);
  assert_non_null(text);
  for (size_t n = 0; n < len; n += 7) {
    manifest_model *m = NULL;
    util_error err;
    util_error_clear(&err);
    wgk_status st = manifest_load_text(text, n, "m.json", &m, &err);
    assert_int_not_equal(st, WGK_OK);
    assert_null(m);
  }
  free(text);
}

/* Each byte of a valid manifest replaced by a few troublemakers: every result is a status, never a crash
 * (run under ASan+UBSan to see leaks and overflows), and a failure always leaves *out NULL. */
static void mutated_texts(void **state) {
  (void)state;
  char path[1024];
  size_t len;
  snprintf(path, sizeof path, "%s/tests/manifest/valid/minimal.json", test_source_dir());
  char *text = test_read_file(path, &len);
  assert_non_null(text);
  const char subs[] = "\"{}[]0x:,\\";
  for (size_t i = 0; i < len; i++) {
    char keep = text[i];
    for (const char *c = subs; *c; c++) {
      text[i] = *c;
      manifest_model *m = NULL;
      util_error err;
      util_error_clear(&err);
      if (manifest_load_text(text, len, "m.json", &m, &err) != WGK_OK) assert_null(m);
      manifest_free(m);
    }
    text[i] = keep;
  }
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(seed_counts),
      cmocka_unit_test(seed_ports),
      cmocka_unit_test(seed_bindings_and_passes),
      cmocka_unit_test(seed_positions),
      cmocka_unit_test(minimal_loads),
      cmocka_unit_test(spec21_comments_everywhere),
      cmocka_unit_test(inout_port_and_errors),
      cmocka_unit_test(truncated_texts),
      cmocka_unit_test(mutated_texts),
      cmocka_unit_test(intermediates_load),
      cmocka_unit_test(golden_invalid_cases),
      cmocka_unit_test(one_validator_same_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
