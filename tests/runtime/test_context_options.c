/* Every runtime strategy of wgk_context_options (issue 38 item 4, issue 37 wrong accepts 5): each set per context
 * lands in the context; the option wins over its environment variable; the variable is read when the option is 0;
 * a bad value of either fails wgk_context_create with WGK_ERR_INVALID_ARGUMENT naming the field or variable, its
 * rule and the value (before this change bad variables were replaced by defaults in silence, and the fields did not
 * exist). And wgk_kernel_options: a folder load refuses version -5 and revision "xyz" as the CLI does (issue 37 wrong
 * accepts 2; before, a folder load accepted both). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "wgk.h"
#include "gpu/gpu_internal.h"
#include "runtime/runtime_internal.h"
#include "util/wgk_test.h"
#include "util/workers.h"

/* wgk_context_create(opts) fails with WGK_ERR_INVALID_ARGUMENT, its message holding each of want (NULL-ended). */
static void refused(const wgk_context_options *opts, const char *want1, const char *want2, const char *want3) {
  wgk_context *ctx = NULL;
  char *msg = NULL;
  wgk_status s = wgk_context_create(opts, &ctx, &msg);
  if (s != WGK_ERR_INVALID_ARGUMENT) fail_msg("expected a refusal with \"%s\", got %d (%s)", want1, s, msg ? msg : "");
  assert_null(ctx);
  assert_non_null(msg);
  const char *want[] = {want1, want2, want3};
  for (int i = 0; i < 3; i++)
    if (want[i] && !strstr(msg, want[i])) fail_msg("message \"%s\" lacks \"%s\"", msg, want[i]);
  free(msg);
}

/* A context from opts under the variable name=value (unset after). */
static wgk_context *with_env(const char *name, const char *value, const wgk_context_options *opts) {
  if (name) setenv(name, value, 1);
  wgk_context *ctx = wgk_test_context_with(opts);
  if (name) unsetenv(name);
  return ctx;
}

/* Bad values of every variable: each refused by name, with the rule and the value. */
static void bad_variables_refused(void **state) {
  (void)state;
  static const struct {
    const char *name, *value, *rule;
  } cases[] = {
      {"WGK_WAIT_TIMEOUT_MS", "0", "from 1 to 86400000"},
      {"WGK_WAIT_TIMEOUT_MS", "60s", "from 1 to 86400000"},
      {"WGK_POOL_BYTES", "-1", "whole number"},
      {"WGK_POOL_BYTES", "1e9", "whole number"},
      {"WGK_QUEUE_WRITE_MAX", "12k", "whole number"},
      {"WGK_HOST_SPAN", "1024", "from 4096 to 67108864"},
      {"WGK_HOST_THREADS", "0", "from 1 to 64"},
      {"WGK_HOST_THREADS", "65", "from 1 to 64"},
      {"WGK_HOST_THREADS", "four", "from 1 to 64"},
      {"WGK_HOST_SPIN_US", "100001", "from 0 to 100000"},
      {"WGK_WAIT_SPIN_US", "12x", "from 0 to 1000000"},
      {"WGK_MAX_STORAGE_BINDING_BYTES", "abc", "whole number"},
      {"WGK_MAX_STORAGE_BINDING_BYTES", "1026", "multiple of 4"},
      {"WGK_MAX_STORAGE_BINDING_BYTES", "4", "minStorageBufferOffsetAlignment"},
      {"WGK_STAGED_UPLOAD", "yes", "0 (off) or 1 (on)"},
      {"WGK_DEFER_UPLOADS", "2", "0 (off) or 1 (on)"},
      {"WGK_SUBMIT_DURING_FILL", "on", "0 (off) or 1 (on)"},
      {"WGK_PIPELINE_CACHE", "off", "0 (off) or 1 (on)"},
      {"WGK_PIPELINE_CACHE_MAX_BYTES", "0", "from 1 to"},
      {"WGK_PIPELINE_CACHE_LOG", "true", "0 (off) or 1 (on)"},
      {"WGK_PROGRESS", "no", "0 (off) or 1 (on)"},
      {"WGK_PROGRESS_AFTER_MS", "-1", "from 0 to 3600000"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    setenv(cases[i].name, cases[i].value, 1);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", cases[i].value);
    if (strcmp(cases[i].value, "1026") == 0 || strcmp(cases[i].value, "4") == 0)
      snprintf(quoted, sizeof quoted, "%s", cases[i].value);
    refused(NULL, cases[i].name, cases[i].rule, quoted);
    unsetenv(cases[i].name);
  }
}

/* Bad option values: each refused naming the field and the value, whatever the environment says. */
static void bad_options_refused(void **state) {
  (void)state;
  refused(&(wgk_context_options){.wait_timeout_ms = -1}, "wait_timeout_ms", "from 1 to 86400000", "not -1");
  refused(&(wgk_context_options){.wait_timeout_ms = 86400001}, "wait_timeout_ms", "86400000", "not 86400001");
  refused(&(wgk_context_options){.pool_bytes = -2}, "pool_bytes", "WGK_OFF", "not -2");
  refused(&(wgk_context_options){.queue_write_max = (1ll << 48) + 1}, "queue_write_max", "WGK_OFF", NULL);
  refused(&(wgk_context_options){.host_span = 100}, "host_span", "from 4096 to 67108864", "not 100");
  refused(&(wgk_context_options){.host_threads = 65}, "host_threads", "from 1 to 64", "not 65");
  refused(&(wgk_context_options){.host_threads = WGK_OFF}, "host_threads", "from 1 to 64", "not -1");
  refused(&(wgk_context_options){.host_spin_us = 100001}, "host_spin_us", "100000", NULL);
  refused(&(wgk_context_options){.wait_spin_us = -7}, "wait_spin_us", "WGK_OFF", "not -7");
  refused(&(wgk_context_options){.max_storage_binding_bytes = 1030}, "max_storage_binding_bytes", "multiple of 4",
          "1030");
  refused(&(wgk_context_options){.max_storage_binding_bytes = 4}, "context option max_storage_binding_bytes",
          "minStorageBufferOffsetAlignment", "not 4");
  refused(&(wgk_context_options){.max_storage_binding_bytes = WGK_OFF}, "max_storage_binding_bytes", "from 4", NULL);
  refused(&(wgk_context_options){.staged_upload = 2}, "staged_upload", "WGK_ON (1), WGK_OFF (-1)", "not 2");
  refused(&(wgk_context_options){.defer_uploads = -2}, "defer_uploads", "WGK_ON", "not -2");
  refused(&(wgk_context_options){.submit_during_fill = 3}, "submit_during_fill", "WGK_ON", "not 3");
  refused(&(wgk_context_options){.pipeline_cache = 2}, "pipeline_cache", "WGK_ON (1), WGK_OFF (-1)", "not 2");
  refused(&(wgk_context_options){.pipeline_cache_max_bytes = WGK_OFF}, "pipeline_cache_max_bytes",
          "from 1 to 281474976710656", "not -1");
  refused(&(wgk_context_options){.pipeline_cache_log = -5}, "pipeline_cache_log", "WGK_ON", "not -5");
  refused(&(wgk_context_options){.progress = 7}, "progress", "WGK_OFF (-1)", "not 7");
  refused(&(wgk_context_options){.progress_after_ms = 3600001}, "progress_after_ms", "WGK_OFF or from 1 to 3600000",
          "not 3600001");
  setenv("WGK_PROGRESS_AFTER_MS", "10", 1); /* nor does a good variable of the same field */
  refused(&(wgk_context_options){.progress_after_ms = -2}, "progress_after_ms", "not -2", NULL);
  unsetenv("WGK_PROGRESS_AFTER_MS");
  setenv("WGK_HOST_THREADS", "4", 1); /* a good variable does not hide a bad option */
  refused(&(wgk_context_options){.host_threads = 99}, "host_threads", NULL, NULL);
  unsetenv("WGK_HOST_THREADS");
}

/* Options land in the context, and win over their variables (set here to other good values). */
static void options_land_and_win(void **state) {
  (void)state;
  static const char *const env[][2] = {
      {"WGK_WAIT_TIMEOUT_MS", "5000"},
      {"WGK_POOL_BYTES", "1048576"},
      {"WGK_QUEUE_WRITE_MAX", "8192"},
      {"WGK_HOST_SPAN", "8192"},
      {"WGK_HOST_THREADS", "3"},
      {"WGK_HOST_SPIN_US", "7"},
      {"WGK_WAIT_SPIN_US", "9"},
      {"WGK_STAGED_UPLOAD", "0"},
      {"WGK_DEFER_UPLOADS", "0"},
      {"WGK_SUBMIT_DURING_FILL", "0"},
      {"WGK_MAX_STORAGE_BINDING_BYTES", "268435456"},
      {"WGK_PIPELINE_CACHE", "1"},
      {"WGK_PIPELINE_CACHE_MAX_BYTES", "4096"},
      {"WGK_PIPELINE_CACHE_LOG", "0"},
      {"WGK_PROGRESS", "0"},
      {"WGK_PROGRESS_AFTER_MS", "5"},
  };
  for (size_t i = 0; i < sizeof env / sizeof *env; i++) setenv(env[i][0], env[i][1], 1);
  wgk_context_options o = {.wait_timeout_ms = 1234,
                           .pool_bytes = WGK_OFF,
                           .queue_write_max = WGK_OFF,
                           .host_span = 65536,
                           .host_threads = 2,
                           .host_spin_us = WGK_OFF,
                           .wait_spin_us = 321,
                           .staged_upload = WGK_ON,
                           .defer_uploads = WGK_ON,
                           .submit_during_fill = WGK_ON,
                           .max_storage_binding_bytes = 1 << 20,
                           .pipeline_cache = WGK_OFF,
                           .pipeline_cache_max_bytes = 12345,
                           .pipeline_cache_log = WGK_ON,
                           .progress = WGK_ON,
                           .progress_after_ms = WGK_OFF};
  wgk_context *ctx = wgk_test_context_with(&o);
  for (size_t i = 0; i < sizeof env / sizeof *env; i++) unsetenv(env[i][0]);
  assert_int_equal(ctx->wait_ms, 1234);
  assert_int_equal(ctx->pool.max_bytes, 0);
  assert_int_equal(ctx->queue_write_max, 0);
  assert_int_equal(ctx->host_span, 65536);
  assert_int_equal(util_workers_max(ctx->workers), 1);
  assert_int_equal(util_workers_spin(ctx->workers), 0);
  assert_int_equal(gpu_device_wait_spin_ns(ctx->dev), 321000);
  assert_true(ctx->staged_upload);
  assert_true(ctx->defer_uploads);
  assert_true(ctx->submit_during_fill);
  assert_int_equal(rt_context_device_desc(ctx)->limits.maxStorageBufferBindingSize, 1 << 20);
  assert_false(ctx->dev->cache_on);
  assert_int_equal(ctx->dev->cache_max, 12345);
  assert_true(ctx->dev->cache_log);
  assert_int_equal(ctx->dev->progress_after_ms, 0); /* WGK_OFF: at once */
  wgk_context_destroy(ctx);
  /* the other way round: the variables off, the options on */
  setenv("WGK_PIPELINE_CACHE", "0", 1);
  setenv("WGK_PROGRESS", "0", 1);
  ctx = wgk_test_context_with(&(wgk_context_options){.pipeline_cache = WGK_ON, .progress = WGK_ON});
  unsetenv("WGK_PIPELINE_CACHE");
  unsetenv("WGK_PROGRESS");
  assert_true(ctx->dev->cache_on);
  assert_int_equal(ctx->dev->progress_after_ms, 1000);
  wgk_context_destroy(ctx);
  ctx = wgk_test_context_with(&(wgk_context_options){.pipeline_cache_log = WGK_OFF, .progress = WGK_OFF});
  assert_false(ctx->dev->cache_log);
  assert_int_equal(ctx->dev->progress_after_ms, -1);
  wgk_context_destroy(ctx);
}

/* With the options 0 the variables decide; without either the defaults hold (the adapter's where it decides). */
static void variables_then_defaults(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  bool cpu = strcmp(rt_context_device_desc(ctx)->adapterType, "cpu") == 0;
  assert_int_equal(ctx->wait_ms, 60000);
  assert_int_equal(ctx->pool.max_bytes, 512ull << 20);
  assert_int_equal(ctx->queue_write_max, 256u << 10);
  assert_int_equal(ctx->host_span, 256u << 10);
  assert_int_equal(util_workers_max(ctx->workers), 7);
  assert_int_equal(util_workers_spin(ctx->workers), cpu ? 0 : 100);
  assert_int_equal(gpu_device_wait_spin_ns(ctx->dev), cpu ? 0 : 2000000);
  assert_int_equal(ctx->staged_upload, !cpu);
  assert_int_equal(ctx->defer_uploads, !cpu);
  assert_false(ctx->submit_during_fill);
  assert_true(ctx->dev->cache_on);
  assert_false(ctx->dev->cache_log);
  assert_int_equal(ctx->dev->cache_max, 256ull << 20);
  assert_int_equal(ctx->dev->progress_after_ms, 1000);
  uint64_t device_limit = rt_context_device_desc(ctx)->limits.maxStorageBufferBindingSize;
  wgk_context_destroy(ctx);

  ctx = with_env("WGK_WAIT_TIMEOUT_MS", "777", NULL);
  assert_int_equal(ctx->wait_ms, 777);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_POOL_BYTES", "0", NULL); /* 0: no reuse */
  assert_int_equal(ctx->pool.max_bytes, 0);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_HOST_THREADS", "5", NULL);
  assert_int_equal(util_workers_max(ctx->workers), 4);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_HOST_SPIN_US", "55", NULL);
  assert_int_equal(util_workers_spin(ctx->workers), 55);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_WAIT_SPIN_US", "0", NULL);
  assert_int_equal(gpu_device_wait_spin_ns(ctx->dev), 0);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_STAGED_UPLOAD", cpu ? "1" : "0", NULL);
  assert_int_equal(ctx->staged_upload, cpu);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_MAX_STORAGE_BINDING_BYTES", "134217728", NULL);
  assert_int_equal(rt_context_device_desc(ctx)->limits.maxStorageBufferBindingSize,
                   device_limit < 134217728 ? device_limit : 134217728);
  wgk_context_destroy(ctx);
  /* above the device's limit: never raised */
  wgk_context_options big = {.max_storage_binding_bytes = (int64_t)device_limit + 4};
  ctx = wgk_test_context_with(&big);
  assert_int_equal(rt_context_device_desc(ctx)->limits.maxStorageBufferBindingSize, device_limit);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_PIPELINE_CACHE", "0", NULL);
  assert_false(ctx->dev->cache_on);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_PIPELINE_CACHE_MAX_BYTES", "65536", NULL);
  assert_int_equal(ctx->dev->cache_max, 65536);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_PIPELINE_CACHE_LOG", "1", NULL);
  assert_true(ctx->dev->cache_log);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_PROGRESS", "0", NULL);
  assert_int_equal(ctx->dev->progress_after_ms, -1);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_PROGRESS_AFTER_MS", "0", NULL);
  assert_int_equal(ctx->dev->progress_after_ms, 0);
  wgk_context_destroy(ctx);
  ctx = with_env("WGK_HOST_SPAN", "", NULL); /* empty counts as unset */
  assert_int_equal(ctx->host_span, 256u << 10);
  wgk_context_destroy(ctx);
}

/* Bad kernel options are refused for a folder as for a repo id, naming the option and the value. */
static void kernel_options_refused(void **state) {
  (void)state;
  wgk_context *ctx = wgk_test_context();
  char pkg[4096];
  const char *src = getenv("WGK_SOURCE_DIR");
  snprintf(pkg, sizeof pkg, "%s/tests/cli/scale", src ? src : ".");
  static const struct {
    wgk_kernel_options o;
    const char *want;
  } cases[] = {
      {{.version = -5}, "kernel option version: must be 0 (any) or a branch number from 1 to 1000000, not -5"},
      {{.version = 1000001}, "not 1000001"},
      {{.revision = "xyz"}, "kernel option revision: must be a 40-hex commit, not 'xyz'"},
      {{.revision = ""}, "must be a 40-hex commit, not ''"},
      {{.revision = "0123456789abcdef0123456789abcdef012345678"}, "must be a 40-hex commit"}, /* 41 */
      {{.revision = "0123456789abcdef0123456789abcdef0123456g"}, "must be a 40-hex commit"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    wgk_kernel *k = (wgk_kernel *)1;
    assert_int_equal(wgk_kernel_load(ctx, pkg, &cases[i].o, &k), WGK_ERR_INVALID_ARGUMENT);
    assert_null(k);
    if (!strstr(wgk_context_errmsg(ctx), cases[i].want))
      fail_msg("case %zu: \"%s\" lacks \"%s\"", i, wgk_context_errmsg(ctx), cases[i].want);
    assert_non_null(strstr(wgk_context_errmsg(ctx), "tests/cli/scale"));
  }
  wgk_kernel *k = NULL; /* the good ones still load the folder */
  assert_int_equal(wgk_kernel_load(ctx, pkg, &(wgk_kernel_options){.version = 0}, &k), WGK_OK);
  wgk_kernel_destroy(k);
  wgk_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_variables_refused),  cmocka_unit_test(bad_options_refused),
      cmocka_unit_test(options_land_and_win),   cmocka_unit_test(variables_then_defaults),
      cmocka_unit_test(kernel_options_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
