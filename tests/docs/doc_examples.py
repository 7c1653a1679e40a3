#!/usr/bin/python3
"""The usage examples of the docs run as tests: each is read from the markdown when the test runs, so a test
fails as soon as the doc and wgk disagree. The doc is the source of truth: when one fails, fix the doc (a kernel
card is kernels/<op id>/README.md, its one copy). Nothing here names an op: the cards are every
kernels/*/README.md found when the test runs, the op of a snippet is the package it loads, and what is op-specific
comes from the package's own folder through the reference registry (tests/python/references.py: reference(),
example_inputs(), IN_PLACE).

usage: doc_examples.py SOURCE_DIR WGK LIBWGK CC CASE     (C snippets also get $WGK_DOC_CFLAGS: the sanitizers)
  readme_c         README's C snippet, run as a card's C snippet is
  readme_python    README's Python snippet, run as a card's Python snippet is
  readme_cli       README's "A first call" shell block, run by bash in a scratch folder with WGK as `wgk` on PATH;
                   the y.npy it writes checked against the reference on the inputs it wrote
  cards KIND       every card's block of that kind; at least one card must have one:
    c              "Use with wgk (C)": the snippet compiled (-Wall -Wextra -Werror) into tests/docs/c_harness.c.in
                   and run on the op's example inputs of the shapes the snippet declares; the outputs it reads
                   back checked against the op's reference
    python         "Use with wgk (Python)": run with the binding; every kernel call it makes is recorded and its
                   outputs checked against the op's reference on the inputs and attributes it was given
    cli            "Use with the wgk CLI": the commands run in a scratch folder on the op's example inputs, named
                   as the commands name them; every .npy written checked against the reference
    js             "Use with `@huggingface/kernels`" (JavaScript, not run here): every input, output and attribute
                   it names is in the contract (the Python binding's info()), every required attribute is set,
                   and `wgk explain` with its shapes and attributes finds a variant
  cover            every fenced block under a "Use with" heading of every card, and README's C and Python
                   blocks, is run by one of the cases above (or listed in NOT_RUN with the reason)
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

import numpy as np

SRC, WGK, LIBWGK, CC = sys.argv[1:5] if len(sys.argv) > 5 else sys.exit(__doc__)
CASE, ARGS = sys.argv[5], sys.argv[6:]
HERE = os.path.dirname(os.path.abspath(__file__))
REFS = os.path.join(HERE, "..", "python")  # references.py: the registry of the ops' numpy references
sys.path.insert(0, REFS)
import references  # noqa: E402

# The blocks of a card, by heading and language, and the case that runs each.
KINDS = {"c": ("Use with wgk (C)", "c"), "python": ("Use with wgk (Python)", "python"),
         "cli": ("Use with the wgk CLI", "sh"), "js": ("Use with `@huggingface/kernels`", "js")}
# Blocks of a card shown but not run, with the reason: (heading, language).
NOT_RUN = {("Use with `@huggingface/kernels`", "sh"): "installs the JavaScript package from npm (no network in tests)"}
C_TYPES = {"FLOAT32": ("float", np.float32), "FLOAT16": ("uint16_t", np.float16), "INT64": ("int64_t", np.int64),
           "INT32": ("int32_t", np.int32)}


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def blocks(path):
    """[(heading, language, text)] of every fenced block of a markdown file, heading the nearest ## above it."""
    out, heading, lang, buf = [], "", None, []
    for line in open(path, encoding="utf-8"):
        if lang is None:
            if line.startswith("## "):
                heading = line[3:].strip()
            m = re.match(r"^```(\w*)\s*$", line)
            if m:
                lang, buf = m.group(1), []
        elif line.startswith("```"):
            out.append((heading, lang, "".join(buf)))
            lang = None
        else:
            buf.append(line)
    return out


def one_block(path, heading_prefix, lang):
    found = [t for h, l, t in blocks(path) if h.startswith(heading_prefix) and l == lang]
    if len(found) != 1:
        fail(f"{path}: {len(found)} ```{lang} blocks under a heading starting {heading_prefix!r}, wanted 1")
    return found[0]


def cards():
    """{op id: card path} of every kernels/*/README.md, found now."""
    return {os.path.basename(os.path.dirname(p)): p for p in sorted(glob.glob(os.path.join(SRC, "kernels", "*", "README.md")))}


def op_of(text, where):
    """The op id of the package a snippet loads (webgpu-kernels/<op id>)."""
    ops = set(re.findall(r"webgpu-kernels/([A-Za-z0-9_.-]+)", text))
    if len(ops) != 1:
        fail(f"{where}: the snippet loads {len(ops)} packages by id ({', '.join(sorted(ops)) or 'none'}), wanted 1")
    return ops.pop()


def binding():
    sys.path.insert(0, os.path.join(SRC, "python"))
    os.environ["WGK_LIBRARY"] = os.path.abspath(LIBWGK)
    import wgk
    return wgk


def ports(op):
    """The contract's ports of op, from the Python binding: [{key, onnx_name, dir, type_var, ...}]."""
    return binding().load(os.path.join(SRC, "kernels", op)).info()["ports"]


def close(got, want, what):
    """got against the reference within the tolerance of got's dtype."""
    tol = dict(rtol=2e-3, atol=2e-3) if np.asarray(got).dtype == np.float16 else dict(rtol=1e-5, atol=1e-5)
    try:
        np.testing.assert_allclose(np.asarray(got, np.float64), want, **tol)
    except AssertionError as e:
        fail(f"{what} differs from the reference:\n{e}")


# ---- C snippets: the host arrays the snippet names are the harness's, sized from its own declarations -------


def parse_c(snippet, where):
    """What the snippet does with the C API: its tensors (dtype, shape, host array), the inputs it sets (port key
    -> tensor), the integer and float attributes, and the outputs it reads back (port key -> host array)."""
    dims = {n: [int(v) for v in body.split(",")] for n, _, body in
            re.findall(r"\b(\w+)\[(\d+)\]\s*=\s*\{([-\d,\s]+)\}", snippet)}
    tensors = {}
    for dt, rank, shape, host, var in re.findall(
            r"wgk_tensor_create\(\s*\w+,\s*WGK_DTYPE_(\w+),\s*(\d+),\s*(\w+),\s*(\w+),\s*&(\w+)\)", snippet):
        if dt not in C_TYPES or shape not in dims or len(dims[shape]) != int(rank):
            fail(f"{where}: cannot read wgk_tensor_create(..., WGK_DTYPE_{dt}, {rank}, {shape}, {host}, &{var}): "
                 f"the dtype or the shape array ({shape}) is not one this test reads")
        tensors[var] = (dt, dims[shape], host)
    inputs = {key: var for key, var in re.findall(r'wgk_call_set_input\(\s*\w+,\s*"(\w+)",\s*(\w+)\)', snippet)}
    attrs = {k: int(v) for k, v in re.findall(r'wgk_call_set_attr_int\(\s*\w+,\s*"(\w+)",\s*(-?\d+)\)', snippet)}
    attrs.update({k: float(v) for k, v in
                  re.findall(r'wgk_call_set_attr_float\(\s*\w+,\s*"(\w+)",\s*([-\d.eE+]+)\)', snippet)})
    outputs = {key: host for key, host in re.findall(
        r'wgk_tensor_read\(\s*wgk_call_output\(\s*\w+,\s*"(\w+)"\),\s*(\w+),\s*sizeof \2\)', snippet)}
    if not inputs or not outputs or any(v not in tensors for v in inputs.values()):
        fail(f"{where}: found inputs {inputs} and read-back outputs {outputs}; wanted at least one of each, every "
             f"input a tensor made by wgk_tensor_create from a host array")
    return tensors, inputs, attrs, outputs


def run_c(snippet, where):
    op = op_of(snippet, where)
    tensors, inputs, attrs, outputs = parse_c(snippet, where)
    by_key = {p["key"]: p for p in ports(op)}
    for key in list(inputs) + list(outputs):
        if key not in by_key:
            fail(f"{where}: port {key!r} is not in {op}'s contract (ports: {', '.join(by_key)})")
    shapes = {by_key[k]["onnx_name"]: tensors[v][1] for k, v in inputs.items()}
    mod = references.load(op)
    if not hasattr(mod, "example_inputs"):
        fail(f"{op}: kernels/{op}/tools/reference.py has no example_inputs(rng, shapes): the C snippet's inputs "
             f"cannot be made")
    ins = mod.example_inputs(np.random.default_rng(4), shapes)
    for k, v in inputs.items():  # each input in the dtype the snippet declares
        name = by_key[k]["onnx_name"]
        ins[name] = ins[name].astype(C_TYPES[tensors[v][0]][1])
    want = mod.reference(ins, attrs)
    decls, loads, saves = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k, v in inputs.items():
            ctype, _ = C_TYPES[tensors[v][0]]
            a = ins[by_key[k]["onnx_name"]]
            path = os.path.join(tmp, tensors[v][2] + ".bin")
            a.tofile(path)
            decls.append(f"static {ctype} {tensors[v][2]}[{a.size}];")
            loads.append(f'  load("{path}", {tensors[v][2]}, sizeof {tensors[v][2]});')
        for k, host in outputs.items():
            w = want[by_key[k]["onnx_name"]]
            same = next((tensors[v][0] for kk, v in inputs.items() if by_key[kk]["type_var"] and
                         by_key[kk]["type_var"] == by_key[k]["type_var"]), "FLOAT32")  # the output's type
            decls.append(f"static {C_TYPES[same][0]} {host}[{w.size}];")
            loads.append(f"  memset({host}, 0xff, sizeof {host}); /* NaN: a value never written shows */")
            saves.append(f'  save("{os.path.join(tmp, host + ".out")}", {host}, sizeof {host});')
        includes = "\n".join(l for l in snippet.splitlines() if l.startswith("#include"))
        body = "\n".join("  " + l for l in snippet.splitlines() if not l.startswith("#include"))
        text = open(os.path.join(HERE, "c_harness.c.in")).read()
        text = (text.replace("@INCLUDES@", includes).replace("@ARRAYS@", "\n".join(decls))
                .replace("@SNIPPET@", body).replace("@LOADS@", "\n".join(loads)).replace("@SAVES@", "\n".join(saves)))
        c, exe = os.path.join(tmp, "snippet.c"), os.path.join(tmp, "snippet")
        open(c, "w").write(text)
        libdir = os.path.dirname(os.path.abspath(LIBWGK))
        cc = [CC, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(SRC, "include"), c, "-o", exe,
              "-L", libdir, "-lwgk", "-lm", "-Wl,-rpath," + libdir] + shlex.split(os.environ.get("WGK_DOC_CFLAGS", ""))
        p = subprocess.run(cc, capture_output=True, text=True)
        if p.returncode:
            fail(f"{where}: the snippet does not compile:\n{' '.join(cc)}\n{p.stderr}\n--- {c}:\n" + "".join(
                f"{i + 1:4}  {l}\n" for i, l in enumerate(text.splitlines())))
        p = subprocess.run([exe], capture_output=True, text=True)
        print(p.stdout + p.stderr, end="")
        if p.returncode:
            fail(f"{where}: the snippet's program exited {p.returncode}")
        for k, host in outputs.items():
            w = want[by_key[k]["onnx_name"]]
            same = next((tensors[v][0] for kk, v in inputs.items() if by_key[kk]["type_var"] and
                         by_key[kk]["type_var"] == by_key[k]["type_var"]), "FLOAT32")
            got = np.fromfile(os.path.join(tmp, host + ".out"), C_TYPES[same][1]).reshape(w.shape)
            close(got, w, f"{where}: output {k} ({host})")
    print(f"ok: {where}: the C snippet compiled, ran {op} and its outputs ({', '.join(outputs)}) match the reference")


def readme_c():
    run_c(one_block(os.path.join(SRC, "README.md"), "The C API", "c"), "README.md")

# ---- Python: every kernel call the snippet makes is checked against the op's reference ------------------------


RECORDER = r'''
import numpy as _np, wgk as _wgk, references as _refs
_calls = []
_call = _wgk.Kernel.__call__

def _recorded(self, output="numpy", outputs=None, **kw):
    ins, attrs = {}, {a["name"]: a["default"] for a in self._attrs if a["default"] is not None}
    for n, v in kw.items():
        p = self._by_name.get(n)
        if p is None:
            attrs[n] = v
        elif p.dir != 2 and v is not None:  # an input (its value before the call: an in/out one is updated)
            ins[p.onnx_name] = _np.array(v.numpy() if isinstance(v, _wgk.Tensor) else v)
    res = _call(self, output, outputs, **kw)
    mod = _refs.load(self.op_id)
    want = mod.reference(ins, attrs)
    in_place = getattr(mod, "IN_PLACE", {})
    for p in self._ports:
        if p.dir == 1 or p.key not in res:
            continue
        got = res[p.key].numpy() if isinstance(res[p.key], _wgk.Tensor) else res[p.key]
        name = in_place.get(p.onnx_name, p.onnx_name) if p.dir == 3 else p.onnx_name
        tol = dict(rtol=2e-3, atol=2e-3) if got.dtype == _np.float16 else dict(rtol=1e-5, atol=1e-5)
        _np.testing.assert_allclose(_np.asarray(got, _np.float64), want[name], **tol,
                                    err_msg="call %d of %s: output %s" % (len(_calls) + 1, self.op_id, name))
    _calls.append(self.op_id)
    return res

_wgk.Kernel.__call__ = _recorded
'''


def run_python(snippet, where):
    op = op_of(snippet, where)
    check = (f"\nif not _calls:\n    raise SystemExit('the snippet made no kernel call')\n"
             f"print('ok: {where}: the Python snippet ran; its %d calls of {op} match the reference' % len(_calls))\n")
    env = dict(os.environ, WGK_LIBRARY=os.path.abspath(LIBWGK), PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(SRC, "python"), REFS] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "snippet.py")
        open(path, "w").write(RECORDER + snippet + check)
        p = subprocess.run([sys.executable, path], cwd=tmp, env=env, capture_output=True, text=True)
        print(p.stdout + p.stderr, end="")
        if p.returncode:
            fail(f"{where}: the Python snippet exited {p.returncode}")


def readme_python():
    run_python(one_block(os.path.join(SRC, "README.md"), "Python", "python"), "README.md")

# ---- the CLI ---------------------------------------------------------------------------------------------------


def run_cli(text, where):
    op = op_of(text, where)
    by_key = {p["key"]: p for p in ports(op)}
    mod = references.load(op)
    if not hasattr(mod, "example_inputs"):
        fail(f"{op}: kernels/{op}/tools/reference.py has no example_inputs(rng): the CLI example's inputs cannot "
             f"be made")
    data = mod.example_inputs(np.random.default_rng(6))
    commands = [c.strip() for c in text.replace("\\\n", " ").splitlines() if c.strip() and not c.startswith("#")]
    ins, attrs = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        before = set()
        for cmd in commands:
            argv = shlex.split(cmd, comments=True)
            if argv[0] != "wgk":
                fail(f"{where}: {cmd!r}: not a wgk command")
            for i, a in enumerate(argv):
                if a == "--in":
                    port, file = argv[i + 1].split("=", 1)
                    name = by_key[port]["onnx_name"] if port in by_key else port
                    if name not in data:
                        fail(f"{where}: {cmd!r}: --in {argv[i + 1]} names no input of the example inputs "
                             f"({', '.join(data)})")
                    np.save(os.path.join(tmp, file), data[name])
                    ins[name] = data[name]
                    before.add(os.path.normpath(os.path.join(tmp, file)))
                if a == "--attr":
                    k, v = argv[i + 1].split("=", 1)
                    attrs[k] = json.loads(v)
            p = subprocess.run([WGK] + argv[1:], cwd=tmp, capture_output=True, text=True)
            print(f"$ {cmd}\n{p.stdout}{p.stderr}", end="")
            if p.returncode:
                fail(f"{where}: {cmd!r} exited {p.returncode}")
        written = [f for f in glob.glob(os.path.join(tmp, "**", "*.npy"), recursive=True)
                   if os.path.normpath(f) not in before]
        if not written:
            fail(f"{where}: the commands wrote no .npy")
        want = mod.reference(ins, attrs)
        for f in written:
            key = os.path.splitext(os.path.basename(f))[0]
            if key not in by_key or by_key[key]["onnx_name"] not in want:
                fail(f"{where}: the commands wrote {os.path.relpath(f, tmp)}, no output of {op}")
            close(np.load(f), want[by_key[key]["onnx_name"]], f"{where}: {os.path.relpath(f, tmp)}")
    print(f"ok: {where}: {', '.join(os.path.relpath(f, tmp) for f in written)} match the reference")


def readme_cli():
    snippet = one_block(os.path.join(SRC, "README.md"), "A first call", "sh")
    op = op_of(snippet, "README.md")
    with tempfile.TemporaryDirectory() as tmp:
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        os.symlink(os.path.abspath(WGK), os.path.join(bindir, "wgk"))
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        # Debian's python3 with python3-numpy, as a newcomer has it (not a developer's pyenv or venv)
        env = dict(os.environ, PATH=os.pathsep.join([bindir, "/usr/bin", "/bin"]))
        p = subprocess.run(["bash", "-euo", "pipefail", "-c", snippet], cwd=work, env=env, capture_output=True,
                           text=True)
        print(p.stdout + p.stderr, end="")
        if p.returncode:
            fail(f"the README's first call exited {p.returncode}")
        y = os.path.join(work, "out", "y.npy")
        if not os.path.exists(y):
            fail("the README's first call wrote no out/y.npy")
        # the files it wrote, by the ONNX names of the ports its `wgk run --in PORT=FILE` names
        by_key = {q["key"]: q["onnx_name"] for q in ports(op)}
        ins = {by_key.get(k, k): np.load(os.path.join(work, f))
               for k, f in re.findall(r"--in (\w+)=(\S+\.npy)", snippet)}
        attrs = {k: json.loads(v) for k, v in re.findall(r"--attr (\w+)=(\S+)", snippet)}
        close(np.load(y), references.reference(op)(ins, attrs)[by_key["y"]], "out/y.npy")
        if "y:" not in p.stdout and "y " not in p.stdout:
            fail("wgk run printed nothing about its output y")
    print("ok: the README's first call ran and out/y.npy matches the reference")

# ---- JavaScript: checked against the contract ------------------------------------------------------------------


def run_js(js, where):
    repo = re.search(r'getKernel\("([^"]+)", \{ version: (\d+) \}\)', js)
    inputs = re.findall(r"(\w+): \{ data: \w+, shape: \[([\d, ]*)\] \}", js)
    outputs = re.search(r"const \{ ([\w, ]+) \} = await kernel\(", js)
    attrs = re.search(r"attrs: \{ ([^}]*) \}", js)
    if not (repo and inputs and outputs and attrs):
        fail(f"{where}: cannot read the example (getKernel, inputs, outputs, attrs):\n{js}")
    attrs = dict(kv.split(": ") for kv in attrs.group(1).split(", "))
    info = binding().load(repo.group(1), version=int(repo.group(2))).info()
    ins = {p["key"] for p in info["ports"] if p["dir"] != "out"}
    outs = {p["key"] for p in info["ports"] if p["dir"] != "in"}
    problems = [f"input {n} is no input port (ports: {', '.join(sorted(ins))})" for n, _ in inputs if n not in ins]
    problems += [f"output {n} is no output port (ports: {', '.join(sorted(outs))})"
                 for n in outputs.group(1).split(", ") if n not in outs]
    declared = {a["name"]: a for a in info["attrs"]}
    problems += [f"attribute {a} is not declared" for a in attrs if a not in declared]
    problems += [f"required attribute {a} is not set" for a, d in declared.items() if d["required"] and a not in attrs]
    if problems:
        fail(f"{where}: the example disagrees with the contract: " + "; ".join(problems))
    argv = [WGK, "explain", repo.group(1), "--version", repo.group(2)]
    for name, shape in inputs:
        dims = [d.strip() for d in shape.split(",") if d.strip()]
        argv += ["--shape", f"{name}={'x'.join(dims) if dims else 'scalar'}"]
    for a, v in attrs.items():
        argv += ["--attr", f"{a}={v}"]
    p = subprocess.run(argv, capture_output=True, text=True)
    print("$ " + " ".join(argv[1:]) + "\n" + p.stdout + p.stderr, end="")
    if p.returncode:
        fail(f"{where}: wgk explain refuses the example's shapes and attributes (exit {p.returncode})")
    print(f"ok: {where}: {len(inputs)} inputs, {len(attrs)} attributes and the outputs agree with the contract; "
          f"a variant accepts it")


RUN = {"c": run_c, "python": run_python, "cli": run_cli, "js": run_js}


def run_cards(kind):
    if kind not in KINDS:
        sys.exit(__doc__)
    heading, lang = KINDS[kind]
    ran = 0
    for op, path in cards().items():
        found = [t for h, l, t in blocks(path) if h.startswith(heading) and l == lang]
        if len(found) > 1:
            fail(f"{path}: {len(found)} ```{lang} blocks under '## {heading}', wanted at most 1")
        for text in found:
            where = os.path.relpath(path, SRC)
            if kind != "js" and op_of(text, where) != op:
                fail(f"{where}: the example loads webgpu-kernels/{op_of(text, where)}, not the card's own {op}")
            RUN[kind](text, where)
            ran += 1
    if not ran:
        fail(f"no card (kernels/*/README.md) has a ```{lang} block under '## {heading}': this case checks nothing")
    print(f"ok: {ran} cards' {kind} examples")


def cover():
    seen, problems = 0, []
    todo = [("README.md", os.path.join(SRC, "README.md"))] + [(op, p) for op, p in cards().items()]
    readme_run = {("The C API", "c"), ("Python", "python"), ("A first call", "sh")}
    for name, path in todo:
        for heading, lang, _ in blocks(path):
            if name == "README.md" and lang not in ("c", "python") and not heading.startswith("A first call"):
                continue  # README's command-line synopsis and set-up commands are reference text, not examples
            if name != "README.md" and not heading.startswith("Use with"):
                continue
            seen += 1
            known = readme_run if name == "README.md" else set(KINDS.values()) | set(NOT_RUN)
            key = next((k for k in known if heading.startswith(k[0]) and k[1] == lang), None)
            if key is None:
                problems.append(f"{os.path.relpath(path, SRC)}: the ```{lang} block under '## {heading}' is run by "
                                f"no test (tests/docs/doc_examples.py)")
            elif key in NOT_RUN:
                print(f"not run: {name}: '## {heading}' ```{lang}: {NOT_RUN[key]}")
    if problems:
        fail("\n".join(problems))
    print(f"ok: all {seen} usage blocks are tested")


CASES = {"readme_c": readme_c, "readme_python": readme_python, "readme_cli": readme_cli, "cards": run_cards,
         "cover": cover}
if CASE not in CASES:
    sys.exit(__doc__)
CASES[CASE](*ARGS)
