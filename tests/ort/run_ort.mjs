// Runs each case folder's model.onnx on ONNX Runtime's CPU provider with feeds.json and writes its
// outputs as test_data_set_0/output_N.pb (TensorProto: dims, data_type, name, raw_data), the expected
// values for `wgk onnx-test`.  Usage: node run_ort.mjs DIR...
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(fileURLToPath(import.meta.url));
const ort = require("onnxruntime-node");

const ONNX_TYPE = { float32: 1, float16: 10, int64: 7 };

function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

function field(num, wire, payload) {
  const key = varint((num << 3) | wire);
  if (wire === 0) return [...key, ...varint(payload)];
  return [...key, ...varint(payload.length), ...payload];
}

function tensorProto(name, tensor) {
  const bytes = [];
  for (const d of tensor.dims) bytes.push(...field(1, 0, d));
  bytes.push(...field(2, 0, ONNX_TYPE[tensor.type]));
  bytes.push(...field(8, 2, [...Buffer.from(name, "utf8")]));
  const raw = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  return Buffer.concat([Buffer.from(bytes), Buffer.from(field(9, 2, []).slice(0, 1)), Buffer.from(varint(raw.length)), raw]);
}

function feed(spec) {
  const data = spec.type === "int64" ? BigInt64Array.from(spec.data.map(BigInt))
    : spec.type === "float16" ? Uint16Array.from(spec.data) : Float32Array.from(spec.data);
  return new ort.Tensor(spec.type, data, spec.dims);
}

for (const dir of process.argv.slice(2)) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, "feeds.json"), "utf8"));
  const session = await ort.InferenceSession.create(path.join(dir, "model.onnx"), { executionProviders: ["cpu"] });
  const feeds = Object.fromEntries(Object.entries(spec.feeds).map(([n, s]) => [n, feed(s)]));
  const results = await session.run(feeds);
  spec.outputs.forEach((name, i) => {
    fs.writeFileSync(path.join(dir, "test_data_set_0", `output_${i}.pb`), tensorProto(name, results[name]));
  });
  console.log(`ort ${dir}`);
}
