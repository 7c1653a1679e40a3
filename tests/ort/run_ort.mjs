// Runs each case folder's model.onnx on ONNX Runtime's CPU provider with feeds.json and writes its outputs as
// test_data_set_0/output_N.pb (TensorProto: dims, data_type, name, raw_data), the expected values for
// `wgk onnx-test`. Op-agnostic: what an op's ORT kernel needs is declared by the case in feeds.json (written by
// kernels/<op id>/tools/ort_cases.py):
//   outputsFrom {output: input}   the output is written in place into that input's buffer (ORT's SparseAttention
//                                 insists present_* share past_*'s memory): handed in as the output, read back
//   splitBatch [input...]         these inputs are run one batch element (dims[0]) at a time and every output is
//                                 joined along its first axis (works around an ORT kernel's batch fault)
//   splitTotals {input: input}    in a split run, the first input is the second's value for that batch element
// Usage: node run_ort.mjs DIR...     (run by tests/ort/ort_peer.py)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { tensorProto } from "./onnx_proto.mjs";

const require = createRequire(fileURLToPath(import.meta.url));
const ort = require("onnxruntime-node");

const ARRAY = { float32: Float32Array, float16: Uint16Array, int32: Int32Array, int64: BigInt64Array };

// Batch element b of a feed (dims[0] is the batch), or the whole feed.
function feed(spec, b) {
  if (!ARRAY[spec.type]) throw new Error(`feeds.json: type ${spec.type} is not one of ${Object.keys(ARRAY)}`);
  const all = spec.type === "int64" ? BigInt64Array.from(spec.data.map(BigInt)) : ARRAY[spec.type].from(spec.data);
  if (b === undefined) return new ort.Tensor(spec.type, all, spec.dims);
  const per = all.length / spec.dims[0];
  return new ort.Tensor(spec.type, all.slice(b * per, (b + 1) * per), [1, ...spec.dims.slice(1)]);
}

async function run(session, spec, b) {
  const feeds = {};
  for (const [n, s] of Object.entries(spec.feeds)) feeds[n] = feed(s, spec.splitBatch?.includes(n) ? b : undefined);
  if (b !== undefined) {
    for (const [n, from] of Object.entries(spec.splitTotals || {})) {
      feeds[n] = new ort.Tensor(feeds[from].type, feeds[from].data.slice(0, 1), [1]);
    }
  }
  const inPlace = spec.outputsFrom || {};
  const fetches = Object.fromEntries(spec.outputs.map((n) => [n, inPlace[n] ? feeds[inPlace[n]] : null]));
  const out = await session.run(feeds, fetches);
  return Object.fromEntries(spec.outputs.map((n) => [n, inPlace[n] ? feeds[inPlace[n]] : out[n]]));
}

for (const dir of process.argv.slice(2)) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, "feeds.json"), "utf8"));
  const session = await ort.InferenceSession.create(path.join(dir, "model.onnx"), { executionProviders: ["cpu"] });
  const parts = [];
  if (spec.splitBatch) {
    const batch = spec.feeds[spec.splitBatch[0]].dims[0];
    for (let b = 0; b < batch; b++) parts.push(await run(session, spec, b));
  } else {
    parts.push(await run(session, spec));
  }
  spec.outputs.forEach((name, i) => {
    const first = parts[0][name];
    const dims = [...first.dims];
    dims[0] = parts.reduce((n, p) => n + p[name].dims[0], 0);
    const data = new first.data.constructor(parts.reduce((n, p) => n + p[name].data.length, 0));
    let at = 0;
    for (const p of parts) { data.set(p[name].data, at); at += p[name].data.length; }
    fs.writeFileSync(path.join(dir, "test_data_set_0", `output_${i}.pb`), tensorProto(name, first.type, dims, data));
  });
  console.log(`ort ${dir}`);
}
