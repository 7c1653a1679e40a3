// What every peer shares: bench.json generators in JavaScript, following src/testcase/testcase_gen.c and
// src/ops/com.microsoft.SparseAttention/{generators,layout}.c so a peer gets the inputs `wgk bench` generates:
// uniform (xoshiro256** seeded through splitmix64, 53-bit draws, default [-1, 1)), const, positions, arange,
// rotary_cos/sin and the Phi-3 CSR layouts. Values are rounded to the dtype as wgk stores them: float32 bit for bit;
// float16 through float32, a double rounding that can differ from wgk's in the last bit, and float16 subnormals
// flushed to zero (timing data only; test_gen.mjs checks both against `wgk test --record`'s inputs). Also the merge
// of a case with the document's defaults, and the statistics every peer reports.

const M64 = (1n << 64n) - 1n;

// Median, p10 and p90 (linear interpolation between order statistics) and the count, as `wgk bench` reports them.
export function stat(xs) {
  const s = [...xs].sort((a, b) => a - b), q = (p) => { const x = p * (s.length - 1), lo = Math.floor(x);
    return lo + 1 < s.length ? s[lo] + (s[lo + 1] - s[lo]) * (x - lo) : s[lo]; };
  return { median: q(0.5), p10: q(0.1), p90: q(0.9), n: s.length };
}

// Times `call` (async) for a case: its warm-ups, then its iterations, each within budgetMs (0: no budget) of timed
// calls: the first warm-up is timed, and a slow peer takes as many calls as fit in the budget (at least 3; a warm-up
// that alone would take half the budget is the only one). Returns { ns: stat, iterations, budgetLimited }.
export async function timeCalls(call, c, itersArg, budgetMs) {
  const want = Number(itersArg || c.iterations || 20), warmup = c.warmup ?? 3, budget = Number(budgetMs || 0) * 1e6;
  const t0 = process.hrtime.bigint();
  await call();
  const first = Number(process.hrtime.bigint() - t0);
  const more = budget && first * warmup > budget / 2 ? 0 : Math.max(0, warmup - 1);
  for (let i = 0; i < more; i++) await call();
  const n = budget ? Math.max(3, Math.min(want, Math.floor(budget / Math.max(first, 1)))) : want, ns = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await call();
    ns.push(Number(process.hrtime.bigint() - t));
  }
  return { ns: stat(ns), iterations: n, budgetLimited: n < want };
}

// A case as a peer calls it: its inputs and attributes (wgk's tunables are not a peer's: the `_tiled` cases are
// their pairs' call). A case with the key of an earlier one takes that one's figures (sameAs) instead of a run.
export const peerKey = (c) => JSON.stringify([c.inputs, c.attrs]);

// A bench.json case with the document's defaults under it (inputs and attrs merged key by key).
export function merged(doc, c) {
  const d = doc.defaults || {};
  return { ...d, ...c, inputs: { ...(d.inputs || {}), ...(c.inputs || {}) }, attrs: { ...(d.attrs || {}), ...(c.attrs || {}) } };
}

function splitmix64(state) { // state: [BigInt]; returns the next output
  state[0] = (state[0] + 0x9e3779b97f4a7c15n) & M64;
  let z = state[0];
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}

// xoshiro256** on 32-bit halves: the state in a Uint32Array (s[2i], s[2i + 1]) = (hi, lo) of wgk's s[i], copied
// into int32 locals for a run of draws, with no allocation per draw (tens of millions of draws per case; the
// version that returned arrays took ~257 ns a draw). The products by 5 and 9 are exact in 32-bit integer
// operations: the low word in two 16-bit halves, its carry added to the high word's shift-and-add.
export class Rng {
  constructor(seed) {
    const st = [BigInt(seed) & M64];
    this.s = new Uint32Array(8);
    for (let i = 0; i < 4; i++) {
      const v = splitmix64(st);
      this.s[2 * i] = Number(v >> 32n);
      this.s[2 * i + 1] = Number(v & 0xffffffffn);
    }
    this.i32 = new Int32Array(this.s.buffer);
    this.out = new Int32Array(2); // the last draw's (hi, lo)
  }

  // n draws of wgk_rng_uniform(lo, hi) written into out[0..n) (a Float32Array rounds each), the state advanced as
  // n calls of next() would. (hi - lo) * (x * 2^-53) is ((hi - lo) * 2^-53) * x: scaling by 2^-53 is exact.
  fill(out, n, lo, hi) {
    const s = this.i32, scale = (hi - lo) * 2 ** -53;
    let s0h = s[0], s0l = s[1], s1h = s[2], s1l = s[3], s2h = s[4], s2l = s[5], s3h = s[6], s3l = s[7], h = 0, l = 0;
    for (let i = 0; i < n; i++) {
      // result = rotl(s1 * 5, 7) * 9
      let a = (s1l & 0xffff) * 5, b = (s1l >>> 16) * 5 + (a >>> 16);
      l = (b << 16) | (a & 0xffff);
      h = ((s1h << 2) + s1h + (b >>> 16)) | 0;
      const rh = (h << 7) | (l >>> 25), rl = (l << 7) | (h >>> 25);
      a = (rl & 0xffff) * 9; b = (rl >>> 16) * 9 + (a >>> 16);
      l = (b << 16) | (a & 0xffff);
      h = ((rh << 3) + rh + (b >>> 16)) | 0;
      // t = s1 << 17, then the state's xors and s3 = rotl(s3, 45)
      const th = (s1h << 17) | (s1l >>> 15), tl = s1l << 17;
      s2h ^= s0h; s2l ^= s0l; s3h ^= s1h; s3l ^= s1l;
      s1h ^= s2h; s1l ^= s2l; s0h ^= s3h; s0l ^= s3l;
      s2h ^= th; s2l ^= tl;
      const r3h = (s3l << 13) | (s3h >>> 19);
      s3l = (s3h << 13) | (s3l >>> 19); s3h = r3h;
      const v = lo + scale * ((h >>> 0) * 2097152 + (l >>> 11)); // wgk_rng_uniform: (next >> 11) * 2^-53
      out[i] = v < hi ? v : lo;
    }
    s[0] = s0h; s[1] = s0l; s[2] = s1h; s[3] = s1l; s[4] = s2h; s[5] = s2l; s[6] = s3h; s[7] = s3l;
    this.out[0] = h; this.out[1] = l;
    return out;
  }

  // fill's draws as float16 bits (f16bits of each) into a Uint16Array, through a block of doubles.
  fillF16(out, n, lo, hi) {
    for (let j = 0; j < n; j += BLOCK.length) {
      const m = Math.min(BLOCK.length, n - j);
      this.fill(BLOCK, m, lo, hi);
      for (let i = 0; i < m; i++) out[j + i] = f16bits(BLOCK[i]);
    }
    return out;
  }

  next() { // the next 64-bit output as [hi, lo] (unsigned 32-bit numbers)
    this.fill(ONE, 1, 0, 1);
    return [this.out[0] >>> 0, this.out[1] >>> 0];
  }

  uniform(lo, hi) { // wgk_rng_uniform(lo, hi), one draw
    return this.fill(ONE, 1, lo, hi)[0];
  }
}

const ONE = new Float64Array(1), BLOCK = new Float64Array(4096);
const F32 = new Float32Array(1), F32_BITS = new Uint32Array(F32.buffer);

export function f16bits(f) { // round to nearest even through Float32 bits; tiny values flush to zero
  F32[0] = f;
  const b = F32_BITS[0], s = (b >>> 16) & 0x8000, e = ((b >>> 23) & 0xff) - 112;
  const m = b & 0x7fffff;
  if (e <= 0) return s;
  if (e >= 31) return s | 0x7c00;
  let h = s | (e << 10) | (m >>> 13);
  const rest = m & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++;
  return h;
}

// Phi-3-small's layouts as CSR (src/ops/com.microsoft.SparseAttention/layout.c): row (L, max_blocks + 1), col (L, max_nnz) padded -1.
export function phi3Layout(numLayout, maxBlocks, local, vertStride) {
  const step = Math.max(1, Math.floor(vertStride / numLayout));
  const on = (l, q, k) => q >= k && (q - k < local || (k + l * step + 1) % vertStride === 0);
  const cols = [];
  for (let l = 0; l < numLayout; l++) {
    const c = [];
    for (let q = 0; q < maxBlocks; q++) for (let k = 0; k <= q; k++) if (on(l, q, k)) c.push(k);
    cols.push(c);
  }
  const nnz = Math.max(1, ...cols.map((c) => c.length));
  const row = new Int32Array(numLayout * (maxBlocks + 1)), col = new Int32Array(numLayout * nnz).fill(-1);
  for (let l = 0; l < numLayout; l++) {
    let n = 0;
    for (let q = 0; q < maxBlocks; q++) {
      row[l * (maxBlocks + 1) + q] = n;
      for (let k = 0; k <= q; k++) if (on(l, q, k)) col[l * nnz + n++] = k;
    }
    row[l * (maxBlocks + 1) + maxBlocks] = n;
  }
  return { row: { data: row, shape: [numLayout, maxBlocks + 1] }, col: { data: col, shape: [numLayout, nnz] } };
}

const ARRAY = { float32: Float32Array, float16: Uint16Array, int32: Int32Array, int64: BigInt64Array };

// An input spec {dtype, shape, generator} as {dtype, shape, data} (a typed array; float16 as uint16 bits).
export function generate(spec) {
  const g = spec.generator || {};
  if (g.kind === "phi3_layout_row" || g.kind === "phi3_layout_col") {
    const lay = phi3Layout(g.num_layout, g.max_blocks, g.local_blocks, g.vert_stride);
    const t = g.kind === "phi3_layout_row" ? lay.row : lay.col;
    if (spec.dtype !== "int32") throw new Error(`layout as ${spec.dtype}: only int32 here`);
    return { dtype: "int32", shape: t.shape, data: t.data };
  }
  const shape = spec.shape, n = shape.reduce((a, b) => a * b, 1), last = shape.length ? shape[shape.length - 1] : 1;
  const Arr = ARRAY[spec.dtype];
  if (!Arr) throw new Error(`dtype ${spec.dtype} not generated here`);
  const a = new Arr(n), isInt = spec.dtype === "int32" || spec.dtype === "int64";
  if (g.kind === "uniform") {
    if (isInt) throw new Error("integer uniform not generated here");
    const rng = new Rng(g.seed ?? 0);
    if (spec.dtype === "float16") rng.fillF16(a, n, g.lo ?? -1, g.hi ?? 1);
    else rng.fill(a, n, g.lo ?? -1, g.hi ?? 1);
    return { dtype: spec.dtype, shape, data: a };
  }
  for (let i = 0; i < n; i++) {
    let v;
    switch (g.kind) {
      case "const": v = g.value ?? 0; break;
      case "arange": v = (g.start ?? 0) + i * (g.step ?? 1); break;
      case "positions": v = (g.offset ?? 0) + (i % last); break;
      case "rotary_cos": case "rotary_sin": {
        const p = Math.floor(i / last), c = i % last, ang = p * Math.pow(g.base ?? 10000, -c / last);
        v = g.kind === "rotary_cos" ? Math.cos(ang) : Math.sin(ang); break;
      }
      default: throw new Error(`generator ${g.kind} not supported by the peers`);
    }
    a[i] = spec.dtype === "int64" ? BigInt(v) : spec.dtype === "float16" ? f16bits(v) : v;
  }
  return { dtype: spec.dtype, shape, data: a };
}
