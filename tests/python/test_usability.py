"""The Python binding as a newcomer meets it (issue 35 item 4): a misspelled input named with a suggestion, errors
that are also the builtin exceptions a caller catches and shadow no builtin name, the call's docstring and
signature, `with` and close(), __version__, and a help(wgk) that reads as documentation. Run with test_wgk.py by
the python_binding ctest (WGK_LIBRARY, PYTHONPATH=python)."""
import builtins
import inspect
import os
import pydoc
import re

import numpy as np
import pytest

import wgk
import references  # the ops' numpy references, by op id

rope_ref = references.load("ai.onnx.RotaryEmbedding").rope_ref

ROPE = "webgpu-kernels/ai.onnx.RotaryEmbedding"
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


@pytest.fixture(scope="module")
def rope():
    return wgk.load(ROPE, version=1)


def rope_args(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, 2, 3, 8), dtype=np.float32)
    theta = rng.uniform(0, 6, (10, 4))
    return dict(X=x, cos_cache=np.cos(theta).astype(np.float32), sin_cache=np.sin(theta).astype(np.float32),
                position_ids=np.array([[0, 4, 9]], dtype=np.int64))


def test_version_is_the_projects():
    cmake = open(os.path.join(SRC, "CMakeLists.txt")).read()
    project = re.search(r"project\(wgk VERSION ([0-9.]+)", cmake).group(1)
    pyproject = re.search(r'^version = "([^"]+)"', open(os.path.join(SRC, "pyproject.toml")).read(), re.M).group(1)
    assert wgk.__version__ == project == pyproject


@pytest.mark.parametrize("name,builtin", [
    ("CallError", ValueError), ("InvalidArgumentError", ValueError), ("ManifestError", ValueError),
    ("DigestError", ValueError), ("NoVariantError", ValueError), ("NotFoundError", LookupError),
    ("NotFoundError", FileNotFoundError), ("IOFailedError", OSError), ("WaitTimeoutError", TimeoutError),
    ("OutOfMemoryError", MemoryError), ("GPUError", RuntimeError), ("NoAdapterError", RuntimeError)])
def test_errors_are_their_builtins_too(name, builtin):
    cls = getattr(wgk, name)
    assert issubclass(cls, wgk.Error) and issubclass(cls, builtin)
    e = cls("file.json:1:2: inputs.x: a message", cls.status)
    assert str(e) == "file.json:1:2: inputs.x: a message" and e.status_name.startswith("WGK_ERR_")


def test_no_builtin_name_is_shadowed():
    names = {}
    exec("from wgk import *", names)
    assert [n for n in names if n != "__builtins__" and hasattr(builtins, n)] == []
    assert not [n for n in dir(wgk) if not n.startswith("_") and hasattr(builtins, n)]


def test_misspelled_input_is_named_with_a_suggestion(rope):
    args = rope_args()
    args["XX"] = args.pop("X")
    with pytest.raises(wgk.NotFoundError) as e:
        rope(**args)
    assert str(e.value) == "no input 'XX' (inputs: X, cos_cache, sin_cache, position_ids); did you mean 'X'?"
    args = rope_args()
    args["position_id"] = args.pop("position_ids")
    with pytest.raises(LookupError, match=r"no input 'position_id' .*did you mean 'position_ids'\?"):
        rope(**args)
    with pytest.raises(wgk.CallError, match=r"attribute interleaved: a value of type object is not an attribute value"):
        rope(**rope_args(), interleaved=object())


def test_signature_lists_the_ports_and_attributes(rope):
    sig = inspect.signature(rope)
    params = sig.parameters
    assert list(params)[:4] == ["X", "cos_cache", "sin_cache", "position_ids"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    assert params["X"].default is inspect.Parameter.empty      # required
    assert params["position_ids"].default is None              # optional
    assert params["interleaved"].default == 0
    assert params["output"].default == "numpy"
    sig.bind(**rope_args())                                     # the real call's keywords fit the signature
    assert "Keywords" in wgk.Kernel.__call__.__doc__ and "inspect.signature" in wgk.Kernel.__call__.__doc__


def test_with_and_close():
    args = rope_args(1)
    want = rope_ref(args["X"], args["cos_cache"], args["sin_cache"], args["position_ids"], 0)
    with wgk.Context() as ctx:
        with ctx.load(ROPE, version=1) as k:
            y = k(**args)["y"]
            g = k(**args, output="gpu")["y"]
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
        with pytest.raises(ValueError, match=r"wgk.Kernel: used after close\(\)"):
            k(**args)
        k.close()                                               # twice: harmless
        assert repr(k) == "wgk.Kernel(closed)"
        with g:
            np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=1e-5)
        with pytest.raises(ValueError, match=r"wgk.Tensor: used after close\(\)"):
            g.numpy()
    with pytest.raises(ValueError, match=r"wgk.Context: used after close\(\)"):
        ctx.load(ROPE, version=1)


def test_one_close_for_every_handle(tmp_path):
    # Context, Kernel and Tensor drop their handle through one close(); an object whose constructor raised (a
    # failed load) has none to drop, so collecting it raises nothing (sys.unraisablehook sees no error).
    assert wgk.Context.close is wgk.Kernel.close is wgk.Tensor.close
    assert wgk.Context.__exit__ is wgk.Kernel.__exit__ is wgk.Tensor.__exit__
    import gc, sys
    seen, hook = [], sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        with wgk.Context() as ctx:
            with pytest.raises(wgk.Error):
                ctx.load(str(tmp_path / "no-such-package"))
            t = ctx.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
            assert t.shape == (2, 3)
            t.close()
            t.close()                                           # twice: harmless
            assert repr(t) == "wgk.Tensor(closed)"
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert not seen, [str(u.exc_value) for u in seen]
    with pytest.raises(ValueError, match=r"wgk.Context: used after close\(\)"):
        ctx.adapter


def test_help_reads_well():
    text = pydoc.render_doc(wgk, renderer=pydoc.plaintext)
    assert len(text.splitlines()) < 400, "help(wgk) is long again (exception boilerplate?)"
    for name in ("NotFoundError", "CallError", "WaitTimeoutError", "IOFailedError"):
        assert name in text                                     # the error table of the module's docstring
    assert text.count("Methods inherited from builtins.BaseException") <= 1
    assert "VERSION" in text and wgk.__version__ in text


def test_one_version_rule_for_every_source(tmp_path, monkeypatch):
    """No version (issue 35 item 5, docs/hub.md "Which version a name without one loads"): the newest version on
    this machine, the cache's v2 over the bundled v1, offline without a request; nothing there: an error naming the
    version parameter, and nothing fetched. Against the stand-in Hub serving branches v1 and v2."""
    import json
    import shutil
    import sys
    sys.path.insert(0, os.path.join(SRC, "tests", "hub"))
    from standin import StandIn
    pkg = os.path.join(SRC, "kernels", "ai.onnx.RotaryEmbedding")
    v2 = str(tmp_path / "v2")
    shutil.copytree(pkg, v2)
    meta = os.path.join(v2, "build", "webgpu", "metadata.json")
    with open(meta) as f:
        doc = json.load(f)
    doc["version"] = 2  # metadata.json's own keys are not digested: the copy stays verified
    with open(meta, "w") as f:
        json.dump(doc, f)
    hub = StandIn()
    hub.add(ROPE, pkg, branch="v1")
    hub.add(ROPE, v2, branch="v2")
    hub.start()
    try:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
        monkeypatch.setenv("WGK_BUNDLED_KERNELS", "0")
        for name in ("HF_HUB_CACHE", "HF_HUB_OFFLINE", "WGK_KERNEL_PATH", "XDG_CACHE_HOME"):
            monkeypatch.delenv(name, raising=False)
        with pytest.raises(wgk.NotFoundError, match="no version of it is on this machine") as e:
            wgk.load(ROPE)
        assert "the version parameter" in str(e.value)
        assert hub.count() == 0, "a load without a version fetched something"
        with wgk.load(ROPE, version=2) as k:                    # named: fetched into the cache
            assert k.version == 2
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        n = hub.count()
        args = rope_args(2)
        want = rope_ref(args["X"], args["cos_cache"], args["sin_cache"], args["position_ids"], 0)
        with wgk.load(ROPE) as k:                               # the newest cached, offline
            assert k.version == 2
            np.testing.assert_allclose(k(**args)["y"], want, rtol=1e-5, atol=1e-5)
        monkeypatch.delenv("WGK_BUNDLED_KERNELS")
        with wgk.load("ai.onnx.RotaryEmbedding") as k:          # the cache's v2 over the bundled v1
            assert k.version == 2
        monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
        with wgk.load(ROPE) as k:                               # nothing cached: the bundled v1
            assert k.version == 1
        assert hub.count() == n, "offline: no request"
    finally:
        hub.stop()
