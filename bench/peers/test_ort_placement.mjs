// ort_bench.mjs --ep webgpu on SparseAttention (ORT has no WebGPU kernel for it): where the node goes is found once
// per dtype on a one-block model, and every case is reported `cpu-fallback` with that finding, without its
// inputs generated or run. The check: a copy of the package's bench.json whose cases' past caches name a
// generator gen.mjs does not have (so generating a case's inputs would fail it) still gives cpu-fallback for every
// case, saying there is no webgpu kernel and that the one-block model ran on the CPU provider; the CPU provider,
// which must generate them, fails those cases (the copy is really ungeneratable). And a case that differs from an
// earlier one only in wgk's tunables takes that one's figures (sameAs) instead of a run of its own.
// usage: node test_ort_placement.mjs SOURCE_DIR   (exit 1 on a failed check; needs tests/ort/node_modules)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const src = path.resolve(process.argv[2] || ".");
const web = path.join(src, "kernels", "com.microsoft.SparseAttention", "build", "webgpu");
let failures = 0;
const check = (ok, what) => { if (!ok) { failures++; console.error(`FAILED: ${what}`); } };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wgk-placement-"));
try {
  const doc = JSON.parse(fs.readFileSync(path.join(web, "bench.json"), "utf8"));
  for (const c of doc.cases) for (const k of ["pastKeyT", "pastValueT"]) c.inputs[k].generator = { kind: "no_such_generator" };
  fs.writeFileSync(path.join(tmp, "bench.json"), JSON.stringify(doc));
  fs.copyFileSync(path.join(web, "manifest.json"), path.join(tmp, "manifest.json"));
  const run = (ep, extra = []) => {
    const out = path.join(tmp, `${ep}.json`), t0 = process.hrtime.bigint();
    execFileSync(process.execPath, [path.join(src, "bench", "peers", "ort_bench.mjs"), "--ep", ep, "--bench",
      path.join(tmp, "bench.json"), "--out", out, "--iterations", "1", ...extra], { stdio: ["ignore", "ignore", "pipe"] });
    return { r: JSON.parse(fs.readFileSync(out, "utf8")), s: Number(process.hrtime.bigint() - t0) / 1e9 };
  };
  const { r, s } = run("webgpu");
  check(r.cases.length === doc.cases.length, `webgpu: ${r.cases.length} cases reported of ${doc.cases.length}`);
  for (const c of r.cases) {
    check(c.status === "cpu-fallback" && /^no webgpu kernel: /.test(c.message) &&
      /runs on the CPU provider \(the float(16|32) model at one block ran there in [0-9.]+ ms\)/.test(c.message),
      `webgpu ${c.id}: ${c.status}: ${c.message}`);
  }
  const cpu = run("cpu", ["--case", "decode"]).r;
  check(cpu.cases.length > 0 && cpu.cases.every((c) => c.status === "failed" && /no_such_generator/.test(c.message)),
    `cpu: the copy's cases should fail to generate: ${JSON.stringify(cpu.cases.map((c) => c.status))}`);
  // Two small cases that differ only in a wgk tunable: the CPU provider runs the first and gives the second its
  // figures (sameAs), as for the _tiled cases.
  const small = (id, tunables) => ({ id, iterations: 2, warmup: 1, tunables, attrs: doc.cases[0].attrs, inputs: {
    ...Object.fromEntries(Object.entries(doc.cases[0].inputs).map(([k, v]) => [k, { ...v, generator: { ...v.generator,
      max_blocks: 1, value: 1 } }])),
    queryT: { dtype: "float32", shape: [1, 1, 4096], generator: { kind: "uniform", seed: 1 } },
    keyT: { dtype: "float32", shape: [1, 1, 1024], generator: { kind: "uniform", seed: 2 } },
    valueT: { dtype: "float32", shape: [1, 1, 1024], generator: { kind: "uniform", seed: 3 } },
    pastKeyT: { dtype: "float32", shape: [1, 8, 64, 128], generator: { kind: "uniform", seed: 4 } },
    pastValueT: { dtype: "float32", shape: [1, 8, 64, 128], generator: { kind: "uniform", seed: 5 } } } });
  fs.writeFileSync(path.join(tmp, "bench.json"), JSON.stringify({ cases: [small("one_block", {}),
    small("one_block_tiled", { PROMPT_FORM: 1 })] }));
  const pair = run("cpu").r.cases;
  check(pair.length === 2 && pair[0].status === "ok" && !pair[0].sameAs && pair[1].sameAs === "one_block" &&
    pair[1].status === "ok" && pair[1].ns.median === pair[0].ns.median && pair[1].id === "one_block_tiled",
    `cpu: the tunable-only pair should share one run: ${JSON.stringify(pair)}`);
  console.log(`ort-webgpu placement: ${r.cases.length} cases cpu-fallback in ${s.toFixed(1)} s`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(failures ? `${failures} failures` : "ort placement: ok");
process.exit(failures ? 1 : 0);
