// The public JavaScript loader (@huggingface/kernels 0.0.1-preview.3, run headless under node + dawn.node; see
// docs/public-loader.md) as a peer: a package's bench.json cases, each timed per `await kernel(inputs, {attrs})`
// (host arrays in, host arrays out: what `wgk bench` calls e2e), on the same inputs the other peers get (gen.mjs).
// The package is served over http on 127.0.0.1 and loaded with getKernel, as the loader's own tests do.
// usage: node jsloader_bench.mjs --bench PKG/build/webgpu/bench.json --out FILE.json [--iterations N] [--case ID]
//        [--budget-ms B] (each case's timed calls within B ms, at least 3)
// JSLOADER_TOOLS: the folder of env.mjs and serve.mjs (default tests/loader of this repository);
// JSLOADER_DIR: the folder holding the bundle (kernels/index.js) and node_modules/webgpu (default .jsloader at the
// repository root).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generate, merged, peerKey, timeCalls } from "./gen.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const benchPath = arg("--bench"), outPath = arg("--out"), itersArg = arg("--iterations"), filter = arg("--case", ""),
  budgetMs = arg("--budget-ms", "0");
if (!benchPath || !outPath) {
  console.error("usage: jsloader_bench.mjs --bench PKG/build/webgpu/bench.json --out FILE.json [--iterations N] [--case ID]");
  process.exit(2);
}
const tools = process.env.JSLOADER_TOOLS || path.join(here, "..", "..", "tests", "loader");
const { getKernel, disposeSharedKernelRuntime } = await import(pathToFileURL(path.join(tools, "env.mjs")).href);
const { servePackage } = await import(pathToFileURL(path.join(tools, "serve.mjs")).href);

// bench.json names ports by their manifest key, which is what the loader's call takes.
function hostInputs(c) {
  const inputs = {};
  for (const [port, spec] of Object.entries(c.inputs)) {
    const t = generate(spec);
    inputs[port] = { data: t.data, shape: t.shape };
  }
  return inputs;
}

async function runCase(kernel, c) {
  const inputs = hostInputs(c), attrs = c.attrs || {};
  const t0 = process.hrtime.bigint();
  await kernel(inputs, { attrs }); // the first call renders and compiles: reported apart
  const firstNs = Number(process.hrtime.bigint() - t0);
  const t = await timeCalls(() => kernel(inputs, { attrs }), c, itersArg, budgetMs);
  return { id: c.id, status: "ok", ...t, firstCallNs: firstNs };
}

const doc = JSON.parse(fs.readFileSync(benchPath, "utf8"));
const pkgDir = path.resolve(path.dirname(benchPath), "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(path.dirname(benchPath), "manifest.json"), "utf8"));
const op = `${manifest.domain || "ai.onnx"}.${manifest.name}`;
const server = await servePackage(pkgDir);
const result = { peer: "public-loader", kind: "e2e", op, loader: "@huggingface/kernels 0.0.1-preview.3", cases: [] };
try {
  const t0 = process.hrtime.bigint();
  const kernel = await getKernel(server.baseUrl, { expectedOpId: op, trustRemoteCode: true, version: 1 });
  result.getKernelNs = Number(process.hrtime.bigint() - t0);
  const seen = new Map();
  for (const raw of doc.cases) {
    const c = merged(doc, raw), prev = seen.get(peerKey(c));
    if (filter && !c.id.includes(filter)) continue;
    try {
      result.cases.push(prev ? { ...prev, id: c.id, sameAs: prev.id } : await runCase(kernel, c));
    } catch (e) {
      result.cases.push({ id: c.id, status: "failed", message: String(e.message || e).split("\n")[0] });
    }
    const last = result.cases[result.cases.length - 1];
    if (!prev) seen.set(peerKey(c), last);
    console.error(`public-loader ${c.id}: ${last.status === "ok" ? (last.ns.median / 1e3).toFixed(1) + " us" : last.status + ": " + last.message}${prev ? ` (the figures of ${prev.id})` : ""}`);
  }
} finally {
  disposeSharedKernelRuntime();
  await server.close();
}
fs.writeFileSync(outPath, JSON.stringify(result, null, 2) + "\n");
