// The environment the public loader's bundle needs to run headless under node, and its two exports.
//
// The bundle (@huggingface/kernels 0.0.1-preview.3, not in this repository: docs/public-loader.md says how to
// rebuild it) looks for WebGPU at navigator.gpu and uses GPUBufferUsage, GPUMapMode and GPUShaderStage as
// globals. Node has neither, so this module takes both from Dawn's node binding (npm `webgpu` 0.6.2) installed
// in the loader folder, then imports the bundle:
//   JSLOADER_DIR   the loader folder (default: .jsloader at the repository root), holding kernels/index.js and
//                  node_modules/webgpu
// Exports getKernel and disposeSharedKernelRuntime as the bundle does.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = path.resolve(process.env.JSLOADER_DIR || path.join(repo, '.jsloader'));
const bundle = path.join(dir, 'kernels', 'index.js');
for (const need of [bundle, path.join(dir, 'node_modules', 'webgpu')]) {
  if (!fs.existsSync(need)) {
    throw new Error(`the public loader is not set up: ${need} is missing (set JSLOADER_DIR, or rebuild ` +
                    `${path.join(repo, '.jsloader')} as docs/public-loader.md says)`);
  }
}
// Dawn's Vulkan backend wants a runtime folder; a shell without a session has none.
if (!process.env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = '/tmp';

const dawn = createRequire(path.join(dir, 'package.json'))('webgpu');
Object.assign(globalThis, dawn.globals);
// Node 20 has no navigator; later versions have one without gpu. Either way the bundle must find ours, or it
// takes its node branch, which only throws.
const nav = globalThis.navigator ?? {};
Object.defineProperty(globalThis, 'navigator', {
  value: Object.assign(Object.create(Object.getPrototypeOf(nav)), nav, { gpu: dawn.create([]) }),
  configurable: true,
  writable: true,
});

const loader = await import(pathToFileURL(bundle).href);
export const getKernel = loader.getKernel;
export const disposeSharedKernelRuntime = loader.disposeSharedKernelRuntime;
