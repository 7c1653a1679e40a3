#!/usr/bin/python3
"""Bad command-line and file inputs: each fails with one clear line naming the thing and the rule, and argument
errors are found before a GPU context is made (--adapter names no adapter: reaching the GPU would say so instead).

usage: bad_inputs_test.py WGK SOURCE_DIR [--host | --gpu]
  --host: only the cases that need no GPU (ctest cli_bad_inputs_host, label unit: make test-asan-quick runs it
          against the sanitizer build, and any sanitizer report in a command's output is a failure)
  --gpu:  only the cases that need an adapter (ctest cli_bad_inputs, label gpu); neither: all
"""
import json, os, shutil, subprocess, sys, tempfile

WGK, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PART = sys.argv[3] if len(sys.argv) > 3 else ""
HOST, GPU = PART != "--gpu", PART != "--host"
SANITIZER = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: UndefinedBehaviorSanitizer")
SCALE = os.path.join(SRC, "tests", "cli", "scale")
ROPE = os.path.join(SRC, "kernels", "ai.onnx.RotaryEmbedding")
NOGPU = ["--adapter", "no-such-adapter-xyz"]
TIMEOUT = float(os.environ.get("WGK_CLI_TIMEOUT", "240"))  # per command
failures = []


def sanitizer_report(stderr):
    """A sanitizer report of ours in stderr. Every report counts but one: Mesa's 128 bytes from vkCreateInstance
    (the leak tests/lsan.supp names). By exit the Vulkan loader has unloaded the driver, so its one frame below
    the allocator is an address that no longer belongs to it: "<unknown module>", or whatever system library was
    mapped there since (libhogweed, libkrb5 were seen). So that leak is recognised by its form, not by a name: one
    block of 128 bytes, the allocator and one frame outside wgk, under /usr/lib or unknown."""
    if any(m in stderr for m in SANITIZER[:1] + SANITIZER[2:]):
        return True
    if SANITIZER[1] not in stderr:
        return False
    for block in stderr.split("Direct leak of ")[1:] + stderr.split("Indirect leak of ")[1:]:
        frames = [l.strip() for l in block.split("\n\n")[0].splitlines() if l.strip().startswith("#")]
        driver = (block.startswith("128 byte(s) in 1 object(s)") and len(frames) == 2
                  and ("<unknown module>" in frames[1] or "(/usr/lib/" in frames[1]))
        if not driver:
            return True
    return False


def wgk(args, want, rc=None, cwd=None, env=None, prog=None, timeout=TIMEOUT):
    e = dict(os.environ)
    e.update(env or {})
    try:
        p = subprocess.run([prog or WGK, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=e)
    except subprocess.TimeoutExpired:
        failures.append(f"wgk {' '.join(args)}: no answer within {timeout} s, wanted '{want}'")
        return None
    ok = p.returncode != 0 if rc is None else p.returncode == rc
    if sanitizer_report(p.stderr):
        failures.append(f"wgk {' '.join(args)}: a sanitizer report\n{p.stderr[-4000:]}")
    if not ok or want not in p.stderr + p.stdout:
        failures.append(f"wgk {' '.join(args)}: exit {p.returncode}, wanted '{want}'\n{p.stdout}{p.stderr}")
    return p


tmp = tempfile.mkdtemp()
try:
    def npy(name, dict_text, data):
        h = dict_text.encode()
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + bytes([len(h) & 255, len(h) >> 8]) + h + data)
        return os.path.join(tmp, name)

    if HOST:
        # 1. .npy: not a regular file, declared size against the file's, a NUL in descr
        wgk(["run", SCALE, "--in", "x=/dev/zero", *NOGPU], "/dev/zero: npy: a character device, not a regular file")
        big = npy("big.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4000000000,), }", b"\0" * 4)
        wgk(["run", SCALE, "--in", "x=" + big, *NOGPU], "need 16000000000 data bytes, the file has 4")
        nul = npy("nul.npy", "{'descr': '<f4\0zz', 'fortran_order': False, 'shape': (1,), }", b"\0" * 4)
        wgk(["run", SCALE, "--in", "x=" + nul, *NOGPU], "'descr' contains a NUL byte")

        # 2. includes: a symlink out of the package, and a ../ path
        pkg = os.path.join(tmp, "scale")
        shutil.copytree(SCALE, pkg)
        web = os.path.join(pkg, "build", "webgpu")
        os.symlink("/etc/passwd", os.path.join(web, "evil.wgsl.jinja"))
        tmpl = os.path.join(web, "scale.wgsl.jinja")
        text = open(tmpl).read()
        shape = ["--shape", "X=4", "--device", os.path.join(SRC, "tests", "plan", "lavapipe.device.json")]
        open(tmpl, "w").write('{% include "evil.wgsl.jinja" %}\n' + text)
        wgk(["render", pkg, *shape], "outside the package root")
        open(tmpl, "w").write('{% include "../../README.md" %}\n' + text)
        wgk(["render", pkg, *shape], "escapes the package root")
        # a misspelled template name: the include's and the manifest's, each with the near name (issue 35 item 6)
        open(tmpl, "w").write('{% include "scael.wgsl.jinja" %}\n' + text)
        wgk(["render", pkg, *shape], "scael.wgsl.jinja:1:1: cannot open: No such file or directory; did you mean "
                                     "'scale.wgsl.jinja'?")
        open(tmpl, "w").write(text)
        manifest = os.path.join(web, "manifest.json")
        good = open(manifest).read()
        open(manifest, "w").write(good.replace('"scale.wgsl.jinja"', '"sacle.wgsl.jinja"'))
        wgk(["render", pkg, *shape], "sacle.wgsl.jinja: cannot open: No such file or directory; did you mean 'scale.wgsl.jinja'?")
        open(manifest, "w").write(good)

        # issue 37 security 2 and data touched: `wgk convert` reads nothing outside SRC (symlinks resolved), checks
        # SRC whole before DST is made, and leaves an existing DST as it was when it refuses
        seed = os.path.join(SRC, "tests", "cli", "seed-packages", "ai.onnx.RotaryEmbedding")
        dst = os.path.join(tmp, "conv-dst")
        wgk(["convert", os.path.join(tmp, "no-such-seed"), dst], "no-such-seed: cannot open: No such file or directory")
        if os.path.exists(dst):
            failures.append("wgk convert of a missing SRC created DST")
        linked = os.path.join(tmp, "conv-linked")
        os.makedirs(os.path.join(linked, "build", "webgpu"))
        os.makedirs(os.path.join(tmp, "outside"))
        shutil.copy(os.path.join(seed, "build", "webgpu", "manifest.json"), os.path.join(tmp, "outside", "manifest.json"))
        os.symlink(os.path.join(tmp, "outside", "manifest.json"), os.path.join(linked, "build", "webgpu", "manifest.json"))
        wgk(["convert", linked, dst], "outside the source package")
        if os.path.exists(dst):
            failures.append("wgk convert of a symlink out of SRC created DST")
        # the seed fixture's manifest without its templates: refused, and an existing DST is not overwritten
        os.makedirs(os.path.join(dst, "build", "webgpu"))
        open(os.path.join(dst, "build", "webgpu", "manifest.json"), "w").write("old")
        wgk(["convert", seed, dst], "cannot open: No such file or directory")
        if open(os.path.join(dst, "build", "webgpu", "manifest.json")).read() != "old" or \
                sorted(os.listdir(os.path.join(dst, "build", "webgpu"))) != ["manifest.json"]:
            failures.append("a refused wgk convert wrote into an existing DST")

        # issue 37 item 8: convert writes beside DST, load-checks the result there, then renames it into place, and
        # leaves no temporary folder; a good convert into an existing DST keeps its other files. A seed whose
        # templates include a file converts with that file copied and in every variant's template list (the
        # public loader fetches a variant's templates from its list), so the result loads
        sys.path.insert(0, os.path.join(SRC, "tests", "cli"))
        import seed_packages
        whole = [p for p in seed_packages.materialize(SRC, os.path.join(tmp, "seeds"), WGK)
                 if p.endswith("ai.onnx.RotaryEmbedding")][0]
        inc = os.path.join(tmp, "seed-inc")
        shutil.copytree(whole, inc)
        iweb = os.path.join(inc, "build", "webgpu")
        for f in os.listdir(iweb):
            if f.endswith(".wgsl.jinja"):
                t = open(os.path.join(iweb, f)).read()
                open(os.path.join(iweb, f), "w").write('{% include "common.wgsl.jinja" %}\n' + t)
        open(os.path.join(iweb, "common.wgsl.jinja"), "w").write("// common\n")
        if os.path.exists(os.path.join(iweb, "metadata.json")):
            os.remove(os.path.join(iweb, "metadata.json"))
        wgk(["convert", inc, dst], "manifest spec 2.1 with the public metadata layout", rc=0)
        conv_meta = json.load(open(os.path.join(dst, "build", "webgpu", "metadata.json")))
        lists = conv_meta["webgpu"]["variants"]
        if not lists or any("common.wgsl.jinja" not in v for v in lists.values()) or \
                not os.path.exists(os.path.join(dst, "build", "webgpu", "common.wgsl.jinja")):
            failures.append(f"wgk convert left an included template out of a variant's list or the package: {lists}")
        if [f for f in os.listdir(tmp) if "wgk-convert" in f]:
            failures.append(f"wgk convert left a temporary folder: {os.listdir(tmp)}")
        open(os.path.join(dst, "extra.txt"), "w").write("keep")
        wgk(["convert", whole, dst], "manifest spec 2.1 with the public metadata layout", rc=0)
        wgk(["info", dst], "ai.onnx.RotaryEmbedding", rc=0)
        if not os.path.exists(os.path.join(dst, "extra.txt")):
            failures.append("wgk convert into an existing DST removed a file it does not write")

        # issue 37 hangs 6: the tuning cache is read only as a regular file (a FIFO blocked for ever)
        fifo = os.path.join(tmp, "tuning.fifo")
        os.mkfifo(fifo)
        wgk(["tune", "--show"], "not a regular file", env={"WGK_TUNING_CACHE": fifo})
        wgk(["tune", "--show"], "not a regular file", env={"WGK_TUNING_CACHE": "/dev/zero"})

        # issue 38: a device description is read through the one file reader (the library refuses a FIFO itself)
        dev_fifo = os.path.join(tmp, "device.fifo")
        os.mkfifo(dev_fifo)
        wgk(["explain", SCALE, "--device", dev_fifo], "not a regular file", timeout=60)

        # issue 38: the search reads the bundled copy's metadata.json (its contract version) through the one file
        # reader: a FIFO there is refused, not waited on. A copy of wgk outside the build tree takes
        # <prefix>/share/wgk/kernels as its bundled kernels, where the FIFO is; the old reader hung in fopen.
        prefix = os.path.join(tmp, "prefix")
        fifo_pkg = os.path.join(prefix, "share", "wgk", "kernels", "ai.onnx.Fifo", "build", "webgpu")
        os.makedirs(fifo_pkg)
        os.makedirs(os.path.join(prefix, "bin"))
        os.mkfifo(os.path.join(fifo_pkg, "metadata.json"))
        moved = shutil.copy(WGK, os.path.join(prefix, "bin", "wgk"))
        alone = {"WGK_KERNEL_PATH": "", "HF_HUB_OFFLINE": "1", "HF_HOME": os.path.join(tmp, "hf"), "HF_HUB_CACHE": ""}
        wgk(["info", "ai.onnx.Fifo"], "metadata.json: not a regular file", env=alone, prog=moved, timeout=60)

        # issue 37 hangs 1 and unclear errors: a verified package whose templates include each other as a DAG loads
        # in linear time (each file checked once per variant, not once per path: 3^13 paths here), and an include
        # cycle is reported as a cycle, not as includes nesting too deep
        relu = os.path.join(SRC, "tests", "manifest", "spec21", "ai.onnx.Relu")
        dag = os.path.join(tmp, "dag")
        shutil.copytree(relu, dag)
        dweb = os.path.join(dag, "build", "webgpu")
        n = 15
        for i in range(n):
            open(os.path.join(dweb, f"d{i}.wgsl.jinja"), "w").write(
                "".join(f'{{% include "d{j}.wgsl.jinja" %}}\n' * 2 for j in range(i + 1, n)) + f"// d{i}\n")
        rt = os.path.join(dweb, "relu.wgsl.jinja")
        open(rt, "w").write('{# {% include "d0.wgsl.jinja" %} #}\n' + open(rt).read())
        wgk(["pack", dag], "", rc=0)
        # no clock: the path-by-path check never finishes (about 3^13 paths, each re-reading its files), so the old
        # code fails at the per-command TIMEOUT; the linear check answers at once
        wgk(["info", dag], "ai.onnx.Relu", rc=0)
        open(os.path.join(dweb, f"d{n - 1}.wgsl.jinja"), "w").write('{% include "d3.wgsl.jinja" %}\n')
        cycle = "templates include each other in a cycle: d3.wgsl.jinja -> d4.wgsl.jinja"
        wgk(["pack", dag], cycle)
        wgk(["info", dag], cycle)

        # issue 37 hangs 3: repeat groups are measured before any pass is made, as the product of the counts where no
        # inner count reads the indices: 65535 x 65535 loops of a group whose own group runs 0 times are refused
        # naming the product (walking them took 23 s under ASan), 65535 x 3 passes at the pass bound; an inner count
        # that reads repeat.* is walked, and stops at the bound after 16 iterations of 65535
        rsq = os.path.join(SRC, "tests", "spec21run", "demo.ReduceSumSquare")
        rep = os.path.join(tmp, "repeat")
        shutil.copytree(rsq, rep)
        os.remove(os.path.join(rep, "build", "webgpu", "metadata.json"))
        rman = os.path.join(rep, "build", "webgpu", "manifest.json")
        lavapipe = ["--device", os.path.join(SRC, "tests", "plan", "lavapipe.device.json")]
        for mode, want in (("empty", "repeat group fold runs 65535 times and each iteration runs 0 passes and 65535 "
                                     "inner loop iterations: 4294901760 loop iterations in all, empty groups included, "
                                     "above the bound of 1048576"),
                           ("reads", "repeat group fold runs 65535 times and its first 16 iterations run 0 passes and "
                                     "1048560 inner loop iterations: at least 1114095 loop iterations in all"),
                           ("many", "each iteration runs 3 passes and 0 inner loop iterations: 196606 passes in all, "
                                    "above the bound of 131072 passes (counted before any pass is made)")):
            m = json.load(open(os.path.join(rsq, "build", "webgpu", "manifest.json")))
            v = m["variants"][0]["variants"][0]
            fold = [x for x in v["passes"] if x.get("id") == "fold"][0]
            sq = [x for x in v["passes"] if x.get("id") == "square"][0]
            fold["repeat"]["count"] = "65535"
            if mode in ("empty", "reads"):
                count = "65535" if mode == "empty" else "65535 + repeat.index * 0"
                fold["passes"] = [{"id": "inner", "repeat": {"index": "k", "count": count}, "passes": [
                    {"id": "never", "repeat": {"index": "z", "count": "0"}, "passes": [dict(sq, id="p0")]}]}]
            else:
                fold["passes"] = [dict(sq, id=f"p{i}") for i in range(3)]
            json.dump(m, open(rman, "w"))
            wgk(["explain", rep, "--shape", "data=4x8", *lavapipe], want)

        # issue 37 hangs 2: variant families. Every family check goes through an index: a 316 x 316 axes family
        # that excludes all cells but one (99,855 exclude entries) loads at once (each cell was compared with every
        # exclude entry: 5e9 comparisons, minutes), and the expanded variants are bounded by their bytes of JSON
        # (10,000 copies of a 400 KB template were 4 GB before any variant count bound applied)
        fam = os.path.join(tmp, "family")
        shutil.copytree(relu, fam)
        fweb = os.path.join(fam, "build", "webgpu")
        os.remove(os.path.join(fweb, "metadata.json"))
        base = json.load(open(os.path.join(relu, "build", "webgpu", "manifest.json")))
        m = json.loads(json.dumps(base))
        tv = dict(m["variants"][0], id="v_{a}_{b}")
        n = 316
        m["variants"] = [{"axes": {"ax": [{"$key": f"a{i}", "a": i} for i in range(n)],
                                   "bx": [{"$key": f"b{i}", "b": i} for i in range(n)]},
                          "exclude": [{"ax": f"a{i}", "bx": f"b{j}"} for i in range(n) for j in range(n) if i or j],
                          "cases": [{"ax": "a0", "bx": "b0", "z": 1}], "variants": [tv]}]
        json.dump(m, open(os.path.join(fweb, "manifest.json"), "w"))
        wgk(["info", fam], "v_0_0", rc=0)
        m["variants"][0]["exclude"].append({"ax": "a5", "bx": "b7"})
        json.dump(m, open(os.path.join(fweb, "manifest.json"), "w"))
        wgk(["info", fam], "duplicate excluded cell [a5]")
        m = json.loads(json.dumps(base))
        m["variants"] = [{"cases": [{"k": f"c{i}"} for i in range(10000)],
                          "variants": [dict(m["variants"][0], id="v_{k}", description="x" * 400000)]}]
        json.dump(m, open(os.path.join(fweb, "manifest.json"), "w"))
        wgk(["info", fam], "case 167 template 0: the variants expanded so far take 67251130 bytes of JSON, above the "
                           "bound of 67108864")
        m["variants"] = [{"cases": [{"k": f"c{i}"} for i in range(1000)], "variants": [dict(tv, id="v_{k}_%d" % u)
                                                                                    for u in range(101)]}]
        json.dump(m, open(os.path.join(fweb, "manifest.json"), "w"))
        wgk(["info", fam], "families expand to 101000 variants (at most 100000)")

        # issue 37 hangs 4: lists built by expressions and templates are bounded by items (1,000,000) and, with the
        # strings, by the bytes one evaluation or render builds (64 MiB): a list doubled in a loop and one grown an
        # item at a time (quadratic copying) are refused naming the bound, the value and the place
        for name, text, want in (
                ("double", "{% set ns = namespace(x=range(1000000)) %}{% for i in range(30) %}"
                           "{% set ns.x = ns.x + ns.x %}{% endfor %}{{ ns.x|length }}\n",
                 "double.jinja:1:86: list of 2000000 items, above the bound of 1000000 items a list may have"),
                ("grow", "{% set ns = namespace(x=[]) %}{% for i in range(1000000) %}"
                         "{% set ns.x = ns.x + [i] %}{% endfor %}{{ ns.x|length }}\n",
                 "grow.jinja:1:79: lists and strings built here total")):
            open(os.path.join(tmp, name + ".jinja"), "w").write(text)
            wgk(["template", os.path.join(tmp, name + ".jinja")], want)
        wgk(["eval", "range(1000000) + [1]"], "<expr>:1:16: list of 1000001 items, above the bound of 1000000")

        # issue 37 unclear errors: 20,000 uniform fields name the bound (it was "out of memory planning a pass")
        many = os.path.join(tmp, "fields")
        shutil.copytree(os.path.join(SRC, "tests", "manifest", "invalid", "spec21-elementtype-bogus"), many)
        mf = os.path.join(many, "manifest.json")
        m = json.load(open(mf))
        m["variants"][0]["passes"][0]["bindings"][1] = "y"
        m["variants"][0]["passes"][0]["bindings"][2]["struct"] = [
            {"name": f"f{i}", "type": "u32", "value": "1"} for i in range(20000)]
        json.dump(m, open(mf, "w"))
        wgk(["info", many], "20000 struct fields, above the bound of 16384")

        # issue 37 unclear errors: the strings inside a literal derive are expressions, parsed at load like a string
        # derive's, each refusal naming its own path (a call failed with a bare "unexpected end of expression")
        lit = os.path.join(tmp, "literal-derive")
        shutil.copytree(relu, lit)
        os.remove(os.path.join(lit, "build", "webgpu", "metadata.json"))
        lman = os.path.join(lit, "build", "webgpu", "manifest.json")
        for derive, want in (({"o": {"k": ""}}, "derive.o.k: empty expression"),
                             ({"l": [1, "2 +"]}, "derive.l[1]: expression '2 +' does not parse")):
            m = json.load(open(os.path.join(relu, "build", "webgpu", "manifest.json")))
            m["derive"] = derive
            m["variants"][0]["when"] = m["variants"][0]["when"] + [list(derive)[0] + " != 0"]
            json.dump(m, open(lman, "w"), indent=1)
            wgk(["info", lit], want)

        # 3. --dtype for a type variable the package does not have
        wgk(["explain", SCALE, *shape, "--dtype", "Q=float16"], "has no type variable 'Q' (known: T)")

        # 4. a ./webgpu-kernels/<op id> folder does not shadow the search path
        os.makedirs(os.path.join(tmp, "cwd", "webgpu-kernels"))
        shutil.copytree(SCALE, os.path.join(tmp, "cwd", "webgpu-kernels", "test.Scale"))
        wgk(["info", "webgpu-kernels/test.Scale"], "write ./webgpu-kernels/test.Scale to open it",
            cwd=os.path.join(tmp, "cwd"), env={"WGK_KERNEL_PATH": tmp})
        wgk(["info", "./webgpu-kernels/test.Scale"], "test.Scale", rc=0, cwd=os.path.join(tmp, "cwd"))

        # 5. a --version the package cannot confirm
        rope = os.path.join(tmp, "rope")
        shutil.copytree(ROPE, rope)
        meta = os.path.join(rope, "build", "webgpu", "metadata.json")
        m = json.load(open(meta))
        del m["version"]
        json.dump(m, open(meta, "w"))
        wgk(["info", rope, "--version", "7"], f"{rope}: version 7 asked, but the package here records no version")
        wgk(["info", SCALE, "--version", "1"], "records no version (unverified")

        # 6. "NaN" in int64 test data
        bad = os.path.join(tmp, "badtest")
        shutil.copytree(SCALE, bad)
        tj = os.path.join(bad, "build", "webgpu", "test.json")
        doc = json.load(open(tj))
        doc["cases"] = [{"id": "nan", "expectError": "x", "inputs": {"x": {"dtype": "int64", "shape": [1], "data": ["NaN"]}}}]
        open(tj, "w").write(json.dumps(doc, indent=1))
        wgk(["test", bad, *NOGPU], 'cases[0].inputs.x.data[0]: "NaN" in int64 data')

        # 7. argument errors before the GPU
        afile = os.path.join(tmp, "afile")
        open(afile, "w").write("x")
        wgk(["run", SCALE, "--in", "x=" + big, "--out", afile, *NOGPU], f"--out {afile}: exists and is not a folder")
        wgk(["run", SCALE, "--in", "x=" + big, "--out", os.path.join(tmp, "y=y.npy"), *NOGPU], "--out takes a folder to write every output into as <port>.npy")
        wgk(["bench", ROPE, "--json", "/missing/dir/x.json", *NOGPU], "the folder /missing/dir does not exist")
        wgk(["bench", ROPE, "--case", "nope", *NOGPU], "--case nope: no bench.json case id contains 'nope'")
        wgk(["tune", ROPE, "--case", "nope", *NOGPU], "--case nope: no bench.json case id contains 'nope'")
        wgk(["test", SCALE, "--case", "nope", *NOGPU], "--case nope: no test.json case id contains 'nope'")
        wgk(["test", SCALE, "--list", *NOGPU], "inline_f32", rc=0)  # listing needs no GPU
        # --shard K/N: the shards of a listing partition it, in order, each of N about the same size
        every = wgk(["test", ROPE, "--list", *NOGPU], "", rc=0).stdout.split()
        shards = [wgk(["test", ROPE, "--list", "--shard", f"{k}/3", *NOGPU], "", rc=0).stdout.split() for k in (1, 2, 3)]
        if sorted(sum(shards, [])) != sorted(every) or any(abs(len(s) - len(every) / 3) >= 1 for s in shards) \
                or shards[1] != every[1::3]:
            failures.append(f"--shard K/3 does not split the {len(every)} cases into thirds: {[len(s) for s in shards]}")
        for bad in ("0/3", "4/3", "1/0", "1/x", "x/2", "2", "1/2/3"):
            wgk(["test", ROPE, "--list", "--shard", bad, *NOGPU], f"--shard {bad}: expected K/N with 1 <= K <= N", rc=2)
        wgk(["test", ROPE, "--shard", "1/2", "--shard", "2/2", *NOGPU], "--shard", rc=2)

        # 8. unclear errors made clear
        wgk(["explain", "--bogus"], "unknown option '--bogus'", rc=2)
        wgk(["explain", SCALE] + ["--shape", "X=1"] * 40, "too many --shape options (the limit is 32)", rc=2)
        wgk(["explain", SCALE, "--shape", "X=9007199254740993"], "dim 0 (9007199254740993) is above the limit of 2^53")
        wgk(["explain", SCALE, "--shape", "X=2x99999999999999999999"], "dim 1 (99999999999999999999) is above the limit")
        wgk(["explain", SCALE, "--shape", "X=1x1x1x1x1x1x1x1x1"], "more than WGK_MAX_DIMS = 8 dims")
        wgk(["run", SCALE, "--in", "x=" + big, "--attr", "scale=9007199254740993", *NOGPU], "not exactly representable")
        wgk(["run", SCALE, "--in", "x=a.npy", "--in", "x=b.npy", *NOGPU], "--in x given twice ('a.npy' and 'b.npy')")
        wgk(["run", SCALE, "--in", "x=", *NOGPU], "--in x=: no value given for 'x' (give the .npy file: port=FILE.npy)")
        wgk(["run", ""], "an empty package name")

        # a template's include goes through the one file reader: a FIFO is refused, not waited on
        os.mkfifo(os.path.join(tmp, "fifo.wgsl"))
        inc_fifo, inc_missing = os.path.join(tmp, "inc_fifo.jinja"), os.path.join(tmp, "inc_missing.jinja")
        open(inc_fifo, "w").write('a {% include "fifo.wgsl" %} b\n')
        open(inc_missing, "w").write('x {% include "missing.wgsl" %}\n')

        # every subcommand: unknown options, missing or bad values, given twice
        for args, want in [
            (["run", SCALE, "--calls", "0"], "--calls takes an integer in [1, 1000000], not '0'"),
            (["run", SCALE, "--repeat", "2"], "--repeat is now --calls N (how many times the call runs)"),
            (["run", SCALE, "--out"], "--out needs a value"),
            (["run", SCALE, "--out", "a", "--out", "b"], "--out given twice"),
            (["run", SCALE, "--bogus"], "unknown option '--bogus'"),
            (["run", SCALE, "--in", "y=" + big], "has no input port 'y' (it is an output)"),
            (["run", SCALE, "--in", "x=" + big, "--tunable", "WORKGROUP_SIZE=1.5"], "--tunable WORKGROUP_SIZE takes an integer"),
            (["run", SCALE, "--in", "x=" + big, "--attr", "colour=1"], "has no attribute 'colour' (known: scale, bias)"),
            (["test", SCALE, "--case", "a", "--case", "b"], "--case given twice"),
            (["test", SCALE, "extra"], "unexpected argument 'extra'"),
            (["info", SCALE, "--bogus"], "unknown option '--bogus'"),
            (["info", SCALE, "--version", "1", "--version", "2"], "--version given twice"),
            (["info", SCALE, "--revision", "xyz"], "--revision takes a 40-hex commit"),
            (["devices", "--bogus"], "unknown option '--bogus'"),
            (["eval", "1", "--scope"], "--scope needs a value"),
            (["eval", "1", "--scope", "/dev/zero"], "not a regular file"),
            (["template", "/dev/zero"], "not a regular file"),
            (["template", "a", "--bogus"], "unknown option '--bogus'"),
            (["template", inc_fifo], "inc_fifo.jinja:1:3: 'fifo.wgsl': not a regular file"),  # hung before
            (["template", inc_missing], "inc_missing.jinja:1:3: 'missing.wgsl': cannot open: No such file"),
            (["onnx-test", "--rtol", "abc", "x"], "--rtol takes a finite number >= 0, not 'abc'"),
            (["onnx-test", "/missing/dir"], "/missing/dir: No such file or directory"),
            (["smoke", "--n", "5x"], "--n takes an integer in [1, 268435456], not '5x'"),
            (["smoke", "--seed", "abc"], "--seed takes an integer"),
            (["tune", SCALE, "--iterations", "-3"], "--iterations takes an integer in [1, 100000]"),
            (["tune", SCALE, "--repeat", "3"], "--repeat is now --iterations N (the timed iterations per candidate)"),
            (["bench", SCALE, "--iterations", "1", "--iterations", "2"], "--iterations given twice"),
            (["bench", SCALE, "--repeat", "7"], "--repeat is now --iterations N (the timed iterations per case; the 3 repeats"),
            (["explain", SCALE, "--device", "/dev/zero"], "not a regular file"),
            (["explain", SCALE, "--dtype", "T=float64", *shape], "'float64' is not a dtype T allows (float32, float16)"),
            (["explain", SCALE, "--absent", "nope", *shape], "has no port 'nope'"),
            (["render", SCALE, "--pass", "a", "--pass", "b"], "--pass given twice"),
            (["explain", SCALE, "--attr", "scale=1e400", *shape], "not a number wgk can hold exactly"),
            (["explain", SCALE, "--adapter", ""], "--adapter takes an adapter index or a name substring"),
            (["run", SCALE, "--out", "a" * 3900], "the folder name is 3900 bytes, above the limit of 3800"),
            (["bench", SCALE, "--json", tmp], "is a folder; --json names a file to write"),
            (["run", SCALE, "--in", "x=" + tmp], "a directory, not a regular file"),
            (["info", "/etc/passwd"], "not a folder: a package is a folder"),
            (["info", "webgpu-kernels/../x.y"], "neither a folder nor an op id"),
            # issue 37 wrong accepts 3: --out-shape parses DIMS as --shape does, and a port is given once
            (["run", SCALE, "--out-shape", "y=2xx2", *NOGPU], "--out-shape y: '2xx2': dim 1: expected a non-negative"),
            (["run", SCALE, "--out-shape", "y=4x", *NOGPU], "--out-shape y: '4x': dim 1: expected a non-negative"),
            (["run", SCALE, "--out-shape", "y=x4", *NOGPU], "--out-shape y: 'x4': dim 0: expected a non-negative"),
            (["run", SCALE, "--out-shape", "y=+4", *NOGPU], "--out-shape y: '+4': dim 0: expected a non-negative"),
            (["run", SCALE, "--out-shape", "y= 4", *NOGPU], "--out-shape y: ' 4': dim 0: expected a non-negative"),
            (["run", SCALE, "--out-shape", "y=4", "--out-shape", "Y=5", *NOGPU],
             "--out-shape y and --out-shape Y name the same port Y; give it once"),
        ]:
            wgk(args, want)

    # cases that need an adapter (its limits, or a test run reaching the GPU)
    if GPU:
        huge = os.path.join(tmp, "hugetest")
        shutil.copytree(SCALE, huge)
        tj = os.path.join(huge, "build", "webgpu", "test.json")
        doc = json.load(open(tj))
        doc["cases"] = [{"id": "huge", "inputs": {"x": {"dtype": "float32", "shape": [4, 1073741824],
                                                      "generator": {"kind": "const", "value": 1}}},
                         "expected": {"y": {"data": [1]}}}]
        open(tj, "w").write(json.dumps(doc))
        wgk(["test", huge], "FAIL huge: case huge, input x: 17179869184 bytes, above the test-data host limit")
        doc["cases"][0]["inputs"]["x"]["shape"] = [64, 1048576]  # 256 MiB: within the host limit, past lavapipe's binding
        open(tj, "w").write(json.dumps(doc))
        devices = json.loads(subprocess.run([WGK, "devices", "--json"], capture_output=True, text=True).stdout)
        if devices["adapters"][0]["limits"]["maxStorageBufferBindingSize"] < 1 << 28:
            wgk(["test", huge], "FAIL huge: case huge, input x: 268435456 bytes, above this device's maxStorageBufferBindingSize")
finally:
    shutil.rmtree(tmp)

for f in failures:
    print("FAILED:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
