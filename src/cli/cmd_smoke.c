/* `wgk smoke [--adapter SEL] [--n N] [--seed S] [--verbose]`: proves the GPU path end to end. One
 * compute pass computes y = a*x + b on random data; every element is checked against the host. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/say.h"
#include "gpu/gpu.h"

static const char *const saxpy_wgsl =
    "struct Params { a: f32, b: f32, n: u32, pad: u32 }\n"
    "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read_write> y: array<f32>;\n"
    "@group(0) @binding(2) var<uniform> p: Params;\n"
    "@compute @workgroup_size(256)\n"
    "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n"
    "  let i = gid.x;\n"
    "  if (i < p.n) { y[i] = p.a * x[i] + p.b; }\n"
    "}\n";

typedef struct smoke_args {
  const char *adapter; /* selector, NULL: default */
  uint32_t n;          /* elements */
  uint64_t seed;       /* of the random data */
  bool verbose;        /* Dawn logs to stderr */
} smoke_args;

typedef struct smoke_gpu {
  gpu_buffer *x, *y, *params;
  gpu_shader *shader;
  gpu_pipeline *pipeline;
  gpu_bind_group *group;
  gpu_timer *timer; /* NULL without timestamp-query */
} smoke_gpu;

static uint64_t next_random(uint64_t *state) { /* splitmix64: reproducible from the printed seed */
  uint64_t z = (*state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static float random_float(uint64_t *state) {
  return (float)((double)(next_random(state) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static wgk_status run_gpu(gpu_device *dev, smoke_gpu *g, const float *x, float *y, float a, float b, uint32_t n,
                          uint64_t *ns, util_error *err) {
  const size_t bytes = (size_t)n * sizeof(float);
  const struct {
    float a, b;
    uint32_t n, pad;
  } params = {a, b, n, 0};
  const gpu_binding_type types[] = {WGK_GPU_BINDING_READ_ONLY_STORAGE, WGK_GPU_BINDING_STORAGE,
                                    WGK_GPU_BINDING_UNIFORM};
  const uint32_t SU = WGK_GPU_BUFFER_STORAGE | WGK_GPU_BUFFER_COPY_DST | WGK_GPU_BUFFER_COPY_SRC;
  gpu_encoder *enc = NULL;
  wgk_status s = gpu_buffer_create(dev, bytes, SU, "x", &g->x, err);
  if (!s) s = gpu_buffer_create(dev, bytes, SU, "y", &g->y, err);
  if (!s)
    s = gpu_buffer_create(dev, sizeof params, WGK_GPU_BUFFER_UNIFORM | WGK_GPU_BUFFER_COPY_DST, "params", &g->params,
                          err);
  if (!s) s = gpu_buffer_write(dev, g->x, 0, x, bytes, err);
  if (!s) s = gpu_buffer_write(dev, g->y, 0, y, bytes, err); /* poisoned: stale output cannot pass */
  if (!s) s = gpu_buffer_write(dev, g->params, 0, &params, sizeof params, err);
  if (!s) s = gpu_shader_create(dev, saxpy_wgsl, "smoke.wgsl", &g->shader, err);
  if (!s) s = gpu_pipeline_create(dev, g->shader, types, 3, NULL, "smoke", &g->pipeline, err);
  gpu_binding bindings[] = {{g->x, 0, 0}, {g->y, 0, 0}, {g->params, 0, 0}};
  if (!s) s = gpu_bind_group_create(dev, g->pipeline, bindings, 3, "smoke", &g->group, err);
  if (!s && device_has(gpu_device_desc(dev), WGK_FEATURE_TIMESTAMP_QUERY)) s = gpu_timer_create(dev, 1, &g->timer, err);
  if (!s) s = gpu_encoder_begin(dev, "smoke", &enc, err);
  if (!s) s = gpu_encoder_dispatch_timed(enc, g->pipeline, g->group, (n + 255) / 256, 1, 1, g->timer, 0, err);
  if (!s && g->timer) s = gpu_encoder_resolve_timer(enc, g->timer, err);
  if (!s) {
    s = gpu_encoder_submit(enc, err);
    enc = NULL;
  }
  if (!s) s = gpu_buffer_read(dev, g->y, 0, y, bytes, 60000, err);
  if (!s && g->timer) s = gpu_timer_read(dev, g->timer, ns, 1, 60000, err);
  gpu_encoder_discard(enc);
  return s;
}

static void smoke_gpu_free(smoke_gpu *g) {
  gpu_timer_destroy(g->timer);
  gpu_bind_group_destroy(g->group);
  gpu_pipeline_destroy(g->pipeline);
  gpu_shader_destroy(g->shader);
  gpu_buffer_destroy(g->params);
  gpu_buffer_destroy(g->y);
  gpu_buffer_destroy(g->x);
}

/* The GPU may fuse a*x+b or not; either rounding is exact WGSL behaviour, anything else is wrong. */
static size_t count_mismatches(const float *x, const float *y, float a, float b, uint32_t n) {
  size_t bad = 0;
  for (uint32_t i = 0; i < n; i++) {
    volatile float product = a * x[i];
    float separate = product + b, fused = fmaf(a, x[i], b);
    if (y[i] == separate || y[i] == fused) continue;
    if (bad++ < 5) cli_say("mismatch at %u: gpu %.9g, host %.9g (x = %.9g)\n", i, y[i], separate, x[i]);
  }
  return bad;
}

static void print_adapter(const device_desc *d) {
  printf("adapter: %s [%s, %s, %s]\nfeatures:", d->device, d->vendor, d->backend, d->adapterType);
  for (int f = 0; f < WGK_FEATURE_COUNT; f++)
    if (device_has(d, (device_feature)f)) printf(" %s", device_feature_name((device_feature)f));
  printf("\n");
}

static int smoke(const smoke_args *args) {
  util_error err = {0};
  gpu_device *dev = NULL;
  gpu_options opts = {.adapter = args->adapter, .verbose = args->verbose};
  smoke_gpu g = {0};
  float *x = malloc((size_t)args->n * sizeof *x), *y = malloc((size_t)args->n * sizeof *y);
  float a = 0, b = 0;
  uint64_t ns = 0, state = args->seed;
  wgk_status s = x && y ? gpu_device_create(&opts, &dev, &err) : WGK_ERR_OUT_OF_MEMORY;
  if (s == WGK_OK) {
    print_adapter(gpu_device_desc(dev));
    a = random_float(&state) * 4, b = random_float(&state);
    for (uint32_t i = 0; i < args->n; i++) x[i] = random_float(&state) * 1000;
    memset(y, 0xFF, (size_t)args->n * sizeof *y); /* NaN everywhere */
    printf("smoke: y = a*x + b, n = %u, a = %.9g, b = %.9g, seed = %llu\n", args->n, a, b,
           (unsigned long long)args->seed);
    s = run_gpu(dev, &g, x, y, a, b, args->n, &ns, &err);
  }
  int rc = 0;
  if (s != WGK_OK) {
    char text[WGK_ERROR_MESSAGE_MAX + 64];
    if (!err.status) util_error_oom(&err, NULL, NULL);
    util_error_format(&err, text, sizeof text);
    cli_say("wgk smoke: %s\n", text);
    rc = 1;
  } else {
    size_t bad = count_mismatches(x, y, a, b, args->n);
    if (bad)
      cli_say("wgk smoke: FAILED: %zu of %u elements differ from the host\n", bad, args->n);
    else
      printf("verified: %u of %u elements match the host%s", args->n, args->n, ns ? "" : "\n");
    if (!bad && ns) printf(" (GPU pass %.3f ms)\n", (double)ns / 1e6);
    rc = bad ? 1 : 0;
  }
  smoke_gpu_free(&g);
  gpu_device_destroy(dev);
  free(x);
  free(y);
  return rc;
}

int cli_cmd_smoke(int argc, char **argv) {
  smoke_args args = {NULL, 1u << 20, (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32), false};
  bool n_given = false, seed_given = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool valued = strcmp(a, "--adapter") == 0 || strcmp(a, "--n") == 0 || strcmp(a, "--seed") == 0;
    if (valued && i + 1 >= argc) return cli_say("wgk smoke: %s needs a value\n", a), 2;
    bool twice = (strcmp(a, "--adapter") == 0 && args.adapter) || (strcmp(a, "--n") == 0 && n_given) ||
                 (strcmp(a, "--seed") == 0 && seed_given);
    if (twice) return cli_say("wgk smoke: %s given twice; give it once\n", a), 2;
    char *end = NULL;
    const char *v = valued ? argv[i + 1] : "";
    errno = 0;
    if (strcmp(a, "--adapter") == 0) {
      args.adapter = argv[++i];
    } else if (strcmp(a, "--n") == 0) {
      unsigned long long n = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
      if (!end || *end || errno || n == 0 || n > (1u << 28))
        return cli_say("wgk smoke: --n takes an integer in [1, 268435456], not '%s'\n", v), 2;
      args.n = (uint32_t)n;
      n_given = true;
      i++;
    } else if (strcmp(a, "--seed") == 0) {
      unsigned long long seed = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 0) : 0;
      if (!end || *end || errno) return cli_say("wgk smoke: --seed takes an integer in [0, 2^64), not '%s'\n", v), 2;
      args.seed = seed;
      seed_given = true;
      i++;
    } else if (strcmp(a, "--verbose") == 0) {
      args.verbose = true;
    } else {
      cli_say("wgk smoke: %s '%s' (`wgk help smoke`)\n", a[0] == '-' ? "unknown option" : "unexpected argument", a);
      return 2;
    }
  }
  return smoke(&args);
}
