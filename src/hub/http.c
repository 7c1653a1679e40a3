/* One GET with libcurl: manual redirects (so the token never leaves the endpoint's host), retries with
 * backoff, timeouts, progress to the caller's log, and messages a user can act on. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hub/hub_internal.h"
#include "hub/libcurl.h"
#include "util/clock.h"
#include "util/env.h"

#define MAX_REDIRECTS 10

/* HF_HUB_OFFLINE as huggingface_hub reads it: 1, true, yes or on; 0, false, no or off; anything else refused. */
static wgk_status env_offline(bool *offline, util_error *err) {
  static const char *const on[] = {"1", "true", "yes", "on"}, *const off[] = {"0", "false", "no", "off"};
  const char *v = util_env("HF_HUB_OFFLINE");
  *offline = false;
  if (!v) return WGK_OK;
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(v, on[i]) == 0) return *offline = true, WGK_OK;
    if (strcasecmp(v, off[i]) == 0) return WGK_OK;
  }
  return util_error_plain(err, WGK_ERR_INVALID_ARGUMENT,
                          "environment variable HF_HUB_OFFLINE: must be 1, true, yes or on (offline) or 0, false, no "
                          "or off, not \"%.40s\"",
                          v);
}

/* A token goes into an HTTP header: printable ASCII only (a CR LF would end the header and start another). */
static bool token_ok(const char *t) {
  for (const unsigned char *p = (const unsigned char *)t; *p; p++)
    if (*p < 0x21 || *p > 0x7e) return false;
  return true;
}

/* The token: HF_TOKEN, else the first line of $HF_HOME/token (HF_HOME defaulting to $XDG_CACHE_HOME/huggingface,
 * else ~/.cache/huggingface). */
static wgk_status read_token(char **out, util_error *err) {
  *out = NULL;
  const char *t = util_env("HF_TOKEN");
  if (t && *t) {
    if (!token_ok(t))
      return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, "HF_TOKEN", NULL,
                           "the token holds a space or control character (CR, LF ...): a token is printable ASCII; "
                           "it is not sent");
    return (*out = strdup(t)) ? WGK_OK : util_error_oom(err, NULL, NULL);
  }
  char *file = NULL;
  const char *home = util_env("HF_HOME");
  if (home && *home)
    file = hub_path(home, "token");
  else if ((home = util_env("XDG_CACHE_HOME")) && *home)
    file = hub_path(home, "huggingface/token");
  else if ((home = util_env("HOME")) && *home)
    file = hub_path(home, ".cache/huggingface/token");
  struct stat sb;
  if (!file || (stat(file, &sb) != 0 && errno == ENOENT)) {
    free(file);
    return WGK_OK; /* no token file: no token */
  }
  /* Regular files only, bounded: a FIFO or /dev/zero there must not hang or fill memory. */
  size_t len = 0;
  char *text = hub_read_all(file, HUB_SMALL_FILE_MAX_BYTES, &len, err);
  wgk_status st = text ? WGK_OK : WGK_ERR_IO;
  if (text) {
    size_t line = 0; /* the first line; a NUL inside it is refused, not taken as its end */
    bool nul = false;
    while (line < len && text[line] != '\r' && text[line] != '\n') nul |= text[line++] == '\0';
    text[line] = '\0';
    size_t n = line;
    while (n && isspace((unsigned char)text[n - 1])) text[--n] = '\0';
    if (n && (nul || !token_ok(text)))
      st = util_error_in(err, WGK_ERR_INVALID_ARGUMENT, file, NULL,
                         "the token's first line holds a space, a NUL or a control character: a token is printable "
                         "ASCII; it is not sent");
    if (st || !n) {
      memset(text, 0, len);
      free(text);
      text = NULL;
    }
  }
  free(file);
  *out = text;
  return st;
}

/* libcurl, loaded by the process's first hub_http_get (src/hub/libcurl.c): a cached or offline Hub load, and any
 * local package, never loads it. Every call below comes after one. */
static const hub_curl_api *lc;

wgk_status hub_net_init(hub_net *net, const util_log *log, util_error *err) {
  memset(net, 0, sizeof *net);
  const char *ep = util_env("HF_ENDPOINT");
  net->endpoint = strdup(ep && *ep ? ep : "https://huggingface.co");
  if (!net->endpoint) return util_error_oom(err, NULL, NULL);
  size_t n = strlen(net->endpoint);
  while (n > 0 && net->endpoint[n - 1] == '/') net->endpoint[--n] = '\0';
  if (!(net->shown = hub_url_shown(net->endpoint))) return util_error_oom(err, NULL, NULL);
  net->started = util_now_s();
  int64_t attempts = 4, backoff_ms = 500, timeout_s = 30, min_rate = 1024, deadline_s = 900,
          max_total = (int64_t)HUB_TOTAL_MAX_BYTES;
  wgk_status st = env_offline(&net->offline, err);
  if (!st) st = read_token(&net->token, err);
  if (!st) st = util_env_int("WGK_HUB_RETRIES", 1, 100, &attempts, err);
  if (!st) st = util_env_int("WGK_HUB_BACKOFF_MS", 0, 600000, &backoff_ms, err);
  if (!st) st = util_env_int("WGK_HUB_TIMEOUT", 1, 3600, &timeout_s, err);
  if (!st) st = util_env_int("WGK_HUB_MIN_RATE", 1, (int64_t)1 << 30, &min_rate, err);
  if (!st) st = util_env_int("WGK_HUB_DEADLINE", 1, 86400, &deadline_s, err);
  if (!st) st = util_env_int("WGK_HUB_MAX_BYTES", 1, (int64_t)HUB_TOTAL_MAX_BYTES, &max_total, err);
  if (st) {
    hub_net_free(net);
    return st;
  }
  net->attempts = (int)attempts;
  net->backoff_ms = (long)backoff_ms;
  net->timeout_s = (long)timeout_s;
  net->min_rate = (long)min_rate;
  net->deadline_s = (long)deadline_s;
  net->max_total = (size_t)max_total;
  net->log = log;
  return st;
}

char *hub_url_shown(const char *url) {
  const char *scheme = strstr(url, "://");
  const char *host = scheme ? scheme + 3 : url;
  size_t auth_end = strcspn(host, "/?#");
  const char *at = NULL;
  for (size_t i = 0; i < auth_end; i++)
    if (host[i] == '@') at = host + i; /* the last '@' before the path ends the user:password part */
  if (!at) return strdup(url);
  size_t head = (size_t)(host - url), tail = strlen(at);
  char *out = malloc(head + 3 + tail + 1);
  if (!out) return NULL;
  memcpy(out, url, head);
  memcpy(out + head, "***", 3);
  memcpy(out + head + 3, at, tail + 1);
  return out;
}

void hub_net_free(hub_net *net) {
  free(net->endpoint);
  free(net->shown);
  if (net->token) {
    memset(net->token, 0, strlen(net->token));
    free(net->token);
  }
  memset(net, 0, sizeof *net);
}

void hub_body_free(hub_body *b) {
  if (!b) return;
  free(b->data);
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}

/* "scheme://host:port" of a URL, lower-cased, the default port filled in; malloc'ed, NULL if unparsable. */
static char *origin_of(const char *url) {
  CURLU *u = lc->url();
  char *scheme = NULL, *host = NULL, *port = NULL, *out = NULL;
  if (u && lc->url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
      lc->url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
      lc->url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
      lc->url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
    size_t n = strlen(scheme) + strlen(host) + strlen(port) + 5;
    if ((out = malloc(n))) {
      snprintf(out, n, "%s://%s:%s", scheme, host, port);
      for (char *p = out; *p; p++) *p = (char)tolower((unsigned char)*p);
    }
  }
  lc->free(scheme);
  lc->free(host);
  lc->free(port);
  lc->url_cleanup(u);
  return out;
}

typedef struct transfer {
  hub_body *body;
  bool too_big;    /* over HUB_FILE_MAX_BYTES */
  bool over_total; /* would take the operation past HUB_TOTAL_MAX_BYTES */
  bool no_memory;
  long status;         /* of the answer whose headers are being read */
  char error_code[64]; /* X-Error-Code of this hop (RepoNotFound, RevisionNotFound, EntryNotFound ...) */
  const hub_net *net;
  const char *file;             /* for the progress bar */
  unsigned long long announced; /* Content-Length of a refused answer */
  bool drawn;                   /* a progress line is on screen */
  double started;
} transfer;

/* Room for need bytes (+ NUL): grown geometrically (never one realloc per chunk), never past the file cap. */
static bool body_reserve(transfer *t, size_t need) {
  hub_body *b = t->body;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 16384;
  while (cap < need) cap = cap > HUB_FILE_MAX_BYTES / 2 ? HUB_FILE_MAX_BYTES : cap * 2;
  char *grown = realloc(b->data, cap + 1);
  if (!grown) return t->no_memory = true, false;
  b->data = grown;
  b->cap = cap;
  return true;
}

/* Whether len more bytes keep the body and the operation within their bounds (flags which one not). */
static bool within_bounds(transfer *t, size_t len) {
  if (len > HUB_FILE_MAX_BYTES || t->body->len > HUB_FILE_MAX_BYTES - len) return !(t->too_big = true);
  if (t->net->received + t->body->len + len > t->net->max_total) return !(t->over_total = true);
  return true;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *user) {
  transfer *t = user;
  size_t n = size * nmemb;
  hub_body *b = t->body;
  if (!within_bounds(t, n) || !body_reserve(t, b->len + n)) return 0; /* ends the transfer */
  memcpy(b->data + b->len, ptr, n);
  b->len += n;
  b->data[b->len] = '\0';
  return n;
}

/* Copies a header's value (trimmed) into out when line is "name: value". */
static bool header_value(const char *line, size_t n, const char *name, char *out, size_t size) {
  size_t k = strlen(name);
  if (n <= k || strncasecmp(line, name, k) != 0 || line[k] != ':') return false;
  const char *v = line + k + 1, *end = line + n;
  while (v < end && (*v == ' ' || *v == '\t')) v++;
  while (end > v && isspace((unsigned char)end[-1])) end--;
  size_t len = (size_t)(end - v) < size - 1 ? (size_t)(end - v) : size - 1;
  memcpy(out, v, len);
  out[len] = '\0';
  return true;
}

/* "W/\"abc\"" -> "abc", as huggingface_hub normalizes an ETag. */
static void etag_normalize(char *v) {
  char *p = v;
  if (strncmp(p, "W/", 2) == 0) p += 2;
  size_t n = strlen(p);
  if (n >= 2 && p[0] == '"' && p[n - 1] == '"') p++, n -= 2;
  memmove(v, p, n);
  v[n] = '\0';
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *user) {
  transfer *t = user;
  size_t n = size * nmemb;
  char commit[64], value[96];
  if (n > 5 && strncmp(line, "HTTP/", 5) == 0) { /* a new answer (an interim 100 Continue, or the final one) */
    const char *sp = memchr(line, ' ', n);
    t->status = sp ? strtol(sp + 1, NULL, 10) : 0;
  }
  /* The Hub's content ETag: X-Linked-Etag (an LFS file, on the answer that redirects to storage) wins over ETag. */
  if (header_value(line, n, "X-Linked-Etag", value, sizeof value)) {
    etag_normalize(value);
    snprintf(t->body->etag, sizeof t->body->etag, "%s", value);
    t->body->etag_linked = true;
  } else if (!t->body->etag_linked && header_value(line, n, "ETag", value, sizeof value)) {
    etag_normalize(value);
    snprintf(t->body->etag, sizeof t->body->etag, "%s", value);
  }
  /* A 2xx body announced over a bound is refused before a byte of it is read. */
  if (t->status >= 200 && t->status < 300 && header_value(line, n, "Content-Length", value, sizeof value)) {
    char *end;
    errno = 0;
    unsigned long long len = strtoull(value, &end, 10);
    if (!errno && !*end && (len > SIZE_MAX || !within_bounds(t, (size_t)len))) {
      if (len > SIZE_MAX) t->too_big = true;
      t->announced = len;
      return 0;
    }
    if (!errno && !*end && len > 0 && !body_reserve(t, (size_t)len)) return 0;
  }
  if (!t->body->commit[0] && header_value(line, n, "X-Repo-Commit", commit, sizeof commit) && hub_is_commit(commit)) {
    for (int i = 0; i < 40; i++) commit[i] = (char)tolower((unsigned char)commit[i]);
    memcpy(t->body->commit, commit, 41);
  }
  header_value(line, n, "X-Error-Code", t->error_code, sizeof t->error_code);
  return n;
}

/* A progress line for downloads that take more than half a second, on a terminal only. */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
  transfer *t = user;
  if (!util_log_on(t->net->log) || util_now_s() - t->started < 0.5) return 0;
  const int width = 30;
  int fill = dltotal > 0 ? (int)(dlnow * width / dltotal) : 0;
  char bar[64];
  for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
  bar[width] = '\0';
  bool mb = dltotal >= 1000000 || dlnow >= 1000000;
  double unit = mb ? 1e6 : 1e3;
  if (dltotal > 0)
    util_log_say(t->net->log, WGK_LOG_PROGRESS, "%-32.32s [%s] %7.1f / %.1f %s",
                 t->file ? (strrchr(t->file, '/') ? strrchr(t->file, '/') + 1 : t->file) : "", bar,
                 (double)dlnow / unit, (double)dltotal / unit, mb ? "MB" : "kB");
  else
    util_log_say(t->net->log, WGK_LOG_PROGRESS, "%-32.32s %7.1f %s",
                 t->file ? (strrchr(t->file, '/') ? strrchr(t->file, '/') + 1 : t->file) : "", (double)dlnow / unit,
                 mb ? "MB" : "kB");
  t->drawn = true;
  return 0;
}

static bool retryable_curl(CURLcode c) {
  switch (c) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_PARTIAL_FILE:
  case CURLE_GOT_NOTHING:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_SSL_CONNECT_ERROR:
    return true;
  default:
    return false;
  }
}

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

typedef struct hop_result {
  CURLcode code; /* transport outcome */
  char curl_msg[CURL_ERROR_SIZE];
  long status;    /* HTTP status */
  char *location; /* redirect target (absolute), malloc'ed */
  char error_code[64];
  bool too_big, over_total, no_memory;
  unsigned long long announced; /* the Content-Length refused, 0 when the body itself grew too big */
  bool past_deadline;           /* the operation's deadline ended this hop (or came before it) */
} hop_result;

/* The easy handle's options for one request to url: no redirect followed, the body and headers into t, the stall
 * and deadline limits (left: seconds of the operation's deadline left), curl's message into r. */
static void set_request(CURL *c, const hub_net *net, const char *url, struct curl_slist *headers, transfer *t,
                        hop_result *r, double left) {
  lc->easy_setopt(c, CURLOPT_URL, url);
  lc->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  lc->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  lc->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  lc->easy_setopt(c, CURLOPT_USERAGENT, "wgk/0.1 (libcurl)");
  lc->easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  lc->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  lc->easy_setopt(c, CURLOPT_WRITEDATA, t);
  lc->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  lc->easy_setopt(c, CURLOPT_HEADERDATA, t);
  lc->easy_setopt(c, CURLOPT_CONNECTTIMEOUT, net->timeout_s);
  /* A stalled or trickling transfer (under min_rate bytes/s for timeout_s), including a server that never answers,
   * and the whole operation's deadline, whatever the rate. */
  lc->easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, net->min_rate);
  lc->easy_setopt(c, CURLOPT_LOW_SPEED_TIME, net->timeout_s);
  lc->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(left * 1000) + 1);
  lc->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  lc->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  lc->easy_setopt(c, CURLOPT_XFERINFODATA, t);
  lc->easy_setopt(c, CURLOPT_ERRORBUFFER, r->curl_msg);
  lc->easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
}

/* What the request on c answered, into r: the status, a redirect's target, what the transfer refused. */
static void read_answer(CURL *c, const hub_net *net, const transfer *t, hop_result *r) {
  lc->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
  char *loc = NULL;
  if (r->code == CURLE_OK && r->status >= 300 && r->status < 400 &&
      lc->easy_getinfo(c, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK && loc)
    r->location = strdup(loc);
  memcpy(r->error_code, t->error_code, sizeof r->error_code);
  r->too_big = t->too_big;
  r->over_total = t->over_total;
  r->no_memory = t->no_memory;
  r->announced = t->announced;
  r->past_deadline = r->code == CURLE_OPERATION_TIMEDOUT && util_now_s() - net->started >= (double)net->deadline_s;
  if (!r->curl_msg[0]) snprintf(r->curl_msg, sizeof r->curl_msg, "%s", lc->easy_strerror(r->code));
}

/* One request to url, no redirect followed; the body goes to body (reset first). */
static void one_hop(const hub_net *net, const char *url, bool send_token, const char *file, hub_body *body,
                    hop_result *r) {
  memset(r, 0, sizeof *r);
  free(body->data);
  body->data = NULL;
  body->len = 0;
  body->cap = 0;
  double left = (double)net->deadline_s - (util_now_s() - net->started);
  if (left <= 0) {
    r->code = CURLE_OPERATION_TIMEDOUT;
    r->past_deadline = true;
    snprintf(r->curl_msg, sizeof r->curl_msg, "the operation's deadline has passed");
    return;
  }
  CURL *c = lc->easy_init();
  if (!c) {
    r->code = CURLE_FAILED_INIT;
    snprintf(r->curl_msg, sizeof r->curl_msg, "curl_easy_init failed");
    return;
  }
  transfer t = {.body = body, .net = net, .file = file, .started = util_now_s()};
  struct curl_slist *headers = NULL;
  char *auth = NULL;
  if (send_token && net->token) {
    size_t n = strlen(net->token) + 32;
    if ((auth = malloc(n))) {
      snprintf(auth, n, "Authorization: Bearer %s", net->token);
      headers = lc->slist_append(headers, auth);
    }
  }
  set_request(c, net, url, headers, &t, r, left);
  r->code = lc->easy_perform(c);
  if (t.drawn) util_log_say(net->log, WGK_LOG_PROGRESS, "%s", "");
  read_answer(c, net, &t, r);
  lc->slist_free_all(headers);
  if (auth) {
    memset(auth, 0, strlen(auth));
    free(auth);
  }
  lc->easy_cleanup(c);
}

static wgk_status http_error(const hub_net *net, const char *url, const char *repo, const char *rev, const char *file,
                             const hop_result *r, bool token_sent, util_error *err) {
  const char *ec = r->error_code;
  switch (r->status) {
  case 401:
    return util_error_in(
        err, WGK_ERR_IO, url, repo,
        token_sent ? "401 Unauthorized: the Hub refused the token (HF_TOKEN or $HF_HOME/token): check it is valid"
                   : "401 Unauthorized: %s needs a token: set HF_TOKEN (or log in so $HF_HOME/token exists)",
        repo);
  case 403:
    return util_error_in(err, WGK_ERR_IO, url, repo,
                         "403 Forbidden: the token %s has no access to %s (gated or private repo?)",
                         token_sent ? "given" : "(none given)", repo);
  case 404:
    if (strcmp(ec, "RepoNotFound") == 0)
      return util_error_in(err, WGK_ERR_NOT_FOUND, url, repo, "404: no repo %s on %s", repo, net->shown);
    if (strcmp(ec, "RevisionNotFound") == 0)
      return util_error_in(err, WGK_ERR_NOT_FOUND, url, repo, "404: repo %s has no revision %s", repo, rev);
    if (strcmp(ec, "EntryNotFound") == 0)
      return util_error_in(err, WGK_ERR_NOT_FOUND, url, repo, "404: revision %s of %s has no file %s", rev, repo, file);
    return util_error_in(err, WGK_ERR_NOT_FOUND, url, repo,
                         "404 Not Found: no repo %s, no revision %s in it, or no file %s there", repo, rev, file);
  default:
    return util_error_in(err, WGK_ERR_IO, url, repo, "HTTP %ld for %s at %s", r->status, file, rev);
  }
}

/* One try at url: its redirects followed (at most MAX_REDIRECTS), the token sent to the endpoint's own origin (home)
 * only. Returns the last URL asked (malloc'ed); *hops counts the redirects, *token_sent says whether the last hop
 * carried the token. */
static char *follow(hub_net *net, const char *url, const char *home, const char *file, hub_body *out, hop_result *r,
                    int *hops, bool *token_sent) {
  char *cur = strdup(url);
  *hops = 0;
  *token_sent = false;
  out->commit[0] = '\0';
  out->etag[0] = '\0';
  out->etag_linked = false;
  while (cur) {
    char *origin = origin_of(cur);
    bool same = origin && strcmp(origin, home) == 0;
    free(origin);
    *token_sent = same && net->token;
    free(r->location);
    one_hop(net, cur, same, file, out, r);
    if (r->code != CURLE_OK || !r->location) break;
    if (++*hops > MAX_REDIRECTS) break;
    free(cur);
    cur = r->location;
    r->location = NULL;
  }
  return cur;
}

/* The last try's outcome (r, at where, after tries tries and hops redirects) as the error it is; WGK_OK for a 2xx. */
static wgk_status try_error(const hub_net *net, const char *where, const char *repo, const char *rev, const char *file,
                            const hop_result *r, int hops, int tries, bool token_sent, util_error *err) {
  char got[64] = "";
  if (r->announced) snprintf(got, sizeof got, "announced %llu", r->announced);
  if (r->too_big)
    return util_error_in(err, WGK_ERR_LIMIT, where, repo,
                         "%s is over the per-file limit of %zu bytes (%s): no package file may be larger", file,
                         (size_t)HUB_FILE_MAX_BYTES, got[0] ? got : "received more");
  if (r->over_total)
    return util_error_in(err, WGK_ERR_LIMIT, where, repo,
                         "%s would take this download over its total limit of %zu bytes "
                         "(WGK_HUB_MAX_BYTES; %zu received before it, %s)",
                         file, net->max_total, net->received, got[0] ? got : "received more");
  if (r->no_memory) return util_error_oom(err, where, repo);
  if (r->past_deadline)
    return util_error_in(err, WGK_ERR_IO, where, repo,
                         "timed out: the download ran past its deadline of %ld s (WGK_HUB_DEADLINE) at %s, %d tries",
                         net->deadline_s, file, tries);
  if (r->code == CURLE_OPERATION_TIMEDOUT)
    return util_error_in(err, WGK_ERR_IO, where, repo,
                         "timed out: no answer, or under %ld bytes/s, for %ld s (WGK_HUB_MIN_RATE, WGK_HUB_TIMEOUT), "
                         "%d tries: %s",
                         net->min_rate, net->timeout_s, tries, r->curl_msg);
  if (r->code == CURLE_PARTIAL_FILE)
    return util_error_in(err, WGK_ERR_IO, where, repo,
                         "%s arrived short (connection closed before the announced length), %d tries: %s", file, tries,
                         r->curl_msg);
  if (r->code != CURLE_OK)
    return util_error_in(err, WGK_ERR_IO, where, repo, "network error after %d tries: %s", tries, r->curl_msg);
  if (hops > MAX_REDIRECTS) return util_error_in(err, WGK_ERR_IO, where, repo, "more than %d redirects", MAX_REDIRECTS);
  if (r->status >= 500 || r->status == 429)
    return util_error_in(err, WGK_ERR_IO, where, repo, "HTTP %ld from the Hub after %d tries", r->status, tries);
  if (r->status < 200 || r->status >= 300) return http_error(net, where, repo, rev, file, r, token_sent, err);
  return WGK_OK;
}

/* Whether the try that answered r is worth another (attempt counted from 0): a 5xx, 429 or a transient network
 * error, nothing the client refused itself, tries left. */
static bool worth_retry(const hub_net *net, const hop_result *r, int attempt) {
  bool retry_5xx = r->code == CURLE_OK && (r->status >= 500 || r->status == 429);
  bool refused = r->too_big || r->over_total || r->no_memory || r->past_deadline;
  return attempt + 1 < net->attempts && (retry_5xx || retryable_curl(r->code)) && !refused;
}

wgk_status hub_http_get(hub_net *net, const char *url, const char *repo, const char *rev, const char *file,
                        hub_body *out, util_error *err) {
  memset(out, 0, sizeof *out);
  char *url_shown = hub_url_shown(url);
  if (!url_shown) return util_error_oom(err, NULL, NULL);
  if (net->offline || hub_curl(&lc, err) != WGK_OK) {
    if (net->offline) util_error_in(err, WGK_ERR_IO, url_shown, repo, "HF_HUB_OFFLINE is set: no request is sent");
    free(url_shown);
    return WGK_ERR_IO;
  }
  char *home = origin_of(net->endpoint);
  if (!home) {
    free(url_shown);
    return util_error_in(err, WGK_ERR_INVALID_ARGUMENT, "HF_ENDPOINT", NULL, "'%s' is not a URL", net->shown);
  }
  hop_result r = {0};
  int attempt = 0, hops = 0;
  bool token_sent = false;
  char *cur = follow(net, url, home, file, out, &r, &hops, &token_sent);
  for (; worth_retry(net, &r, attempt); attempt++) {
    free(cur);
    long wait = net->backoff_ms << (attempt < 16 ? attempt : 16);
    util_log_say(net->log, WGK_LOG_LINE, "wgk: %s: %s; retrying in %ld ms (try %d of %d)", file,
                 r.code != CURLE_OK ? r.curl_msg : "server error", wait, attempt + 2, net->attempts);
    pause_ms(wait);
    cur = follow(net, url, home, file, out, &r, &hops, &token_sent);
  }
  out->unreachable = r.code == CURLE_COULDNT_CONNECT || r.code == CURLE_COULDNT_RESOLVE_HOST ||
                     r.code == CURLE_COULDNT_RESOLVE_PROXY || (r.code == CURLE_OPERATION_TIMEDOUT && !r.past_deadline);
  char *shown_cur = cur ? hub_url_shown(cur) : NULL;
  wgk_status st =
      try_error(net, shown_cur ? shown_cur : url_shown, repo, rev, file, &r, hops, attempt + 1, token_sent, err);
  free(shown_cur);
  free(cur);
  free(r.location);
  free(home);
  free(url_shown);
  if (st == WGK_OK) net->received += out->len;
  if (st == WGK_OK && !out->data && !(out->data = calloc(1, 1))) st = util_error_oom(err, NULL, NULL);
  if (st) hub_body_free(out);
  return st;
}
