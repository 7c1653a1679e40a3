// Runs each SparseAttention case folder's model.onnx on ONNX Runtime's CPU provider with feeds.json and writes
// its outputs as test_data_set_0/output_N.pb, the expected values for `wgk onnx-test`. A folder whose
// feeds.json lists "splitBatch" inputs is run one batch element at a time (ORT's CPU kernel gets later batch
// elements of a decode call with unequal key lengths wrong) and the outputs are joined along the batch axis.
// Usage: node run_ort_sparse.mjs DIR...
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "ort", "package.json"));
const ort = require("onnxruntime-node");

const ONNX_TYPE = { float32: 1, float16: 10, int32: 6 };
const ARRAY = { float32: Float32Array, float16: Uint16Array, int32: Int32Array };

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

const field = (num, payload) => [...varint((num << 3) | 2), ...varint(payload.length), ...payload];

function tensorProto(name, type, dims, data) {
  const head = [];
  for (const d of dims) head.push(...varint(1 << 3), ...varint(d));
  head.push(...varint(2 << 3), ...varint(ONNX_TYPE[type]));
  head.push(...field(8, [...Buffer.from(name, "utf8")]));
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([Buffer.from(head), Buffer.from(varint((9 << 3) | 2)), Buffer.from(varint(raw.length)), raw]);
}

// Batch element b of a feed (dims[0] is the batch), or the whole feed.
function feed(spec, b) {
  const all = ARRAY[spec.type].from(spec.data);
  if (b === undefined) return new ort.Tensor(spec.type, all, spec.dims);
  const per = all.length / spec.dims[0];
  return new ort.Tensor(spec.type, all.slice(b * per, (b + 1) * per), [1, ...spec.dims.slice(1)]);
}

async function run(session, spec, b) {
  const feeds = {};
  for (const [n, s] of Object.entries(spec.feeds)) feeds[n] = feed(s, spec.splitBatch?.includes(n) ? b : undefined);
  // alone, batch element b's total is its own key length
  if (b !== undefined) feeds.total_sequence_length = new ort.Tensor("int32", feeds.key_total_sequence_lengths.data, [1]);
  // ORT's CPU kernel insists present_* share past_*'s memory: the caches are handed in as the outputs too.
  const out = await session.run(feeds, { output: null, present_key: feeds.past_key, present_value: feeds.past_value });
  return { output: out.output, present_key: feeds.past_key, present_value: feeds.past_value };
}

for (const dir of process.argv.slice(2)) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, "feeds.json"), "utf8"));
  const session = await ort.InferenceSession.create(path.join(dir, "model.onnx"), { executionProviders: ["cpu"] });
  const batch = spec.feeds.query.dims[0];
  const parts = [];
  if (spec.splitBatch) for (let b = 0; b < batch; b++) parts.push(await run(session, spec, b));
  else parts.push(await run(session, spec));
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
