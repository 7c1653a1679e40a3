// The peers' inputs (gen.mjs) against wgk's own generator and against the slow version they replaced:
// - gen.mjs's uniform draws hold exactly what wgk's C generator (src/util/rng.c through src/testcase) writes, for a
//   few seeds, ranges and lengths: float32 bit for bit; float16 within one unit of the last place (gen.mjs rounds
//   through float32, wgk from double) and equal to a direct double -> float16 rounding of the same draw. wgk's
//   values come from `wgk test DIR --record`, which writes each case's generated inputs as .npy without a GPU;
// - the fast draws (state in locals, no allocation) equal the array-returning version of before on 10^5 draws:
//   raw 64-bit outputs, uniform(-1, 1), uniform(-3, 0.5) and float16 bits; its speed is printed.
// usage: node test_gen.mjs [WGK]   (without WGK, only the second part; exit 1 on a failed check)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Rng, generate, f16bits } from "./gen.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
let failures = 0;
const check = (ok, what) => { if (!ok) { failures++; console.error(`FAILED: ${what}`); } return ok; };

// --- The version gen.mjs had before (arrays per draw), kept here as the reference for the fast one.
const M64 = (1n << 64n) - 1n;
function splitmix64(state) {
  state[0] = (state[0] + 0x9e3779b97f4a7c15n) & M64;
  let z = state[0];
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
function mulSmall(h, l, k) {
  const lo = l * k, carry = Math.floor(lo / 4294967296);
  return [((h * k + carry) % 4294967296) >>> 0, lo >>> 0];
}
function rotl(h, l, k) {
  if (k >= 32) { [h, l] = [l, h]; k -= 32; }
  if (k === 0) return [h >>> 0, l >>> 0];
  return [((h << k) | (l >>> (32 - k))) >>> 0, ((l << k) | (h >>> (32 - k))) >>> 0];
}
class OldRng {
  constructor(seed) {
    const st = [BigInt(seed) & M64];
    this.s = new Uint32Array(8);
    for (let i = 0; i < 4; i++) {
      const v = splitmix64(st);
      this.s[2 * i] = Number(v >> 32n);
      this.s[2 * i + 1] = Number(v & 0xffffffffn);
    }
  }
  next() {
    const s = this.s;
    let [h, l] = mulSmall(s[2], s[3], 5);
    [h, l] = rotl(h, l, 7);
    const [rh, rl] = mulSmall(h, l, 9);
    const th = ((s[2] << 17) | (s[3] >>> 15)) >>> 0, tl = (s[3] << 17) >>> 0;
    s[4] ^= s[0]; s[5] ^= s[1]; s[6] ^= s[2]; s[7] ^= s[3]; s[2] ^= s[4]; s[3] ^= s[5]; s[0] ^= s[6]; s[1] ^= s[7];
    s[4] ^= th; s[5] ^= tl;
    const [h3, l3] = rotl(s[6], s[7], 45);
    s[6] = h3; s[7] = l3;
    return [rh, rl];
  }
  uniform(lo, hi) {
    const [h, l] = this.next();
    const v = lo + (hi - lo) * ((h * 2097152 + (l >>> 11)) * 2 ** -53);
    return v < hi ? v : lo;
  }
}
function oldF16bits(f) {
  const b = new Uint32Array(new Float32Array([f]).buffer)[0], s = (b >>> 16) & 0x8000, e = ((b >>> 23) & 0xff) - 112;
  const m = b & 0x7fffff;
  if (e <= 0) return s;
  if (e >= 31) return s | 0x7c00;
  let h = s | (e << 10) | (m >>> 13);
  const rest = m & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++;
  return h;
}

// float16 bits of a double rounded once, to nearest even (finite values below 65520: what the draws here reach).
function f16Direct(x) {
  if (x === 0) return Object.is(x, -0) ? 0x8000 : 0;
  const s = x < 0 ? 0x8000 : 0, a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  while (2 ** e > a) e--; // log2 may round up just below a power of two
  while (2 ** (e + 1) <= a) e++;
  if (e < -14) { // subnormal: a multiple of 2^-24, ties to even
    const q = a * 2 ** 24, f = Math.floor(q);
    return s | (q - f > 0.5 || (q - f === 0.5 && f % 2) ? f + 1 : f);
  }
  const q = a / 2 ** (e - 10), r = Math.round(q), t = q - Math.floor(q);
  let m = t === 0.5 ? (Math.floor(q) % 2 ? Math.floor(q) + 1 : Math.floor(q)) : r; // 1024 <= m <= 2048
  let ex = e + 15;
  if (m === 2048) { m = 1024; ex++; }
  return s | (ex << 10) | (m - 1024);
}

// --- Part 2: the fast draws against the old ones.
function againstOld() {
  const N = 100000;
  for (const seed of [0, 1, 42, 2 ** 53 - 1]) {
    const a = new Rng(seed), b = new OldRng(seed);
    let bad = 0;
    for (let i = 0; i < 1000; i++) { const x = a.next(), y = b.next(); if (x[0] !== y[0] || x[1] !== y[1]) bad++; }
    check(bad === 0, `seed ${seed}: ${bad} of 1000 raw outputs differ from the old version's`);
    for (const [lo, hi] of [[-1, 1], [-3, 0.5]]) {
      const f = a.fill(new Float64Array(N), N, lo, hi);
      let d = 0;
      for (let i = 0; i < N; i++) if (f[i] !== b.uniform(lo, hi)) d++;
      check(d === 0, `seed ${seed} [${lo}, ${hi}): ${d} of ${N} draws differ from the old version's`);
    }
    const h = a.fillF16(new Uint16Array(N), N, -1, 1);
    let d = 0;
    for (let i = 0; i < N; i++) if (h[i] !== oldF16bits(b.uniform(-1, 1))) d++;
    check(d === 0, `seed ${seed} float16: ${d} of ${N} draws differ from the old version's`);
    for (let i = 0; i < 1000; i++) { const x = b.uniform(-1, 1); if (f16bits(x) !== oldF16bits(x)) d++; }
    check(d === 0, `seed ${seed}: f16bits differs from the old conversion`);
  }
  const time = (make, draw) => {
    const r = make(4), n = 1 << 20, out = new Float32Array(n), t0 = performance.now();
    draw(r, out, n);
    return ((performance.now() - t0) / n) * 1e6;
  };
  const oldNs = time((s) => new OldRng(s), (r, out, n) => { for (let i = 0; i < n; i++) out[i] = r.uniform(-1, 1); });
  const newNs = time((s) => new Rng(s), (r, out, n) => r.fill(out, n, -1, 1));
  console.log(`draws: ${newNs.toFixed(1)} ns each (the old version ${oldNs.toFixed(1)} ns, ${(oldNs / newNs).toFixed(1)}x)`);
}

// A .npy file (little-endian float32 or float16, C order) as {descr, shape, data}.
function readNpy(file) {
  const b = fs.readFileSync(file), major = b[6], start = major === 1 ? 10 : 12;
  const off = start + (major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8));
  const header = b.subarray(start, off).toString("latin1");
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(",").filter((x) => x.trim()).map(Number);
  const Arr = { "<f4": Float32Array, "<f2": Uint16Array }[descr];
  if (!Arr) throw new Error(`${file}: dtype ${descr} not read here`);
  const bytes = b.buffer.slice(b.byteOffset + off, b.byteOffset + b.length);
  return { descr, shape, data: new Arr(bytes) };
}

// --- Part 1: wgk's generated inputs (RotaryEmbedding's x, through `wgk test --record` on a copy of the package).
const CASES = [[0, "float32", [1, 1, 1, 2], -1, 1], [1, "float32", [2, 4, 3, 8], -1, 1],
  [7, "float32", [3, 2, 37, 16], -2.5, 4], [123456789, "float32", [1, 8, 64, 64], -1, 1],
  [1, "float16", [2, 4, 3, 8], -1, 1], [99, "float16", [2, 8, 64, 32], -1, 1], [5, "float16", [1, 4, 50, 16], -0.25, 3]];

function recordCase([seed, dtype, shape, lo, hi], k) {
  const maxPos = 64, half = shape[3] / 2, id = `gen_${k}_${dtype}_${seed}`;
  return { id, inputs: {
    x: { dtype, shape, generator: { kind: "uniform", seed, lo, hi } },
    cos: { dtype, shape: [maxPos, half], generator: { kind: "rotary_cos" } },
    sin: { dtype, shape: [maxPos, half], generator: { kind: "rotary_sin" } },
    positionIds: { dtype: "int64", shape: [shape[0], shape[2]], generator: { kind: "positions" } } },
    expected: { y: { npy: `expected/${id}.y.npy` } } };
}

function againstC(wgk) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wgk-gen-")), web = path.join(tmp, "pkg", "build", "webgpu");
  try {
    const src = path.join(here, "..", "..", "kernels", "ai.onnx.RotaryEmbedding", "build", "webgpu");
    fs.mkdirSync(web, { recursive: true });
    for (const f of fs.readdirSync(src)) if (f !== "metadata.json") fs.copyFileSync(path.join(src, f), path.join(web, f));
    const suite = JSON.parse(fs.readFileSync(path.join(web, "test.json"), "utf8"));
    suite.cases = CASES.map(recordCase);
    fs.writeFileSync(path.join(web, "test.json"), JSON.stringify(suite, null, 2));
    // the reference keeps wgk's generated x as the case's expected y (same dtype and shape)
    execFileSync(wgk, ["test", path.join(tmp, "pkg"), "--record", 'cp "$WGK_CASE_DIR/inputs/x.npy" "$WGK_CASE_DIR/outputs/y.npy"'],
      { stdio: ["ignore", "pipe", "inherit"] });
    for (const c of suite.cases) {
      const spec = c.inputs.x, mine = generate(spec).data, theirs = readNpy(path.join(web, c.expected.y.npy));
      if (!check(theirs.data.length === mine.length && theirs.shape.join() === spec.shape.join(),
        `${c.id}: wgk wrote shape ${theirs.shape}, ${theirs.data.length} values`)) continue;
      const rng = new Rng(spec.generator.seed), draws = rng.fill(new Float64Array(mine.length), mine.length,
        spec.generator.lo, spec.generator.hi);
      let exact = 0, off1 = 0, flushed = 0, worse = 0, directBad = 0;
      for (let i = 0; i < mine.length; i++) {
        const d = Math.abs(mine[i] - theirs.data[i]), f16 = spec.dtype === "float16";
        if (d === 0) exact++;
        else if (f16 && d === 1) off1++; // gen.mjs's rounding through float32
        else if (f16 && (mine[i] & 0x7fff) === 0 && (theirs.data[i] & 0x7c00) === 0) flushed++; // f16bits' flush
        else worse++;
        if (f16 && f16Direct(draws[i]) !== theirs.data[i]) directBad++;
      }
      check(worse === 0 && (spec.dtype === "float16" || off1 + flushed === 0), `${c.id}: ${worse + off1 + flushed} ` +
        `of ${mine.length} values differ from wgk's (${worse} beyond a float16 unit or a flushed subnormal)`);
      check(directBad === 0, `${c.id}: ${directBad} of wgk's float16 values are not the draw rounded once`);
      console.log(`${c.id}: ${mine.length} values, ${exact} equal to wgk's` + (off1 ? `, ${off1} one float16 unit off` : "") +
        (flushed ? `, ${flushed} wgk subnormals gen.mjs flushes to zero` : ""));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

againstOld();
if (process.argv[2]) againstC(path.resolve(process.argv[2]));
console.log(failures ? `${failures} failures` : `peers generator: ok${process.argv[2] ? "" : " (without wgk: the fast draws only)"}`);
process.exit(failures ? 1 : 0);
