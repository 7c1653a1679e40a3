// Runs a list of kernel calls through the PUBLIC @huggingface/kernels loader (preview.3, headless under
// node with dawn.node on lavapipe) and reports, for each call, what the loader did: the variant it selected,
// the WGSL it compiled for every pass, the workgroup grid of every dispatch, and the outputs. Used by
// compare.py beside wgk; run by hand (the bundle is not in the repository: docs/public-loader.md).
//
//   node tests/loader/loader_calls.mjs --tools DIR --pkg PKG --calls CALLS.json --out OUTDIR
//
// --tools is the folder of env.mjs, serve.mjs and npy.mjs (the shims and the package server): tests/loader.
// CALLS.json: [{ "id": "c0", "inputs": {port: "x.npy"}, "attrs": {...}, "args": {...},
//                "outputs": {port: {"shape": [...], "dtype": "float32"}} }]  (npy paths absolute)
// Writes OUTDIR/<id>/<port>.npy and OUTDIR/report.json: [{id, ok, variant, passes: [{id, kernelId, name,
// source}], dispatches: [[x, y, z]], error}], and OUTDIR/device.json, the device
// the loader created (features and limits as a wgk --device description).
//
// How the variant and the WGSL are read: the loader exports only getKernel; the program it builds for a
// call is an object frozen with Object.freeze({key, op, variant, passes}), each pass carrying its final
// WGSL (`source`, after the enable-directive inference) and kernelId `<op>.<variant>.<pass>`. A wrapper
// around Object.freeze records those objects (it returns the object unchanged). Every call gets its own
// getKernel (a `version` load is never memoized), so its program is built, and seen, anew.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opt = {};
for (let i = 0; i < argv.length; i += 2) opt[argv[i].replace(/^--/, '')] = argv[i + 1];
for (const k of ['tools', 'pkg', 'calls', 'out']) {
  if (!opt[k]) {
    console.error('usage: loader_calls.mjs --tools DIR --pkg PKG --calls CALLS.json --out OUTDIR');
    process.exit(2);
  }
}
const tool = (f) => import(pathToFileURL(path.join(path.resolve(opt.tools), f)).href);
const { getKernel, disposeSharedKernelRuntime } = await tool('env.mjs');
const { servePackage } = await tool('serve.mjs');
const { readNpy, writeNpy } = await tool('npy.mjs');

const programs = [];
const freeze = Object.freeze;
Object.freeze = function (o) {
  if (o && typeof o === 'object' && 'variant' in o && 'passes' in o && 'op' in o && 'key' in o) programs.push(o);
  return freeze(o);
};
let dispatches = [];
let device = null;
{
  // The device the loader asks for (its adapter's values for 6 limits, spec defaults for the rest): wgk
  // explain/render are given the same description, so both plan for one device.
  const ad = globalThis.GPUAdapter.prototype;
  const requestDevice = ad.requestDevice;
  ad.requestDevice = async function (desc) {
    const dev = await requestDevice.call(this, desc);
    const info = this.info;
    const limits = {};
    for (const k in dev.limits) if (typeof dev.limits[k] === 'number') limits[k] = dev.limits[k];
    device = { vendor: info.vendor, architecture: info.architecture, device: 'the public loader\'s device',
               description: info.description, isFallbackAdapter: info.isFallbackAdapter,
               subgroupMinSize: info.subgroupMinSize, subgroupMaxSize: info.subgroupMaxSize,
               features: [...dev.features].sort(), limits };
    return dev;
  };
}
{
  const enc = globalThis.GPUComputePassEncoder.prototype;
  const dispatch = enc.dispatchWorkgroups;
  enc.dispatchWorkgroups = function (x, y = 1, z = 1) {
    dispatches.push([x, y, z]);
    return dispatch.call(this, x, y, z);
  };
}

const pkgDir = path.resolve(opt.pkg);
const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, 'build/webgpu/manifest.json'), 'utf8'));
const opId = `${manifest.domain ?? 'ai.onnx'}.${manifest.name}`;
const calls = JSON.parse(fs.readFileSync(opt.calls, 'utf8'));
const srv = await servePackage(pkgDir);
const report = [];
try {
  for (const call of calls) {
    const r = { id: call.id };
    programs.length = 0;
    dispatches = [];
    try {
      const inputs = {};
      for (const [port, file] of Object.entries(call.inputs)) {
        const t = readNpy(file);
        inputs[port] = { data: t.data, shape: t.shape, ...(t.dtype === 'bool' ? { dtype: 'bool' } : {}) };
      }
      const kernel = await getKernel(srv.baseUrl, { expectedOpId: opId, trustRemoteCode: true, version: 1 });
      const res = await kernel(inputs, {
        attrs: call.attrs ?? {},
        ...(call.args ? { args: call.args } : {}),
        ...(call.outputs ? { outputs: call.outputs } : {}),
      });
      const dir = path.join(opt.out, call.id);
      fs.mkdirSync(dir, { recursive: true });
      r.outputs = {};
      for (const [port, t] of Object.entries(res)) {
        writeNpy(path.join(dir, `${port}.npy`), t.dtype, t.shape, t.data);
        r.outputs[port] = { shape: t.shape, dtype: t.dtype };
      }
      r.ok = true;
    } catch (e) {
      r.ok = false;
      r.error = e?.message ?? String(e);
    }
    const prog = programs.filter((p) => p.op === opId).at(-1);
    if (prog) {
      r.variant = prog.variant;
      r.passes = prog.passes.map((p) => ({ id: p.id, kernelId: p.kernelId, name: p.name, source: p.source }));
    }
    r.dispatches = dispatches;
    report.push(r);
  }
} finally {
  await disposeSharedKernelRuntime();
  await srv.close();
}
fs.mkdirSync(opt.out, { recursive: true });
fs.writeFileSync(path.join(opt.out, 'report.json'), JSON.stringify(report, null, 1));
fs.writeFileSync(path.join(opt.out, 'device.json'), JSON.stringify(device, null, 1));
process.exit(0);
