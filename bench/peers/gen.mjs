// What every peer shares: bench.json generators in JavaScript, following src/testcase/testcase_gen.c and
// src/ops/com.microsoft.SparseAttention/{generators,layout}.c so a peer gets the inputs `wgk bench` generates:
// uniform (xoshiro256** seeded through splitmix64, 53-bit draws, default [-1, 1)), const, positions, arange,
// rotary_cos/sin and the Phi-3 CSR layouts. Values are rounded to the dtype as wgk stores them (float16 through
// float32: a double rounding that can differ from wgk's in the last bit; timing data only). Also the merge of a
// case with the document's defaults, and the statistics every peer reports.

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

// xoshiro256** on 32-bit halves (plain numbers: tens of millions of draws per case).
export class Rng {
  constructor(seed) {
    const st = [BigInt(seed) & M64];
    this.s = new Uint32Array(8); // s[i] = (hi, lo) at [2i, 2i+1]
    for (let i = 0; i < 4; i++) {
      const v = splitmix64(st);
      this.s[2 * i] = Number(v >> 32n);
      this.s[2 * i + 1] = Number(v & 0xffffffffn);
    }
  }

  // the next 64-bit output as [hi, lo] (unsigned 32-bit numbers)
  next() {
    const s = this.s;
    // result = rotl(s1 * 5, 7) * 9
    let [h, l] = mulSmall(s[2], s[3], 5);
    [h, l] = rotl(h, l, 7);
    const [rh, rl] = mulSmall(h, l, 9);
    // t = s1 << 17
    const th = ((s[2] << 17) | (s[3] >>> 15)) >>> 0, tl = (s[3] << 17) >>> 0;
    s[4] ^= s[0]; s[5] ^= s[1]; // s2 ^= s0
    s[6] ^= s[2]; s[7] ^= s[3]; // s3 ^= s1
    s[2] ^= s[4]; s[3] ^= s[5]; // s1 ^= s2
    s[0] ^= s[6]; s[1] ^= s[7]; // s0 ^= s3
    s[4] ^= th; s[5] ^= tl;     // s2 ^= t
    const [h3, l3] = rotl(s[6], s[7], 45);
    s[6] = h3; s[7] = l3;
    return [rh, rl];
  }

  uniform(lo, hi) { // wgk_rng_uniform: (next >> 11) * 2^-53
    const [h, l] = this.next();
    const u = (h * 2097152 + (l >>> 11)) * 2 ** -53;
    const v = lo + (hi - lo) * u;
    return v < hi ? v : lo;
  }
}

function mulSmall(h, l, k) { // (h, l) * k mod 2^64 for a small k
  const lo = l * k, carry = Math.floor(lo / 4294967296);
  return [((h * k + carry) % 4294967296) >>> 0, lo >>> 0];
}

function rotl(h, l, k) {
  if (k >= 32) { [h, l] = [l, h]; k -= 32; }
  if (k === 0) return [h >>> 0, l >>> 0];
  return [((h << k) | (l >>> (32 - k))) >>> 0, ((l << k) | (h >>> (32 - k))) >>> 0];
}

export function f16bits(f) { // round to nearest even through Float32 bits; tiny values flush to zero
  const b = new Uint32Array(new Float32Array([f]).buffer)[0], s = (b >>> 16) & 0x8000, e = ((b >>> 23) & 0xff) - 112;
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
  const a = new Arr(n), rng = g.kind === "uniform" ? new Rng(g.seed ?? 0) : null;
  const isInt = spec.dtype === "int32" || spec.dtype === "int64";
  const lo = g.lo ?? -1, hi = g.hi ?? 1;
  for (let i = 0; i < n; i++) {
    let v;
    switch (g.kind) {
      case "uniform":
        if (isInt) throw new Error("integer uniform not generated here");
        v = rng.uniform(lo, hi); break;
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
