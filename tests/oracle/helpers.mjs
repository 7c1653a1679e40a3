// The helpers the public loader injects into every expression/template scope (docs/expressions.md),
// written as the loader would: plain JavaScript functions handed to @huggingface/jinja.
//
// How @huggingface/jinja 0.5.10 calls a JS function (convertToRuntimeValues, case "function"):
//   - each argument is passed as its RuntimeValue's `.value`: numbers, strings, booleans, null,
//     undefined (for an undefined value), a JS Array *of RuntimeValues* for a list/tuple, a Map of
//     RuntimeValues for a dict, and a Map for keyword arguments (appended as the last argument);
//   - the result goes back through convertToRuntimeValues: a JS number that Number.isInteger()
//     accepts becomes an IntegerValue (so 64.0 from a helper is the integer 64), any other number a
//     FloatValue; undefined becomes none; arrays/objects recursively.
// So every helper unwraps its arguments to plain JS first (`plain`) and returns plain JS.
// Integer-vs-float identity of the arguments is lost on the way in (the engine gives us JS numbers),
// exactly as it is for the loader's helpers.

function plain(v) {
  if (Array.isArray(v)) return v.map((x) => plain(x));
  if (v instanceof Map) {
    const o = {};
    for (const [k, x] of v) o[k] = plain(x);
    return o;
  }
  if (v !== null && typeof v === 'object' && 'type' in v && 'value' in v) {
    if (typeof v.value === 'function') return v.value; // FunctionValue
    return plain(v.value);
  }
  return v;
}

const isInt = (x) => typeof x === 'number' && Number.isInteger(x);
const fail = (name, msg) => {
  throw new Error(`${name}: ${msg}`);
};
function needList(name, l) {
  if (!Array.isArray(l)) fail(name, `expected a list, got ${l === null ? 'none' : typeof l}`);
  return l;
}
function needShape(name, s) {
  needList(name, s);
  for (const d of s) if (!isInt(d)) fail(name, `shape entries must be integers, got ${JSON.stringify(s)}`);
  return s;
}
function needInt(name, x) {
  if (!isInt(x)) fail(name, `expected an integer, got ${JSON.stringify(x)}`);
  return x;
}
function needNum(name, x) {
  if (typeof x !== 'number') fail(name, `expected a number, got ${JSON.stringify(x)}`);
  return x;
}
// Normalise axis `ax` for a rank: negative wraps once; out of range is an error.
function wrap(name, rank, ax) {
  needInt(name, ax);
  return ((ax % rank) + rank) % rank;
}

function axis(name, rank, ax) {
  needInt(name, ax);
  const a = ax < 0 ? ax + rank : ax;
  if (a < 0 || a >= rank) fail(name, `axis ${ax} out of range for rank ${rank}`);
  return a;
}
const product = (l) => l.reduce((p, d) => p * d, 1);
// Python truthiness of a plain JS value (used by pick).
function truthy(v) {
  if (Array.isArray(v)) return v.length > 0;
  if (v !== null && typeof v === 'object') return Object.keys(v).length > 0;
  return !!v;
}
function numbersOf(name, args) {
  const l = args.length === 1 && Array.isArray(args[0]) ? args[0] : args;
  if (l.length === 0) fail(name, 'needs at least one value');
  return l.map((x) => needNum(name, x));
}

// The loader's dtype table: storage bytes (int8/int16/uint8/bool widened to 32-bit words); dtypeBytes also
// takes the WGSL scalars f32 f16 u32 i32 vec2<u32>. ONNX codes of the logical dtypes only.
const BYTES = {
  float16: 2, float32: 4, int8: 4, int16: 4, int32: 4, int64: 8, uint8: 4, uint32: 4, bool: 4,
  f32: 4, f16: 2, u32: 4, i32: 4, 'vec2<u32>': 8,
};
const ONNX_CODE = { float32: 1, uint8: 2, int8: 3, int16: 5, int32: 6, int64: 7, bool: 9, float16: 10, uint32: 12 };
function broadcast(a, b) {
  const n = Math.max(a.length, b.length);
  const out = [];
  for (let i = 0; i < n; i++) {
    const x = i < n - a.length ? 1 : a[i - (n - a.length)];
    const y = i < n - b.length ? 1 : b[i - (n - b.length)];
    if (x !== y && x !== 1 && y !== 1) return null;
    out.push(x === 1 ? y : x);
  }
  return out;
}

// The raw helpers on plain JS values. `device` is the scope's device object (or undefined).
export function rawHelpers(device) {
  return {
    ceil: (x) => Math.ceil(needNum('ceil', x)),
    floor: (x) => Math.floor(needNum('floor', x)),
    min: (...a) => Math.min(...numbersOf('min', a)),
    max: (...a) => Math.max(...numbersOf('max', a)),
    pow: (a, b) => {
      const r = Math.pow(needNum('pow', a), needNum('pow', b));
      if (!Number.isFinite(r)) fail('pow', 'result is not a finite number');
      return r;
    },
    ceilDiv: (a, b) => {
      needNum('ceilDiv', a);
      needNum('ceilDiv', b);
      if (b === 0) fail('ceilDiv', 'division by zero');
      return Math.ceil(a / b);
    },
    pow2ceil: (x) => {
      needNum('pow2ceil', x);
      let p = 1;
      while (p < x) p *= 2;
      return p;
    },
    log2ceil: (x) => {
      needNum('log2ceil', x);
      let k = 0;
      for (let p = 1; p < x; p *= 2) k++;
      return k;
    },
    numel: (s) => product(needShape('numel', s)),
    // The public loader's definitions (its bundle's helper table): any integer axis wraps,
    // ((ax % rank) + rank) % rank; on an empty shape the axis is NaN (dim undefined, products 1).
    dim: (s, i) => needShape('dim', s)[wrap('dim', s.length, i)],
    rows: (s, ax) => {
      needShape('rows', s);
      const a = wrap('rows', s.length, ax);
      return product(s.filter((_, k) => k !== a));
    },
    outer: (s, ax) => {
      needShape('outer', s);
      const a = wrap('outer', s.length, ax);
      return product(Number.isNaN(a) ? [] : s.slice(0, a));
    },
    inner: (s, ax) => {
      needShape('inner', s);
      const a = wrap('inner', s.length, ax);
      return product(Number.isNaN(a) ? s : s.slice(a + 1));
    },
    prefix: (l, n) => needList('prefix', l).slice(0, Math.max(0, needInt('prefix', n))),
    suffix: (l, n) => needList('suffix', l).slice(Math.max(0, needInt('suffix', n))),
    fill: (v, n) => {
      needInt('fill', n);
      if (n < 0) fail('fill', 'negative count');
      return new Array(n).fill(v);
    },
    moveAxis: (s, from, to) => {
      needList('moveAxis', s);
      const f = axis('moveAxis', s.length, from);
      const t = axis('moveAxis', s.length, to);
      const out = s.slice();
      const [x] = out.splice(f, 1);
      out.splice(t, 0, x);
      return out;
    },
    permuteShape: (s, perm) => {
      needList('permuteShape', s);
      needList('permuteShape', perm);
      if (perm.length !== s.length) fail('permuteShape', `permutation length ${perm.length} != rank ${s.length}`);
      const seen = new Set();
      return perm.map((p) => {
        const a = axis('permuteShape', s.length, p);
        if (seen.has(a)) fail('permuteShape', `axis ${p} repeated`);
        seen.add(a);
        return s[a];
      });
    },
    reversedAxes: (rank) => {
      needInt('reversedAxes', rank);
      const out = [];
      for (let i = rank - 1; i >= 0; i--) out.push(i);
      return out;
    },
    broadcastShape: (a, b) => {
      const r = broadcast(needShape('broadcastShape', a), needShape('broadcastShape', b));
      if (!r) fail('broadcastShape', `shapes ${JSON.stringify(a)} and ${JSON.stringify(b)} do not broadcast`);
      return r;
    },
    // a broadcasts to b (one way): len(a) <= len(b), each a[i] 1 or b's aligned dim.
    broadcastable: (a, b) => {
      needList('broadcastable', a);
      needList('broadcastable', b);
      if (a.length > b.length) return false;
      const off = b.length - a.length;
      return a.every((d, i) => d === 1 || d === b[i + off]);
    },
    matmulShape: (a, b) => {
      needShape('matmulShape', a);
      needShape('matmulShape', b);
      if (a.length === 0 || b.length === 0) fail('matmulShape', 'operands must have rank >= 1');
      const A = a.length === 1 ? [1, a[0]] : a;
      const B = b.length === 1 ? [b[0], 1] : b;
      const k1 = A[A.length - 1];
      const k2 = B[B.length - 2];
      if (k1 !== k2) fail('matmulShape', `inner dimensions differ: ${k1} vs ${k2}`);
      const batch = broadcast(A.slice(0, -2), B.slice(0, -2));
      if (!batch) fail('matmulShape', 'batch dimensions do not broadcast');
      const out = batch.concat([A[A.length - 2], B[B.length - 1]]);
      if (b.length === 1) out.splice(out.length - 1, 1);
      if (a.length === 1) out.splice(out.length - (b.length === 1 ? 1 : 2), 1);
      return out;
    },
    sameShape: (a, b) =>
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((d, i) => d === b[i]),
    // hasAxis(axes, ax, rank): ax mod rank among the axes mod rank.
    hasAxis: (axes, ax, rank) => {
      needList('hasAxis', axes);
      const m = (x) => ((x % rank) + rank) % rank;
      return axes.some((x) => m(x) === m(ax));
    },
    // axisValue(vals, axes, ax, rank, default): vals at the first axes position matching ax mod rank.
    axisValue: (vals, axes, ax, rank, dflt) => {
      needList('axisValue', axes);
      const m = (x) => ((x % rank) + rank) % rank;
      const k = axes.findIndex((x) => m(x) === m(ax));
      return k >= 0 && k < vals.length ? vals[k] : dflt;
    },
    // isUniqueIntList(l, lo, hi, mod=0): integers in [lo, hi), unique after mod when mod > 0; false on bad arguments.
    isUniqueIntList: (l, lo, hi, mod = 0) => {
      if (!Array.isArray(l) || !Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo || !Number.isInteger(mod) || mod < 0)
        return false;
      const seen = new Set();
      for (const x of l) {
        if (!Number.isInteger(x) || x < lo || x >= hi) return false;
        const k = mod === 0 ? x : ((x % mod) + mod) % mod;
        if (seen.has(k)) return false;
        seen.add(k);
      }
      return true;
    },
    // has(obj, key): an own property of the plain value (a dict key, a list/string index, "length").
    has: (obj, key) => !!(obj && Object.prototype.hasOwnProperty.call(obj, key)),
    dtypeBytes: (dt) => {
      if (!Object.hasOwn(BYTES, dt)) fail('dtypeBytes', `unknown dtype ${JSON.stringify(dt)}`);
      return BYTES[dt];
    },
    onnxDtypeCode: (dt) => {
      if (!Object.hasOwn(ONNX_CODE, dt)) fail('onnxDtypeCode', `unknown dtype ${JSON.stringify(dt)}`);
      return ONNX_CODE[dt];
    },
    // pick: the first pair whose condition is JavaScript-truthy ([] and {} are true).
    pick: (pairs, dflt) => {
      needList('pick', pairs);
      for (const p of pairs) {
        if (!Array.isArray(p) || p.length < 2) fail('pick', 'entries must be [condition, value] pairs');
        if (p[0]) return p[1];
      }
      return dflt;
    },
    f16Ok: (dt) => !(dt === 'f16' || dt === 'float16') || !!(device && device.features.has('shader-f16')),
  };
}

// The helpers as the loader hands them to the engine: arguments unwrapped to plain JS.
export function helpers(device) {
  const raw = rawHelpers(device);
  const out = {};
  for (const [name, fn] of Object.entries(raw)) out[name] = (...args) => fn(...args.map(plain));
  return out;
}

export const HELPER_NAMES = Object.keys(rawHelpers(undefined));
