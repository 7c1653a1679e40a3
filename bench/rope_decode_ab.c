/* A/B of the end-to-end RotaryEmbedding decode call (host arrays in, host arrays out, as the public loader's call)
 * between context settings, in one process: one context per setting, made with its environment assignments,
 * and rounds that alternate between them, so a machine's drift (clocks, other tenants) falls on every setting
 * alike. Each call makes new tensors from host arrays ([1,32,1,128] x, two [4096,64] caches, position 4095),
 * runs with the output read (wgk_call_run_read: one submission), or runs and then reads it (wgk_call_run, then
 * wgk_tensor_read) where the setting says `separate-read`, or does it all in one wgk_call_run_host where it says
 * `run-host`; the first call of each setting is checked against a double reference.
 *
 *   rope_decode_ab PKG [--f16] [--rounds N] [--calls N] SETTING...
 *   SETTING: environment assignments, `separate-read` and `run-host`, joined by commas, e.g. WGK_DEFER_UPLOADS=1
 *            or WGK_DEFER_UPLOADS=0,WGK_HOST_THREADS=1 or separate-read or run-host ("-" for none); and, to take
 *            the call apart, `caches-resident` (with run-host: the caches made once a set, only x and the
 *            positions from the host), `resident-read` (every input made once a set, wgk_call_run_read) or
 *            `resident-wait` (the same, wgk_call_run and wgk_context_wait: no read)
 *
 * Prints, per setting, the median end to end and its parts (inputs made and bound, run, output read after it)
 * over every call, and the median of each round; then each input's part, and a call's pool misses, map waits and
 * submissions (the library's own counters), and the time of a fixed host workload before each round (the core's
 * speed at that moment). A `run-host` call has no parts of its own: its inputs and read are in
 * its run; the library's times of its phases are printed instead. Exit 1 on an error or a wrong result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "gpu/gpu.h"
#include "runtime/runtime_internal.h"
#include "util/half.h"
#include "util/rng.h"
#include "wgk.h"

enum { HEADS = 32, HEAD = 128, HALF = HEAD / 2, ROWS = 4096, SETS = 3, MAX_SETTINGS = 8 };
static const int64_t POS = ROWS - 1;

/* The host arrays of one input set, as float (the reference) and in the call's dtype. */
typedef struct input_set {
  float x[HEADS * HEAD], cs[ROWS * HALF], sn[ROWS * HALF];
  uint16_t hx[HEADS * HEAD], hcs[ROWS * HALF], hsn[ROWS * HALF];
} input_set;

static util_rng rng; /* seeded in main */
static float uniform(void) { return (float)util_rng_uniform(&rng, -1.0, 1.0); }

static void fill_set(input_set *s, int f16) {
  for (int i = 0; i < HEADS * HEAD; i++) s->x[i] = uniform();
  for (int i = 0; i < ROWS * HALF; i++) s->cs[i] = uniform(), s->sn[i] = uniform();
  if (!f16) return;
  for (int i = 0; i < HEADS * HEAD; i++)
    s->hx[i] = util_half_from_float(s->x[i]), s->x[i] = util_half_to_float(s->hx[i]);
  for (int i = 0; i < ROWS * HALF; i++) {
    s->hcs[i] = util_half_from_float(s->cs[i]), s->cs[i] = util_half_to_float(s->hcs[i]);
    s->hsn[i] = util_half_from_float(s->sn[i]), s->sn[i] = util_half_to_float(s->hsn[i]);
  }
}

/* The largest error of y (host values of the call's dtype) against the double reference (NeoX halves). */
static double max_error(const input_set *s, const void *y, int f16) {
  double worst = 0;
  for (int h = 0; h < HEADS; h++)
    for (int i = 0; i < HALF; i++) {
      double a = s->x[h * HEAD + i], b = s->x[h * HEAD + HALF + i], c = s->cs[POS * HALF + i],
             sn = s->sn[POS * HALF + i];
      double want[2] = {a * c - b * sn, b * c + a * sn};
      for (int k = 0; k < 2; k++) {
        int at = h * HEAD + i + k * HALF;
        double got = f16 ? util_half_to_float(((const uint16_t *)y)[at]) : ((const float *)y)[at];
        double err = fabs(got - want[k]);
        if (!(err <= worst)) worst = err; /* NaN counts as the worst */
      }
    }
  return worst;
}

/* One setting: its context, kernel and call. */
typedef struct setting {
  const char *text;
  wgk_context *ctx;
  wgk_kernel *k;
  wgk_call *call;
  double *e2e, *inputs, *run, *read;
  double *made[4];  /* of inputs: x, cos, sin, positionIds made and set */
  double *phase[5]; /* run-host: the library's phases of each call (wgk_context's run_host_ns) */
  int n;
  uint64_t misses, map_waits, submits; /* over the measured calls: staging or buffer pool misses, map waits, submits */
  int separate_read;                   /* wgk_call_run then wgk_tensor_read (else wgk_call_run_read) */
  int run_host;                        /* all in one wgk_call_run_host */
  const input_set *sets;               /* the input sets, to know which set a call is on */
  int caches_resident;                 /* run-host with the caches' tensors made once a set */
  int resident_read; /* every input's tensor made once a set: wgk_call_run_read alone (1), or wgk_call_run and
                        wgk_context_wait without the read (2) */
  wgk_tensor *made_once[SETS][4]; /* x, cos, sin, positionIds of each set, for the two above */
} setting;

/* Applies "A=1,B=2" to the environment (or undoes it), for the context made in between. */
static void apply_env(const char *text, int set) {
  if (strcmp(text, "-") == 0) return;
  char *copy = strdup(text);
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    char *eq = strchr(tok, '=');
    if (!eq) continue;
    *eq = '\0';
    if (set)
      setenv(tok, eq + 1, 1);
    else
      unsetenv(tok);
  }
  free(copy);
}

static int open_setting(setting *s, const char *pkg, int samples) {
  char *msg = NULL;
  s->separate_read = strstr(s->text, "separate-read") != NULL;
  s->run_host = strstr(s->text, "run-host") != NULL;
  s->caches_resident = strstr(s->text, "caches-resident") != NULL;
  s->resident_read = strstr(s->text, "resident-read") ? 1 : strstr(s->text, "resident-wait") ? 2 : 0;
  apply_env(s->text, 1);
  wgk_status st = wgk_context_create(NULL, &s->ctx, &msg);
  apply_env(s->text, 0);
  if (st) {
    fprintf(stderr, "rope_decode_ab: %s: %s\n", s->text, msg ? msg : "no context");
    free(msg);
    return 1;
  }
  if (wgk_kernel_load(s->ctx, pkg, NULL, &s->k) || wgk_call_create(s->k, &s->call)) {
    fprintf(stderr, "rope_decode_ab: %s\n", wgk_context_errmsg(s->ctx));
    return 1;
  }
  s->e2e = calloc(13 * (size_t)samples, sizeof(double));
  if (!s->e2e) return 1;
  s->inputs = s->e2e + samples, s->run = s->inputs + samples, s->read = s->run + samples;
  for (int k = 0; k < 4; k++) s->made[k] = s->read + (k + 1) * samples;
  for (int k = 0; k < 5; k++) s->phase[k] = s->made[3] + (k + 1) * samples;
  return 0;
}

static wgk_status make_input(setting *s, const char *port, wgk_dtype dt, int rank, const int64_t *shape,
                             const void *data) {
  wgk_tensor *t = NULL;
  wgk_status st = wgk_tensor_create(s->ctx, dt, rank, shape, data, &t);
  if (!st) st = wgk_call_set_input(s->call, port, t);
  wgk_tensor_release(t);
  return st;
}

static const int64_t xs[4] = {1, HEADS, 1, HEAD}, cshape[2] = {ROWS, HALF}, ps[2] = {1, 1};

static const char *const PORTS[4] = {"x", "cos", "sin", "positionIds"};

/* The tensors of every input set, made once, for the settings that keep inputs on the GPU. */
static wgk_status make_once(setting *s, const input_set *in, int f16) {
  wgk_dtype dt = f16 ? WGK_DTYPE_FLOAT16 : WGK_DTYPE_FLOAT32;
  wgk_status st = WGK_OK;
  for (int k = 0; k < SETS && !st; k++) {
    const input_set *i = &in[k];
    st = wgk_tensor_create(s->ctx, dt, 4, xs, f16 ? (const void *)i->hx : i->x, &s->made_once[k][0]);
    if (!st) st = wgk_tensor_create(s->ctx, dt, 2, cshape, f16 ? (const void *)i->hcs : i->cs, &s->made_once[k][1]);
    if (!st) st = wgk_tensor_create(s->ctx, dt, 2, cshape, f16 ? (const void *)i->hsn : i->sn, &s->made_once[k][2]);
    if (!st) st = wgk_tensor_create(s->ctx, WGK_DTYPE_INT64, 2, ps, &POS, &s->made_once[k][3]);
  }
  return st;
}

/* The call on the tensors of set k made once (ports first..last set), its output read in the call's submission. */
static wgk_status timed_resident_read(setting *s, int k, int f16, void *y, int at) {
  wgk_output_read read = {"y", y, (size_t)HEADS * HEAD * (f16 ? 2 : 4)};
  double t0 = now_us();
  wgk_status st = WGK_OK;
  for (int p = 0; p < 4 && !st; p++) st = wgk_call_set_input(s->call, PORTS[p], s->made_once[k][p]);
  double t1 = now_us();
  if (!st && s->resident_read == 2) { /* no read in the timed call: the run and its wait, the check's read after */
    st = wgk_call_run(s->call);
    if (!st) st = wgk_context_wait(s->ctx);
  } else if (!st) {
    st = wgk_call_run_read(s->call, &read, 1);
  }
  double t2 = now_us();
  wgk_tensor *out = st || s->resident_read != 2 || at >= 0 ? NULL : wgk_call_output(s->call, "y");
  if (out) st = wgk_tensor_read(out, y, read.size);
  if (!st && at >= 0) {
    s->e2e[at] = t2 - t0, s->inputs[at] = t1 - t0, s->run[at] = t2 - t1, s->read[at] = 0;
    for (int p = 0; p < 4; p++) s->made[p][at] = 0;
  }
  return st;
}

/* The call on input set `in` in one wgk_call_run_host, its output into y; times into slot `at` unless at < 0. */
static wgk_status timed_run_host(setting *s, const input_set *in, int f16, void *y, int at) {
  wgk_dtype dt = f16 ? WGK_DTYPE_FLOAT16 : WGK_DTYPE_FLOAT32;
  size_t es = f16 ? 2 : 4;
  wgk_input_write w[4] = {
      {"x", dt, 4, xs, f16 ? (const void *)in->hx : in->x, es * HEADS * HEAD},
      {"cos", dt, 2, cshape, f16 ? (const void *)in->hcs : in->cs, es * ROWS * HALF},
      {"sin", dt, 2, cshape, f16 ? (const void *)in->hsn : in->sn, es * ROWS * HALF},
      {"positionIds", WGK_DTYPE_INT64, 2, ps, &POS, sizeof POS},
  };
  wgk_output_read read = {"y", y, es * HEADS * HEAD};
  double t0 = now_us();
  wgk_status st = WGK_OK;
  if (s->caches_resident) { /* x and the positions from the host; the set's caches made once */
    int k = (int)(in - s->sets);
    st = wgk_call_set_input(s->call, "cos", s->made_once[k][1]);
    if (!st) st = wgk_call_set_input(s->call, "sin", s->made_once[k][2]);
    w[1] = w[3];
  }
  if (!st) st = wgk_call_run_host(s->call, w, s->caches_resident ? 2 : 4, &read, 1);
  double t1 = now_us();
  if (!st && at >= 0) {
    s->e2e[at] = s->run[at] = t1 - t0, s->inputs[at] = s->read[at] = 0;
    for (int k = 0; k < 4; k++) s->made[k][at] = 0;
    for (int k = 0; k < 5; k++) s->phase[k][at] = s->ctx->run_host_ns[k] * 1e-3;
  }
  return st;
}

/* One end-to-end call on input set `in`, its output into y; times into slot `at` unless at < 0. */
static wgk_status timed_call(setting *s, const input_set *in, int f16, void *y, int at) {
  if (s->resident_read) return timed_resident_read(s, (int)(in - s->sets), f16, y, at);
  if (s->run_host) return timed_run_host(s, in, f16, y, at);
  wgk_dtype dt = f16 ? WGK_DTYPE_FLOAT16 : WGK_DTYPE_FLOAT32;
  double t0 = now_us(), tm[4];
  wgk_status st = make_input(s, "x", dt, 4, xs, f16 ? (const void *)in->hx : in->x);
  tm[0] = now_us();
  if (!st) st = make_input(s, "cos", dt, 2, cshape, f16 ? (const void *)in->hcs : in->cs);
  tm[1] = now_us();
  if (!st) st = make_input(s, "sin", dt, 2, cshape, f16 ? (const void *)in->hsn : in->sn);
  tm[2] = now_us();
  if (!st) st = make_input(s, "positionIds", WGK_DTYPE_INT64, 2, ps, &POS);
  double t1 = tm[3] = now_us();
  size_t y_bytes = (size_t)HEADS * HEAD * (f16 ? 2 : 4);
  wgk_output_read read = {"y", y, y_bytes};
  if (!st) st = s->separate_read ? wgk_call_run(s->call) : wgk_call_run_read(s->call, &read, 1);
  double t2 = now_us();
  wgk_tensor *out = st || !s->separate_read ? NULL : wgk_call_output(s->call, "y");
  if (!st && s->separate_read) st = out ? wgk_tensor_read(out, y, y_bytes) : WGK_ERR_CALL;
  double t3 = now_us();
  if (!st && at >= 0) {
    s->e2e[at] = t3 - t0, s->inputs[at] = t1 - t0, s->run[at] = t2 - t1, s->read[at] = t3 - t2;
    for (int k = 0; k < 4; k++) s->made[k][at] = tm[k] - (k ? tm[k - 1] : t0);
  }
  return st;
}

/* A run-host setting's phases, as the library timed each call (medians, us). */
static void report_phases(const setting *s) {
  printf(
      "    run-host phases (medians): inputs made %.1f | fill %.1f, small writes and the call recorded beside it %.1f "
      "| "
      "submit %.1f | "
      "outputs read (the wait included) %.1f us\n",
      median(s->phase[0], s->n), median(s->phase[2], s->n), median(s->phase[1], s->n), median(s->phase[3], s->n),
      median(s->phase[4], s->n));
}

static void report(const setting *s, int rounds, int calls, int f16) {
  printf("%s %-40s e2e %7.1f us | inputs %6.1f  run %6.1f  read %6.1f | rounds:", f16 ? "f16" : "f32", s->text,
         median(s->e2e, s->n), median(s->inputs, s->n), median(s->run, s->n), median(s->read, s->n));
  for (int r = 0; r < rounds; r++) printf(" %.0f", median(s->e2e + r * calls, calls));
  printf(
      "\n    inputs: x %.1f cos %.1f sin %.1f positionIds %.1f us | a call: pool misses %.2f, map waits %.2f, "
      "submits %.2f\n",
      median(s->made[0], s->n), median(s->made[1], s->n), median(s->made[2], s->n), median(s->made[3], s->n),
      (double)s->misses / s->n, (double)s->map_waits / s->n, (double)s->submits / s->n);
  if (s->run_host) report_phases(s);
}

/* A fixed host workload (a dependent chain of multiply-adds), timed: how fast this core runs at this moment. */
static double host_calibration_us(void) {
  volatile uint64_t sink;
  uint64_t v = 1;
  double t0 = now_us();
  for (int k = 0; k < 200000; k++) v = v * 6364136223846793005ull + 1442695040888963407ull;
  sink = v;
  (void)sink;
  return now_us() - t0;
}

int main(int argc, char **argv) {
  int f16 = 0, rounds = 6, calls = 40, n = 0;
  const char *pkg = NULL;
  setting set[MAX_SETTINGS] = {{0}};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--f16") == 0)
      f16 = 1;
    else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
      calls = atoi(argv[++i]);
    else if (!pkg)
      pkg = argv[i];
    else if (n < MAX_SETTINGS)
      set[n++].text = argv[i];
  }
  if (!pkg || n == 0 || rounds < 1 || calls < 1) {
    fprintf(stderr, "usage: rope_decode_ab PKG [--f16] [--rounds N] [--calls N] SETTING... (up to %d)\n", MAX_SETTINGS);
    return 2;
  }
  input_set *in = malloc(SETS * sizeof *in);
  float *y = malloc(sizeof(float) * HEADS * HEAD);
  if (!in || !y) return 1;
  util_rng_seed(&rng, 2026);
  for (int k = 0; k < SETS; k++) fill_set(&in[k], f16);
  int failed = 0;
  for (int i = 0; i < n && !failed; i++) {
    failed = open_setting(&set[i], pkg, rounds * calls);
    set[i].sets = in;
    if (!failed && (set[i].caches_resident || set[i].resident_read) && make_once(&set[i], in, f16) != WGK_OK) {
      fprintf(stderr, "rope_decode_ab: %s: %s\n", set[i].text, wgk_context_errmsg(set[i].ctx));
      failed = 1;
    }
  }
  for (int i = 0; i < n && !failed; i++) { /* warm: compile, fill the pools; the first result checked */
    for (int c = 0; c < 2 * SETS && !failed; c++) {
      memset(y, 0xff, sizeof(float) * HEADS * HEAD); /* poisoned: unwritten elements read as NaN */
      failed = timed_call(&set[i], &in[c % SETS], f16, y, -1) != WGK_OK;
      double err = failed ? INFINITY : max_error(&in[c % SETS], y, f16);
      if (!(err <= (f16 ? 4e-3 : 1e-5))) {
        fprintf(stderr, "rope_decode_ab: %s: call %d: max error %g (%s)\n", set[i].text, c, err,
                failed ? wgk_context_errmsg(set[i].ctx) : "wrong values");
        failed = 1;
      }
    }
  }
  double *calib = calloc((size_t)rounds, sizeof *calib);
  if (!calib) failed = 1;
  for (int r = 0; r < rounds && !failed; r++) {
    calib[r] = host_calibration_us();
    for (int i = 0; i < n && !failed; i++)
      for (int c = 0; c < calls && !failed; c++) {
        setting *t = &set[i];
        uint64_t m0 = t->ctx->pool.misses, w0 = gpu_device_map_waits(t->ctx->dev), s0 = gpu_device_submits(t->ctx->dev);
        failed = timed_call(t, &in[c % SETS], f16, y, t->n) != WGK_OK;
        t->misses += t->ctx->pool.misses - m0, t->map_waits += gpu_device_map_waits(t->ctx->dev) - w0;
        t->submits += gpu_device_submits(t->ctx->dev) - s0;
        if (failed) fprintf(stderr, "rope_decode_ab: %s: %s\n", set[i].text, wgk_context_errmsg(set[i].ctx));
        set[i].n++;
      }
  }
  for (int i = 0; i < n && !failed; i++) report(&set[i], rounds, calls, f16);
  printf("host calibration per round, us:");
  for (int r = 0; r < rounds; r++) printf(" %.0f", calib[r]);
  printf("\n");
  free(calib);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < SETS; k++)
      for (int p = 0; p < 4; p++) wgk_tensor_release(set[i].made_once[k][p]);
    wgk_call_destroy(set[i].call);
    wgk_kernel_destroy(set[i].k);
    wgk_context_destroy(set[i].ctx);
    free(set[i].e2e);
  }
  free(in);
  free(y);
  return failed;
}
