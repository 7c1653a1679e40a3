// ONNX Runtime (onnxruntime-node) as a peer: the RotaryEmbedding bench.json cases as single-node models,
// timed per session.run (host tensors in, host tensors out: what `wgk bench` calls e2e).
// usage: node ort_bench.mjs --ep cpu|webgpu --bench PATH/bench.json --out FILE.json [--iterations N] [--case ID]
// ORT_NODE_MODULES (default ../../tests/ort/node_modules) says where onnxruntime-node is.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { singleNodeModel } from "./onnx_model.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.ORT_NODE_MODULES || path.join(here, "..", "..", "tests", "ort", "node_modules");
const ort = createRequire(path.join(modules, "x.js"))("onnxruntime-node");
const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const ep = arg("--ep", "cpu"), benchPath = arg("--bench"), outPath = arg("--out"), itersArg = arg("--iterations");

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

function stat(xs) {
  const s = [...xs].sort((a, b) => a - b), q = (p) => { const x = p * (s.length - 1), lo = Math.floor(x);
    return lo + 1 < s.length ? s[lo] + (s[lo + 1] - s[lo]) * (x - lo) : s[lo]; };
  return { median: q(0.5), p10: q(0.1), p90: q(0.9), n: s.length };
}

function merged(doc, c) {
  const d = doc.defaults || {};
  return { ...d, ...c, inputs: { ...(d.inputs || {}), ...(c.inputs || {}) }, attrs: { ...(d.attrs || {}), ...(c.attrs || {}) } };
}

async function runCase(c) {
  const inputs = Object.entries(c.inputs).map(([k, s]) => ({ name: PORTS[k] || k, dtype: s.dtype, shape: s.shape, spec: s }));
  const x = inputs.find((i) => i.name === "X");
  const model = singleNodeModel({ opType: "RotaryEmbedding", opset: 23, inputs,
    outputs: [{ name: "Y", dtype: x.dtype, shape: x.shape }], attrs: c.attrs });
  const session = await ort.InferenceSession.create(model, { executionProviders: [ep] });
  const feeds = Object.fromEntries(inputs.map((i) => [i.name, tensor(i.spec)]));
  const iters = Number(itersArg || c.iterations || 20), warmup = c.warmup ?? 3, ns = [];
  for (let i = 0; i < warmup + iters; i++) {
    const t0 = process.hrtime.bigint();
    const out = await session.run(feeds);
    out.Y.data; // host data in hand
    if (i >= warmup) ns.push(Number(process.hrtime.bigint() - t0));
  }
  await session.release();
  return { id: c.id, status: "ok", ns: stat(ns) };
}

const doc = JSON.parse(fs.readFileSync(benchPath, "utf8"));
const result = { peer: `ort-${ep}`, kind: "e2e", onnxruntime: ort.env.versions?.node ?? "1.30", cases: [] };
const filter = arg("--case", "");
for (const raw of doc.cases) {
  const c = merged(doc, raw);
  if (filter && !c.id.includes(filter)) continue;
  try {
    result.cases.push(await runCase(c));
  } catch (e) {
    result.cases.push({ id: c.id, status: "failed", message: String(e.message || e).split("\n")[0] });
  }
  const last = result.cases[result.cases.length - 1];
  console.error(`ort-${ep} ${c.id}: ${last.status === "ok" ? (last.ns.median / 1e3).toFixed(1) + " us" : last.message}`);
}
fs.writeFileSync(outPath, JSON.stringify(result, null, 2) + "\n");
