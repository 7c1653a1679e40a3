// Runs each SparseAttention case folder's model.onnx on ONNX Runtime's CPU provider with feeds.json and writes
// its outputs as test_data_set_0/output_N.pb, the expected values for `wgk onnx-test`. A folder whose
// feeds.json lists "splitBatch" inputs is run one batch element at a time (ORT's CPU kernel gets later batch
// elements of a decode call with unequal key lengths wrong) and the outputs are joined along the batch axis.
// Usage: node run_ort_sparse.mjs DIR...
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { tensorProto } from "../ort/onnx_proto.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "ort", "package.json"));
const ort = require("onnxruntime-node");

const ARRAY = { float32: Float32Array, float16: Uint16Array, int32: Int32Array };

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
