#!/usr/bin/env python3
"""wgk run on spec 2.1 packages written as a third party would (tests/spec21run/demo.*: public metadata
layout, digests from `wgk pack`), on the GPU: every output written as DIR/<port>.npy is
compared with numpy in double precision on seeded random inputs, the variant wgk chose with the one the
package's rules pick, and bad calls must be refused with a clear message, exit 1 and no output file.

  demo.Transpose        axes + exclude + cases family, {placeholder} in ids, when, tunables and derive;
                        JSON attribute perm=[...]; a 0-d input; threads/workgroupSize dispatch; an output
                        shape that reads a manifest derive
  demo.ReduceSumSquare  cases family with a structured / null placeholder (requires); repeat group folding
                        a scratch buffer log2(cols) times (repeat.level in scope, 0 passes for cols = 1);
                        submitAfter; {workgroups} dispatch; internal uniform field
  demo.Histogram        zeroInit scratch accumulated with atomics across the passes of a repeat group;
                        two uniform bindings in one pass (a shared handle and an inline struct); uniform
                        fields: required (from --arg), default, internal; explicit {x} dispatch; --calls
  demo.EmaUpdate        in/out port updated in place; 0-d tensor input; explicit destination of any shape
                        (--out-shape); optional scalar args into uniform fields
  demo.BatchMatMul      priority, variant requires (feature, limit, subgroupMinSize), manifest requires,
                        demoteWhen (last resort), supersededBy; {x, y, z} dispatch; $X elementType from a
                        pass derive
  ai.onnx.Cast          output type variable bound by the required attribute `to` (ONNX dtype code);
                        `$comment` in every kind of object
  ai.onnx.LayerNormalization  optional outputs (U: [float32]) made and returned only when asked for
  ai.onnx.Split         an optional output whose shape expression holds only when it is asked for
  ai.onnx.Expand        a shape tensor read as data by the caller: explicit destination, dtype from T
  ai.onnx.MatMul        tiled matmul in workgroup memory; requires.subgroupMatrixConfigs rejected on lavapipe
  ai.onnx.ReduceMean    axes from an attribute (absent: all) and keepdims in the output shape expression;
                        `$comment` at every depth (maps, ports, attributes, constraints, tunables, derive
                        and a derive object, requires, handles, fields, family, case, variant, pass, dispatch)
  ai.onnx.Reshape       a shape tensor read as data by the caller (0 and -1 resolved into the destination); an
                        int64 input no pass binds is still narrowed (a value past int32 refused)
  ai.onnx.ReduceMax     subgroup requirements: a manifest `requires.features` and a variant `subgroupMinSize`
                        lavapipe's subgroups of 8 do not meet (wave64 rejected, subgroup run)
  demo.Polynomial       a fixed-length binding (`length: "$NCOEF"`): a shorter tensor refused naming the binding
A copy of demo.Histogram without its zeroInit (as an author testing only on the public loader, whose
intermediates are fresh zeroed buffers per call, may write it) must give the same counts on every call.
usage: run_test.py WGK SOURCE_DIR"""
import os, re, shutil, subprocess, sys, tempfile
import numpy as np

wgk, src = sys.argv[1], sys.argv[2]
here = os.path.join(src, 'tests/spec21run')
fails, passed = [], 0
rng = np.random.default_rng(2111)
tmp = tempfile.mkdtemp()


def save(name, arr):
    path = os.path.join(tmp, name + '.npy')
    np.save(path, arr)
    return path


def run(pkg, args, out=None):
    cmd = [wgk, 'run', pkg if os.path.isabs(pkg) else os.path.join(here, pkg)] + args + (['--out', out] if out else [])
    return subprocess.run(cmd, capture_output=True, text=True)


def check(label, pkg, args, want, variant=None, rtol=1e-5, atol=1e-6, repeat=1):
    """want: port -> (array in double, dtype). Every port must be written, in its dtype and shape."""
    global passed
    out = os.path.join(tmp, 'out_%d' % (passed + len(fails)))
    p = run(pkg, args + (['--calls', str(repeat)] if repeat > 1 else []), out)
    if p.returncode != 0:
        fails.append(f'{label}: exit {p.returncode}: {p.stderr.strip()}')
        return
    chosen = re.findall(r'variant (\w+)', p.stdout)
    if variant and set(chosen) != {variant}:
        fails.append(f'{label}: variant {chosen}, want {variant}')
        return
    for port, (ref, dtype) in want.items():
        # an element the kernel never writes reads 0 (fresh buffers): the references have no zero
        assert np.all(ref != 0) or dtype.startswith('int'), f'{label}: reference {port} has zeros'
        path = os.path.join(out, port + '.npy')
        if not os.path.exists(path):
            fails.append(f'{label}: {port}.npy not written ({sorted(os.listdir(out)) if os.path.isdir(out) else "no folder"})')
            return
        got = np.load(path)
        if got.dtype != np.dtype(dtype) or got.shape != ref.shape:
            fails.append(f'{label}: {port} is {got.dtype} {got.shape}, want {dtype} {ref.shape}')
            return
        g = got.astype(np.float64)
        bad = ~(np.abs(g - ref) <= atol + rtol * np.abs(ref))
        if bad.any():
            i = np.argwhere(bad)[0]
            fails.append(f'{label}: {port}{list(i)} = {g[tuple(i)]}, want {ref[tuple(i)]} ({bad.sum()} of {bad.size} off)')
            return
    passed += 1


def refuse(label, pkg, args, pattern):
    """A bad call: exit 1, one line naming the problem (pattern), nothing written."""
    global passed
    out = os.path.join(tmp, 'refused_%d' % (passed + len(fails)))
    p = run(pkg, args, out)
    msg = p.stderr.strip()
    written = os.listdir(out) if os.path.isdir(out) else []
    if p.returncode != 1 or not re.search(pattern, msg) or written or 'Traceback' in msg:
        fails.append(f'{label}: exit {p.returncode}, wrote {written}, message {msg!r} (want /{pattern}/)')
        return
    passed += 1


def f64(a):
    return a.astype(np.float64)


# ---- demo.Transpose: the family's cells, the generic fallback, JSON perm, 0-d ----
for shape, perm, dtype, variant in (((2, 3), [1, 0], np.float32, 'rank2_32bit'),
                                     ((5, 7), [1, 0], np.int32, 'rank2_32bit'),
                                     ((2, 3, 4), [2, 0, 1], np.float16, 'rank3_16bit'),
                                     ((3, 1, 4), [1, 2, 0], np.uint32, 'rank3_32bit'),
                                     ((2, 3, 4, 5), [3, 1, 0, 2], np.float32, 'rank4_32bit'),
                                     ((2, 3, 4, 5), [0, 3, 2, 1], np.float16, 'generic'),
                                     ((2, 1, 3, 2, 2), [4, 0, 3, 1, 2], np.float32, 'generic'),
                                     ((70000,), [0], np.float32, 'generic'),
                                     ((), [], np.float32, 'generic')):
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(1, 1000, size=shape).astype(dtype)
    else:
        x = (rng.standard_normal(shape) + 4).astype(dtype)
    path = save('tr_%s_%s' % ('x'.join(map(str, shape)) or 'scalar', np.dtype(dtype).name), x)
    check(f'Transpose {shape} perm {perm} {np.dtype(dtype).name}', 'demo.Transpose',
          ['--in', f'data={path}', '--attr', f'perm={perm}'.replace(' ', '')],
          {'transposed': (f64(x).transpose(perm), np.dtype(dtype).name)}, variant)
x23 = save('x23', rng.standard_normal((2, 3)).astype(np.float32))
check('Transpose into a caller-given destination', 'demo.Transpose',
      ['--in', f'data={x23}', '--attr', 'perm=[1,0]', '--out-shape', 'transposed=3x2:float32'],
      {'transposed': (f64(np.load(x23)).T, 'float32')}, 'rank2_32bit')
# A destination for an output with a shape expression: the loader takes the expression's shape, not the
# destination's (docs/loader-semantics.md rule 36).
check('Transpose into a destination of another shape', 'demo.Transpose',
      ['--in', f'data={x23}', '--attr', 'perm=[1,0]', '--out-shape', 'transposed=2x3'],
      {'transposed': (f64(np.load(x23)).T, 'float32')}, 'rank2_32bit')
refuse('Transpose without data', 'demo.Transpose', ['--attr', 'perm=[1,0]'], r'inputs\.data: .*required input is missing')
refuse('Transpose without perm', 'demo.Transpose', ['--in', f'data={x23}'], r'attribute perm is required')
refuse('Transpose perm out of range', 'demo.Transpose', ['--in', f'data={x23}', '--attr', 'perm=[0,2]'],
       r'permuteShape\(\): axis 2 out of range for rank 2')
refuse('Transpose perm of the wrong rank', 'demo.Transpose', ['--in', f'data={x23}', '--attr', 'perm=[0]'],
       r'permuteShape\(\): permutation length differs from rank')
refuse('Transpose unknown attribute', 'demo.Transpose', ['--in', f'data={x23}', '--attr', 'perm=[1,0]', '--attr', 'axis=1'],
       r"--attr axis: demo\.Transpose has no attribute 'axis' \(known: perm\)")
refuse('Transpose int64 data', 'demo.Transpose', ['--in', f'data={save("i64", np.arange(6).reshape(2, 3))}', '--attr', 'perm=[1,0]'],
       r'port data .*dtype int64 is not allowed by type constraint T \(allowed: float32, float16, int32, uint32\)')
refuse('Transpose rank 7', 'demo.Transpose', ['--in', f'data={save("r7", np.ones((1,) * 7, np.float32))}',
                                              '--attr', 'perm=[0,1,2,3,4,5,6]'], r'rank <= 6 is false')
refuse('Transpose unknown input', 'demo.Transpose', ['--in', f'x={x23}', '--attr', 'perm=[1,0]'],
       r"--in x: demo\.Transpose has no input port 'x' \(inputs: data\)")

# ---- demo.ReduceSumSquare: repeat group of log2(cols) folds, keepdims, the f16 case ----
for shape, keep, dtype in (((3, 5, 7), 1, np.float32), ((4, 1), 0, np.float32), ((2, 16), 1, np.float16),
                           ((100,), 0, np.float32), ((6, 33), 0, np.float32), ((66000, 64), 0, np.float32),
                           ((), 1, np.float32)):  # 66000 x 64: the {workgroups} grid folds into y
    x = (rng.standard_normal(shape) + 0.5).astype(dtype)
    path = save('rs_%d_%s' % (x.size, np.dtype(dtype).name), x)
    want = (f64(x) ** 2).sum(-1, keepdims=bool(keep)) if shape else None
    if not shape:  # a 0-d input has no axis to reduce: the manifest's `ranks.data >= 1` refuses it
        refuse('ReduceSumSquare 0-d', 'demo.ReduceSumSquare', ['--in', f'data={path}'], r'ranks\.data >= 1 is false')
        continue
    tol = (2e-3, 1e-2) if dtype == np.float16 else (1e-5, 1e-5)
    check(f'ReduceSumSquare {shape} keepdims {keep} {np.dtype(dtype).name}', 'demo.ReduceSumSquare',
          ['--in', f'data={path}', '--attr', f'keepdims={keep}'], {'reduced': (want, np.dtype(dtype).name)},
          'fold_f16' if dtype == np.float16 else 'fold_f32', rtol=tol[0], atol=tol[1])
refuse('ReduceSumSquare keepdims out of range', 'demo.ReduceSumSquare', ['--in', f'data={x23}', '--attr', 'keepdims=2'],
       r'attribute keepdims: value 2 is not one of \[0, 1\]')
refuse('ReduceSumSquare int32', 'demo.ReduceSumSquare', ['--in', f'data={save("i32", np.ones((2, 2), np.int32))}'],
       r'dtype int32 is not allowed by type constraint T')

# ---- demo.Histogram: zeroInit atomics over chunks, repeated calls, uniform defaults ----
vals = (rng.integers(-40, 40, size=(7, 100)) * 0.25 + 0.125).astype(np.float32)  # never on a bin edge
hpath = save('hist', vals)


def hist(lo, hi, bins):
    v = f64(vals).ravel()
    counts, _ = np.histogram(v[(v >= lo) & (v < hi)], bins=bins, range=(lo, hi))
    return {'counts': (counts.astype(np.float64), 'int32'),
            'density': (counts / (v.size * (hi - lo) / bins), 'float32')}


check('Histogram lo -4 hi 4, 3 calls', 'demo.Histogram', ['--in', f'values={hpath}', '--arg', 'lo=-4', '--arg', 'hi=4'],
      hist(-4, 4, 16), 'atomic_chunks', repeat=3)
check('Histogram lo default 0, bins 8, CHUNK 64', 'demo.Histogram',
      ['--in', f'values={hpath}', '--arg', 'hi=4', '--attr', 'bins=8', '--tunable', 'CHUNK=64'], hist(0, 4, 8), repeat=2)
check('Histogram bins 64, one chunk', 'demo.Histogram',
      ['--in', f'values={hpath}', '--arg', 'lo=-10', '--arg', 'hi=10', '--attr', 'bins=64', '--tunable', 'CHUNK=1024'],
      hist(-10, 10, 64))
refuse('Histogram without hi', 'demo.Histogram', ['--in', f'values={hpath}'],
       r"Missing uniform field Range\.hi \(no value, no arg 'hi', no default\)")
refuse('Histogram bins out of range', 'demo.Histogram', ['--in', f'values={hpath}', '--arg', 'hi=4', '--attr', 'bins=10'],
       r'attribute bins: value 10 is not one of \[8, 16, 32, 64\]')
refuse('Histogram unknown arg', 'demo.Histogram', ['--in', f'values={hpath}', '--arg', 'hi=4', '--arg', 'width=2'],
       r"--arg width: demo\.Histogram has no arg 'width' \(known: lo, hi\)")
refuse('Histogram float16 values', 'demo.Histogram', ['--in', f'values={save("h16", vals.astype(np.float16))}', '--arg', 'hi=4'],
       r'port values .*dtype float16, not the declared dtype float32')
# The same package without zeroInit: every call starts from zeros, as on the public loader.
nozero = os.path.join(tmp, 'demo.Histogram')
shutil.copytree(os.path.join(here, 'demo.Histogram'), nozero)
man = os.path.join(nozero, 'build/webgpu/manifest.json')
text = open(man).read()
assert ', "zeroInit": true' in text
open(man, 'w').write(text.replace(', "zeroInit": true', ''))
subprocess.run([wgk, 'pack', nozero], check=True, capture_output=True)
check('Histogram without zeroInit, 3 calls', nozero, ['--in', f'values={hpath}', '--arg', 'lo=-4', '--arg', 'hi=4'],
      hist(-4, 4, 16), repeat=3)

# ---- demo.EmaUpdate: in/out state, 0-d decay, explicit destination ----
state = rng.standard_normal((3, 4, 5)).astype(np.float32)
obs = rng.standard_normal((3, 4, 5)).astype(np.float32)
spath, opath, dpath = save('state', state), save('obs', obs), save('decay', np.array(0.9, np.float32))
d = float(np.float32(0.9))
new = d * f64(state) + (1 - d) * f64(obs)
for dest, extra, change in (('12x5', ['--arg', 'scale=2', '--arg', 'step=3'], 2 * (new - f64(state)) / (1 - d ** 3)),
                            ('60', [], new - f64(state)),
                            ('3x4x5:float32', ['--arg', 'scale=0.5'], 0.5 * (new - f64(state)))):
    shape = tuple(int(s) for s in dest.split(':')[0].split('x'))
    check(f'EmaUpdate delta {dest} {extra}', 'demo.EmaUpdate',
          ['--in', f'state={spath}', '--in', f'x={opath}', '--in', f'decay={dpath}', '--out-shape', f'delta={dest}'] + extra,
          {'state': (new, 'float32'), 'delta': (change.reshape(shape), 'float32')}, 'elementwise', rtol=1e-5, atol=1e-6)
ema = ['--in', f'state={spath}', '--in', f'x={opath}', '--in', f'decay={dpath}']
refuse('EmaUpdate without destination', 'demo.EmaUpdate', ema, r'port delta: output has no shape expression, so the caller must give it')
refuse('EmaUpdate destination of the wrong size', 'demo.EmaUpdate', ema + ['--out-shape', 'delta=7'],
       r'numel\(shapes\.delta\) == n is false')
refuse('EmaUpdate destination dtype', 'demo.EmaUpdate', ema + ['--out-shape', 'delta=60:float16'],
       r'port delta .*dtype float16, not the declared dtype float32')
refuse('EmaUpdate decay of rank 1', 'demo.EmaUpdate',
       ['--in', f'state={spath}', '--in', f'x={opath}', '--in', f'decay={save("d1", np.array([0.9], np.float32))}',
        '--out-shape', 'delta=60'], r'ranks\.decay == 0 is false')
refuse('EmaUpdate without x', 'demo.EmaUpdate', ['--in', f'state={spath}', '--in', f'decay={dpath}', '--out-shape', 'delta=60'],
       r'inputs\.x: .*required input is missing')
refuse('EmaUpdate x of another shape', 'demo.EmaUpdate',
       ['--in', f'state={spath}', '--in', f'x={save("o2", obs[:2])}', '--in', f'decay={dpath}', '--out-shape', 'delta=60'],
       r'sameShape\(shapes\.state, shapes\.x\) is false')
refuse('EmaUpdate negative step', 'demo.EmaUpdate', ema + ['--out-shape', 'delta=60', '--arg', 'step=-1'],
       r'args\.step: arg step \(u32\) = -1 must be a u32')

# ---- demo.BatchMatMul: selection by priority, requires, demoteWhen, supersededBy ----
for (b, m, k, n), variant in (((2, 16, 32, 16), 'vec4'),   # sgmat needs a feature lavapipe lacks
                              ((1, 16, 33, 16), 'tiled'),  # K % 4 != 0, tiled not demoted
                              ((2, 16, 6, 16), 'naive'),   # tiled demoted, naive eligible
                              ((2, 8, 35, 8), 'tiled'),    # tiled demoted but nothing else: the last resort
                              ((3, 4, 8, 4), 'vec4'),
                              ((1, 5, 40, 3), 'vec4')):
    for dtype in (np.float32, np.float16):
        a = rng.uniform(-1, 1, (b, m, k)).astype(dtype)
        bm = rng.uniform(-1, 1, (b, k, n)).astype(dtype)
        want = f64(a) @ f64(bm)
        want[want == 0] = 1e-30  # (never happens with these seeds; keeps the poison check honest)
        tol = (1e-2, 2e-2) if dtype == np.float16 else (1e-5, 1e-5)
        check(f'BatchMatMul {(b, m, k, n)} {np.dtype(dtype).name}', 'demo.BatchMatMul',
              ['--in', f'a={save("a", a)}', '--in', f'bmat={save("b", bm)}'], {'c': (want, np.dtype(dtype).name)},
              variant, rtol=tol[0], atol=tol[1])
a = save('a', rng.standard_normal((2, 4, 8)).astype(np.float32))
refuse('BatchMatMul inner dims differ', 'demo.BatchMatMul', ['--in', f'a={a}', '--in', f'bmat={save("b", np.ones((2, 7, 3), np.float32))}'],
       r'MatMul inner dimensions|matmulShape')
refuse('BatchMatMul rank 2', 'demo.BatchMatMul', ['--in', f'a={save("a2", np.ones((4, 8), np.float32))}', '--in', f'bmat={save("b2", np.ones((8, 3), np.float32))}'],
       r'ranks\.a == 3 is false')
refuse('BatchMatMul mixed dtypes', 'demo.BatchMatMul', ['--in', f'a={a}', '--in', f'bmat={save("b", np.ones((2, 8, 3), np.float16))}'],
       r'port bmat .*dtype float16 does not match type T = float32')
refuse('BatchMatMul missing bmat', 'demo.BatchMatMul', ['--in', f'a={a}'], r'inputs\.bmat: .*required input is missing')
def written(label, pkg, args, want_files):
    """The files --out holds are exactly want_files: only the outputs the call asked for are returned."""
    global passed
    out = os.path.join(tmp, 'written_%d' % (passed + len(fails)))
    p = run(pkg, args, out)
    got = sorted(os.listdir(out)) if os.path.isdir(out) else []
    if p.returncode != 0 or got != sorted(want_files):
        fails.append(f'{label}: exit {p.returncode}, wrote {got}, want {sorted(want_files)}: {p.stderr.strip()}')
        return
    passed += 1


# ---- ai.onnx.Cast: the output's type variable bound by the required attribute `to`; $comment at every depth ----
onnx_codes = {1: 'float32', 6: 'int32', 10: 'float16', 12: 'uint32'}
xc = (rng.standard_normal((3, 5, 7)) * 40).astype(np.float32)
xc[np.abs(xc) < 1] += 3  # no element truncates to 0 (the references have no zeros)
xc_pos = (rng.random((40,)) * 900 + 1).astype(np.float32)  # uint32 targets: positive, never 0
for data, to in ((xc, 6), (xc, 1), (xc, 10), (xc_pos, 12), (np.arange(1, 25, dtype=np.int32).reshape(4, 6) - 30, 1),
                 (xc.astype(np.float16), 1), (np.arange(1, 9, dtype=np.uint32), 10)):
    dt = onnx_codes[to]
    ref = data.astype(np.float64)
    if dt in ('int32', 'uint32'):
        ref = np.trunc(ref)
    elif dt == 'float16':
        ref = data.astype(np.float16).astype(np.float64)
    check(f'Cast {data.dtype} -> {dt}', 'ai.onnx.Cast', ['--in', f'input={save("cast_in", data)}', '--attr', f'to={to}'],
          {'output': (ref, dt)}, 'convert', rtol=0, atol=0)
xcp = save('cast_x', xc)
refuse('Cast without to', 'ai.onnx.Cast', ['--in', f'input={xcp}'], r'attribute to is required')
refuse('Cast to int64 (7)', 'ai.onnx.Cast', ['--in', f'input={xcp}', '--attr', 'to=7'], r'attribute to: value 7 is not one of \[1, 6, 10, 12\]')
refuse('Cast int64 input', 'ai.onnx.Cast', ['--in', f'input={save("c64", np.arange(4))}', '--attr', 'to=1'],
       r'dtype int64 is not allowed by type constraint T1')

# ---- ai.onnx.LayerNormalization: optional outputs Mean/InvStdDev (U: [float32], bound by no input) ----
xl = rng.standard_normal((4, 3, 16)).astype(np.float32) + 1
sl = (rng.standard_normal(16) + 2).astype(np.float32)
bl = (rng.standard_normal(16) + 3).astype(np.float32)
mu = f64(xl).mean(-1, keepdims=True)
inv = 1 / np.sqrt(((f64(xl) - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
yl = (f64(xl) - mu) * inv * f64(sl) + f64(bl)
ln_in = ['--in', f'X={save("ln_x", xl)}', '--in', f'Scale={save("ln_s", sl)}', '--in', f'B={save("ln_b", bl)}']
check('LayerNormalization, no statistics asked', 'ai.onnx.LayerNormalization', ln_in, {'Y': (yl, 'float32')}, 'plain',
      rtol=1e-4, atol=1e-5)
written('LayerNormalization returns only Y when no statistic is asked', 'ai.onnx.LayerNormalization', ln_in, ['Y.npy'])
check('LayerNormalization with Mean and InvStdDev asked', 'ai.onnx.LayerNormalization',
      ln_in + ['--out-shape', 'Mean=1', '--out-shape', 'InvStdDev=1'],
      {'Y': (yl, 'float32'), 'Mean': (mu, 'float32'), 'InvStdDev': (inv, 'float32')}, 'with_stats', rtol=1e-4, atol=1e-5)
refuse('LayerNormalization with only Mean asked', 'ai.onnx.LayerNormalization', ln_in + ['--out-shape', 'Mean=1'],
       r'no variant of ai\.onnx\.LayerNormalization accepts the call')
refuse('LayerNormalization Mean asked as float16', 'ai.onnx.LayerNormalization',
       ln_in + ['--out-shape', 'Mean=1:float16', '--out-shape', 'InvStdDev=1'], r'port Mean.*dtype float16, not the declared dtype float32|type constraint U')
refuse('LayerNormalization axis 0', 'ai.onnx.LayerNormalization', ln_in + ['--attr', 'axis=0'], r'attribute axis: value 0 is not one of \[-1\]')

# ---- ai.onnx.Split: an optional output whose shape expression only holds when it is asked for ----
xs = (rng.standard_normal((6, 5)) + 5).astype(np.float32)
sp = ['--in', f'input={save("split", xs)}']
check('Split in 2 (output2 not asked)', 'ai.onnx.Split', sp + ['--attr', 'num_outputs=2'],
      {'output0': (f64(xs[:3]), 'float32'), 'output1': (f64(xs[3:]), 'float32')}, 'two')
written('Split in 2 returns two outputs', 'ai.onnx.Split', sp + ['--attr', 'num_outputs=2'], ['output0.npy', 'output1.npy'])
check('Split in 3 with output2 asked', 'ai.onnx.Split', sp + ['--attr', 'num_outputs=3', '--out-shape', 'output2=1'],
      {'output0': (f64(xs[:2]), 'float32'), 'output1': (f64(xs[2:4]), 'float32'), 'output2': (f64(xs[4:]), 'float32')},
      'three')
refuse('Split in 2 with output2 asked', 'ai.onnx.Split', sp + ['--attr', 'num_outputs=2', '--out-shape', 'output2=1'],
       r"port output2: shape expression .* did not give a list")
refuse('Split in 3 without output2', 'ai.onnx.Split', sp + ['--attr', 'num_outputs=3'],
       r'no variant of ai\.onnx\.Split accepts the call')
refuse('Split 5 rows in 2', 'ai.onnx.Split', ['--in', f'input={save("split5", xs[:5])}', '--attr', 'num_outputs=2'],
       r'shapes\.input\[0\] % attrs\.num_outputs == 0 is false')

# ---- ai.onnx.Expand: a shape tensor read as data by the caller; the destination's dtype from T ----
for xin, dest in ((np.arange(1, 4, dtype=np.int32).reshape(3, 1), (2, 3, 4)),
                  ((rng.standard_normal((1, 4)) + 5).astype(np.float32), (3, 4)),
                  ((rng.standard_normal((5,)) + 5).astype(np.float16), (2, 1, 5))):
    shp = save('exp_shape', np.array(dest, np.int64))
    check(f'Expand {xin.dtype} {xin.shape} -> {dest}, destination without dtype', 'ai.onnx.Expand',
          ['--in', f'input={save("exp_in", xin)}', '--in', f'shape={shp}', '--out-shape', 'output=' + 'x'.join(map(str, dest))],
          {'output': (np.broadcast_to(f64(xin), dest), xin.dtype.name)}, 'broadcast')
exi = save('exp_in', np.ones((3, 1), np.float32))
refuse('Expand without a destination', 'ai.onnx.Expand', ['--in', f'input={exi}', '--in', f'shape={save("es", np.array([3, 2]))}'],
       r'output has no shape expression, so the caller must give it')
refuse('Expand to a shape it does not broadcast to', 'ai.onnx.Expand',
       ['--in', f'input={exi}', '--in', f'shape={save("es", np.array([2, 2]))}', '--out-shape', 'output=2x2'], r'sameShape')
# ---- ai.onnx.MatMul: a tiled matmul; a subgroup-matrix variant the device's (empty) config list rejects ----
for (m_, k_, n_), variant in (((16, 32, 8), 'tiled'), ((19, 13, 11), 'tiled'), ((3, 5, 4), 'naive'), ((1, 70, 9), 'naive')):
    a = (rng.random((m_, k_)) + 0.5).astype(np.float32)
    b = (rng.random((k_, n_)) + 0.5).astype(np.float32)
    check(f'MatMul {m_}x{k_} @ {k_}x{n_}', 'ai.onnx.MatMul', ['--in', f'A={save("mm_a", a)}', '--in', f'B={save("mm_b", b)}'],
          {'Y': (f64(a) @ f64(b), 'float32')}, variant, rtol=1e-5, atol=1e-5)
refuse('MatMul inner dims differ', 'ai.onnx.MatMul', ['--in', f'A={save("mm_a", np.ones((4, 3), np.float32))}',
                                                      '--in', f'B={save("mm_b", np.ones((4, 3), np.float32))}'],
       r'shapes\.A\[1\] == shapes\.B\[0\] is false')
# ---- demo.Polynomial: coefficients in a fixed-length binding (array<f32, NCOEF>), NCOEF from an attribute ----
xp = rng.uniform(-2, 2, (5, 33)).astype(np.float32)
xpp = save('poly_x', xp)
for degree, ncoef in ((3, 4), (1, 2), (5, 6), (2, 7)):  # 7 coefficients for degree 2: the extra ones are not read
    cf = rng.uniform(0.5, 1.5, ncoef).astype(np.float32)
    ref = sum(f64(cf)[j] * f64(xp) ** j for j in range(degree + 1))
    ref[ref == 0] = 1e-30
    check(f'Polynomial degree {degree}, {ncoef} coefficients', 'demo.Polynomial',
          ['--in', f'x={xpp}', '--in', f'coef={save("poly_c", cf)}', '--attr', f'degree={degree}'],
          {'y': (ref, 'float32')}, 'horner', rtol=1e-5, atol=1e-5)
refuse('Polynomial with fewer coefficients than degree + 1', 'demo.Polynomial',
       ['--in', f'x={xpp}', '--in', f'coef={save("poly_c", np.ones(3, np.float32))}'],
       r'binding coef: port coef \(float32 \[3\]\) provides 12 bytes, but the declared fixed length \$NCOEF = 4 of f32 requires 16')
refuse('Polynomial coefficients of rank 2', 'demo.Polynomial',
       ['--in', f'x={xpp}', '--in', f'coef={save("poly_c", np.ones((2, 2), np.float32))}'], r'ranks\.coef == 1 is false')
# ---- ai.onnx.ReduceMean: axes from an attribute (absent: all), keepdims; $comment at every depth ----
for shape, axes, keep, dtype in (((3, 5, 7), [1], 1, np.float32), ((3, 5, 7), [0, -1], 0, np.float32),
                                 ((4, 6), None, 1, np.float32), ((4, 6), None, 0, np.float32),
                                 ((2, 3, 4, 5), [3, 1], 1, np.float16), ((70,), [0], 0, np.float32),
                                 ((2, 1, 3, 9), [-4, 2], 0, np.float16), ((130, 600), [1], 1, np.float32)):
    x = (rng.standard_normal(shape) + 3).astype(dtype)
    ref = f64(x).mean(axis=tuple(axes) if axes is not None else None, keepdims=bool(keep))
    ref = np.asarray(ref)
    args = ['--in', f'data={save("rm_x", x)}', '--attr', f'keepdims={keep}']
    if axes is not None:
        args += ['--attr', f'axes={axes}'.replace(' ', '')]
    tol = (2e-3, 2e-3) if dtype == np.float16 else (1e-5, 1e-6)
    check(f'ReduceMean {shape} axes {axes} keepdims {keep} {np.dtype(dtype).name}', 'ai.onnx.ReduceMean', args,
          {'reduced': (ref, np.dtype(dtype).name)}, 'mean_f16' if dtype == np.float16 else 'mean_f32',
          rtol=tol[0], atol=tol[1])
rmx = save('rm_x', np.ones((2, 3), np.float32))
refuse('ReduceMean axis out of range', 'ai.onnx.ReduceMean', ['--in', f'data={rmx}', '--attr', 'axes=[2]'],
       r'isUniqueIntList\(ax, -ranks\.data, ranks\.data, ranks\.data\) is false')
refuse('ReduceMean an axis twice', 'ai.onnx.ReduceMean', ['--in', f'data={rmx}', '--attr', 'axes=[1,-1]'],
       r'isUniqueIntList\(ax, -ranks\.data, ranks\.data, ranks\.data\) is false')
refuse('ReduceMean keepdims 2', 'ai.onnx.ReduceMean', ['--in', f'data={rmx}', '--attr', 'keepdims=2'],
       r'attribute keepdims: value 2 is not one of \[0, 1\]')
refuse('ReduceMean rank 5', 'ai.onnx.ReduceMean', ['--in', f'data={save("rm5", np.ones((1, 2, 1, 2, 1), np.float32))}'],
       r'ranks\.data <= 4 is false')
refuse('ReduceMean int32 data', 'ai.onnx.ReduceMean', ['--in', f'data={save("rmi", np.ones((2, 2), np.int32))}'],
       r'dtype int32 is not allowed by type constraint T')
refuse('ReduceMean empty data', 'ai.onnx.ReduceMean', ['--in', f'data={save("rm0", np.ones((2, 0), np.float32))}'],
       r'numel\(shapes\.data\) > 0 is false')
# ---- ai.onnx.Reshape: the target shape is data (int64 `shape`), resolved by the caller into the destination ----
def onnx_reshape(in_shape, target, allowzero):
    out = [in_shape[i] if d == 0 and not allowzero else d for i, d in enumerate(target)]
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1]))
        out[out.index(-1)] = int(np.prod(in_shape)) // known
    return tuple(out)


for shape, target, allowzero, dtype in (((2, 3, 4), [4, -1], 0, np.float32), ((2, 3, 4), [0, 12], 0, np.float32),
                                        ((2, 3, 4), [-1], 0, np.int32), ((3, 5), [0, -1], 0, np.float16),
                                        ((6,), [1, 2, 1, 3], 1, np.uint32), ((300, 700), [700, 300], 0, np.float32)):
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(1, 10**6, size=shape).astype(dtype)
    else:
        x = (rng.standard_normal(shape) + 5).astype(dtype)
    dest = onnx_reshape(shape, target, allowzero)
    check(f'Reshape {np.dtype(dtype).name} {shape} by {target} allowzero {allowzero} -> {dest}', 'ai.onnx.Reshape',
          ['--in', f'data={save("rs_x", x)}', '--in', f'shape={save("rs_s", np.array(target, np.int64))}',
           '--attr', f'allowzero={allowzero}', '--out-shape', 'reshaped=' + 'x'.join(map(str, dest))],
          {'reshaped': (f64(x).reshape(dest), np.dtype(dtype).name)}, 'copy', rtol=0, atol=0)
rsx = save('rs_x', np.ones((2, 3, 4), np.float32))
rsv = save('rs_s', np.array([4, -1], np.int64))
refuse('Reshape without a destination', 'ai.onnx.Reshape', ['--in', f'data={rsx}', '--in', f'shape={rsv}'],
       r'port reshaped: output has no shape expression, so the caller must give it')
refuse('Reshape destination of another size', 'ai.onnx.Reshape',
       ['--in', f'data={rsx}', '--in', f'shape={rsv}', '--out-shape', 'reshaped=4x5'], r'numel\(shapes\.reshaped\) == n is false')
refuse('Reshape destination rank other than the shape tensor length', 'ai.onnx.Reshape',
       ['--in', f'data={rsx}', '--in', f'shape={rsv}', '--out-shape', 'reshaped=24'], r'shapes\.shape\[0\] == ranks\.reshaped is false')
refuse('Reshape shape tensor of rank 2', 'ai.onnx.Reshape',
       ['--in', f'data={rsx}', '--in', f'shape={save("rs_s2", np.array([[4, 6]], np.int64))}', '--out-shape', 'reshaped=4x6'],
       r'ranks\.shape == 1 is false')
refuse('Reshape destination dtype other than the data', 'ai.onnx.Reshape',
       ['--in', f'data={rsx}', '--in', f'shape={rsv}', '--out-shape', 'reshaped=4x6:float16'],
       r'port reshaped .*dtype float16 does not match type T = float32')
# A shape value past int32: no pass binds `shape`, and the loader narrows every host input at upload, so the call
# is refused (it ran before: wgk narrowed only bound inputs). Expand's `shape` the same.
refuse('Reshape shape value past int32', 'ai.onnx.Reshape',
       ['--in', f'data={rsx}', '--in', f'shape={save("rs_big", np.array([4, 2**40], np.int64))}', '--out-shape', 'reshaped=4x6'],
       r'input "shape": int64 value at index 1 \(1099511627776\) is outside the int32 WebGPU storage range')
refuse('Expand shape value past int32', 'ai.onnx.Expand',
       ['--in', f'input={exi}', '--in', f'shape={save("es_big", np.array([3, -2**33]))}', '--out-shape', 'output=3x1'],
       r'input "shape": int64 value at index 1 \(-8589934592\) is outside the int32 WebGPU storage range')
# ---- ai.onnx.ReduceMax: subgroup requirements (manifest feature, variant subgroupMinSize); lavapipe has subgroups
# of 8, so wave64 (64 lanes) is rejected and subgroup runs. The refusals where the device lacks them: tests.cmake ----
for shape, keep in (((5, 100), 1), ((3, 4, 64), 0), ((7, 1), 1), ((200,), 0), ((2, 3, 1000), 1), ((70000, 3), 0)):
    x = (rng.standard_normal(shape) * 10).astype(np.float32)
    x[x == 0] = 1  # (the references have no zeros)
    check(f'ReduceMax {shape} keepdims {keep}', 'ai.onnx.ReduceMax', ['--in', f'data={save("rx", x)}', '--attr', f'keepdims={keep}'],
          {'reduced': (f64(x).max(-1, keepdims=bool(keep)), 'float32')}, 'subgroup', rtol=0, atol=0)
refuse('ReduceMax int32 data', 'ai.onnx.ReduceMax', ['--in', f'data={save("rxi", np.ones((2, 3), np.int32))}'],
       r'dtype int32 is not allowed by type constraint T')
refuse('ReduceMax empty last axis', 'ai.onnx.ReduceMax', ['--in', f'data={save("rx0", np.ones((2, 0), np.float32))}'],
       r'shapes\.data\[ranks\.data - 1\] > 0 is false')
refuse('ReduceMax keepdims 3', 'ai.onnx.ReduceMax', ['--in', f'data={save("rx", np.ones((2, 3), np.float32))}', '--attr', 'keepdims=3'],
       r'attribute keepdims: value 3 is not one of \[0, 1\]')
shutil.rmtree(tmp)
for f in fails:
    print('FAIL', f)
print(f'spec 2.1 packages through wgk run: {passed} passed, {len(fails)} failed')
sys.exit(1 if fails else 0)
