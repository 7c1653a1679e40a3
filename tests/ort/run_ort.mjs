// Runs each case folder's model.onnx on ONNX Runtime's CPU provider with feeds.json and writes its
// outputs as test_data_set_0/output_N.pb (TensorProto: dims, data_type, name, raw_data), the expected
// values for `wgk onnx-test`.  Usage: node run_ort.mjs DIR...
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { tensorProto } from "./onnx_proto.mjs";

const require = createRequire(fileURLToPath(import.meta.url));
const ort = require("onnxruntime-node");

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
    fs.writeFileSync(path.join(dir, "test_data_set_0", `output_${i}.pb`), tensorProto(name, results[name].type, results[name].dims, results[name].data));
  });
  console.log(`ort ${dir}`);
}
