#!/usr/bin/env python3
"""The public loader's storage rules through `wgk run` (GPU), each against numpy on random inputs, with every
output file poisoned first (a refused call must leave them as they were, a run must replace them):
- test.Widen: int8 / int16 / uint8 / bool inputs and outputs, widened to 32-bit words and narrowed back
  (wrapping in the output dtype, as the loader's Int8Array / Int16Array / Uint8Array of the words);
- test.Packed: a packed uint8 input (four bytes per word, arrayLength = ceil(n / 4) words);
- test.Int64: opaque int64 passed through (8 bytes unchanged), checked narrowing (in range passes, -1 into
  uint32 is refused with the loader's message and nothing written), saturating narrowing, and int64 outputs
  stored as int32 / uint32 and widened back (they used to read back as zeros);
- test.OpaqueArith: the loader's scan of WGSL using an opaque int64 (copies and select accepted; arithmetic,
  comparisons, word extraction, conversions refused at plan time with the template's file:line:column);
- test.NoNarrowing: an int64 input stored as int32 without `narrowing`, refused at load with its position;
- test.InOut64: an in/out int64 stored as int32, updated in place and widened back;
- `wgk render`: tensorDtypes is the storage dtype (int32 / uint32 for a projected int64, as in the loader).
usage: storage_test.py WGK SOURCE_DIR"""
import os, re, subprocess, sys, tempfile
import numpy as np

wgk, src = sys.argv[1], sys.argv[2]
here = os.path.join(src, 'tests/manifest/spec21')
fails = []
checks = 0
rng = np.random.default_rng(2111)
POISON = b'poison: not written by wgk\n'


def run(pkg, inputs, outs, tmp, tag, extra=()):
    """wgk run PKG with inputs (port -> array) into a folder whose output files are poisoned first."""
    folder = os.path.join(tmp, tag)
    os.makedirs(folder, exist_ok=True)
    args = [wgk, 'run', os.path.join(here, pkg), '--out', folder] + list(extra)
    for port, arr in inputs.items():
        path = os.path.join(tmp, f'{tag}.in.{port}.npy')
        np.save(path, arr)
        args += ['--in', f'{port}={path}']
    for o in outs:
        with open(os.path.join(folder, o + '.npy'), 'wb') as f:
            f.write(POISON)
    p = subprocess.run(args, capture_output=True, text=True)
    got = {}
    for o in outs:
        path = os.path.join(folder, o + '.npy')
        with open(path, 'rb') as f:
            got[o] = None if f.read() == POISON else np.load(path)
    return p, got


def expect(name, cond, detail=''):
    global checks
    checks += 1
    if not cond:
        fails.append(f'{name} {detail}')


def same(name, got, want):
    want = np.asarray(want)
    ok = got is not None and got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    expect(name, ok, f'got {None if got is None else (got.dtype, got.shape, got.ravel()[:8])}, want {(want.dtype, want.shape, want.ravel()[:8])}')


with tempfile.TemporaryDirectory() as tmp:
    # Widened: int8 / int16 / uint8 / bool, shapes with a remainder and a 0-d tensor.
    for shape in [(13,), (3, 70), ()]:
        a = rng.integers(-128, 128, shape).astype(np.int8)
        b = rng.integers(-32768, 32768, shape).astype(np.int16)
        c = rng.integers(0, 256, shape).astype(np.uint8)
        d = rng.integers(0, 2, shape).astype(bool)
        p, got = run('test.Widen', {'a': a, 'b': b, 'c': c, 'd': d}, ['ya', 'yb', 'yc', 'yd'], tmp, f'widen{len(shape)}')
        expect(f'test.Widen {shape} runs', p.returncode == 0, p.stderr)
        same(f'test.Widen {shape} ya', got['ya'], (a.astype(np.int64) * 3).astype(np.int8))
        same(f'test.Widen {shape} yb', got['yb'], (b.astype(np.int64) - 7).astype(np.int16))
        same(f'test.Widen {shape} yc', got['yc'], (c.astype(np.int64) + 100).astype(np.uint8))
        same(f'test.Widen {shape} yd', got['yd'], ~d)

    # Packed uint8: every length mod 4, and one above 64 KiB of bytes.
    for n in [1, 2, 3, 4, 5, 13, 70001]:
        pk = rng.integers(0, 256, n).astype(np.uint8)
        p, got = run('test.Packed', {'p': pk}, ['y', 'words'], tmp, f'packed{n}')
        expect(f'test.Packed n={n} runs', p.returncode == 0, p.stderr)
        same(f'test.Packed n={n} y', got['y'], 2 * pk.astype(np.uint32) + 1)
        same(f'test.Packed n={n} words', got['words'], np.array([(n + 3) // 4], np.uint32))

    # int64: opaque, checked, saturating, projected outputs widened back.
    n = 77
    o = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    c = rng.integers(0, 2**32, n, dtype=np.int64)
    c[:3] = [0, 2**32 - 1, 2**31]
    s = rng.integers(-2**40, 2**40, n, dtype=np.int64)
    s[:6] = [-2**31, 2**31 - 1, -2**31 - 1, 2**31, -5, 7]
    outs = ['oy', 'cy', 'sy', 'w', 'wu']
    p, got = run('test.Int64', {'o': o, 'c': c, 's': s}, outs, tmp, 'int64')
    expect('test.Int64 runs', p.returncode == 0, p.stderr)
    sat = np.clip(s, -2**31, 2**31 - 1)
    same('test.Int64 oy (opaque, reversed copy)', got['oy'], o[::-1].copy())
    same('test.Int64 cy (checked uint32)', got['cy'], c.astype(np.uint32))
    same('test.Int64 sy (saturating int32)', got['sy'], sat.astype(np.int32))
    same('test.Int64 w (int64 stored as int32, sign-extended)', got['w'], (2 * sat - 5 + 2**31) % 2**32 - 2**31)
    same('test.Int64 wu (int64 stored as uint32, zero-extended)', got['wu'], (3 * c) % 2**32)
    for bad_at, bad_value, port, storage in [(1, -1, 'c', 'uint32'), (5, 2**32, 'c', 'uint32')]:
        cb = c.copy()
        cb[bad_at] = bad_value
        p, got = run('test.Int64', {'o': o, 'c': cb, 's': s}, outs, tmp, f'int64bad{bad_at}')
        want = (f'input "{port}": int64 value at index {bad_at} ({bad_value}) is outside the {storage} WebGPU '
                'storage range')
        expect(f'test.Int64 {port}[{bad_at}]={bad_value} refused', p.returncode != 0 and want in p.stderr, p.stderr)
        expect(f'test.Int64 {port}[{bad_at}]={bad_value} position',
               re.search(r'test\.Int64/build/webgpu/manifest\.json:\d+:\d+: inputs\.c: ', p.stderr) is not None, p.stderr)
        expect(f'test.Int64 {port}[{bad_at}] wrote nothing', all(v is None for v in got.values()),
               [k for k, v in got.items() if v is not None])

    # An in/out int64 stored as int32: narrowed (saturating) in, updated in place, widened back.
    p, got = run('test.InOut64', {'acc': s}, ['acc'], tmp, 'inout64')
    expect('test.InOut64 runs', p.returncode == 0, p.stderr)
    same('test.InOut64 acc', got['acc'], (2 * sat + 1 + 2**31) % 2**32 - 2**31)

    # What templates see: tensorDtypes is the storage dtype of the tensor bound (the loader's scope).
    for pkg, shapes, want in [('test.Int64', ['o=4', 'c=4', 's=4'], '// o: int64; c: uint32; s: int32'),
                              ('test.Widen', ['a=4', 'b=4', 'c=4', 'd=4'], '// a, b: int8, int16 in i32 words; c, d: uint8, bool in u32 words'),
                              ('test.Packed', ['p=5'], '// p: uint8, packed four per u32 word'),
                              ('test.InOut64', ['acc=3'], '// acc: int32 words')]:
        args = [wgk, 'render', os.path.join(here, pkg)]
        for sh in shapes:
            args += ['--shape', sh]
        p = subprocess.run(args, capture_output=True, text=True)
        expect(f'{pkg} render tensorDtypes', p.returncode == 0 and want in p.stdout.splitlines(), p.stdout + p.stderr)

    # Opaque int64 in WGSL: the loader's verdict per form (its scan, repeated in src/plan/int64_scan.c).
    x = rng.integers(-2**63, 2**63 - 1, 9, dtype=np.int64)
    accepted = {0: x, 5: x, 6: np.where(np.arange(9) % 2 == 1, np.roll(x, -1), x), 8: x}
    refused_line = {1: 10, 2: 13, 3: 15, 4: 17, 7: 23, 9: 29}
    for form in range(10):
        p, got = run('test.OpaqueArith', {'x': x}, ['y'], tmp, f'arith{form}', ['--attr', f'form={form}'])
        if form in accepted:
            expect(f'test.OpaqueArith form {form} runs', p.returncode == 0, p.stderr)
            same(f'test.OpaqueArith form {form} y', got['y'], accepted[form])
        else:
            m = re.search(r'arith\.wgsl\.jinja:(\d+):(\d+): variants\[0\]\.passes\[0\]: pass copy: Opaque int64 storage '
                          r'permits whole-element copies and selection only; value arithmetic, comparisons, and word '
                          r'extraction are unsupported', p.stderr)
            expect(f'test.OpaqueArith form {form} refused', p.returncode != 0 and m is not None, p.stderr)
            expect(f'test.OpaqueArith form {form} line', m is not None and int(m.group(1)) == refused_line[form],
                   p.stderr)
            expect(f'test.OpaqueArith form {form} wrote nothing', got['y'] is None)

    # int64 storage without narrowing: refused at load.
    p, got = run('test.NoNarrowing', {'ids': c}, ['y'], tmp, 'nonarrowing')
    expect('test.NoNarrowing refused', p.returncode != 0 and re.search(
        r'test\.NoNarrowing/build/webgpu/manifest\.json:4:\d+: inputs\.ids\.storage: inputs\.ids: a projected int64 '
        r'input must declare narrowing as checked or saturating', p.stderr) is not None, p.stderr)
    expect('test.NoNarrowing wrote nothing', got['y'] is None)

for f in fails:
    print('FAIL', f)
print(f'spec 2.1 storage: {checks} checks, ' + ('ok' if not fails else f'{len(fails)} failures'))
sys.exit(1 if fails else 0)
