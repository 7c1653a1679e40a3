#!/usr/bin/env python3
"""The seed-format fixtures plan every call exactly as the shipped packages they copy, and so does `wgk convert`.

usage: convert_test.py WGK SOURCE_DIR
kernels/<op id>/ is each package's source. tests/cli/seed-packages/<op id>/ holds the same package's manifest in
wgk's earlier seed format (made whole by seed_packages.py and `wgk pack` with the package's own templates and test files), and
`wgk convert` turns that seed package into spec 2.1 again. For every test.json and bench.json case (and attribute
/ dtype / tunable variations), `wgk explain --json` of the seed fixture and of its conversion are each compared
with that of kernels/<op id>/: variant, rejected variants (reasons with the seed's role names renamed to port
keys), outputs by key, intermediates, and per pass its id, shader, workgroups and uniform values; `wgk render`
is compared with whitespace removed. Described devices make it GPU-free.
"""
import json, os, re, subprocess, sys, tempfile

wgk, src = sys.argv[1], sys.argv[2]
devices = [os.path.join(src, 'tests/plan/lavapipe.device.json'), os.path.join(src, 'tests/plan/nof16.device.json')]
failures, compared = [], 0


def run(args):
    p = subprocess.run([wgk] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def phi3_dims(g, row):
    """Shapes of the Phi-3-small block layout a phi3_layout_row/col generator makes (the op's kernel card, kernels/<op id>/README.md)."""
    nl, mb, local, vs = g['num_layout'], g['max_blocks'], g['local_blocks'], g['vert_stride']
    if row:
        return [nl, mb + 1]
    step = max(1, vs // nl)
    nnz = max(sum(1 for q in range(mb) for k in range(q + 1)
                  if q - k < local or (k + l * step + 1) % vs == 0) for l in range(nl))
    return [nl, nnz]


def dims_of(spec):
    if 'shape' in spec and spec['shape'] is not None:
        return spec['shape']
    g = spec.get('generator') or {}
    if g.get('kind') in ('phi3_layout_row', 'phi3_layout_col'):
        return phi3_dims(g, g['kind'] == 'phi3_layout_row')
    data = spec.get('data', spec.get('values'))
    dims = []
    while isinstance(data, list):
        dims.append(len(data))
        data = data[0] if data else None
    return dims


def calls_from(pkg_dir, man21):
    """explain argument lists from the package's test.json and bench.json cases, plus variations."""
    wd = os.path.join(pkg_dir, 'build/webgpu')
    typevar = {k: v.get('dtype') for k, v in {**man21['outputs'], **man21['inputs']}.items()}
    tc = man21.get('typeConstraints', {})
    calls = []
    for fname in ('test.json', 'bench.json'):
        path = os.path.join(wd, fname)
        if not os.path.exists(path):
            continue
        for case in json.load(open(path)).get('cases', []):
            args, types = [], {}
            for key, spec in case.get('inputs', {}).items():
                if not isinstance(spec, dict):
                    continue
                dims = dims_of(spec)
                args += ['--shape', f'{key}={"x".join(str(d) for d in dims) if dims else "scalar"}']
                var, dt = typevar.get(key), spec.get('dtype')
                if var in tc and dt and len(tc[var]) > 1:
                    types[var] = dt
            for var, dt in types.items():
                args += ['--dtype', f'{var}={dt}']
            for k, v in (case.get('attrs') or {}).items():
                args += ['--attr', f'{k}={json.dumps(v)}']
            calls.append(args)
    varied = []
    for args in calls[:12]:  # variations: the other float type, each tunable doubled
        if '--dtype' not in args:
            for var, dts in tc.items():
                if 'float16' in dts:
                    varied.append(args + ['--dtype', f'{var}=float16'])
        for t, spec in man21.get('tunables', {}).items():
            d = spec.get('default')
            if isinstance(d, int):
                varied.append(args + ['--tunable', f'{t}={d * 2}'])
    return calls + varied


def normalize(text, renames):
    try:
        j = json.loads(text)
    except ValueError:
        return text
    def ren(s):
        return re.sub(r'\b(shapes|ranks|present|tensorDtypes)\.([A-Za-z_]\w*)\b',
                      lambda m: f'{m.group(1)}.{renames.get(m.group(2), m.group(2))}', s)
    return {
        'variant': j.get('variant'),
        'rejected': [(r['id'], ren(r['reason'])) for r in j.get('rejected', [])],
        'outputs': [(o['key'], o['dtype'], o['shape']) for o in j.get('outputs', [])],
        # zeroInit aside: a 2.1 plan clears every intermediate per call (the public loader's are fresh zeroed buffers)
        'intermediates': [{k: v for k, v in i.items() if k != 'zeroInit'} for i in j.get('intermediates') or []],
        'passes': [(p['id'], p['shader'], p['workgroups'], p['uniform']) for p in j.get('passes', [])],
    }


def squeeze(wgsl):
    return re.sub(r',\}', '}', re.sub(r'\s+', '', wgsl))


def error_text(err, renames):
    # the message after the position: the seed names ports by role, 2.1 by key
    msg = err.strip().split('\n')[0].split(': ', 3)[-1]
    msg = re.sub(r'\b(shapes|ranks|present)\.([A-Za-z_]\w*)\b', lambda m: f'{m.group(1)}.{renames.get(m.group(2), m.group(2))}', msg)
    return re.sub(r'\bof port ([A-Za-z_]\w*)\b', lambda m: f'of port {renames.get(m.group(1), m.group(1))}', msg)


def compare(name, left, right, call, dev, renames, render=True):
    """One call planned on package `left` (seed role names) and on `right` (kernels/, port keys); with render,
    the WGSL of both too."""
    global compared
    base = ['--device', dev] + call
    r1 = run(['explain', '--strict', left, '--json'] + base)
    r2 = run(['explain', '--strict', right, '--json'] + base)
    compared += 1
    what = f'{name} ({os.path.basename(os.path.dirname(left))}) {" ".join(base)}'
    if r1[0] != r2[0]:
        failures.append(f'{what}: exit {r1[0]} vs {r2[0]}: {r1[2].strip()[:300]} | {r2[2].strip()[:300]}')
    elif r1[0] == 0:
        a, b = normalize(r1[1], renames), normalize(r2[1], renames)
        if a != b:
            failures.append(f'{what}:\n  {json.dumps(a)[:600]}\n  kernels/ {json.dumps(b)[:600]}')
        elif render and squeeze(run(['render', left] + base)[1]) != squeeze(run(['render', right] + base)[1]):
            failures.append(f'{what}: rendered WGSL differs')
    elif error_text(r1[2], renames).split('\n')[0] != error_text(r2[2], renames).split('\n')[0]:
        failures.append(f'{what}: refusal differs:\n  {r1[2].strip()[:300]}\n  {r2[2].strip()[:300]}')


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_packages  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, 'converted'))
    for seed in seed_packages.materialize(src, os.path.join(tmp, 'seed'), wgk):
        name = os.path.basename(seed)
        shipped = os.path.join(src, 'kernels', name)
        out = os.path.join(tmp, 'converted', name)
        rc, o, e = run(['convert', seed, out])
        if rc != 0:
            failures.append(f'{name}: convert failed: {e}')
            continue
        man21 = json.load(open(os.path.join(shipped, 'build/webgpu/manifest.json')))
        renames = {v['onnx']: k for k, v in {**man21['inputs'], **man21['outputs']}.items() if 'onnx' in v}
        for call in calls_from(shipped, man21):
            for dev in devices:
                compare(name, seed, shipped, call, dev, renames)
            # the conversion: its plans (its templates are the seed's, so the WGSL follows from the plan)
            compare(name, out, shipped, call, devices[0], renames, render=False)

for f in failures:
    print('FAIL', f)
print(f'{compared - len(failures)}/{compared} calls plan identically')
sys.exit(1 if failures or compared < 150 else 0)
