// ONNX Runtime (onnxruntime-node) as a peer: a package's bench.json cases as single-node models, timed per
// session.run (host tensors in, host tensors out: what `wgk bench` calls e2e). The op comes from the
// manifest.json beside bench.json: ai.onnx.RotaryEmbedding (opset 23) or com.microsoft.SparseAttention
// (contrib opset 1; inputs from the bench generators, gen.mjs).
// usage: node ort_bench.mjs --ep cpu|webgpu --bench PATH/bench.json --out FILE.json [--iterations N] [--case ID]
//        [--budget-ms B] (each case's timed calls within B ms: fewer iterations for a slow case, at least 3)
// ORT_NODE_MODULES (default ../../tests/ort/node_modules) says where onnxruntime-node is.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { singleNodeModel } from "./onnx_model.mjs";
import { generate, merged, peerKey, timeCalls } from "./gen.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.ORT_NODE_MODULES || path.join(here, "..", "..", "tests", "ort", "node_modules");
const ort = createRequire(path.join(modules, "x.js"))("onnxruntime-node");
const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const ep = arg("--ep", "cpu"), benchPath = arg("--bench"), outPath = arg("--out"), itersArg = arg("--iterations"),
  budgetMs = arg("--budget-ms", "0");

const PORTS = { x: "X", cos: "cos_cache", sin: "sin_cache", positionIds: "position_ids" };

function f16bits(f) { // round to nearest even through Float32 bits
  const b = new Uint32Array(new Float32Array([f]).buffer)[0], s = (b >>> 16) & 0x8000, e = ((b >>> 23) & 0xff) - 112;
  let m = b & 0x7fffff;
  if (e <= 0) return s; // tiny values flush to zero: timing data only
  let h = s | (e << 10) | (m >>> 13);
  const rest = m & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++;
  return h;
}

function data(spec, n, i) {
  const g = spec.generator || {};
  if (spec.dtype === "int64") {
    const shape = spec.shape, seq = shape[shape.length - 1];
    return BigInt(g.kind === "const" ? g.value : (g.offset || 0) + (i % seq));
  }
  const v = g.kind === "rotary_cos" ? Math.cos(i) : g.kind === "rotary_sin" ? Math.sin(i) : Math.sin(i * 12.9898) ;
  return spec.dtype === "float16" ? f16bits(v) : v;
}

function tensor(spec) {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const Arr = spec.dtype === "int64" ? BigInt64Array : spec.dtype === "float16" ? Uint16Array : Float32Array;
  const a = new Arr(n);
  for (let i = 0; i < n; i++) a[i] = data(spec, n, i);
  return new ort.Tensor(spec.dtype, a, spec.shape);
}

async function runRope(c) {
  const inputs = Object.entries(c.inputs).map(([k, s]) => ({ name: PORTS[k] || k, dtype: s.dtype, shape: s.shape, spec: s }));
  const x = inputs.find((i) => i.name === "X");
  const model = singleNodeModel({ opType: "RotaryEmbedding", opset: 23, inputs,
    outputs: [{ name: "Y", dtype: x.dtype, shape: x.shape }], attrs: c.attrs });
  const session = await ort.InferenceSession.create(model, { executionProviders: [ep] });
  const feeds = Object.fromEntries(inputs.map((i) => [i.name, tensor(i.spec)]));
  const t = await timeCalls(async () => (await session.run(feeds)).Y.data, c, itersArg, budgetMs); // host data in hand
  await session.release();
  return { id: c.id, status: "ok", ...t };
}

// com.microsoft SparseAttention: wgk's port names to ONNX's, in the node's input order.
const SPARSE_PORTS = [["queryT", "query"], ["keyT", "key"], ["valueT", "value"], ["pastKeyT", "past_key"],
  ["pastValueT", "past_value"], ["blockRowIndicesT", "block_row_indices"], ["blockColIndicesT", "block_col_indices"],
  ["totalSequenceLengthT", "total_sequence_length"], ["keyTotalSequenceLengthsT", "key_total_sequence_lengths"],
  ["cosCacheT", "cos_cache"], ["sinCacheT", "sin_cache"]];

function sparseModel(c) {
  const feeds = {}, inputs = [], nodeInputs = [];
  for (const [port, name] of SPARSE_PORTS) {
    const spec = c.inputs[port];
    if (!spec) { nodeInputs.push(""); continue; }
    const t = generate(spec);
    feeds[name] = new ort.Tensor(t.dtype, t.data, t.shape);
    inputs.push({ name, dtype: t.dtype, shape: t.shape });
    nodeInputs.push(name);
  }
  while (nodeInputs[nodeInputs.length - 1] === "") nodeInputs.pop();
  const q = feeds.query, past = feeds.past_key, N = c.attrs.num_heads, KN = c.attrs.kv_num_heads, H = past.dims[3];
  const S = q.dims[1], width = feeds.key ? N * H : (N + 2 * KN) * H;
  if (q.dims[2] !== width) throw new Error(`query width ${q.dims[2]} is not ${width}`);
  const outputs = [{ name: "output", dtype: q.type, shape: [q.dims[0], S, N * H] },
    { name: "present_key", dtype: past.type, shape: past.dims }, { name: "present_value", dtype: past.type, shape: past.dims }];
  const model = singleNodeModel({ opType: "SparseAttention", domain: "com.microsoft", opset: 17, inputs, outputs,
    attrs: c.attrs, nodeInputs });
  return { model, feeds };
}

// ORT's CPU kernel insists that present_* share past_*'s memory (tests/ort/run_ort.mjs: outputsFrom): the caches are
// handed in as those outputs, so each run appends the new K/V rows in place, as wgk's call does.
const sparseFetches = (feeds) => ({ output: null, present_key: feeds.past_key, present_value: feeds.past_value });

// The case at one block: one query row, a past of one sparse block, one-block layouts, the case's dtype, heads,
// head size and attributes (the session's placement depends on those, not on the lengths).
function oneBlockCase(c) {
  const i = c.inputs, q = i.queryT, B = q.shape[0], KN = c.attrs.kv_num_heads, H = i.pastKeyT.shape[3];
  const bs = c.attrs.sparse_block_size, rand = (shape, seed) => ({ dtype: q.dtype, shape, generator: { kind: "uniform", seed } });
  const layout = (spec) => ({ ...spec, generator: { ...spec.generator, max_blocks: 1 } });
  const one = { dtype: "int32", shape: [1], generator: { kind: "const", value: 1 } };
  const inputs = { ...i, queryT: rand([B, 1, q.shape[2]], 1), pastKeyT: rand([B, KN, bs, H], 4),
    pastValueT: rand([B, KN, bs, H], 5), blockRowIndicesT: layout(i.blockRowIndicesT),
    blockColIndicesT: layout(i.blockColIndicesT), totalSequenceLengthT: one,
    keyTotalSequenceLengthsT: { ...one, shape: [B] } };
  if (i.keyT) { inputs.keyT = rand([B, 1, KN * H], 2); inputs.valueT = rand([B, 1, KN * H], 3); }
  return { ...c, id: `${c.id} at one block`, inputs };
}

// Where ORT places the node with this provider, found once per dtype on the one-block case: "" when the provider
// takes it with CPU fallback disabled, else what happens (and the one-block call on the fallback, timed once).
const placements = new Map();
async function placement(c) {
  const dtype = c.inputs.queryT.dtype;
  if (placements.has(dtype)) return placements.get(dtype);
  const { model, feeds } = sparseModel(oneBlockCase(c));
  let text = "";
  try {
    const s = await ort.InferenceSession.create(model, { executionProviders: [ep],
      extra: { session: { disable_cpu_ep_fallback: "1" } } });
    await s.release();
  } catch (e) {
    const msg = String(e.message || e).split("\n")[0];
    text = `${/assigned to the default CPU EP/.test(msg) ? `no ${ep} kernel: ` : ""}with CPU fallback disabled, ` +
      `session creation fails (${msg})`;
  }
  if (text) {
    const session = await ort.InferenceSession.create(model, { executionProviders: [ep] });
    const t0 = process.hrtime.bigint();
    (await session.run(feeds, sparseFetches(feeds))).output.data;
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    await session.release();
    text += `; with fallback on (the default) the node runs on the CPU provider (the ${dtype} model at one block ` +
      `ran there in ${ms.toFixed(1)} ms)`;
  }
  placements.set(dtype, text);
  return text;
}

async function runSparse(c) {
  const where = ep === "cpu" ? "" : await placement(c);
  if (where) { // on the CPU provider: that is the ort-cpu row; this case's inputs are neither generated nor run
    return { id: c.id, status: "cpu-fallback", message: `${where}; not timed (see ort-cpu)` };
  }
  const { model, feeds } = sparseModel(c);
  const session = await ort.InferenceSession.create(model, { executionProviders: [ep] });
  const fetches = sparseFetches(feeds);
  // host data in hand (the caches are the host tensors handed in)
  const t = await timeCalls(async () => (await session.run(feeds, fetches)).output.data, c, itersArg, budgetMs);
  await session.release();
  return { id: c.id, status: "ok", ...t };
}

const doc = JSON.parse(fs.readFileSync(benchPath, "utf8"));
const manifestPath = path.join(path.dirname(benchPath), "manifest.json");
const manifest = fs.existsSync(manifestPath) ? JSON.parse(fs.readFileSync(manifestPath, "utf8")) : { name: "RotaryEmbedding" };
const op = `${manifest.domain || "ai.onnx"}.${manifest.name}`;
const runCase = { "ai.onnx.RotaryEmbedding": runRope, "com.microsoft.SparseAttention": runSparse }[op];
if (!runCase) throw new Error(`ort_bench.mjs: no single-node model for ${op}`);
const result = { peer: `ort-${ep}`, kind: "e2e", op, onnxruntime: ort.env.versions?.node ?? "1.30", cases: [] };
const filter = arg("--case", ""), seen = new Map();
for (const raw of doc.cases) {
  const c = merged(doc, raw), prev = seen.get(peerKey(c));
  if (filter && !c.id.includes(filter)) continue;
  try {
    result.cases.push(prev ? { ...prev, id: c.id, sameAs: prev.id } : await runCase(c));
  } catch (e) {
    result.cases.push({ id: c.id, status: "failed", message: String(e.message || e).split("\n")[0] });
  }
  const last = result.cases[result.cases.length - 1];
  if (!prev) seen.set(peerKey(c), last);
  console.error(`ort-${ep} ${c.id}: ${last.status === "ok" ? (last.ns.median / 1e3).toFixed(1) + " us" + (last.budgetLimited ? ` (${last.iterations} calls: budget)` : "") : last.status + ": " + last.message}${prev ? ` (the figures of ${prev.id})` : ""}`);
}
fs.writeFileSync(outPath, JSON.stringify(result, null, 2) + "\n");
