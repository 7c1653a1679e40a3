#!/usr/bin/python3
"""The usage examples of the docs run as tests: each is read from the markdown when the test runs, so a test
fails as soon as the doc and wgk disagree. The doc is the source of truth: when one fails, fix the doc (a kernel
card is kernels/<op id>/README.md, its one copy).

usage: doc_examples.py SOURCE_DIR WGK LIBWGK CC CASE     (C snippets also get $WGK_DOC_CFLAGS: the sanitizers)
  readme_c         README's C snippet, compiled against libwgk (-Wall -Wextra -Werror) inside
                   tests/docs/rope_harness.c.in and run: its output checked against a double reference
  readme_python    README's Python snippet, run with the binding in python/
  readme_cli       README's "A first call" shell block, run by bash in a scratch folder with WGK as `wgk` on PATH;
                   the y.npy it writes checked against a double reference of the inputs it wrote
  card_c OP        the card's "Use with wgk (C)" snippet, the same way as readme_c
  card_python OP   the card's "Use with wgk (Python)" snippet, run with the binding; the arrays it names (x, cos,
                   sin, pos, y for RotaryEmbedding; the prompt and the token of SparseAttention) checked against
                   tests/python/references.py
  card_cli OP      the card's "Use with the wgk CLI" commands, run in a scratch folder on random .npy inputs
                   named as the command names them; every .npy it writes checked against a double reference
  card_js OP       the card's @huggingface/kernels example (JavaScript, not run here): every input, output and
                   attribute it names is in the contract (the Python binding's info()), every required attribute
                   is set, and `wgk explain` with its shapes and attributes finds a variant
  cover            every fenced block under a "Use with" heading of every card, and README's C and Python
                   blocks, is run by one of the cases above (or listed in NOT_RUN with the reason)
"""
import glob
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
REFS = os.path.join(HERE, "..", "python")  # references.py: the ops in float64
sys.path.insert(0, REFS)
import references  # noqa: E402  (the ops' numpy references, by op id)
rope_ref = references.load("ai.onnx.RotaryEmbedding").rope_ref
ROPE = "ai.onnx.RotaryEmbedding"
# Blocks shown but not run, with the reason: (file, heading, language).
NOT_RUN = {("com.microsoft.SparseAttention", "Use with `@huggingface/kernels`", "sh"):
           "installs the JavaScript package from npm (no network in tests)"}


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


def card(op):
    return os.path.join(SRC, "kernels", op, "README.md")


# ---- C snippets ----------------------------------------------------------------------------------------------


def run_c(snippet, config, names, expect_shape_text):
    """Compiles snippet inside the harness; names maps the snippet's host arrays to the harness's."""
    if expect_shape_text not in snippet:
        fail(f"the snippet no longer holds {expect_shape_text!r}: update tests/docs/doc_examples.py's shapes to "
             f"the doc's\n{snippet}")
    includes = "\n".join(l for l in snippet.splitlines() if l.startswith("#include"))
    body = "\n".join("  " + l for l in snippet.splitlines() if not l.startswith("#include"))
    defines = "\n".join(f"#define {doc} {ours}" for doc, ours in names.items())
    src = open(os.path.join(HERE, "rope_harness.c.in")).read()
    src = (src.replace("@INCLUDES@", includes).replace("@CONFIG@", config).replace("@DEFINES@", defines)
           .replace("@SNIPPET@", body))
    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, "snippet.c"), os.path.join(tmp, "snippet")
        open(c, "w").write(src)
        libdir = os.path.dirname(os.path.abspath(LIBWGK))
        cc = [CC, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(SRC, "include"), c, "-o", exe,
              "-L", libdir, "-lwgk", "-lm", "-Wl,-rpath," + libdir] + shlex.split(os.environ.get("WGK_DOC_CFLAGS", ""))
        p = subprocess.run(cc, capture_output=True, text=True)
        if p.returncode:
            fail(f"the snippet does not compile:\n{' '.join(cc)}\n{p.stderr}\n--- {c}:\n" + "".join(
                f"{i + 1:4}  {l}\n" for i, l in enumerate(src.splitlines())))
        p = subprocess.run([exe], capture_output=True, text=True)
        print(p.stdout + p.stderr, end="")
        if p.returncode:
            fail(f"the snippet's program exited {p.returncode}")
    print("ok: the snippet compiled, ran and matched the reference")


def readme_c():
    snippet = one_block(os.path.join(SRC, "README.md"), "The C API", "c")
    run_c(snippet, "enum { B = 2, N = 4, S = 3, H = 8, ROWS = 0, POS = 0 };",
          {"x_host": "g_x", "cos_host": "g_cos", "sin_host": "g_sin", "y_host": "g_y"},
          "int64_t xs[4] = {2, 4, 3, 8}, cs[3] = {2, 3, 4};")


def card_c(op):
    if op != ROPE:
        fail(f"no C harness for {op}'s card")
    snippet = one_block(card(op), "Use with wgk (C)", "c")
    run_c(snippet, "enum { B = 1, N = 32, S = 16, H = 128, ROWS = 4096, POS = 1 };",
          {"x_data": "g_x", "cos_data": "g_cos", "sin_data": "g_sin", "y_data": "g_y", "position_ids": "g_pos"},
          "int64_t xs[4] = {1, 32, 16, 128}, cs[2] = {4096, 64}, ps[2] = {1, 16};")

# ---- Python, CLI, JavaScript ---------------------------------------------------------------------------------


def env_with_binding():
    env = dict(os.environ, WGK_LIBRARY=os.path.abspath(LIBWGK), PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(SRC, "python"), REFS] + (
        [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def readme_python():
    snippet = one_block(os.path.join(SRC, "README.md"), "Python", "python")
    with tempfile.TemporaryDirectory() as tmp:
        # the snippet, then checks of what it made against a double reference
        check = ("\nfrom numpy.testing import assert_allclose as _close\n"
                 "import references\n_ref = references.load('ai.onnx.RotaryEmbedding').rope_ref\n"
                 "_close(y, _ref(x, c, s, p, 1), rtol=1e-5, atol=1e-5)\n"
                 "_close(y2, _ref(_ref(x, c, s, p, 0), c, s, p, 0), rtol=1e-5, atol=1e-5)\n"
                 "_close(g.numpy(), _ref(x, c, s, p, 0), rtol=1e-5, atol=1e-5)\n"
                 "print('ok: the README Python snippet ran and matched the reference')\n")
        path = os.path.join(tmp, "readme_snippet.py")
        open(path, "w").write(snippet + check)
        p = subprocess.run([sys.executable, path], cwd=tmp, env=env_with_binding(), capture_output=True, text=True)
        print(p.stdout + p.stderr, end="")
        if p.returncode:
            fail(f"the README's Python snippet exited {p.returncode}")


CARD_PY_CHECKS = {
    ROPE: """
_close(y, rope_ref(x, cos, sin, pos, int(re.search(r"interleaved=(\\d)", SNIPPET).group(1))), rtol=1e-5, atol=1e-5)
""",
    "com.microsoft.SparseAttention": """
z = np.zeros((B, KV, CACHE, H))
want, rk, rv = sparse_ref(query, key, value, z, z, rows, cols, S, [S], N, KV, BLOCK)
_close(y, want, rtol=1e-5, atol=1e-5)
want1, rk, rv = sparse_ref(q1, k1, v1, rk, rv, rows, cols, S + 1, [S + 1], N, KV, BLOCK)
_close(y1, want1, rtol=1e-5, atol=1e-5)
_close(past_key.numpy(), rk, rtol=1e-5, atol=1e-5)
_close(past_value.numpy(), rv, rtol=1e-5, atol=1e-5)
""",
}


def card_python(op):
    if op not in CARD_PY_CHECKS:
        fail(f"no Python check for {op}'s card (CARD_PY_CHECKS)")
    snippet = one_block(card(op), "Use with wgk (Python)", "python")
    check = ("\nimport re\nfrom numpy.testing import assert_allclose as _close\n"
             "import references\nrope_ref = references.load('ai.onnx.RotaryEmbedding').rope_ref\n"
             "sparse_ref = references.load('com.microsoft.SparseAttention').sparse_ref\nSNIPPET = %r\n" % snippet + CARD_PY_CHECKS[op] +
             "print('ok: the card\\'s Python snippet ran and matched the reference')\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "card_snippet.py")
        open(path, "w").write(snippet + check)
        p = subprocess.run([sys.executable, path], cwd=tmp, env=env_with_binding(), capture_output=True, text=True)
        print(p.stdout + p.stderr, end="")
        if p.returncode:
            fail(f"{op}'s Python snippet exited {p.returncode}")


def card_cli(op):
    if op != ROPE:
        fail(f"no CLI inputs for {op}'s card")
    text = one_block(card(op), "Use with the wgk CLI", "sh")
    commands = [c.strip() for c in text.replace("\\\n", " ").splitlines() if c.strip() and not c.startswith("#")]
    rng = np.random.default_rng(6)
    theta = rng.uniform(0, 6, (10, 4))
    data = {"x": rng.uniform(-1, 1, (2, 3, 5, 8)).astype(np.float32), "cos": np.cos(theta).astype(np.float32),
            "sin": np.sin(theta).astype(np.float32), "positionIds": rng.integers(0, 10, (2, 5)).astype(np.int64)}
    with tempfile.TemporaryDirectory() as tmp:
        before = set()
        for cmd in commands:
            argv = shlex.split(cmd, comments=True)
            if argv[0] != "wgk":
                fail(f"{cmd!r}: not a wgk command")
            attrs = {}
            for i, a in enumerate(argv):
                if a == "--in":
                    port, file = argv[i + 1].split("=", 1)
                    if port not in data:
                        fail(f"{cmd!r}: --in {argv[i + 1]} names no input this test knows ({', '.join(data)})")
                    np.save(os.path.join(tmp, file), data[port])
                    before.add(os.path.normpath(os.path.join(tmp, file)))
                if a == "--attr":
                    k, v = argv[i + 1].split("=", 1)
                    attrs[k] = int(v)
            p = subprocess.run([WGK] + argv[1:], cwd=tmp, capture_output=True, text=True)
            print(f"$ {cmd}\n{p.stdout}{p.stderr}", end="")
            if p.returncode:
                fail(f"{cmd!r} exited {p.returncode}")
        written = [f for f in glob.glob(os.path.join(tmp, "**", "*.npy"), recursive=True)
                   if os.path.normpath(f) not in before]
        if [os.path.basename(f) for f in written] != ["y.npy"]:
            fail(f"the commands wrote {[os.path.relpath(f, tmp) for f in written]}, wanted one y.npy")
        want = rope_ref(data["x"], data["cos"], data["sin"], data["positionIds"], attrs.get("interleaved", 0))
        np.testing.assert_allclose(np.load(written[0]), want, rtol=1e-5, atol=1e-5)
    print(f"ok: {os.path.relpath(written[0], tmp)} matches the reference")


def readme_cli():
    snippet = one_block(os.path.join(SRC, "README.md"), "A first call", "sh")
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
        ld = {n: np.load(os.path.join(work, n + ".npy")) for n in ("x", "cos", "sin", "pos")}
        want = rope_ref(ld["x"], ld["cos"], ld["sin"], ld["pos"], 0)
        np.testing.assert_allclose(np.load(y), want, rtol=1e-5, atol=1e-5)
        if "y:" not in p.stdout and "y " not in p.stdout:
            fail("wgk run printed nothing about its output y")
    print("ok: the README's first call ran and out/y.npy matches the reference")


def card_js(op):
    js = one_block(card(op), "Use with `@huggingface/kernels`", "js")
    repo = re.search(r'getKernel\("([^"]+)", \{ version: (\d+) \}\)', js)
    inputs = re.findall(r"(\w+): \{ data: \w+, shape: \[([\d, ]*)\] \}", js)
    outputs = re.search(r"const \{ ([\w, ]+) \} = await kernel\(", js)
    attrs = re.search(r"attrs: \{ ([^}]*) \}", js)
    if not (repo and inputs and outputs and attrs):
        fail(f"cannot read the example (getKernel, inputs, outputs, attrs):\n{js}")
    attrs = dict(kv.split(": ") for kv in attrs.group(1).split(", "))
    sys.path.insert(0, os.path.join(SRC, "python"))
    os.environ["WGK_LIBRARY"] = os.path.abspath(LIBWGK)
    import wgk
    info = wgk.load(repo.group(1), version=int(repo.group(2))).info()
    ins = {p["key"] for p in info["ports"] if p["dir"] != "out"}
    outs = {p["key"] for p in info["ports"] if p["dir"] != "in"}
    problems = [f"input {n} is no input port (ports: {', '.join(sorted(ins))})" for n, _ in inputs if n not in ins]
    problems += [f"output {n} is no output port (ports: {', '.join(sorted(outs))})"
                 for n in outputs.group(1).split(", ") if n not in outs]
    declared = {a["name"]: a for a in info["attrs"]}
    problems += [f"attribute {a} is not declared" for a in attrs if a not in declared]
    problems += [f"required attribute {a} is not set" for a, d in declared.items() if d["required"] and a not in attrs]
    if problems:
        fail("the example disagrees with the contract: " + "; ".join(problems))
    argv = [WGK, "explain", repo.group(1), "--version", repo.group(2)]
    for name, shape in inputs:
        dims = [d.strip() for d in shape.split(",") if d.strip()]
        argv += ["--shape", f"{name}={'x'.join(dims) if dims else 'scalar'}"]
    for a, v in attrs.items():
        argv += ["--attr", f"{a}={v}"]
    p = subprocess.run(argv, capture_output=True, text=True)
    print("$ " + " ".join(argv[1:]) + "\n" + p.stdout + p.stderr, end="")
    if p.returncode:
        fail(f"wgk explain refuses the example's shapes and attributes (exit {p.returncode})")
    print(f"ok: {len(inputs)} inputs, {len(attrs)} attributes and the outputs agree with the contract; a variant accepts it")


HANDLED = {("README.md", "The C API", "c"), ("README.md", "Python", "python"), ("README.md", "A first call", "sh"),
           (ROPE, "Use with wgk (C)", "c"), (ROPE, "Use with the wgk CLI", "sh"),
           (ROPE, "Use with wgk (Python)", "python"), ("com.microsoft.SparseAttention", "Use with wgk (Python)", "python"),
           ("com.microsoft.SparseAttention", "Use with `@huggingface/kernels`", "js")}


def cover():
    seen, problems = 0, []
    todo = [("README.md", os.path.join(SRC, "README.md"))] + [
        (os.path.basename(os.path.dirname(p)), p) for p in sorted(glob.glob(os.path.join(SRC, "kernels", "*", "README.md")))]
    for name, path in todo:
        for heading, lang, _ in blocks(path):
            if name == "README.md" and lang not in ("c", "python") and not heading.startswith("A first call"):
                continue  # README's command-line synopsis and set-up commands are reference text, not examples
            if name != "README.md" and not heading.startswith("Use with"):
                continue
            seen += 1
            key = next((k for k in HANDLED | set(NOT_RUN) if k[0] == name and heading.startswith(k[1]) and k[2] == lang),
                       None)
            if key is None:
                problems.append(f"{os.path.relpath(path, SRC)}: the ```{lang} block under '## {heading}' is run by "
                                f"no test (tests/docs/doc_examples.py)")
            elif key in NOT_RUN:
                print(f"not run: {name}: '## {heading}' ```{lang}: {NOT_RUN[key]}")
    if problems:
        fail("\n".join(problems))
    print(f"ok: all {seen} usage blocks are tested")


CASES = {"readme_c": readme_c, "readme_python": readme_python, "readme_cli": readme_cli, "card_c": card_c, "card_cli": card_cli,
         "card_js": card_js, "card_python": card_python, "cover": cover}
if CASE not in CASES:
    sys.exit(__doc__)
CASES[CASE](*ARGS)
