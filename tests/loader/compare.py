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
    """Every package of tests/spec21run (run_test.py checks them against numpy in wgk): its good calls (shapes,
    dtypes, attributes, args, destinations) and its bad ones (both sides must refuse). Calls with a tunable are
    made without it (a loader call takes no tunables); run_test.py's repeated calls are made once."""
    run = os.path.join(REPO, 'tests', 'spec21run')
    f32 = lambda *s: (rng.standard_normal(s) + 3).astype(np.float32)  # noqa: E731
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    dest = lambda shape, dt=None: {'shape': list(shape), **({'dtype': dt} if dt else {})}  # noqa: E731
    P = lambda name: os.path.join(run, name)  # noqa: E731
    out = []
    # demo.Transpose: the family's cells and the generic fallback, a 0-d input, destinations
    tr = []
    for i, (shape, perm, dt) in enumerate((((2, 3), [1, 0], np.float32), ((5, 7), [1, 0], np.int32),
                                           ((2, 3, 4), [2, 0, 1], np.float16), ((3, 1, 4), [1, 2, 0], np.uint32),
                                           ((2, 3, 4, 5), [3, 1, 0, 2], np.float32), ((2, 3, 4, 5), [0, 3, 2, 1], np.float16),
                                           ((2, 1, 3, 2, 2), [4, 0, 3, 1, 2], np.float32), ((70000,), [0], np.float32),
                                           ((), [], np.float32))):
        x = rng.integers(1, 1000, size=shape).astype(dt) if np.issubdtype(dt, np.integer) else f32(*shape).astype(dt)
        tr.append({'id': f'transpose{i}', 'inputs': {'data': x}, 'attrs': {'perm': perm}})
    x23 = f32(2, 3)
    tr += [{'id': 'transpose_dest', 'inputs': {'data': x23}, 'attrs': {'perm': [1, 0]}, 'outputs': {'transposed': dest((3, 2), 'float32')}},
           {'id': 'transpose_dest_other_shape', 'inputs': {'data': x23}, 'attrs': {'perm': [1, 0]},
            'outputs': {'transposed': dest((2, 3))}},
           {'id': 'transpose_no_data', 'inputs': {}, 'attrs': {'perm': [1, 0]}},
           {'id': 'transpose_no_perm', 'inputs': {'data': x23}},
           {'id': 'transpose_perm_out_of_range', 'inputs': {'data': x23}, 'attrs': {'perm': [0, 2]}},
           {'id': 'transpose_perm_rank', 'inputs': {'data': x23}, 'attrs': {'perm': [0]}},
           {'id': 'transpose_unknown_attr', 'inputs': {'data': x23}, 'attrs': {'perm': [1, 0], 'axis': 1}},
           {'id': 'transpose_int64', 'inputs': {'data': np.arange(6).reshape(2, 3)}, 'attrs': {'perm': [1, 0]}},
           {'id': 'transpose_rank7', 'inputs': {'data': np.ones((1,) * 7, np.float32)}, 'attrs': {'perm': list(range(7))}},
           {'id': 'transpose_unknown_input', 'inputs': {'x': x23}, 'attrs': {'perm': [1, 0]}}]
    out.append((P('demo.Transpose'), tr))
    # demo.ReduceSumSquare: a repeat group of log2(cols) folds, keepdims, float16, 0-d refused
    rs = [{'id': f'rss{i}', 'inputs': {'data': (rng.standard_normal(shape) + 0.5).astype(dt)}, 'attrs': {'keepdims': keep}}
          for i, (shape, keep, dt) in enumerate((((3, 5, 7), 1, np.float32), ((4, 1), 0, np.float32), ((2, 16), 1, np.float16),
                                                 ((100,), 0, np.float32), ((6, 33), 0, np.float32), ((66000, 64), 0, np.float32),
                                                 ((), 1, np.float32)))]
    rs += [{'id': 'rss_keepdims2', 'inputs': {'data': x23}, 'attrs': {'keepdims': 2}},
           {'id': 'rss_int32', 'inputs': {'data': np.ones((2, 2), np.int32)}}]
    out.append((P('demo.ReduceSumSquare'), rs))
    # demo.Histogram: zeroInit atomics over chunks, uniform defaults, required uniform field from an arg
    vals = (rng.integers(-40, 40, size=(7, 100)) * 0.25 + 0.125).astype(np.float32)
    out.append((P('demo.Histogram'), [
        {'id': 'hist_lo_hi', 'inputs': {'values': vals}, 'args': {'lo': -4, 'hi': 4}},
        {'id': 'hist_bins8', 'inputs': {'values': vals}, 'args': {'hi': 4}, 'attrs': {'bins': 8}},
        {'id': 'hist_bins64', 'inputs': {'values': vals}, 'args': {'lo': -10, 'hi': 10}, 'attrs': {'bins': 64}},
        {'id': 'hist_no_hi', 'inputs': {'values': vals}},
        {'id': 'hist_bins10', 'inputs': {'values': vals}, 'args': {'hi': 4}, 'attrs': {'bins': 10}},
        {'id': 'hist_unknown_arg', 'inputs': {'values': vals}, 'args': {'hi': 4, 'width': 2}},
        {'id': 'hist_f16', 'inputs': {'values': vals.astype(np.float16)}, 'args': {'hi': 4}}]))
    # demo.EmaUpdate: an in/out port, a 0-d input, an explicit destination of any shape, optional scalar args
    st, ob, dc = f32(3, 4, 5), f32(3, 4, 5), np.array(0.9, np.float32)
    ema = {'state': st, 'x': ob, 'decay': dc}
    out.append((P('demo.EmaUpdate'), [
        {'id': 'ema_12x5', 'inputs': ema, 'args': {'scale': 2, 'step': 3}, 'outputs': {'delta': dest((12, 5))}},
        {'id': 'ema_60', 'inputs': ema, 'outputs': {'delta': dest((60,))}},
        {'id': 'ema_3x4x5', 'inputs': ema, 'args': {'scale': 0.5}, 'outputs': {'delta': dest((3, 4, 5), 'float32')}},
        {'id': 'ema_no_dest', 'inputs': ema},
        {'id': 'ema_dest_size', 'inputs': ema, 'outputs': {'delta': dest((7,))}},
        {'id': 'ema_dest_f16', 'inputs': ema, 'outputs': {'delta': dest((60,), 'float16')}},
        {'id': 'ema_decay_rank1', 'inputs': dict(ema, decay=np.array([0.9], np.float32)), 'outputs': {'delta': dest((60,))}},
        {'id': 'ema_no_x', 'inputs': {'state': st, 'decay': dc}, 'outputs': {'delta': dest((60,))}},
        {'id': 'ema_x_shape', 'inputs': dict(ema, x=ob[:2]), 'outputs': {'delta': dest((60,))}},
        {'id': 'ema_negative_step', 'inputs': ema, 'args': {'step': -1}, 'outputs': {'delta': dest((60,))}}]))
    # demo.BatchMatMul: priority, requires, demoteWhen, supersededBy
    bm = []
    for b, m, k, n in ((2, 16, 32, 16), (1, 16, 33, 16), (2, 16, 6, 16), (2, 8, 35, 8), (3, 4, 8, 4), (1, 5, 40, 3)):
        for dt in (np.float32, np.float16):
            bm.append({'id': f'bmm_{b}x{m}x{k}x{n}_{np.dtype(dt).name}',
                       'inputs': {'a': rng.uniform(-1, 1, (b, m, k)).astype(dt), 'bmat': rng.uniform(-1, 1, (b, k, n)).astype(dt)}})
    a248 = f32(2, 4, 8)
    bm += [{'id': 'bmm_inner', 'inputs': {'a': a248, 'bmat': np.ones((2, 7, 3), np.float32)}},
           {'id': 'bmm_rank2', 'inputs': {'a': np.ones((4, 8), np.float32), 'bmat': np.ones((8, 3), np.float32)}},
           {'id': 'bmm_mixed', 'inputs': {'a': a248, 'bmat': np.ones((2, 8, 3), np.float16)}},
           {'id': 'bmm_no_bmat', 'inputs': {'a': a248}}]
    out.append((P('demo.BatchMatMul'), bm))
    # ai.onnx.Cast: the output's type variable bound by the required attribute `to`
    xc = (rng.standard_normal((3, 5, 7)) * 40).astype(np.float32)
    out.append((P('ai.onnx.Cast'), [
        {'id': f'cast{i}_to{to}', 'inputs': {'input': data}, 'attrs': {'to': to}}
        for i, (data, to) in enumerate(((xc, 6), (xc, 1), (xc, 10), ((rng.random(40) * 900 + 1).astype(np.float32), 12),
                                        (np.arange(1, 25, dtype=np.int32).reshape(4, 6) - 30, 1), (xc.astype(np.float16), 1),
                                        (np.arange(1, 9, dtype=np.uint32), 10)))] + [
        {'id': 'cast_without_to', 'inputs': {'input': xc}},
        {'id': 'cast_to7', 'inputs': {'input': xc}, 'attrs': {'to': 7}},
        {'id': 'cast_int64_input', 'inputs': {'input': np.arange(4)}, 'attrs': {'to': 1}}]))
    # ai.onnx.LayerNormalization: optional outputs made and returned only when asked for
    ln = {'X': f32(4, 3, 16), 'Scale': f32(16), 'B': f32(16)}
    st1 = {'Mean': dest((1,)), 'InvStdDev': dest((1,))}
    out.append((P('ai.onnx.LayerNormalization'), [
        {'id': 'ln_plain', 'inputs': ln},
        {'id': 'ln_stats', 'inputs': ln, 'outputs': st1},
        {'id': 'ln_stats_given_shapes', 'inputs': ln, 'outputs': {'Mean': dest((4, 3, 1), 'float32'),
                                                                  'InvStdDev': dest((4, 3, 1), 'float32')}},
        {'id': 'ln_only_mean', 'inputs': ln, 'outputs': {'Mean': dest((1,))}},
        {'id': 'ln_mean_f16', 'inputs': ln, 'outputs': {'Mean': dest((1,), 'float16'), 'InvStdDev': dest((1,))}},
        {'id': 'ln_axis0', 'inputs': ln, 'attrs': {'axis': 0}}]))
    # ai.onnx.Split: an optional output whose shape expression holds only when it is asked for
    xs = f32(6, 5)
    out.append((P('ai.onnx.Split'), [
        {'id': 'split2', 'inputs': {'input': xs}, 'attrs': {'num_outputs': 2}},
        {'id': 'split3', 'inputs': {'input': xs}, 'attrs': {'num_outputs': 3}, 'outputs': {'output2': dest((1,))}},
        {'id': 'split2_output2_asked', 'inputs': {'input': xs}, 'attrs': {'num_outputs': 2}, 'outputs': {'output2': dest((1,))}},
        {'id': 'split3_without_output2', 'inputs': {'input': xs}, 'attrs': {'num_outputs': 3}},
        {'id': 'split_5rows_in2', 'inputs': {'input': xs[:5]}, 'attrs': {'num_outputs': 2}}]))
    # ai.onnx.Expand: a shape tensor read as data by the caller; the destination's dtype from T
    ex = [{'id': f'expand{i}', 'inputs': {'input': xin, 'shape': np.array(d, np.int64)}, 'outputs': {'output': dest(d)}}
          for i, (xin, d) in enumerate(((np.arange(1, 4, dtype=np.int32).reshape(3, 1), (2, 3, 4)), (f32(1, 4), (3, 4)),
                                        (f32(5).astype(np.float16), (2, 1, 5))))]
    ex += [{'id': 'expand_no_dest', 'inputs': {'input': np.ones((3, 1), np.float32), 'shape': i64(3, 2)}},
           {'id': 'expand_not_broadcast', 'inputs': {'input': np.ones((3, 1), np.float32), 'shape': i64(2, 2)},
            'outputs': {'output': dest((2, 2))}},
           {'id': 'expand_shape_past_int32', 'inputs': {'input': f32(3, 1), 'shape': i64(3, -2**33)},
            'outputs': {'output': dest((3, 1), 'float32')}}]
    out.append((P('ai.onnx.Expand'), ex))
    # ai.onnx.MatMul: a tiled matmul; a subgroup-matrix variant the device's empty config list rejects
    out.append((P('ai.onnx.MatMul'), [
        {'id': f'matmul_{m}x{k}x{n}', 'inputs': {'A': (rng.random((m, k)) + 0.5).astype(np.float32),
                                                 'B': (rng.random((k, n)) + 0.5).astype(np.float32)}}
        for m, k, n in ((16, 32, 8), (19, 13, 11), (3, 5, 4), (1, 70, 9))] + [
        {'id': 'matmul_inner', 'inputs': {'A': np.ones((4, 3), np.float32), 'B': np.ones((4, 3), np.float32)}}]))
    # demo.Polynomial: a fixed-length binding
    xp = rng.uniform(-2, 2, (5, 33)).astype(np.float32)
    out.append((P('demo.Polynomial'), [
        {'id': f'poly_d{d}_c{c}', 'inputs': {'x': xp, 'coef': rng.uniform(0.5, 1.5, c).astype(np.float32)}, 'attrs': {'degree': d}}
        for d, c in ((3, 4), (1, 2), (5, 6), (2, 7))] + [
        {'id': 'poly_short_coef', 'inputs': {'x': xp, 'coef': np.ones(3, np.float32)}},
        {'id': 'poly_coef_rank2', 'inputs': {'x': xp, 'coef': np.ones((2, 2), np.float32)}}]))
    # ai.onnx.ReduceMean: axes from an attribute (absent: all), keepdims, $comment at every depth
    rm = []
    for i, (shape, axes, keep, dt) in enumerate((((3, 5, 7), [1], 1, np.float32), ((3, 5, 7), [0, -1], 0, np.float32),
                                                 ((4, 6), None, 1, np.float32), ((4, 6), None, 0, np.float32),
                                                 ((2, 3, 4, 5), [3, 1], 1, np.float16), ((70,), [0], 0, np.float32),
                                                 ((2, 1, 3, 9), [-4, 2], 0, np.float16), ((130, 600), [1], 1, np.float32))):
        rm.append({'id': f'reducemean{i}', 'inputs': {'data': f32(*shape).astype(dt)},
                   'attrs': {'keepdims': keep, **({'axes': axes} if axes is not None else {})}})
    rmx = np.ones((2, 3), np.float32)
    rm += [{'id': 'reducemean_axis_range', 'inputs': {'data': rmx}, 'attrs': {'axes': [2]}},
           {'id': 'reducemean_axis_twice', 'inputs': {'data': rmx}, 'attrs': {'axes': [1, -1]}},
           {'id': 'reducemean_keepdims2', 'inputs': {'data': rmx}, 'attrs': {'keepdims': 2}},
           {'id': 'reducemean_rank5', 'inputs': {'data': np.ones((1, 2, 1, 2, 1), np.float32)}},
           {'id': 'reducemean_int32', 'inputs': {'data': np.ones((2, 2), np.int32)}},
           {'id': 'reducemean_empty', 'inputs': {'data': np.ones((2, 0), np.float32)}}]
    out.append((P('ai.onnx.ReduceMean'), rm))
    # ai.onnx.Reshape: the target shape is data, resolved by the caller into the destination
    rsh = []
    for i, (shape, target, az, dt, d) in enumerate((((2, 3, 4), [4, -1], 0, np.float32, (4, 6)), ((2, 3, 4), [0, 12], 0, np.float32, (2, 12)),
                                                    ((2, 3, 4), [-1], 0, np.int32, (24,)), ((3, 5), [0, -1], 0, np.float16, (3, 5)),
                                                    ((6,), [1, 2, 1, 3], 1, np.uint32, (1, 2, 1, 3)),
                                                    ((300, 700), [700, 300], 0, np.float32, (700, 300)))):
        x = rng.integers(1, 10**6, size=shape).astype(dt) if np.issubdtype(dt, np.integer) else f32(*shape).astype(dt)
        rsh.append({'id': f'reshape{i}', 'inputs': {'data': x, 'shape': np.array(target, np.int64)}, 'attrs': {'allowzero': az},
                    'outputs': {'reshaped': dest(d)}})
    rsx, rsv = np.ones((2, 3, 4), np.float32), i64(4, -1)
    rsh += [{'id': 'reshape_no_dest', 'inputs': {'data': rsx, 'shape': rsv}},
            {'id': 'reshape_dest_size', 'inputs': {'data': rsx, 'shape': rsv}, 'outputs': {'reshaped': dest((4, 5))}},
            {'id': 'reshape_dest_rank', 'inputs': {'data': rsx, 'shape': rsv}, 'outputs': {'reshaped': dest((24,))}},
            {'id': 'reshape_shape_rank2', 'inputs': {'data': rsx, 'shape': np.array([[4, 6]], np.int64)},
             'outputs': {'reshaped': dest((4, 6))}},
            {'id': 'reshape_dest_f16', 'inputs': {'data': rsx, 'shape': rsv}, 'outputs': {'reshaped': dest((4, 6), 'float16')}},
            {'id': 'reshape_shape_past_int32', 'inputs': {'data': f32(2, 3, 4), 'shape': i64(4, 2**40)},
             'outputs': {'reshaped': dest((4, 6), 'float32')}}]
    out.append((P('ai.onnx.Reshape'), rsh))
    # ai.onnx.ReduceMax: subgroup requirements (wave64 rejected on subgroups of 8, subgroup runs)
    rx = []
    for i, (shape, keep) in enumerate((((5, 100), 1), ((3, 4, 64), 0), ((7, 1), 1), ((200,), 0), ((2, 3, 1000), 1), ((70000, 3), 0))):
        rx.append({'id': f'reducemax{i}', 'inputs': {'data': (rng.standard_normal(shape) * 10).astype(np.float32)},
                   'attrs': {'keepdims': keep}})
    rx += [{'id': 'reducemax_int32', 'inputs': {'data': np.ones((2, 3), np.int32)}},
           {'id': 'reducemax_empty', 'inputs': {'data': np.ones((2, 0), np.float32)}},
           {'id': 'reducemax_keepdims3', 'inputs': {'data': np.ones((2, 3), np.float32)}, 'attrs': {'keepdims': 3}}]
    out.append((P('ai.onnx.ReduceMax'), rx))
    # bad.SameStructName: two uniform structs of one name with different fields in one pass (refused by both)
    out.append((P('bad.SameStructName'), [{'id': 'same_struct_name', 'inputs': {'x': f32(5)}}]))
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
        if run:
            a += ['--out-shape', f"{port}={shape_arg(o['shape'])}" + (f":{o['dtype']}" if o.get('dtype') else '')]
        elif 'shape' not in (manifest['outputs'].get(port) or {}):
            a += ['--shape', f"{port}={shape_arg(o['shape'])}"]
        else:
            # explain's --shape gives a tensor of that shape: the shape the expression gives (the loader's output)
            a += ['--shape', f"{port}={shape_arg((call.get('loader_shapes') or {}).get(port, o['shape']))}"]
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
                L = lrep[c['id']]
                # an output with a shape expression asked for by a destination: run takes the expression's shape
                # (rule 36) and so does the loader; explain, which is given tensor shapes, gets the loader's
                c['loader_shapes'] = {p: v['shape'] for p, v in (L.get('outputs') or {}).items()}
                W = run_wgk(o.wgk, pkg, manifest, c, device)
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
