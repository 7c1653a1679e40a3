/* `wgk CMD --help` and `wgk help CMD`: each command's usage with every option explained (stdout, exit 0).
 * The options every package command takes are written once, in common_options. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/say.h"

static const char common_options[] =
    "package options (every command that opens PKG):\n"
    "  --version N            contract version N of a repo id (the Hub branch vN); refused when the package\n"
    "                         cannot confirm it. Without it (and without --revision) a repo id loads the newest\n"
    "                         version on this machine (the cache's or the bundled copy's, no request); nothing\n"
    "                         there: name one (docs/hub.md, \"Which version\")\n"
    "  --revision SHA         a 40-hex commit of a repo id (the cache or the Hub; never the bundled copy)\n"
    "  --trust-remote-code    allow a repo id outside webgpu-kernels/ from the Hub\n"
    "  --strict               refuse an unverified package (no metadata.json digests)\n"
    "  --adapter SEL          the WebGPU adapter: an index of `wgk devices` or a name substring\n"
    "  --verbose, -v          more detail on stderr\n"
    "PKG is a folder (starting with / or .) or a repo id (webgpu-kernels/<op id>, <op id>), looked up on\n"
    "WGK_KERNEL_PATH, the kernels installed with wgk (share/wgk/kernels beside its lib/; a build inside the\n"
    "source tree uses the tree's kernels/), the Hub cache, then the Hub (docs/hub.md).\n";

static const char call_options[] =
    "  --attr K=V             an attribute; V is JSON (3, 0.5, [1,0], \"s\") or a bare word taken as a string\n"
    "  --arg K=V              a scalar arg of the contract, by its kind (u32, i32, f32, bool, string)\n"
    "  --tunable K=N          an integer tunable (overrides the tuning cache and the default)\n";

typedef struct command_help {
  const char *name;
  bool package; /* takes PKG and the common package options */
  const char *text;
} command_help;

static const command_help helps[] = {
    {"run", true,
     "usage: wgk run PKG --in PORT=FILE.npy ... [options]\n"
     "Runs the call on the GPU with .npy inputs. Prints, per call, the variant and its wall time (and GPU time\n"
     "with --gpu-time: \"call 1: variant rank4_cache2_pos, wall 2.1 ms, gpu 0.3 ms\"), then per output its dtype, "
     "shape and\n"
     "min/max/mean (\"y: float32 [1, 2, 3, 8] min=-2.3 max=2.0 mean=-0.017\", with a count of non-finite values);\n"
     "writes every output as <port>.npy in --out DIR. Every argument is checked before a GPU context is made.\n"
     "  --in PORT=FILE.npy     an input tensor by port key (or ONNX name); 0-d arrays are scalars\n"
     "%s"
     "  --out-shape PORT=DIMS[:DTYPE]  an explicit destination for an output without a shape expression\n"
     "                         (DIMS like 2x3, `scalar` for 0-d; DTYPE default float32)\n"
     "  --out DIR              write outputs as DIR/<port>.npy (a folder; PORT=FILE is refused)\n"
     "  --calls N              run the call N times, a time line each (was --repeat); --verbose adds the\n"
     "                         tunables and what each call compiled and created\n"
     "  --wgsl                 print the rendered WGSL of every pass\n"
     "  --gpu-time             time each call on the GPU too (timestamp queries: not free on a first call)\n"},
    {"explain", true,
     "usage: wgk explain PKG [--shape PORT=2x4x3x8]... [options]\n"
     "Plans a call without running it and prints the plan: the variant chosen, every rejected variant with its\n"
     "reason, output shapes and dtypes, dispatch sizes and uniform values.\n"
     "  --shape PORT=DIMS      an input's shape (DIMS like 2x4x3x8, `scalar` for 0-d)\n"
     "  --dtype T=DTYPE        a type variable's dtype (float32, float16, int32, ...)\n"
     "  --absent PORT          an optional input left out\n"
     "%s"
     "  --device FILE.json     plan for a described device instead of the adapter (tests/plan/*.device.json)\n"
     "  --json                 the plan as JSON\n"},
    {"render", true,
     "usage: wgk render PKG [--shape PORT=DIMS]... [options]\n"
     "Prints the WGSL a call would run (every pass, or one).\n"
     "  --shape PORT=DIMS, --dtype T=DTYPE, --absent PORT, --device FILE.json: as for wgk explain\n"
     "%s"
     "  --pass ID              only this pass\n"},
    {"list", false,
     "usage: wgk list [--json]\n"
     "Lists the kernel packages a repo id can load: the folders on the search path (WGK_KERNEL_PATH, the bundled\n"
     "kernels/, the installed share; a later folder of the same name is shadowed) and every snapshot in the Hub\n"
     "cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub) with the versions pointing at it.\n"
     "Each is opened as a load opens it: op id, version, verified (every file matched its digest), unverified\n"
     "(no metadata.json), broken (with the reason) or incomplete (a cached snapshot without metadata.json).\n"
     "  --json                 as JSON: searchPath, hubCache, packages [{name, opId, version, verified, where,\n"
     "                         source, shadowed, repo, revision, complete, refs, error}]\n"},
    {"info", true,
     "usage: wgk info PKG [--json] [options]\n"
     "Prints a package's contract: its op id, folder, version and whether its files are digest-verified, then\n"
     "its ports (direction, names, dtypes, rank, shape), attributes (default, allowed values), tunables and\n"
     "variants (conditions and passes). Nothing runs on the GPU.\n"
     "  --json                 as JSON: {opId, sinceVersion, package, verified, version, revision, description,\n"
     "                         ports: [{dir, name, onnx, keys, typeVar, dtypes, optional, rank, shape}],\n"
     "                         attributes: [{name, default, values, required}], tunables, variants: [{id,\n"
     "                         priority, when, passes: [{id, shader}]}]}\n"},
    {"test", true,
     "usage: wgk test PKG [--case ID] [--shard K/N] [--list] [--json] [options]\n"
     "       wgk test DIR --record COMMAND [--case ID]\n"
     "Runs the package's test.json cases on the GPU against wgk's double-precision references. Prints a line\n"
     "per case: PASS with the variant, the largest absolute and relative errors and the tolerance that passed\n"
     "them (with the share of it the worst element used), FAIL with the worst element against its tolerance, or\n"
     "SKIP with the reason; then \"N passed, M failed\". Exit 1 on any failure.\n"
     "  --case ID              only cases whose id contains ID\n"
     "  --shard K/N            every N-th of those cases from the K-th on: N runs together run each once\n"
     "  --list                 list the cases without running them\n"
     "  --json                 as JSON: {package, adapter, cases: [{id, verdict, variant, maxAbs, maxRel,\n"
     "                         tolerance: {dtype, rtol, atol, used}, message}], passed, failed, skipped};\n"
     "                         with --list, {cases: [id]}\n"
     "  --record COMMAND       write the expected .npy files of DIR's cases (\"expected\": {PORT: {\"npy\": FILE}})\n"
     "                         from a reference: per case, its inputs go to $WGK_CASE_DIR/inputs/KEY.npy with\n"
     "                         case.json, COMMAND runs (sh -c, in DIR) and writes $WGK_CASE_DIR/outputs/PORT.npy;\n"
     "                         DIR is repacked when it has a metadata.json. No GPU is used\n"},
    {"bench", true,
     "usage: wgk bench PKG [--case ID] [--iterations N] [--json FILE] [--peer FILE...] [--reference | --first-call]\n"
     "                 [--off-irq-cpu] [options]\n"
     "Times the package's bench.json cases against the device's ceilings, measured first. Prints the adapter,\n"
     "the copy and FMA ceilings, then one line per case: case, variant, GPU us per call, end-to-end us per call\n"
     "(host inputs in, outputs read back), GB/s and its % of the copy ceiling, and a column per peer (--peer,\n"
     "--reference): its us per call and (Nx), wgk's time over the peer's; notes follow for figures in doubt.\n"
     "With --verbose, the lab detail instead: how each ceiling was timed, and per case the spread of its repeats,\n"
     "the time breakdown, the transfer and overhead goals and the consistency checks.\n"
     "  --case ID              only cases whose id contains ID\n"
     "  --iterations N         timed iterations per case (default: the case's own; was --repeat)\n"
     "  --json FILE            write every figure as JSON (scripts/plot-bench.py draws it)\n"
     "  --peer FILE            a peer's times beside wgk's, as bench/peers writes them ({peer, kind, cases} or\n"
     "                         {peers: [...]}; kind gpu is compared with GPU us, e2e with e2e us); up to 8\n"
     "  --reference            also time the CPU reference (the peer c-reference, end to end)\n"
     "  --first-call           only the first call of this process, by phase (context, load, plan + compile,\n"
     "                         run, wait, read; wall and CPU time) and the pipeline cache's counts\n"
     "  --off-irq-cpu          first move this process off the CPU that takes the GPU's interrupts (found by\n"
     "                         200 bare submissions; a wait there sees the work done late on the H200)\n"},
    {"tune", true,
     "usage: wgk tune PKG [--case ID] [--iterations N] [options]\n"
     "       wgk tune --show [OP-ID] [--json]\n"
     "Sweeps the package's tunables per bench case and keeps the fastest per device in the tuning cache\n"
     "(WGK_TUNING_CACHE, else ~/.cache/wgk/tuning.json); later calls use it. Prints each candidate's time as it\n"
     "goes and the setting kept per case.\n"
     "  --case ID              only cases whose id contains ID\n"
     "  --iterations N         timed iterations per candidate (was --repeat)\n"
     "  --show                 print the tuning cache (of one op with OP-ID): per entry the device, op,\n"
     "                         variant, shape, case, the tunables kept and their time against the defaults'\n"
     "  --json                 with --show: {cache, entries: [{device, op, variant, shape, case, tunables,\n"
     "                         gpuNs, defaultGpuNs, ...}]}\n"},
    {"onnx-test", false,
     "usage: wgk onnx-test DIR... [--rtol R] [--atol A] [--adapter SEL] [--strict] [--verbose]\n"
     "Runs ONNX single-node test folders (model.onnx, test_data_set_*/input_N.pb, output_N.pb) through the\n"
     "kernel package of each node's op. Prints a line per data set, PASS, FAIL with why (an output past its\n"
     "tolerance, or the error), or SKIP with the reason, then \"N passed, M failed, K skipped\". Exit 1 on a failure.\n"
     "  --rtol R, --atol A     tolerances (default per dtype: float32 1e-3 / 1e-7, float16 1e-2 / 1e-3)\n"
     "  --adapter SEL, --strict, --verbose: as for the package commands\n"},
    {"eval", false,
     "usage: wgk eval EXPR [--scope FILE.json]\n"
     "Prints what {{ EXPR }} renders in the expression language (docs/expressions.md).\n"
     "  --scope FILE.json      the names EXPR may use (a JSON object)\n"},
    {"template", false,
     "usage: wgk template FILE [--scope FILE.json]\n"
     "Renders a template file in the template language (docs/templates.md) and prints the result on stdout.\n"
     "  --scope FILE.json      the template's variables (a JSON object)\n"},
    {"pack", false,
     "usage: wgk pack DIR [--check]\n"
     "Writes DIR's metadata.json (DIR: a package root or its build/webgpu folder) from the files beside it: the\n"
     "op id from the manifest; each variant's template list, its passes' shaders and (spec 2.1) every file they\n"
     "{% include %}; the SHA-256 of every file under build/webgpu (hidden files left out); the metadata's other\n"
     "keys (version, license, provenance ...) kept. Then it opens the package strict and reads every file\n"
     "through the digest check: exit 0 only when the result loads verified. Run it after every edit.\n"
     "  --check                write nothing: exit 1 when metadata.json is not what pack would write\n"},
    {"check", false,
     "usage: wgk check DIR [--adapter SEL] [--verbose]\n"
     "Lints a package folder being authored (DIR: a package root or its build/webgpu folder) and lists every\n"
     "problem, one line each, FAIL [rule] file:line:column: what and the values: manifest.json loads; metadata.json\n"
     "is what `wgk pack DIR` writes; test.json and bench.json parse and name only ports, attributes, tunables and\n"
     "variants the manifest has, and their .npy files exist, are packed and agree with the case; README.md (the\n"
     "card) exists at the package root. Then every test.json case that expects a run is planned, rendered,\n"
     "compiled and run on the device (outputs are not compared: that is wgk test), and a variant no case\n"
     "reaches on this device is noted. Closes with \"N problems\"; exit 1 when N > 0.\n"
     "  --adapter SEL          the adapter to compile and run on (index or name substring)\n"
     "  --verbose              the runtime's compile and plan lines\n"},
    {"convert", false,
     "usage: wgk convert SRC DST\n"
     "Turns a seed-format package (folder SRC) into a manifest spec 2.1 package with the public metadata\n"
     "layout in DST (a new folder), planning every call as the seed does. Prints one line: DST, the op id and\n"
     "the number of variants.\n"},
    {"devices", false,
     "usage: wgk devices [--json]\n"
     "Lists the WebGPU adapters: per adapter its name, vendor, backend and type, then its features and limits.\n"
     "  --json                 as JSON\n"},
    {"smoke", false,
     "usage: wgk smoke [--adapter SEL] [--n N] [--seed S] [--verbose]\n"
     "Runs y = a*x + b on the GPU and checks every element. Prints the adapter and its features, the call's\n"
     "n, a, b and seed, then \"verified: N of N elements match the host\" with the GPU pass's time; exit 1 and\n"
     "the first mismatches on stderr when any element differs.\n"
     "  --adapter SEL          the adapter (index or name substring)\n"
     "  --n N                  the number of elements\n"
     "  --seed S               the random seed of the inputs\n"
     "  --verbose              more detail\n"},
    {"download", true,
     "usage: wgk download REPO [--version N | --revision SHA] [--trust-remote-code]\n"
     "       wgk download --lock wgk.lock [--trust-remote-code]\n"
     "Fetches a package into the Hub cache (digest-checked) and prints its folder.\n"
     "  --version N            the branch vN        --revision SHA   a 40-hex commit\n"
     "                         neither: the Hub's newest vN (offline: the newest cached one, no request)\n"
     "  --lock FILE            every repo of a lockfile (wgk lock), at its pinned commit and digests\n"
     "  --trust-remote-code    allow a repo outside webgpu-kernels/\n"},
    {"cache", false,
     "usage: wgk cache ls [--json]\n"
     "       wgk cache verify [REPO...]\n"
     "       wgk cache rm REPO\n"
     "The Hub cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub): list it (per repo its\n"
     "blobs and bytes, its refs and the commits they point at, its snapshots), check every cached file against\n"
     "its digest, or remove one repo.\n"
     "  --json                 ls as JSON: {cache, repos: [{repo, folder, blobs, bytes, refs: {name: commit},\n"
     "                         snapshots: [{commit, complete}]}]}\n"},
    {"lock", true,
     "usage: wgk lock REPO[@vN] ... [--trust-remote-code] > wgk.lock\n"
     "Pins each REPO@vN (a REPO without one: the Hub's newest vN) to its current commit and file digests and\n"
     "prints them as JSON on stdout, for wgk download --lock.\n"},
};

const char *const *cli_help_names(size_t *n) {
  static const char *names[sizeof helps / sizeof helps[0]];
  for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) names[i] = helps[i].name;
  *n = sizeof helps / sizeof helps[0];
  return names;
}

/* The help of command cmd, else NULL. */
static const command_help *help_of(const char *cmd) {
  for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
    if (strcmp(helps[i].name, cmd) == 0) return &helps[i];
  return NULL;
}

bool cli_print_help(const char *cmd, FILE *out) {
  const command_help *h = help_of(cmd);
  if (!h) return false;
  if (strstr(h->text, "%s"))
    fprintf(out, h->text, call_options);
  else
    fputs(h->text, out);
  if (h->package) fputs(common_options, out);
  return true;
}

/* A command's usage lines: the leading lines of its help that start with "usage:" or continue one (indented). */
static size_t usage_length(const char *text) {
  size_t n = 0;
  while (text[n] && (n == 0 || text[n] == ' ')) {
    const char *nl = strchr(text + n, '\n');
    n = nl ? (size_t)(nl - text) + 1 : strlen(text);
  }
  return n;
}

int cli_usage(const char *cmd) {
  const command_help *h = help_of(cmd);
  if (h) cli_say("%.*s", (int)usage_length(h->text), h->text);
  cli_say("`wgk help %s` explains every option.\n", cmd);
  return 2;
}
