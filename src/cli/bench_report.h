/* What `wgk bench` measured, shared by its table and its --json writer. */
#ifndef WGK_CLI_BENCH_REPORT_H
#define WGK_CLI_BENCH_REPORT_H

#include <jansson.h>
#include <stdbool.h>

#include "bench/breakdown.h"
#include "bench/case_run.h"
#include "bench/ceiling.h"

typedef struct cli_bench_row {
  const tc_bench_case *c;
  bool skipped; /* the device lacks a required feature */
  bool failed;  /* the case could not run: message says why */
  char message[2048];
  char variant[128];
  int sets; /* input copies rotated among */
  int64_t warmup, iterations;
  bool gpu_timed;             /* gpu from timestamp queries, else the batch figure (wall of K back-to-back calls / K) */
  bool has_timestamps;        /* the device has timestamp-query: timestamps measured (used for gpu or not) */
  bench_stat timestamps;      /* ns per call from timestamps, pooled over the repeats */
  bool timestamps_consistent; /* the timestamps checked like a GPU figure (bench/consistency.h) */
  char timestamps_reason[512];
  bench_stat gpu, batch, resident, e2e, timed_call; /* ns per call; gpu, batch and resident pooled over the repeats */
  bench_e2e_parts e2e_parts;                        /* where e2e's time goes */
  int batch_calls;                                  /* K */
  int repeats; /* repeats of gpu, batch and resident, dealt from one series each on warm clocks */
  double spread_gpu, spread_batch, spread_resident; /* (max - min) / min of the repeats' medians */
  double drift_gpu, drift_batch, drift_resident;    /* the same of the medians of each series' consecutive thirds */
  double med_gpu[WGK_BENCH_MAX_REPEATS], med_batch[WGK_BENCH_MAX_REPEATS], med_resident[WGK_BENCH_MAX_REPEATS];
  bool consistent;       /* bench/consistency.h: gpu <= resident, timestamps <= batch */
  char consistency[512]; /* why not */
  double load_average;   /* the host's 1-minute load average, the larger of the samples before and after */
  int cores;             /* online */
  int irq_cpu;           /* the CPU that took most of the GPU's interrupts over the series (bench/irq.h); -1: unknown */
  double waits_on_irq;   /* the share of the resident calls whose wait ended on irq_cpu */
  char kept_off[64];     /* the CPUs the process was kept off (--off-irq-cpu), as a CPU list; "" when none */
  bool repeats_agree;    /* every spread within WGK_BENCH_REPEAT_TOLERANCE */
  char disagreement[512]; /* which series do not */
  bool has_reference;     /* --reference: the C reference's time per call (host, double) */
  bench_stat reference;
  uint64_t bytes, flops; /* per call; flops 0 = not reported */
  uint64_t input_bytes, output_bytes;
  bool has_copy_at; /* the copy kernels measured at the case's bytes */
  bench_copy copy_at;
  /* Where a resident call's time goes (has_timestamps for the timed figures), pooled over the repeats: */
  bench_stat resident_run, resident_wait; /* the resident series split: wgk_call_run returning, then the wait */
  bench_stat bare_beside;                 /* the bare submit + wait timed after each resident call (n 0: none) */
  bool has_transfers_beside;              /* the transfer ceilings timed again after the case's e2e series */
  bench_transfer upload_beside, download_beside;
  bench_stat ts_batch; /* wall per call of the submissions the timestamps timed the last call of */
  bench_stat span;     /* that last call's GPU span: first pass's begin to last pass's end */
  bench_stat timed_run, timed_wait, timed_gpu, timed_span; /* lone timed calls (timed_call is their whole wall) */
  double med_run[WGK_BENCH_MAX_REPEATS], med_wait[WGK_BENCH_MAX_REPEATS]; /* resident_run / wait per repeat */
  int n_passes; /* timestamps per pass (has_timestamps): each pass's share, pooled over the repeats */
  char pass_name[WGK_BENCH_MAX_PASSES][64];
  bench_stat pass[WGK_BENCH_MAX_PASSES];
} cli_bench_row;

/* GB/s and GFLOP/s of a row at its median GPU time (0 when unknown); the row's GB/s over the same-size copy's (0
 * when not measured). */
double cli_bench_row_copy_at_ratio(const cli_bench_row *r);
double cli_bench_row_gbps(const cli_bench_row *r);
double cli_bench_row_gflops(const cli_bench_row *r);

/* The row's goals (bench_goals_of) against the ceilings and those timed beside it. */
bench_goals cli_bench_row_goals(const cli_bench_row *r, const bench_ceilings *c);

/* The row's resident-call breakdown with the ceilings' floors (bench/breakdown.h). */
bench_breakdown cli_bench_row_breakdown(const cli_bench_row *r, const bench_ceilings *c);

/* What every bench report begins with: {schema, command (the command line), date, package, device (`wgk devices
 * --json` shape, without its index)}; NULL when out of memory. */
json_t *cli_bench_report_head(int argc, char **argv, const char *op_id, const device_desc *dev);
/* The whole report as JSON: the head, then ceilings and cases. */
json_t *cli_bench_report_json(int argc, char **argv, const char *op_id, const device_desc *dev,
                              const bench_ceilings *ceil, const cli_bench_row *rows, size_t n);

/* A peer beside wgk's table (--peer FILE, as bench/peers writes it; --reference, the C reference): its median
 * time per case, compared with wgk's GPU time (kind gpu) or end-to-end time (kind e2e). */
#define WGK_BENCH_MAX_PEERS 8
typedef struct cli_bench_peer {
  char name[64];
  bool gpu;       /* kind "gpu": device time; else "e2e": host arrays in, outputs back */
  bool reference; /* the C reference of --reference: the rows' own figure (cases unused) */
  json_t *cases;  /* [{id, status, ns: {median}}], a reference held */
} cli_bench_peer;
typedef struct cli_bench_peers {
  cli_bench_peer peer[WGK_BENCH_MAX_PEERS];
  size_t n;
} cli_bench_peers;

/* The peers of one file ({peer, kind, cases} or {peers: [...]}), checked, appended to into; false after printing
 * "wgk bench: --peer FILE...: <the rule>" (the file's line and column for bad JSON). */
bool cli_bench_peers_read(const char *path, cli_bench_peers *into);
/* Every peer times some case of s (a peer of another package's bench.json is refused); false after printing. */
bool cli_bench_peers_match(const cli_bench_peers *peers, const tc_bench_suite *s);
void cli_bench_peers_free(cli_bench_peers *peers);
/* A peer's table cell for r's case: "<peer us> (<wgk / peer>x)", or the peer's status there ("-": not timed). */
void cli_bench_peer_cell(const cli_bench_peer *p, const cli_bench_row *r, char *buf, size_t size);

/* `wgk bench PKG --first-call`: the first bench.json case matching filter (NULL: the first), first call of the
 * process by phase (cli/bench_first.c); the exit status. */
struct cli_common;
int cli_bench_first_call(const char *pkg, const char *filter, const char *json_path, const struct cli_common *common,
                         int argc, char **argv);

/* The package's bench.json (digest-checked when verified); NULL with the error printed as "wgk <cmd>: ...". */
struct wgk_kernel;
struct pkg_package;
tc_bench_suite *cli_load_bench(const char *cmd, struct pkg_package *pkg);
/* A --case filter that matches some case (NULL matches all); false after printing the case ids. */
bool cli_bench_filter_ok(const char *cmd, const tc_bench_suite *s, const char *filter);

#endif
