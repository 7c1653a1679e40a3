// The oracle: @huggingface/jinja 0.5.10 (the engine the public webgpu-kernels loader uses) with the
// scope the loader builds. `Template` in 0.5.10 always tokenizes with lstrip_blocks and trim_blocks on
// (hard-coded in its constructor; there are no options) and drops one trailing "\n" of the source.
import { Template } from '@huggingface/jinja';
import { helpers } from './helpers.mjs';

// WebGPU spec default limits (used where a scope's device.limits lacks one), as the loader sees them.
export const DEFAULT_LIMITS = {
  maxTextureDimension1D: 8192,
  maxTextureDimension2D: 8192,
  maxTextureDimension3D: 2048,
  maxTextureArrayLayers: 256,
  maxBindGroups: 4,
  maxBindGroupsPlusVertexBuffers: 24,
  maxBindingsPerBindGroup: 1000,
  maxDynamicUniformBuffersPerPipelineLayout: 8,
  maxDynamicStorageBuffersPerPipelineLayout: 4,
  maxSampledTexturesPerShaderStage: 16,
  maxSamplersPerShaderStage: 16,
  maxStorageBuffersPerShaderStage: 8,
  maxStorageTexturesPerShaderStage: 4,
  maxUniformBuffersPerShaderStage: 12,
  maxUniformBufferBindingSize: 65536,
  maxStorageBufferBindingSize: 134217728,
  minUniformBufferOffsetAlignment: 256,
  minStorageBufferOffsetAlignment: 256,
  maxVertexBuffers: 8,
  maxBufferSize: 268435456,
  maxVertexAttributes: 16,
  maxVertexBufferArrayStride: 2048,
  maxInterStageShaderVariables: 16,
  maxColorAttachments: 8,
  maxColorAttachmentBytesPerSample: 32,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupSizeY: 256,
  maxComputeWorkgroupSizeZ: 64,
  maxComputeWorkgroupsPerDimension: 65535,
};

export const DISPATCH_FOLD_WIDTH = 65535;

// Scope JSON -> the items handed to Template.render().
//   - "device": {features: [names], limits: {...}, adapterInfo: {...}} becomes an object whose
//     `features` is {has(name)} (a JS Set would not do: the engine turns it into an empty dict),
//     whose limits have the spec defaults filled in and maxComputeWorkgroupsPerDimension clamped to 65535;
//   - every helper of docs/expressions.md is added (range is the engine's own built-in: the engine refuses
//     to re-declare it), and DISPATCH_FOLD_WIDTH;
//   - everything else is passed as parsed JSON (so a whole number is an integer even if written 1.0).
export function buildScope(json = {}) {
  const scope = { ...json };
  let device;
  if (json.device !== undefined) {
    const d = json.device || {};
    const feats = new Set(d.features || []);
    const limits = { ...DEFAULT_LIMITS, ...(d.limits || {}) };
    limits.maxComputeWorkgroupsPerDimension = Math.min(limits.maxComputeWorkgroupsPerDimension, 65535);
    device = {
      ...d,
      features: { has: (name) => feats.has(name) },
      limits,
      adapterInfo: d.adapterInfo || {},
    };
    scope.device = device;
  }
  const h = helpers(device);
  for (const [k, v] of Object.entries(h)) if (!(k in scope)) scope[k] = v;
  if (!('DISPATCH_FOLD_WIDTH' in scope)) scope.DISPATCH_FOLD_WIDTH = DISPATCH_FOLD_WIDTH;
  return scope;
}

// {ok: true, out} or {ok: false, error}
export function renderTemplate(text, scopeJson) {
  try {
    return { ok: true, out: new Template(text).render(buildScope(scopeJson)) };
  } catch (e) {
    return { ok: false, error: String(e && e.message ? e.message : e) };
  }
}

export function renderExpr(expr, scopeJson) {
  return renderTemplate(`{{ ${expr} }}`, scopeJson);
}
