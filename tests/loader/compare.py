#!/usr/bin/python3
"""Compares wgk with the public JavaScript loader (@huggingface/kernels 0.0.1-preview.3, run headless under
node on the same lavapipe) on spec 2.1 packages: for every call, the variant each selects, the WGSL each
renders for every pass (equal up to whitespace), the dispatch grids, whether each refuses the call, and
the outputs (bitwise, and within the package's float tolerance). Run by hand, not in CI: the loader bundle
cannot be committed (docs/public-loader.md says how to rebuild .jsloader/ and what was compared).

usage: tests/loader/compare.py [--wgk build/wgk] [--only NAME] [--keep DIR] [--verbose]
Environment: JSLOADER_DIR (default <repo>/.jsloader), JSLOADER_TOOLS (default tests/loader: env.mjs, serve.mjs, npy.mjs).
Exit 0 when every call agrees (or when the loader is missing: it prints SKIP), 1 on a difference."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JSL = os.environ.get('JSLOADER_DIR', os.path.join(REPO, '.jsloader'))
TOOLS = os.environ.get('JSLOADER_TOOLS', os.path.join(REPO, 'tests', 'loader'))
TOL = {'float32': (1e-5, 1e-6), 'float16': (1e-2, 2e-3)}
SPEC21 = os.path.join(REPO, 'tests', 'manifest', 'spec21')


def shape_arg(shape):
    return 'x'.join(str(d) for d in shape)


# ---------------------------------------------------------------- calls, per package
def rope_calls(rng, limit):
    """The calls of RotaryEmbedding's test.json (shapes, dtypes, attrs, given data), random data otherwise;
    cases with tunables are left out (the loader's call takes no tunables) and so are those over `limit`
    elements."""
    pkg = os.path.join(REPO, 'kernels', 'ai.onnx.RotaryEmbedding')
    cases = json.load(open(os.path.join(pkg, 'build', 'webgpu', 'test.json')))['cases']
    calls = []
    for c in cases:
        if c.get('tunables') or np.prod(c['inputs']['x']['shape']) > limit:
            continue
        ins = {}
        for port, spec in c['inputs'].items():
            dt = np.dtype(spec['dtype'])
            if 'data' in spec:
                ins[port] = np.array(spec['data'], dt).reshape(spec.get('shape', np.shape(spec['data'])))
                continue
            shape, g = spec['shape'], spec.get('generator', {})
            kind = g.get('kind')
            if kind == 'const':
                ins[port] = np.full(shape, g['value'], dt)
            elif kind in ('rotary_cos', 'rotary_sin'):
                ang = rng.uniform(-np.pi, np.pi, shape)
                ins[port] = (np.cos(ang) if kind == 'rotary_cos' else np.sin(ang)).astype(dt)
            elif kind == 'positions':
                rows = c['inputs']['cos']['shape'][0]
                ins[port] = rng.integers(0, rows, shape).astype(dt)
            else:
                lo, hi = g.get('lo', -1.0), g.get('hi', 1.0)
                ins[port] = rng.uniform(lo, hi, shape).astype(dt)
        calls.append({'id': c['id'], 'inputs': ins, 'attrs': c.get('attrs') or {}})
    return pkg, calls


def sparse_calls(rng):
    """Small prompt and decode calls of SparseAttention (the shapes of the package's tools/ort_cases.py)."""
    pkg = os.path.join(REPO, 'kernels', 'com.microsoft.SparseAttention')
    sys.path[:0] = [os.path.join(REPO, 'tests', 'ort'), os.path.join(pkg, 'tools')]
    sys.dont_write_bytecode = True  # no __pycache__ inside the package folder
    from ort_cases import phi3_layout  # noqa: E402
    # (name, B, S, N, KN, H, block, layouts, local, vstride, pasts (None = prompt), cache, packed, rotary, rot, dtype)
    shapes = [
        ('prompt_b16_gqa2', 1, 32, 4, 2, 16, 16, 1, 2, 2, None, 32, False, 'off', 0, np.float32),
        ('prompt_b32_packed_neox', 1, 64, 4, 1, 32, 32, 2, 1, 2, None, 64, True, 'neox', 32, np.float32),
        ('prompt_b64_interleaved_partial', 1, 80, 2, 1, 64, 64, 1, 1, 2, None, 128, False, 'interleaved', 32, np.float32),
        ('prompt_layouts4_gqa4', 2, 48, 8, 2, 16, 16, 4, 1, 2, None, 48, False, 'off', 0, np.float32),
        ('prompt_b16_f16', 1, 32, 4, 2, 16, 16, 2, 1, 2, None, 32, False, 'neox', 16, np.float16),
        ('decode_s1_b64_gqa4', 1, 1, 8, 2, 64, 64, 4, 1, 2, [150], 256, False, 'neox', 64, np.float32),
        ('decode_s1_batch2', 2, 1, 4, 2, 16, 16, 1, 2, 2, [7, 40], 64, False, 'off', 0, np.float32),
        ('decode_s3_batch2_rotary_packed', 2, 3, 4, 2, 32, 32, 2, 1, 2, [20, 3], 64, True, 'interleaved', 32, np.float32),
        ('decode_b128_head128', 1, 1, 2, 1, 128, 128, 1, 1, 2, [300], 384, False, 'off', 0, np.float32),
        ('decode_long_past_batch2', 2, 1, 8, 2, 64, 64, 4, 2, 4, [1200, 700], 1280, False, 'off', 0, np.float32),
        ('decode_s1_batch2_f16', 2, 1, 8, 2, 64, 64, 4, 1, 2, [100, 9], 128, True, 'neox', 64, np.float16),
    ]
    calls = []
    for name, B, S, N, KN, H, block, layouts, local, vstride, pasts, cache, packed, rotary, rot, dt in shapes:
        kts = [S] * B if pasts is None else [p + S for p in pasts]
        width = (N + 2 * KN) * H if packed else N * H
        ins = {'queryT': rng.uniform(-1, 1, [B, S, width]).astype(dt)}
        if not packed:
            ins['keyT'] = rng.uniform(-1, 1, [B, S, KN * H]).astype(dt)
            ins['valueT'] = rng.uniform(-1, 1, [B, S, KN * H]).astype(dt)
        ins['pastKeyT'] = rng.uniform(-1, 1, [B, KN, cache, H]).astype(dt)
        ins['pastValueT'] = rng.uniform(-1, 1, [B, KN, cache, H]).astype(dt)
        ins['blockRowIndicesT'], ins['blockColIndicesT'] = phi3_layout(layouts, -(-cache // block), local, vstride)
        ins['totalSequenceLengthT'] = np.array([S if pasts is None else max(kts)], np.int32)
        ins['keyTotalSequenceLengthsT'] = np.array(kts, np.int32)
        attrs = {'num_heads': N, 'kv_num_heads': KN, 'sparse_block_size': block}
        if rotary != 'off':
            attrs.update(do_rotary=1, rotary_interleaved=int(rotary == 'interleaved'))
            ang = rng.uniform(-np.pi, np.pi, [cache, rot // 2])
            ins['cosCacheT'], ins['sinCacheT'] = np.cos(ang).astype(dt), np.sin(ang).astype(dt)
        if rng.integers(0, 2):
            attrs['scale'] = float(np.float32(rng.uniform(0.05, 0.5)))
        calls.append({'id': name, 'inputs': ins, 'attrs': attrs})
    return pkg, calls


def spec21run_calls(rng):
    """The third-party style packages of tests/spec21run (run_test.py checks them against numpy): good calls of
    each and a few bad ones (both sides must refuse)."""
    run = os.path.join(REPO, 'tests', 'spec21run')
    f32 = lambda *s: (rng.standard_normal(s) + 3).astype(np.float32)  # noqa: E731
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    out = [(os.path.join(run, 'ai.onnx.Cast'), [
        {'id': f'cast_to{to}', 'inputs': {'input': f32(3, 5) * 10}, 'attrs': {'to': to}} for to in (1, 6, 10, 12)] + [
        {'id': 'cast_without_to', 'inputs': {'input': f32(3)}}])]
    out.append((os.path.join(run, 'ai.onnx.LayerNormalization'), [
        {'id': 'ln_plain', 'inputs': {'X': f32(4, 16), 'Scale': f32(16), 'B': f32(16)}},
        {'id': 'ln_stats', 'inputs': {'X': f32(4, 16), 'Scale': f32(16), 'B': f32(16)},
         'outputs': {'Mean': {'shape': [4, 1], 'dtype': 'float32'}, 'InvStdDev': {'shape': [4, 1], 'dtype': 'float32'}}}]))
    out.append((os.path.join(run, 'ai.onnx.Split'), [
        {'id': 'split2', 'inputs': {'input': f32(6, 5)}, 'attrs': {'num_outputs': 2}},
        {'id': 'split3', 'inputs': {'input': f32(6, 5)}, 'attrs': {'num_outputs': 3},
         'outputs': {'output2': {'shape': [2, 5], 'dtype': 'float32'}}}]))
    out.append((os.path.join(run, 'ai.onnx.Expand'), [
        {'id': 'expand', 'inputs': {'input': f32(3, 1), 'shape': i64(2, 3, 4)}, 'outputs': {'output': {'shape': [2, 3, 4], 'dtype': 'float32'}}},
        {'id': 'expand_shape_past_int32', 'inputs': {'input': f32(3, 1), 'shape': i64(3, -2**33)},
         'outputs': {'output': {'shape': [3, 1], 'dtype': 'float32'}}}]))
    out.append((os.path.join(run, 'ai.onnx.Reshape'), [
        {'id': 'reshape', 'inputs': {'data': f32(2, 3, 4), 'shape': i64(4, -1)}, 'outputs': {'reshaped': {'shape': [4, 6], 'dtype': 'float32'}}},
        {'id': 'reshape_shape_past_int32', 'inputs': {'data': f32(2, 3, 4), 'shape': i64(4, 2**40)},
         'outputs': {'reshaped': {'shape': [4, 6], 'dtype': 'float32'}}}]))
    out.append((os.path.join(run, 'ai.onnx.MatMul'), [
        {'id': f'matmul_{m}x{k}x{n}', 'inputs': {'A': f32(m, k), 'B': f32(k, n)}} for m, k, n in ((16, 32, 8), (3, 5, 4))]))
    out.append((os.path.join(run, 'ai.onnx.ReduceMean'), [
        {'id': 'reducemean_axes', 'inputs': {'data': f32(3, 5, 7)}, 'attrs': {'axes': [0, -1], 'keepdims': 0}},
        {'id': 'reducemean_all', 'inputs': {'data': f32(4, 6)}},
        {'id': 'reducemean_f16', 'inputs': {'data': f32(2, 3, 4).astype(np.float16)}, 'attrs': {'axes': [1]}},
        {'id': 'reducemean_axis_twice', 'inputs': {'data': f32(2, 3)}, 'attrs': {'axes': [1, -1]}}]))
    out.append((os.path.join(run, 'ai.onnx.ReduceMax'), [
        {'id': 'reducemax', 'inputs': {'data': f32(5, 100)}},
        {'id': 'reducemax_keepdims0', 'inputs': {'data': f32(3, 4, 64)}, 'attrs': {'keepdims': 0}}]))
    out.append((os.path.join(run, 'demo.Polynomial'), [
        {'id': 'poly', 'inputs': {'x': f32(5, 33), 'coef': f32(4)}},
        {'id': 'poly_short_coef', 'inputs': {'x': f32(5, 33), 'coef': f32(3)}}]))
    return out


def loader_copy(pkg, work):
    """A copy of a spec 2.1 test package the loader accepts: an output port without `dtype` gets
    "dtype": "float32" (the loader refuses a binding that defaults its elementType from a port without a
    dtype, while wgk reads such an output as float32 first; docs/public-loader.md), digest rewritten."""
    import base64
    import hashlib
    dst = os.path.join(work, 'pkg-' + os.path.basename(pkg))
    shutil.copytree(pkg, dst, dirs_exist_ok=True)
    mf = os.path.join(dst, 'build', 'webgpu', 'manifest.json')
    m = json.load(open(mf))
    if all('dtype' in p for p in m['outputs'].values()):
        return pkg
    for p in m['outputs'].values():
        p.setdefault('dtype', 'float32')
    text = json.dumps(m, indent=1) + '\n'
    open(mf, 'w').write(text)
    md = os.path.join(dst, 'build', 'webgpu', 'metadata.json')
    meta = json.load(open(md))
    meta['digest']['files']['manifest.json'] = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    json.dump(meta, open(md, 'w'), indent=1)
    return dst


def spec21_calls(rng):
    """The spec 2.1 test packages of tests/manifest/spec21 (test.EveryKey's calls are golden.sh's)."""
    out = []
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    out.append((os.path.join(SPEC21, 'test.Dest'), [
        {'id': 'dest_default_scale', 'inputs': {'x': f32(3, 5)}, 'outputs': {'y': {'shape': [3, 5], 'dtype': 'float32'}}},
        {'id': 'dest_scale_arg', 'inputs': {'x': f32(3, 5)}, 'args': {'scale': 0.5},
         'outputs': {'y': {'shape': [3, 5], 'dtype': 'float32'}}},
        {'id': 'dest_missing', 'inputs': {'x': f32(3, 5)}},
    ]))
    out.append((os.path.join(SPEC21, 'test.Include'), [{'id': 'include_unlisted', 'inputs': {'x': f32(4)}}]))
    out.append((os.path.join(SPEC21, 'test.Selection'), [
        {'id': 'selection_2x2', 'inputs': {'x': f32(2, 2)}},
        {'id': 'selection_2x3_derive_throws', 'inputs': {'x': f32(2, 3)}},
    ]))
    out.append((os.path.join(SPEC21, 'test.Enables'), [{'id': 'enables', 'inputs': {'x': f32(100)}}]))
    out.append((os.path.join(SPEC21, 'test.IncludeForms'), [{'id': 'include_forms', 'inputs': {'x': f32(3)}}]))
    ek = []
    for i, (shape, dt, attrs, args) in enumerate([((1, 5), np.float32, {}, {}), ((2, 3), np.float32, {}, {}),
                                                  ((2, 2), np.float32, {}, {}), ((2, 3), np.float16, {}, {}),
                                                  ((2, 3), np.float32, {'axis': 3}, {}),
                                                  ((2, 3), np.float32, {}, {'mode': 'b', 'alpha': 0.25})]):
        ek.append({'id': f'everykey{i}', 'inputs': {'x': rng.standard_normal(shape).astype(dt),
                                                    'state': rng.standard_normal(4).astype(dt)},
                   'attrs': attrs, 'args': args})
    out.append((os.path.join(SPEC21, 'test.EveryKey'), ek))
    return out


# ---------------------------------------------------------------- the two sides
def type_vars(manifest, inputs):
    """--dtype VAR=dtype for the type variables the inputs bind (wgk explain/render take dtypes by variable)."""
    tc, res = manifest.get('typeConstraints') or {}, {}
    for port, a in inputs.items():
        var = (manifest['inputs'].get(port) or {}).get('dtype')
        if var in tc and str(a.dtype) in tc[var]:
            res[var] = str(a.dtype)
    return res


def wgk_args(manifest, call, run):
    a = []
    for port, arr in call['inputs'].items():
        a += ['--in', f'{port}={arr_path(call, port)}'] if run else ['--shape', f'{port}={shape_arg(arr.shape)}']
    if not run:
        for var, dt in type_vars(manifest, call['inputs']).items():
            a += ['--dtype', f'{var}={dt}']
    for k, v in (call.get('attrs') or {}).items():
        a += ['--attr', f'{k}={json.dumps(v)}']
    for k, v in (call.get('args') or {}).items():
        a += ['--arg', f'{k}={v if isinstance(v, str) else json.dumps(v)}']
    for port, o in (call.get('outputs') or {}).items():
        a += ['--out-shape', f"{port}={shape_arg(o['shape'])}:{o['dtype']}"] if run else \
             ['--shape', f"{port}={shape_arg(o['shape'])}"]
    return a


def arr_path(call, port):
    return os.path.join(call['dir'], 'in', f'{port}.npy')


def run_wgk(wgk, pkg, manifest, call, device):
    """explain and render for the loader's device (its description, --device), run on wgk's own device."""
    r = {}
    dev = ['--device', device]
    p = subprocess.run([wgk, 'explain', pkg, '--json'] + dev + wgk_args(manifest, call, False),
                       capture_output=True, text=True)
    if p.returncode != 0:
        r['explain_error'] = (p.stderr or p.stdout).strip()
    else:
        ex = json.loads(p.stdout)
        r['variant'] = ex['variant']
        r['passes'] = [{'id': ps['id'], 'workgroups': ps['workgroups']} for ps in ex['passes']]
        for ps in r['passes']:
            q = subprocess.run([wgk, 'render', pkg, '--pass', ps['id']] + dev + wgk_args(manifest, call, False),
                               capture_output=True, text=True)
            ps['source'] = q.stdout if q.returncode == 0 else None
            if q.returncode != 0:
                ps['render_error'] = q.stderr.strip()
    out = os.path.join(call['dir'], 'wgk')
    p = subprocess.run([wgk, 'run', pkg, '--out', out] + wgk_args(manifest, call, True), capture_output=True, text=True)
    r['ok'] = p.returncode == 0
    if not r['ok']:
        r['error'] = (p.stderr or p.stdout).strip()
    r['out'] = out
    return r


def run_loader(pkg, calls, work, verbose, reuse=False):
    spec = [{'id': c['id'], 'inputs': {port: arr_path(c, port) for port in c['inputs']},
             'attrs': c.get('attrs') or {}, **({'args': c['args']} if c.get('args') else {}),
             **({'outputs': c['outputs']} if c.get('outputs') else {})} for c in calls]
    cf = os.path.join(work, 'calls.json')
    json.dump(spec, open(cf, 'w'))
    out = os.path.join(work, 'loader')
    if reuse and os.path.exists(os.path.join(out, 'report.json')):
        return {r['id']: r for r in json.load(open(os.path.join(out, 'report.json')))}, out, os.path.join(out, 'device.json')
    env = dict(os.environ, JSLOADER_DIR=JSL, XDG_RUNTIME_DIR=os.environ.get('XDG_RUNTIME_DIR', '/tmp'))
    p = subprocess.run(['node', os.path.join(REPO, 'tests', 'loader', 'loader_calls.mjs'), '--tools', TOOLS,
                        '--pkg', pkg, '--calls', cf, '--out', out], capture_output=True, text=True, env=env, timeout=1800)
    if p.returncode != 0:
        raise SystemExit(f'loader_calls.mjs failed ({p.returncode}): {p.stderr[-2000:]}')
    if verbose:
        sys.stderr.write(p.stderr)
    return {r['id']: r for r in json.load(open(os.path.join(out, 'report.json')))}, out, os.path.join(out, 'device.json')


def tokens(src):
    return None if src is None else src.split()


def compare_outputs(lout, wout, ports):
    notes, ok, exact = [], True, True
    for port in ports:
        lf, wf = os.path.join(lout, f'{port}.npy'), os.path.join(wout, f'{port}.npy')
        if not (os.path.exists(lf) and os.path.exists(wf)):
            notes.append(f'{port}: missing output (loader {os.path.exists(lf)}, wgk {os.path.exists(wf)})')
            ok = False
            continue
        a, b = np.load(lf), np.load(wf)
        if a.shape != b.shape or a.dtype != b.dtype:
            notes.append(f'{port}: loader {a.dtype}{list(a.shape)} vs wgk {b.dtype}{list(b.shape)}')
            ok = False
            continue
        if np.array_equal(a, b, equal_nan=a.dtype.kind == 'f'):
            continue
        exact = False
        rtol, atol = TOL.get(str(a.dtype), (0, 0))
        x, y = a.astype(np.float64), b.astype(np.float64)
        d = float(np.max(np.abs(x - y))) if a.size else 0.0
        if not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
            ok = False
            notes.append(f'{port}: max |diff| {d:.3g} beyond rtol {rtol} atol {atol}')
        else:
            notes.append(f'{port}: within tolerance (max |diff| {d:.3g}), not bitwise')
    return ok, exact, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--wgk', default=os.path.join(REPO, 'build', 'wgk'))
    ap.add_argument('--only', help='run only packages whose name contains this')
    ap.add_argument('--keep', help='keep inputs, outputs and WGSL here')
    ap.add_argument('--limit', type=int, default=1 << 20, help='largest RotaryEmbedding x (elements)')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--reuse', action='store_true', help="with --keep: reuse the loader's results of an earlier run "
                    '(same inputs: the seed is fixed), rerunning only wgk')
    o = ap.parse_args()
    missing = [p for p in (os.path.join(JSL, 'kernels', 'index.js'), os.path.join(JSL, 'node_modules', 'webgpu'),
                           os.path.join(TOOLS, 'env.mjs')) if not os.path.exists(p)]
    if missing or not shutil.which('node'):
        print(f"SKIP: the public loader is not set up here (missing: {', '.join(missing) or 'node'}); "
              'rebuild .jsloader/ as docs/public-loader.md says')
        return 0
    if not os.access(o.wgk, os.X_OK):
        print(f'compare.py: no wgk binary at {o.wgk} (build first, or pass --wgk)')
        return 2
    rng = np.random.default_rng(2026)
    suites = [rope_calls(rng, o.limit), sparse_calls(rng)] + spec21run_calls(rng) + spec21_calls(rng)
    work = o.keep or tempfile.mkdtemp(prefix='wgk-loadercmp-')
    totals = {'calls': 0, 'agree': 0, 'variant': 0, 'wgsl_passes': 0, 'wgsl_same': 0, 'wgsl_exact': 0, 'outputs_exact': 0,
              'outputs_tol': 0, 'both_refuse': 0}
    diffs = []
    try:
        for pkg, calls in suites:
            name = os.path.basename(pkg)
            if o.only and o.only not in name:
                continue
            pw = os.path.join(work, name)
            if pkg.startswith(SPEC21):
                pkg = loader_copy(pkg, pw)
            manifest = json.load(open(os.path.join(pkg, 'build', 'webgpu', 'manifest.json')))
            for c in calls:
                c['dir'] = os.path.join(pw, c['id'])
                os.makedirs(os.path.join(c['dir'], 'in'), exist_ok=True)
                for port, arr in c['inputs'].items():
                    np.save(arr_path(c, port), arr)
            lrep, lout, device = run_loader(pkg, calls, pw, o.verbose, o.reuse and o.keep)
            for c in calls:
                totals['calls'] += 1
                L, W = lrep[c['id']], run_wgk(o.wgk, pkg, manifest, c, device)
                notes, good = [], True
                if not L['ok'] and not W['ok']:
                    totals['both_refuse'] += 1
                    totals['agree'] += 1
                    print(f"{name} {c['id']}: both refuse\n  loader: {L['error'].splitlines()[0]}\n"
                          f"  wgk:    {W['error'].splitlines()[0]}")
                    continue
                if L['ok'] != W['ok']:
                    good = False
                    notes.append(f"loader {'runs' if L['ok'] else 'refuses: ' + L['error'].splitlines()[0]}; "
                                 f"wgk {'runs' if W['ok'] else 'refuses: ' + W['error'].splitlines()[0]}")
                if L.get('variant') != W.get('variant'):
                    good = False
                    notes.append(f"variant: loader {L.get('variant')} vs wgk {W.get('variant')}")
                else:
                    totals['variant'] += 1
                lp = {p['id']: p for p in L.get('passes') or []}
                for wp in W.get('passes') or []:
                    totals['wgsl_passes'] += 1
                    lsrc = lp.get(wp['id'], {}).get('source')
                    if tokens(lsrc) == tokens(wp.get('source')):
                        totals['wgsl_same'] += 1
                        totals['wgsl_exact'] += lsrc == wp.get('source')
                    else:
                        good = False
                        notes.append(f"pass {wp['id']}: WGSL differs (loader {'-' if lsrc is None else len(lsrc)} "
                                     f"chars, wgk {len(wp.get('source') or '')})")
                        for side, src in (('loader', lsrc), ('wgk', wp.get('source'))):
                            if src is not None:
                                open(os.path.join(c['dir'], f"{wp['id']}.{side}.wgsl"), 'w').write(src)
                if W.get('passes') is not None and L.get('dispatches') is not None:
                    wg = [p['workgroups'] for p in W['passes'] if p['workgroups'] != [0, 0, 0] and 0 not in p['workgroups']]
                    if wg != L['dispatches']:
                        good = False
                        notes.append(f"dispatches: loader {L['dispatches']} vs wgk {wg}")
                if L['ok'] and W['ok']:
                    ports = list(L.get('outputs') or {})
                    ok, exact, on = compare_outputs(os.path.join(lout, c['id']), W['out'], ports)
                    notes += on
                    good &= ok
                    totals['outputs_exact' if exact else 'outputs_tol'] += ok
                totals['agree'] += good
                print(f"{name} {c['id']}: {'agree' if good else 'DIFFER'} (variant {L.get('variant')})"
                      + ''.join(f'\n  {n}' for n in notes))
                if not good:
                    diffs.append(f"{name} {c['id']}")
    finally:
        if not o.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{totals['calls']} calls: {totals['agree']} agree ({totals['both_refuse']} refused by both), "
          f"same variant {totals['variant']}, same WGSL {totals['wgsl_same']}/{totals['wgsl_passes']} passes "
          f"({totals['wgsl_exact']} byte for byte), "
          f"outputs bitwise equal {totals['outputs_exact']}, within tolerance only {totals['outputs_tol']}")
    if diffs:
        print('differ: ' + ', '.join(diffs))
    return 1 if diffs else 0


if __name__ == '__main__':
    sys.exit(main())
