/* ONNX reader against the onnx python package: every conformance model described the same way by both sides,
 * every .pb tensor equal to onnx.numpy_helper.to_array, plus typed-field tensors of every dtype. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "onnx/onnx_reader.h"
#include "testkit.h"
#include "util/dynbuf.h"
#include "util/npy.h"

/* The canonical description, one fact per line. Python prints the same from onnx's own parser. */
static const char *PY_DESCRIBE =
    "import sys, onnx\n"
    "from onnx import AttributeProto as A\n"
    "m = onnx.load(sys.argv[1])\n"
    "g = m.graph\n"
    "print('ir', m.ir_version)\n"
    "for o in m.opset_import: print('opset', repr(o.domain), o.version)\n"
    "print('nodes', len(g.node))\n"
    "def f(x): return '%.9g' % x\n"
    "for n in g.node:\n"
    "  print('node', n.op_type, repr(n.domain), ','.join(n.input), ','.join(n.output))\n"
    "  for a in n.attribute:\n"
    "    t = a.type\n"
    "    v = {A.INT: lambda: str(a.i), A.FLOAT: lambda: f(a.f), A.STRING: lambda: repr(a.s.decode()),\n"
    "         A.INTS: lambda: ','.join(str(i) for i in a.ints), A.FLOATS: lambda: ','.join(f(x) for x in a.floats),\n"
    "         A.TENSOR: lambda: 'tensor %d %s' % (a.t.data_type, list(a.t.dims))}.get(t, lambda: '')()\n"
    "    print('attr', a.name, t, v)\n"
    "def vi(kind, v):\n"
    "  tt = v.type.tensor_type\n"
    "  dims = [d.dim_value if d.HasField('dim_value') else -1 for d in tt.shape.dim]\n"
    "  print(kind, v.name, tt.elem_type, dims if tt.HasField('shape') else 'noshape')\n"
    "for v in g.input: vi('input', v)\n"
    "for v in g.output: vi('output', v)\n"
    "for t in g.initializer: print('init', t.name, t.data_type, list(t.dims))\n";

static void dims_text(util_dynbuf *b, int rank, const int64_t *dims) {
  util_dynbuf_append_char(b, '[');
  for (int i = 0; i < rank; i++) util_dynbuf_printf(b, "%s%lld", i ? ", " : "", (long long)dims[i]);
  util_dynbuf_append_char(b, ']');
}

static void attr_text(util_dynbuf *b, const onnx_attr *a) {
  util_dynbuf_printf(b, "attr %s %d ", a->name, (int)a->type);
  switch (a->type) {
  case WGK_ONNX_ATTR_INT:
    util_dynbuf_printf(b, "%lld", (long long)a->i);
    break;
  case WGK_ONNX_ATTR_FLOAT:
    util_dynbuf_printf(b, "%.9g", a->f);
    break;
  case WGK_ONNX_ATTR_STRING:
    util_dynbuf_printf(b, "'%s'", a->s);
    break;
  case WGK_ONNX_ATTR_INTS:
    for (size_t i = 0; i < a->n; i++) util_dynbuf_printf(b, "%s%lld", i ? "," : "", (long long)a->ints[i]);
    break;
  case WGK_ONNX_ATTR_FLOATS:
    for (size_t i = 0; i < a->n; i++) util_dynbuf_printf(b, "%s%.9g", i ? "," : "", a->floats[i]);
    break;
  case WGK_ONNX_ATTR_TENSOR:
    util_dynbuf_printf(b, "tensor %d ", util_dtype_to_onnx(a->t->dtype));
    dims_text(b, a->t->rank, a->t->dims);
    break;
  default:
    break;
  }
  util_dynbuf_append_char(b, '\n');
}

static void names_text(util_dynbuf *b, char **names, size_t n) {
  for (size_t i = 0; i < n; i++) util_dynbuf_printf(b, "%s%s", i ? "," : "", names[i] ? names[i] : "");
}

static void value_text(util_dynbuf *b, const char *kind, const onnx_value_info *v) {
  util_dynbuf_printf(b, "%s %s %d ", kind, v->name, v->elem_type);
  if (v->rank < 0)
    util_dynbuf_append_str(b, "noshape");
  else
    dims_text(b, v->rank, v->dims);
  util_dynbuf_append_char(b, '\n');
}

static char *describe(const onnx_model *m) {
  util_dynbuf b;
  util_dynbuf_init(&b, 1 << 20);
  util_dynbuf_printf(&b, "ir %lld\n", (long long)m->ir_version);
  for (size_t i = 0; i < m->n_opsets; i++)
    util_dynbuf_printf(&b, "opset '%s' %lld\n", m->opsets[i].domain, (long long)m->opsets[i].version);
  util_dynbuf_printf(&b, "nodes %zu\n", m->node_count);
  for (size_t k = 0; k < m->node_count; k++) {
    const onnx_node *n = &m->nodes[k];
    util_dynbuf_printf(&b, "node %s '%s' ", n->op_type, n->domain);
    names_text(&b, n->inputs, n->n_inputs);
    util_dynbuf_append_char(&b, ' ');
    names_text(&b, n->outputs, n->n_outputs);
    util_dynbuf_append_char(&b, '\n');
    for (size_t i = 0; i < n->n_attrs; i++) attr_text(&b, &n->attrs[i]);
  }
  for (size_t i = 0; i < m->n_inputs; i++) value_text(&b, "input", &m->inputs[i]);
  for (size_t i = 0; i < m->n_outputs; i++) value_text(&b, "output", &m->outputs[i]);
  for (size_t i = 0; i < m->n_initializers; i++) {
    const util_host_tensor *t = m->initializers[i];
    util_dynbuf_printf(&b, "init %s %d ", t->name ? t->name : "", util_dtype_to_onnx(t->dtype));
    dims_text(&b, t->rank, t->dims);
    util_dynbuf_append_char(&b, '\n');
  }
  char *s = util_dynbuf_take(&b);
  util_dynbuf_free(&b);
  return s;
}

/* Each case folder's names, sorted. */
static size_t list_cases(const char *root, char names[][256], size_t max) {
  DIR *d = opendir(root);
  size_t n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) && n < max)
    if (strncmp(e->d_name, "test_", 5) == 0) snprintf(names[n++], 256, "%s", e->d_name);
  if (d) closedir(d);
  qsort(names, n, 256, (int (*)(const void *, const void *))strcmp);
  return n;
}

static void models_match_onnx(void **state) {
  (void)state;
  const char *root = testkit_conformance_dir();
  if (!testkit_python())
    wgk_skip("python3 with numpy and onnx not found (scripts/bootstrap.sh installs python3-numpy, python3-onnx)");
  root = testkit_path(root, "onnx-node-tests");
  char names[64][256];
  size_t n = list_cases(root, names, 64), singles = 0;
  assert_int_equal(n, 16);
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/model.onnx", root, names[i]);
    util_error e;
    util_error_clear(&e);
    onnx_model *m;
    assert_int_equal(onnx_model_read(path, &m, &e), WGK_OK);
    bool expanded = strstr(names[i], "_expanded") != NULL;
    const onnx_node *node = onnx_model_single_node(m, &e);
    if (expanded) {
      assert_true(m->node_count > 1);
      assert_null(node);
      assert_non_null(strstr(e.message, "nodes, expected 1"));
    } else {
      assert_non_null(node);
      assert_string_equal(node->op_type, "RotaryEmbedding");
      assert_string_equal(node->domain, "");
      assert_int_equal(onnx_model_opset(m, "ai.onnx"), 23);
      singles++;
    }
    char *ours = describe(m), *theirs;
    const char *args[] = {path};
    assert_int_equal(testkit_py(PY_DESCRIBE, &theirs, args, 1), 0);
    if (strcmp(ours, theirs) != 0) fail_msg("%s differs:\n--- ours\n%s--- onnx\n%s", names[i], ours, theirs);
    free(ours);
    free(theirs);
    onnx_model_free(m);
  }
  assert_int_equal(singles, 8);
}

/* onnx.numpy_helper.to_array of each .pb, saved as .npy next to the copy. */
static const char *PY_TO_NPY =
    "import sys, glob, os, numpy as np, onnx\n"
    "from onnx import numpy_helper\n"
    "out = sys.argv[2]\n"
    "for k, p in enumerate(sorted(glob.glob(sys.argv[1] + '/*/test_data_set_0/*.pb'))):\n"
    "  t = onnx.TensorProto()\n"
    "  t.ParseFromString(open(p, 'rb').read())\n"
    "  np.save('%s/%d.npy' % (out, k), np.ascontiguousarray(numpy_helper.to_array(t)))\n"
    "  print(p, t.name)\n";

static void expect_same(const util_host_tensor *a, const util_host_tensor *b, const char *what) {
  if (a->dtype != b->dtype || a->rank != b->rank || util_host_tensor_bytes(a) != util_host_tensor_bytes(b))
    fail_msg("%s: dtype/shape differ (%s rank %d vs %s rank %d)", what, wgk_dtype_name(a->dtype), a->rank,
             wgk_dtype_name(b->dtype), b->rank);
  for (int i = 0; i < a->rank; i++) assert_int_equal(a->dims[i], b->dims[i]);
  if (util_host_tensor_bytes(a) && memcmp(a->data, b->data, util_host_tensor_bytes(a)) != 0)
    fail_msg("%s: elements differ", what);
}

/* Lines "path name" from python; every .pb read by us equals numpy's array, name included. */
static void check_listing(char *listing, const char *dir) {
  size_t k = 0;
  for (char *line = strtok(listing, "\n"); line; line = strtok(NULL, "\n"), k++) {
    char *sp = strchr(line, ' ');
    assert_non_null(sp);
    *sp = 0;
    util_error e;
    util_error_clear(&e);
    util_host_tensor *ours, *want;
    char npy[64];
    snprintf(npy, sizeof npy, "%zu.npy", k);
    assert_int_equal(onnx_tensor_read(line, &ours, &e), WGK_OK);
    assert_int_equal(util_npy_read(testkit_path(dir, npy), &want, &e), WGK_OK);
    expect_same(ours, want, line);
    assert_string_equal(ours->name ? ours->name : "", sp + 1);
    util_host_tensor_free(ours);
    util_host_tensor_free(want);
  }
  assert_true(k > 0);
}

static void tensors_match_numpy(void **state) {
  (void)state;
  const char *root = testkit_conformance_dir();
  if (!testkit_python())
    wgk_skip("python3 with numpy and onnx not found (scripts/bootstrap.sh installs python3-numpy, python3-onnx)");
  char *dir = testkit_tmpdir();
  const char *args[] = {testkit_path(root, "onnx-node-tests"), dir};
  char *listing;
  assert_int_equal(testkit_py(PY_TO_NPY, &listing, args, 2), 0);
  check_listing(listing, dir);
  free(listing);
  testkit_rmdir(dir);
}

/* Tensors with data in the typed fields (not raw_data), one per dtype and a scalar. */
static const char *PY_TYPED =
    "import sys, numpy as np, onnx\n"
    "from onnx import helper, numpy_helper, TensorProto as T\n"
    "d = sys.argv[1]\n"
    "cases = [(T.FLOAT, np.float32, [1.5, -2.25, 3e-3, 1e30]), (T.FLOAT16, np.float16, [1.5, -2.0, 65504, 6e-8]),\n"
    "         (T.INT32, np.int32, [1, -2, 2**31-1, -2**31]), (T.UINT32, np.uint32, [0, 1, 2**32-1, 7]),\n"
    "         (T.INT64, np.int64, [2**62, -5, 0, 9]), (T.INT8, np.int8, [-128, 127, 0, -1]),\n"
    "         (T.UINT8, np.uint8, [0, 255, 7, 8]), (T.BOOL, np.bool_, [True, False, True, True])]\n"
    "for k, (code, dt, vals) in enumerate(cases):\n"
    "  a = np.array(vals, dtype=dt).reshape(2, 2)\n"
    "  t = helper.make_tensor('t%d' % k, code, [2, 2], a.flatten().tolist(), raw=False)\n"
    "  open('%s/%d.pb' % (d, k), 'wb').write(t.SerializeToString())\n"
    "  np.save('%s/%d.npy' % (d, k), numpy_helper.to_array(t))\n"
    "  print('%s/%d.pb t%d' % (d, k, k))\n"
    "t = helper.make_tensor('s', T.INT64, [], [42])\n"
    "open(d + '/8.pb', 'wb').write(t.SerializeToString())\n"
    "np.save(d + '/8.npy', numpy_helper.to_array(t))\n"
    "print(d + '/8.pb s')\n";

static void typed_fields_match_numpy(void **state) {
  (void)state;
  if (!testkit_python())
    wgk_skip("python3 with numpy and onnx not found (scripts/bootstrap.sh installs python3-numpy, python3-onnx)");
  char *dir = testkit_tmpdir();
  const char *args[] = {dir};
  char *listing;
  assert_int_equal(testkit_py(PY_TYPED, &listing, args, 1), 0);
  check_listing(listing, dir);
  free(listing);
  testkit_rmdir(dir);
}

/* Packs a TensorProto built field by field, so each defect is exactly one field. */
static wgk_status parse_packed(WgkOnnx__TensorProto *tp, util_error *e, util_host_tensor **t) {
  size_t n = wgk_onnx__tensor_proto__get_packed_size(tp);
  uint8_t *buf = malloc(n + 1);
  wgk_onnx__tensor_proto__pack(tp, buf);
  util_error_clear(e);
  wgk_status st = onnx_tensor_parse(buf, n, "bad.pb", t, e);
  free(buf);
  return st;
}

static void malformed_tensors_refused(void **state) {
  (void)state;
  int64_t dims[2] = {2, 3}, neg[1] = {-1};
  float fl[5] = {0};
  uint8_t raw[10] = {0};
  struct {
    int type;
    size_t n_dims;
    int64_t *d;
    size_t n_float;
    int raw_len;
    int loc;
    const char *msg;
  } BAD[] = {
      {1, 2, dims, 5, -1, 0, "float_data holds 5 values, the shape needs 6"},
      {1, 2, dims, 0, 10, 0, "raw_data has 10 bytes, the shape needs 24"},
      {11, 2, dims, 0, -1, 0, "unsupported data_type 11"},
      {1, 1, neg, 0, -1, 0, "negative"},
      {1, 2, dims, 0, 24, 1, "externally"},
  };
  char text[4096];
  for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
    WgkOnnx__TensorProto tp = WGK_ONNX__TENSOR_PROTO__INIT;
    uint8_t big[24] = {0};
    tp.has_data_type = 1;
    tp.data_type = BAD[i].type;
    tp.n_dims = BAD[i].n_dims;
    tp.dims = BAD[i].d;
    tp.n_float_data = BAD[i].n_float;
    tp.float_data = fl;
    if (BAD[i].raw_len >= 0) {
      tp.has_raw_data = 1;
      tp.raw_data.len = (size_t)BAD[i].raw_len;
      tp.raw_data.data = BAD[i].raw_len == 24 ? big : raw;
    }
    tp.has_data_location = BAD[i].loc != 0;
    tp.data_location = BAD[i].loc;
    util_error e;
    util_host_tensor *t;
    assert_int_not_equal(parse_packed(&tp, &e, &t), WGK_OK);
    assert_null(t);
    util_error_format(&e, text, sizeof text);
    if (!strstr(text, BAD[i].msg) || strncmp(text, "bad.pb", 6) != 0)
      fail_msg("case %zu: '%s' lacks '%s'", i, text, BAD[i].msg);
  }
  util_error e;
  util_error_clear(&e);
  util_host_tensor *t;
  onnx_model *m;
  assert_int_equal(onnx_tensor_parse("\xff\xff\xff", 3, "junk.pb", &t, &e), WGK_ERR_PARSE);
  util_error_clear(&e);
  assert_int_equal(onnx_model_parse("\x0a\x80", 2, "junk.onnx", &m, &e), WGK_ERR_PARSE);
  assert_string_equal(e.source, "junk.onnx");
  util_error_clear(&e);
  assert_int_equal(onnx_model_read("/nonexistent/model.onnx", &m, &e), WGK_ERR_NOT_FOUND);
}

/* Every prefix of a real model: parsed or refused with a parse error naming the source, never a crash or a leak
 * (ASan build). A prefix that parses describes no more than the whole model (at most its one node, of its op);
 * the whole model parses; and the cuts inside fields are refused (a reader accepting everything would pass the
 * first two checks). */
static void every_model_prefix_is_safe(void **state) {
  (void)state;
  const char *root = testkit_conformance_dir();
  char path[4096];
  snprintf(path, sizeof path, "%s/onnx-node-tests/test_rotary_embedding_interleaved/model.onnx", root);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  unsigned char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, f);
  assert_true(feof(f)); /* the whole model was read */
  fclose(f);
  assert_true(n > 100);
  size_t refused = 0, parsed = 0;
  for (size_t k = 0; k <= n; k++) {
    unsigned char *copy = malloc(k + 1);
    assert_non_null(copy);
    memcpy(copy, buf, k);
    util_error e;
    util_error_clear(&e);
    onnx_model *m = NULL;
    wgk_status st = onnx_model_parse(copy, k, "cut.onnx", &m, &e);
    if (st == WGK_OK) {
      assert_non_null(m);
      if (m->node_count > 1) fail_msg("prefix of %zu bytes: %zu nodes, the model has 1", k, m->node_count);
      if (m->node_count == 1 && (!m->nodes[0].op_type || strcmp(m->nodes[0].op_type, "RotaryEmbedding") != 0))
        fail_msg("prefix of %zu bytes: node op '%s'", k, m->nodes[0].op_type ? m->nodes[0].op_type : "(none)");
      if (k == n) {
        assert_int_equal(m->node_count, 1);
        assert_int_equal(onnx_model_opset(m, "ai.onnx"), 23);
      }
      onnx_model_free(m);
      parsed++;
    } else {
      if (k == n) fail_msg("the whole model is refused: %s", e.message);
      if (st != WGK_ERR_PARSE) fail_msg("prefix of %zu bytes: status %s, not a parse error", k, wgk_status_str(st));
      if (strcmp(e.source, "cut.onnx") != 0 || !e.message[0])
        fail_msg("prefix of %zu bytes: the error names '%s': '%s'", k, e.source, e.message);
      refused++;
    }
    free(copy);
  }
  print_message("%zu prefixes refused, %zu parsed\n", refused, parsed);
  assert_true(refused > n / 2); /* most cuts fall inside a field */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(models_match_onnx),          cmocka_unit_test(tensors_match_numpy),
      cmocka_unit_test(typed_fields_match_numpy),   cmocka_unit_test(malformed_tensors_refused),
      cmocka_unit_test(every_model_prefix_is_safe),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
