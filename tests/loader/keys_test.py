#!/usr/bin/env python3
"""The public loader's manifest rules, key by key, checked against wgk (docs/loader-semantics.md, the key table).

Each case changes one thing in a small valid spec 2.1 package and says what the loader does with it, as its
normalizer and call path are written (function names in the table): `load` (refused when the package is
loaded), `call` (the package loads, a call is refused), or `ok` (runs). wgk must do the same: `wgk pack` (which
loads the package) for `load`, then `wgk explain` on the lavapipe description for `call` and `ok`. A case marked
`differs` is a documented difference (the table says why): wgk's outcome is asserted so a change shows.
No GPU. usage: keys_test.py WGK SOURCE_DIR"""
import copy, json, os, re, shutil, subprocess, sys, tempfile

wgk, src = sys.argv[1], sys.argv[2]
device = os.path.join(src, 'tests/plan/lavapipe.device.json')
BASE = {"domain": "demo", "name": "Keys", "inputs": {"x": {"dtype": "T"}},
        "outputs": {"y": {"dtype": "T", "shape": "shapes.x"}}, "typeConstraints": {"T": ["float32"]},
        "variants": [{"id": "main", "passes": [{"id": "p", "shader": "p.wgsl.jinja", "bindings": ["x", "y"],
                                                "dispatch": {"threads": "numel(shapes.x)", "workgroupSize": 64}}]}]}
WGSL = ("{{ env.wgsl.resourceDeclarations }}\n@compute @workgroup_size(64)\n"
        "fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n  if (g.x < arrayLength(&y)) { y[g.x] = x[g.x]; }\n}\n")
V, P = ['variants', 0], ['variants', 0, 'passes', 0]
B = P + ['bindings']
U = {"name": "p", "struct": [{"name": "a", "type": "u32", "value": "1"}]}


def at(m, path):
    for k in path:
        m = m[k]
    return m


def set_(path, val):
    return lambda m: at(m, path[:-1]).__setitem__(path[-1], val)


def del_(path):
    return lambda m: at(m, path[:-1]).pop(path[-1])


def both(*fs):
    return lambda m: [f(m) for f in fs]


def field(**kw):
    return set_(B, ["x", "y", {"name": "p", "struct": [dict({"name": "a", "type": "u32"}, **kw)]}])


def one_pass(**kw):
    return dict({"id": "p", "shader": "p.wgsl.jinja", "bindings": ["x", "y"], "dispatch": {"x": 1}}, **kw)


# (case, change, the loader's outcome, regex wgk's refusal must match)
CASES = [
    ('base', lambda m: None, 'ok', None),
    ('$comment anywhere', both(set_(['$comment'], 'a'), set_(P + ['$comment'], 'b'), set_(['inputs', 'x', '$comment'], 'c')), 'ok', None),
    ('$comment not a string', set_(['$comment'], 3), 'load', r'\$comment must be a string'),
    ('$schema', set_(['$schema'], 'https://x'), 'ok', None),
    ('domain absent (ai.onnx)', del_(['domain']), 'ok', None),
    ('domain not canonical', set_(['domain'], 'Bad.x'), 'load', r'dotted canonical domain'),
    ('name empty', set_(['name'], ''), 'load', r'name must not be empty'),
    ('description not a string', set_(['description'], 3), 'load', r'description: expected a string'),
    ('conformance known', set_(['conformance'], 'internal-lowering'), 'ok', None),
    ('conformance unknown', set_(['conformance'], 'whatever'), 'load', r'invalid conformance'),
    ('sinceVersion any', set_(['sinceVersion'], 'x'), 'ok', None),
    ('onnx any', set_(['onnx'], {"a": 1}), 'ok', None),
    ('unknown top-level key with a hint', set_(['variantFamilies'], []), 'load', r"variantFamilies.*a family is a `variants` member"),
    ('port name not an identifier', set_(['inputs', 'a-b'], {"dtype": "T"}), 'load', r'not a WGSL-compatible tensor name'),
    ('port onnx empty', set_(['inputs', 'x', 'onnx'], ''), 'load', r'onnx must be a non-empty string'),
    ('port rank not enforced', set_(['inputs', 'x', 'rank'], 7), 'ok', None),
    ('port optional not a boolean', set_(['inputs', 'x', 'optional'], 'yes'), 'load', r'optional: expected a boolean'),
    ('port layout on an output', set_(['outputs', 'y', 'layout'], 'packed'), 'load', r'cannot declare a storage layout'),
    ('port storage other than an int64 projection', set_(['inputs', 'x', 'storage'], 'float16'), 'load', r'only int64 -> int32/uint32'),
    ('port narrowing on a float', set_(['inputs', 'x', 'narrowing'], 'checked'), 'load', r'narrowing is valid only on a projected logical int64 input'),
    ('int64 projection without narrowing', set_(['inputs', 'i'], {"dtype": "int64", "storage": "int32"}), 'load', r'must declare narrowing'),
    ('in/out port with two dtypes', both(set_(['inputs', 'y'], {"dtype": "T"}), set_(['outputs', 'y', 'dtype'], 'float32')), 'load', r'same dtype and storage'),
    # issue 37 wrong accepts 4: an in/out port's output shape was ignored; an output dtype naming no type variable loaded
    ('in/out output shape other than the input\'s', set_(['outputs', 'x'], {"dtype": "T", "shape": "[2]"}), 'call', r"in/out port x: its output shape expression '\[2\]' gives \[2\], but the tensor is updated in place, so its output shape is its input's, \[5\]"),
    ('in/out output shape the input\'s', set_(['outputs', 'x'], {"dtype": "T", "shape": "shapes.x"}), 'ok', None),
    ('output dtype naming no type variable', set_(['outputs', 'y', 'dtype'], 'flaot32'), 'load', r"outputs\.y\.dtype.*output 'y' has dtype 'flaot32', which is neither a dtype .* nor a type variable"),
    ('output dtype an input\'s unconstrained type variable', both(set_(['inputs', 'x', 'dtype'], 'Q'), set_(['outputs', 'y', 'dtype'], 'Q')), 'ok', None),
    ('output without dtype bound without elementType', del_(['outputs', 'y', 'dtype']), 'load', r'binds port "y", which declares no dtype; write the entry\'s elementType'),
    ('output without dtype bound with an elementType (float32)', both(del_(['outputs', 'y', 'dtype']), set_(B, ["x", {"name": "y", "elementType": "f32"}])), 'ok', None),
    ('arg kind tensor', set_(['args'], {"n": {"kind": "tensor"}}), 'load', r'tensors are inputs/outputs ports'),
    ('arg unknown key', set_(['args'], {"n": {"kind": "u32", "dtype": "x"}}), 'load', r"unknown key 'dtype'"),
    ('arg oneOf on a number', set_(['args'], {"n": {"kind": "u32", "oneOf": [1]}}), 'load', r'oneOf is valid only on a non-empty string arg'),
    ('arg named like a tensor', set_(['args'], {"x": {"kind": "u32"}}), 'load', r'collides with a tensor'),
    ('attribute as a bare value', set_(['attributes'], {"a": 1}), 'load', r'bare value is the spec 2.0 draft spelling'),
    ('attribute name empty', set_(['attributes'], {"": {}}), 'load', r'attribute names must be non-empty'),
    ('attribute unknown key', set_(['attributes'], {"a": {"default": 1, "foo": 2}}), 'load', r"unknown key 'foo'"),
    ('constraint of an undeclared attribute', set_(['attributeConstraints'], {"a": {"required": True}}), 'load', r'does not name a declared attribute'),
    ('constraint required beside a default', both(set_(['attributes'], {"a": {"default": 1}}), set_(['attributeConstraints'], {"a": {"required": True}})), 'load', r'redundant because the attribute has a default'),
    ('constraint default outside values', both(set_(['attributes'], {"a": {"default": 1}}), set_(['attributeConstraints'], {"a": {"values": [2, 3]}})), 'load', r'is not in attributeConstraints\.a\.values'),
    ('constraint empty', both(set_(['attributes'], {"a": {"default": 1}}), set_(['attributeConstraints'], {"a": {}})), 'load', r'must declare required: true and/or values'),
    ('constraint values repeated', both(set_(['attributes'], {"a": {}}), set_(['attributeConstraints'], {"a": {"values": [1, 1]}})), 'load', r'contains duplicate 1'),
    ('typeConstraints empty list', set_(['typeConstraints'], {"T": []}), 'load', r'must be a non-empty list'),
    ('typeConstraints unknown dtype', set_(['typeConstraints'], {"T": ["float64"]}), 'load', r'unsupported logical dtype "float64"'),
    ('tunable as a bare value', set_(['tunables'], {"W": 64}), 'load', r'must be an object \{ default, description\? \}'),
    ('tunable default a list', set_(['tunables'], {"W": {"default": [1]}}), 'load', r'must be a finite number, string or boolean'),
    ('tunable name not an identifier', set_(['tunables'], {"a-b": {"default": 1}}), 'load', r'tunable names must be identifiers'),
    ('tunable unknown key', set_(['tunables'], {"a": {"default": 1, "min": 2}}), 'load', r"unknown key 'min'"),
    ('derive shadowing a type variable', set_(['derive'], {"T": "1"}), 'load', r'derive\.T would shadow a scope name'),
    ('derive shadowing a namespace (pass)', set_(P + ['derive'], {"shapes": "1"}), 'load', r'derive\.shapes would shadow'),
    ('when as one string', set_(['when'], 'true'), 'load', r'no single-string form'),
    ('when empty', set_(['when'], []), 'load', r'must not be an empty list'),
    ('requires unknown key', set_(['requires'], {"foo": 1}), 'load', r"unknown key 'foo'"),
    ('requires unknown feature', set_(['requires'], {"features": ["foo"]}), 'load', r'unknown feature "foo"'),
    ('requires unknown limit', set_(['requires'], {"limits": {"maxFoo": 1}}), 'load', r'not a canonical WebGPU limit name'),
    ('requires subgroupMinSize 0', set_(['requires'], {"subgroupMinSize": 0}), 'load', r'subgroupMinSize must be a positive integer'),
    ('subgroupMatrixConfigs in manifest and variant', both(set_(['requires'], {"subgroupMatrixConfigs": [{"M": 8}]}), set_(V + ['requires'], {"subgroupMatrixConfigs": [{"M": 8}]})), 'load', r'declare the pattern list once'),
    ('subgroupMatrixConfigs empty pattern', set_(['requires'], {"subgroupMatrixConfigs": [{}]}), 'load', r'must constrain at least one field'),
    ('subgroupMatrixConfigs componentType', set_(['requires'], {"subgroupMatrixConfigs": [{"componentType": "f64"}]}), 'load', r'componentType must be one of f32, f16, u32, i32, u8, i8'),
    ('subgroupMatrixConfigs resultComponentType', set_(['requires'], {"subgroupMatrixConfigs": [{"resultComponentType": "x"}]}), 'load', r'resultComponentType must be one of'),
    ('subgroupMatrixConfigs M 0', set_(['requires'], {"subgroupMatrixConfigs": [{"M": 0}]}), 'load', r'M must be a positive integer'),
    ('subgroupMatrixConfigs N 0', set_(['requires'], {"subgroupMatrixConfigs": [{"N": 0}]}), 'load', r'N must be a positive integer'),
    ('subgroupMatrixConfigs K 0', set_(['requires'], {"subgroupMatrixConfigs": [{"K": 0}]}), 'load', r'K must be a positive integer'),
    ('subgroupMatrixConfigs unknown key', set_(['requires'], {"subgroupMatrixConfigs": [{"Q": 1}]}), 'load', r"unknown key 'Q'"),
    ('binding handle not an identifier', set_(['bindings'], {"a-b": {"arg": "x"}}), 'load', r'must be an identifier'),
    ('binding semantic', set_(B, ["x", {"name": "y", "semantic": "a"}]), 'load', r"unknown key 'semantic'"),
    ('binding buffer as the seed object', set_(B, ["x", {"name": "y", "buffer": {"type": "storage"}}]), 'load', r'buffer must be a string'),
    ('binding buffer unknown', set_(B, ["x", {"name": "y", "buffer": "rw"}]), 'load', r'buffer must be read-only-storage, storage or uniform'),
    ('binding name not an identifier', set_(B, ["x", {"name": "y-1", "arg": "y"}]), 'load', r'name must be a WGSL identifier'),
    ('binding arg unknown', set_(B, ["x", {"name": "z", "arg": "q", "elementType": "f32"}]), 'load', r'binds "q", which is neither a declared tensor nor an intermediate, so its buffer type cannot default'),
    ('binding scratch undeclared', set_(B, ["x", "y", {"name": "t", "scratch": "t", "elementType": "f32"}]), 'load', r'names scratch "t", which the variant does not declare as an intermediate'),
    ('binding elementType empty', set_(B, ["x", {"name": "y", "elementType": ""}]), 'load', r'elementType must be a non-empty string'),
    ('binding length 0', set_(B, ["x", {"name": "y", "length": 0}]), 'load', r'length must be a positive integer or a \$-prefixed derive reference'),
    ('binding length on a uniform', set_(B, ["x", "y", dict(U, length=4)]), 'load', r'a uniform binding takes struct fields, not elementType/length'),
    ('binding structName on storage', set_(B, ["x", {"name": "y", "structName": "P"}]), 'load', r'a storage binding takes elementType, not struct fields'),
    ('binding struct empty', set_(B, ["x", "y", {"name": "p", "struct": []}]), 'load', r'requires a non-empty struct field list'),
    ('binding length longer than the tensor', set_(B, ["x", {"name": "y", "length": 6}]), 'call', r'binding y: port y \(float32 \[5\]\) provides 20 bytes, but the declared fixed length 6 of f32 requires 24'),
    ('binding length within the tensor', set_(B, ["x", {"name": "y", "length": 5}]), 'ok', None),
    ('binding name twice in a pass', set_(B, ["x", "x", "y"]), 'load', r'binds the WGSL name "x" twice'),
    ('binding unknown handle', set_(B, ["x", "zz"]), 'load', r'neither a binding entry handle'),
    ('field type vec2', set_(B, ["x", "y", {"name": "p", "struct": [{"name": "a", "type": "vec2<u32>", "value": "1"}]}]), 'load', r'invalid type vec2<u32>'),
    ('field unknown key', field(value="1", foo=1), 'load', r"unknown key 'foo'"),
    ('field internal not a boolean', field(value="1", internal="no"), 'load', r'internal: expected a boolean'),
    ('field repeated', set_(B, ["x", "y", {"name": "p", "struct": [{"name": "a", "type": "u32", "value": "1"}, {"name": "a", "type": "u32", "value": "1"}]}]), 'load', r'repeats field a'),
    ('field required with no value', field(), 'call', r'Missing uniform field Params\.a'),
    ('field not required, no value (0)', field(required=False), 'ok', None),
    ('field internal, no value (0)', field(internal=True), 'ok', None),
    ('field default', field(default=3), 'ok', None),
    ('field u32 value fractional', field(value="1.5"), 'call', r'is not a whole number'),
    ('field f32 value', set_(B, ["x", "y", {"name": "p", "struct": [{"name": "a", "type": "f32", "value": "1.5"}]}]), 'ok', None),
    ('family', set_(['variants'], [{"description": "d", "cases": [{"W": 64}, {"W": 32}], "variants": [{"id": "v{W}", "passes": [one_pass(dispatch={"threads": "numel(shapes.x)", "workgroupSize": "{W}"})]}]}]), 'ok', None),
    ('family axes', set_(['variants'], [{"axes": {"a": [{"$key": "k1", "W": 64}], "b": [{"$key": "q", "Z": 1}]}, "variants": [{"id": "v{W}", "passes": [one_pass()]}]}]), 'ok', None),
    ('family unknown key', set_(['variants'], [{"cases": [{"W": 64}], "foo": 1, "variants": [{"id": "v{W}", "passes": [one_pass()]}]}]), 'load', r"unknown key 'foo'"),
    ('family unresolved placeholder', set_(['variants'], [{"cases": [{"W": 64}], "variants": [{"id": "v{Q}", "passes": [one_pass()]}]}]), 'load', r'unresolved placeholder "\{Q\}"'),
    ('variant id absent (variant_0)', del_(V + ['id']), 'ok', None),
    ('variant id not stable', set_(V + ['id'], '_x'), 'load', r'variant id must be stable'),
    ('variant description not a string', set_(V + ['description'], 1), 'load', r'description: expected a string'),
    ('variant priority fractional', set_(V + ['priority'], 1.5), 'ok', None),
    ('variant use', set_(V + ['use'], 'x'), 'load', r'unexpanded shared fragment reference'),
    ('variant bindings', set_(V + ['bindings'], []), 'load', r'spec 2.0 lists bindings on each pass'),
    ('variant constants', set_(V + ['constants'], {}), 'load', r'`derive` is the one value channel'),
    ('variant when false', set_(V + ['when'], ["ranks.x == 2"]), 'call', r'ranks\.x == 2'),
    ('variant demoteWhen empty', set_(V + ['demoteWhen'], []), 'load', r'must not be an empty list'),
    ('variant demoteWhen true (last resort)', set_(V + ['demoteWhen'], ["true"]), 'ok', None),
    ('variant supersededBy itself', set_(V + ['supersededBy'], ['main']), 'load', r'lists itself in supersededBy'),
    ('variant supersededBy unknown', set_(V + ['supersededBy'], ['zz']), 'load', r'supersededBy names unknown variant "zz"'),
    ('variant tunables as a bare value', set_(V + ['tunables'], {"W": 64}), 'load', r'must be an object'),
    ('variant derive shadowing a type variable', set_(V + ['derive'], {"T": "1"}), 'load', r'derive\.T would shadow'),
    ('intermediate of a type variable', set_(V + ['intermediates'], [{"id": "t", "dtype": "T", "shape": [4]}]), 'load', r'must be a concrete WebGPU storage dtype'),
    ('intermediate int64', set_(V + ['intermediates'], [{"id": "t", "dtype": "int64", "shape": [4]}]), 'load', r'opaque int64 intermediates are unsupported'),
    ('intermediate zeroInit false', set_(V + ['intermediates'], [{"id": "t", "dtype": "float32", "shape": [4], "zeroInit": False}]), 'load', r'zeroInit must be true when present'),
    ('intermediate named like a port', set_(V + ['intermediates'], [{"id": "x", "dtype": "float32", "shape": [4]}]), 'load', r'is also a tensor name'),
    ('intermediate shape negative', set_(V + ['intermediates'], [{"id": "t", "dtype": "float32", "shape": [-1]}]), 'call', r'non-negative integers'),
    ('pass id absent (pass_0)', del_(P + ['id']), 'ok', None),
    ('pass name empty', set_(P + ['name'], ''), 'load', r'name must be a non-empty string'),
    ('pass shader absent', del_(P + ['shader']), 'load', r'requires shader'),
    ('pass source', set_(P + ['source'], {}), 'load', r'a pass spells `shader`'),
    ('pass bindings empty', set_(B, []), 'load', r'non-empty bindings list'),
    ('pass submitAfter not a boolean', set_(P + ['submitAfter'], 'yes'), 'load', r'submitAfter: expected a boolean'),
    ('pass profile evaluated', set_(P + ['profile'], {"bytesMoved": "numel(shapes.x) * 8", "k": [1, {"v": "ranks.x"}]}), 'ok', None),
    ('pass profile value failing to evaluate', set_(P + ['profile'], {"n": "nosuch"}), 'call', r'profile\.n: .*nosuch'),
    ('pass profile nested value failing', set_(P + ['profile'], {"k": [1, {"v": "shapes.x + nosuch"}]}), 'call', r'nosuch'),
    ('pass profile a string (its characters)', set_(P + ['profile'], 'x'), 'call', r"profile\[0\]: unknown name 'x'"),
    ('pass profile a string of digits', set_(P + ['profile'], '12'), 'ok', None),
    ('pass profile a list', set_(P + ['profile'], ["numel(shapes.x)", "nosuch"]), 'call', r"profile\[1\]: unknown name 'nosuch'"),
    ('pass profile a number (nothing)', set_(P + ['profile'], 3), 'ok', None),
    ('pass profile null (nothing)', set_(P + ['profile'], None), 'ok', None),
    ('pass subgroupCollectivesWidth 3', set_(P + ['subgroupCollectivesWidth'], 3), 'load', r'"portable" or a power of two in \[4, 128\]'),
    ('pass subgroupCollectivesWidth portable', set_(P + ['subgroupCollectivesWidth'], 'portable'), 'ok', None),
    ('pass viewAlias input not read-only', set_(P + ['viewAlias'], [{"input": "y", "output": "x"}]), 'load', r'must name a read-only-storage binding'),
    ('repeat group', set_(V + ['passes'], [{"id": "g", "repeat": {"index": "i", "count": "2"}, "passes": [one_pass()]}]), 'ok', None),
    ('repeat index reserved', set_(V + ['passes'], [{"id": "g", "repeat": {"index": "index", "count": "2"}, "passes": [one_pass()]}]), 'load', r'reserved repeat member index'),
    ('repeat count past 65535', set_(V + ['passes'], [{"id": "g", "repeat": {"index": "i", "count": "70000"}, "passes": [one_pass()]}]), 'call', r'\[0, 65535\]'),
    ('derive calling range (a template function)', set_(['derive'], {"r": "range(3)"}), 'call', r"unknown name 'range' \(a template function"),
    ('derive naming namespace', set_(['derive'], {"r": "namespace()"}), 'call', r"unknown name 'namespace'"),
    ('unknown name in a branch not taken', set_(['derive'], {"d": "1 if true else nosuch"}), 'call', r"derive\.d: unknown name 'nosuch'"),
    ('name probed with is defined', set_(['derive'], {"d": "1 if nosuch is defined else 2"}), 'ok', None),
    ('member and filter names are not names', set_(['derive'], {"d": "shapes.x | length"}), 'ok', None),
    ('dispatch gridStride', set_(P + ['dispatch'], {"gridStride": 1}), 'load', r'gridStride, which spec 2.0 removed'),
    ('dispatch threads without workgroupSize', set_(P + ['dispatch'], {"threads": "5"}), 'load', r"requires both 'threads' and 'workgroupSize'"),
    ('dispatch both shorthands', set_(P + ['dispatch'], {"threads": "5", "workgroupSize": 64, "workgroups": 1}), 'load', r'exactly one of'),
    ('dispatch shorthand with x', set_(P + ['dispatch'], {"workgroups": "1", "x": 2}), 'load', r'no pinned axes'),
    ('dispatch x y z', set_(P + ['dispatch'], {"x": "1", "y": 2, "z": "1"}), 'ok', None),
    ('dispatch x negative', set_(P + ['dispatch'], {"x": -1}), 'load', r'non-negative safe integers'),
    ('dispatch unknown key', set_(P + ['dispatch'], {"x": "1", "w": 2}), 'load', r"unknown key 'w'"),
]


def main():
    tmp = tempfile.mkdtemp()
    fails, n = [], 0
    for case in CASES:
        name, change, want, pattern = case[:4]
        differs = len(case) > 4
        m = copy.deepcopy(BASE)
        change(m)
        pkg = os.path.join(tmp, 'pkg')
        shutil.rmtree(pkg, ignore_errors=True)
        os.makedirs(os.path.join(pkg, 'build/webgpu'))
        json.dump(m, open(os.path.join(pkg, 'build/webgpu/manifest.json'), 'w'), indent=1)
        open(os.path.join(pkg, 'build/webgpu/p.wgsl.jinja'), 'w').write(WGSL)
        p = subprocess.run([wgk, 'pack', pkg], capture_output=True, text=True)
        got, msg = ('load', p.stderr.strip()) if p.returncode else (None, '')
        if got is None:
            p = subprocess.run([wgk, 'explain', pkg, '--device', device, '--shape', 'x=5'], capture_output=True, text=True)
            got, msg = ('call', p.stderr.strip()) if p.returncode else ('ok', '')
        n += 1
        expect = ('ok' if want == 'call' else want) if differs else want  # the documented differences: wgk runs
        if got != expect:
            fails.append(f'{name}: the loader: {want}, wgk: {got} {msg[-300:]}')
        elif pattern and not re.search(pattern, msg):
            fails.append(f'{name}: refused, but the message {msg[-300:]!r} does not match /{pattern}/')
    shutil.rmtree(tmp)
    for f in fails:
        print('FAIL', f)
    print(f'loader keys: {n - len(fails)} of {n} cases as the loader (documented differences included), {len(fails)} failed')
    return 1 if fails else 0


sys.exit(main())
