// Checks that the public loader runs headless here: the adapter Dawn gives it, then one call of
// tests/spec21run/ai.onnx.Cast (float32 -> int32) served from disk, its output checked. Prints "smoke: ok".
//   node tests/loader/smoke.mjs        (JSLOADER_DIR as for env.mjs)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getKernel, disposeSharedKernelRuntime } from './env.mjs';
import { servePackage } from './serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const adapter = await navigator.gpu.requestAdapter();
if (!adapter) {
  console.error('smoke: no WebGPU adapter');
  process.exit(1);
}
console.log(`adapter: ${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}`);
const srv = await servePackage(path.join(here, '..', 'spec21run', 'ai.onnx.Cast'));
let ok = false;
try {
  const cast = await getKernel(srv.baseUrl, { expectedOpId: 'ai.onnx.Cast', trustRemoteCode: true, version: 1 });
  const x = Float32Array.from([1.5, -2.5, 300.25, -0.75, 7]);
  const { output } = await cast({ input: { data: x, shape: [5] } }, { attrs: { to: 6 } });
  const want = Array.from(x, Math.trunc);
  ok = output.dtype === 'int32' && Array.from(output.data).every((v, i) => v === want[i]);
  if (!ok) console.error(`smoke: Cast gave ${output.dtype} [${Array.from(output.data)}], want int32 [${want}]`);
} finally {
  await disposeSharedKernelRuntime();
  await srv.close();
}
console.log(ok ? 'smoke: ok' : 'smoke: FAILED');
process.exit(ok ? 0 : 1);
