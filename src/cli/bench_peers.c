/* `wgk bench --peer FILE` and `--reference`: other implementations' times beside wgk's, one column each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_report.h"
#include "cli/cli_util.h"
#include "util/file_read.h"

/* A peer file is small (one median per case); a larger one is not what bench/peers writes. */
#define PEER_FILE_MAX_BYTES (16u << 20)

/* One peer object of path checked and appended; false after printing why. */
static bool add_peer(const char *path, const char *where, json_t *p, cli_bench_peers *into) {
  const char *name = json_string_value(json_object_get(p, "peer"));
  const char *kind = json_string_value(json_object_get(p, "kind"));
  json_t *cases = json_object_get(p, "cases");
  if (!json_is_object(p) || !name || !name[0] || strlen(name) >= sizeof into->peer[0].name)
    return cli_error("bench", "--peer %s: %s: \"peer\" must be a name of 1 to %zu characters", path, where,
                     sizeof into->peer[0].name - 1),
           false;
  if (!kind || (strcmp(kind, "gpu") != 0 && strcmp(kind, "e2e") != 0))
    return cli_error("bench",
                     "--peer %s: peer '%s': \"kind\" is '%s'; it must be \"gpu\" (device time, beside wgk's "
                     "GPU us) or \"e2e\" (host to host, beside wgk's e2e us)",
                     path, name, kind ? kind : "missing"),
           false;
  if (!json_is_array(cases))
    return cli_error("bench", "--peer %s: peer '%s': \"cases\" must be an array of {id, status, ns: {median}}", path,
                     name),
           false;
  size_t i;
  json_t *c;
  json_array_foreach(cases, i, c) {
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *status = json_string_value(json_object_get(c, "status"));
    double median = json_number_value(json_object_get(json_object_get(c, "ns"), "median"));
    if (!id || !status || (strcmp(status, "ok") == 0 && !(median > 0)))
      return cli_error("bench",
                       "--peer %s: peer '%s': cases[%zu] needs a string id and status, and with status \"ok\" "
                       "a positive ns.median",
                       path, name, i),
             false;
  }
  for (size_t k = 0; k < into->n; k++)
    if (strcmp(into->peer[k].name, name) == 0)
      return cli_error("bench", "--peer %s: peer '%s' given twice", path, name), false;
  if (into->n == WGK_BENCH_MAX_PEERS)
    return cli_error("bench", "--peer %s: more than %d peers", path, WGK_BENCH_MAX_PEERS), false;
  cli_bench_peer *q = &into->peer[into->n++];
  snprintf(q->name, sizeof q->name, "%s", name);
  q->gpu = strcmp(kind, "gpu") == 0;
  q->cases = json_incref(cases);
  return true;
}

bool cli_bench_peers_read(const char *path, cli_bench_peers *into) {
  unsigned char *data = NULL;
  size_t len = 0;
  util_error err;
  util_error_clear(&err);
  if (util_file_read_all(path, PEER_FILE_MAX_BYTES, &data, &len, &err) != WGK_OK) {
    char text[WGK_ERROR_MESSAGE_MAX + 64];
    util_error_format(&err, text, sizeof text);
    return cli_error("bench", "--peer %s", text), false;
  }
  json_error_t jerr;
  json_t *doc = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &jerr);
  free(data);
  if (!doc)
    return cli_error("bench", "--peer %s:%d:%d: %s (a peer's JSON, as bench/peers writes it)", path, jerr.line,
                     jerr.column, jerr.text),
           false;
  bool ok = true;
  json_t *list = json_object_get(doc, "peers");
  if (json_is_array(list) && json_array_size(list) > 0) {
    size_t i;
    json_t *p;
    char where[64];
    json_array_foreach(list, i, p) {
      snprintf(where, sizeof where, "peers[%zu]", i);
      if (!(ok = add_peer(path, where, p, into))) break;
    }
  } else if (list) {
    cli_error("bench", "--peer %s: \"peers\" must be a non-empty array", path);
    ok = false;
  } else {
    ok = add_peer(path, "the top object", doc, into);
  }
  json_decref(doc);
  return ok;
}

bool cli_bench_peers_match(const cli_bench_peers *peers, const tc_bench_suite *s) {
  for (size_t k = 0; k < peers->n; k++) {
    const cli_bench_peer *p = &peers->peer[k];
    if (p->reference) continue; /* the C reference times every case */
    bool any = false;
    size_t i;
    json_t *c;
    json_array_foreach(p->cases, i, c) {
      const char *id = json_string_value(json_object_get(c, "id"));
      for (size_t j = 0; !any && j < s->n_cases; j++) any = strcmp(id, s->cases[j].id) == 0;
    }
    if (!any) {
      char ids[512];
      size_t n = 0;
      ids[0] = 0;
      json_array_foreach(p->cases, i, c) {
        if (n >= sizeof ids) break;
        n += (size_t)snprintf(ids + n, sizeof ids - n, "%s%s", i ? ", " : "",
                              json_string_value(json_object_get(c, "id")));
      }
      return cli_error("bench", "--peer: peer '%s' times no case of this package's bench.json (its cases: %s)", p->name,
                       n ? ids : "none"),
             false;
    }
  }
  return true;
}

void cli_bench_peers_free(cli_bench_peers *peers) {
  for (size_t k = 0; k < peers->n; k++) json_decref(peers->peer[k].cases);
  peers->n = 0;
}

/* The peer's figure for r's case: its median ns (> 0), else 0 with *status its status ("-": no such case). */
static double peer_ns(const cli_bench_peer *p, const cli_bench_row *r, const char **status) {
  *status = "-";
  if (p->reference) return r->has_reference ? r->reference.median : 0;
  size_t i;
  json_t *c;
  json_array_foreach(p->cases, i, c) {
    if (strcmp(json_string_value(json_object_get(c, "id")), r->c->id) != 0) continue;
    *status = json_string_value(json_object_get(c, "status"));
    return strcmp(*status, "ok") == 0 ? json_number_value(json_object_get(json_object_get(c, "ns"), "median")) : 0;
  }
  return 0;
}

void cli_bench_peer_cell(const cli_bench_peer *p, const cli_bench_row *r, char *buf, size_t size) {
  const char *status;
  double ns = peer_ns(p, r, &status);
  double mine = p->gpu ? r->gpu.median : r->e2e.median;
  if (ns > 0)
    snprintf(buf, size, "%.1f (%.2fx)", ns * 1e-3, mine / ns);
  else
    snprintf(buf, size, "%s", status);
}
