#!/usr/bin/env python3
"""wgk run on spec 2.1 packages (GPU): an output without a shape expression given with --out-shape (fact
14), a scalar arg feeding a uniform field by name with the field's default otherwise (facts 20-21), the
refusal without a destination, and the minimal Relu package of the public loader's tools (written for wgk; a copy
in tests/manifest/spec21/ai.onnx.Relu). Random inputs,
checked against numpy in double precision.
usage: run_test.py WGK SOURCE_DIR"""
import os, subprocess, sys, tempfile
import numpy as np

wgk, src = sys.argv[1], sys.argv[2]
here = os.path.join(src, 'tests/manifest/spec21')
fails = []
rng = np.random.default_rng(7)
with tempfile.TemporaryDirectory() as tmp:
    x = rng.standard_normal((3, 5)).astype(np.float32)
    np.save(os.path.join(tmp, 'x.npy'), x)
    for args, scale in (([], 2.0), (['--arg', 'scale=0.5'], 0.5)):
        out = os.path.join(tmp, f'out{scale}')
        p = subprocess.run([wgk, 'run', os.path.join(here, 'test.Dest'), '--in', f'x={tmp}/x.npy',
                            '--out-shape', 'y=3x5:float32', '--out', out] + args, capture_output=True, text=True)
        y = np.load(os.path.join(out, 'y.npy')) if p.returncode == 0 else None
        if y is None or y.shape != (3, 5) or not np.allclose(y, scale * x.astype(np.float64), rtol=1e-6, atol=1e-7):
            fails.append(f'test.Dest scale {scale}: {p.stderr.strip()} {y}')
    p = subprocess.run([wgk, 'run', os.path.join(here, 'test.Dest'), '--in', f'x={tmp}/x.npy'], capture_output=True, text=True)
    if p.returncode == 0 or 'output has no shape expression' not in p.stderr:
        fails.append(f'test.Dest without destination: {p.returncode} {p.stderr.strip()}')
    # the Relu package the public loader's tools load (a copy kept here, so the check always runs); --strict: its
    # metadata.json digests must match
    relu = os.path.join(here, 'ai.onnx.Relu')
    out = os.path.join(tmp, 'relu')
    p = subprocess.run([wgk, 'run', relu, '--strict', '--in', f'x={tmp}/x.npy', '--out', out], capture_output=True,
                       text=True)
    y = np.load(os.path.join(out, 'y.npy')) if p.returncode == 0 else None
    if y is None or not np.array_equal(y, np.maximum(x, 0)):
        fails.append(f'ai.onnx.Relu: {p.stderr.strip()}')
    else:
        print('ok: ai.onnx.Relu')
for f in fails:
    print('FAIL', f)
print('spec 2.1 run: ' + ('ok' if not fails else f'{len(fails)} failures'))
sys.exit(1 if fails else 0)
