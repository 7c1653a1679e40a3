"""The Python binding (python/wgk) against independent numpy double references on random inputs: RotaryEmbedding
and SparseAttention, float32 and float16 (on every adapter: natively with shader-f16, packed without it),
GPU-resident chaining, in-place caches, the contract from k.info(), and refusals raised as wgk.Error subclasses
carrying wgk's message. Run by ctest (tests/python/tests.cmake) with WGK_LIBRARY (the build's libwgk.so) and
PYTHONPATH=python; no case may be skipped."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import wgk
import references  # the ops' numpy references, by op id (kernels/<op id>/tools/reference.py)

rope_ref = references.load("ai.onnx.RotaryEmbedding").rope_ref
sparse_ref = references.load("com.microsoft.SparseAttention").sparse_ref
random_layouts = references.load("com.microsoft.SparseAttention").random_layouts

ROPE = "webgpu-kernels/ai.onnx.RotaryEmbedding"
SPARSE = "webgpu-kernels/com.microsoft.SparseAttention"
POISON = np.float32(np.nan)


@pytest.fixture(scope="module")
def rope():
    return wgk.load(ROPE, version=1)


@pytest.fixture(scope="module")
def sparse():
    return wgk.load(SPARSE, version=1)


# float16 runs on every adapter: with shader-f16 natively, without it in the packed-f16 variants (two halves per
# u32 word); no case is skipped. python_binding_f16packed runs the float16 cases with shader-f16 hidden.
DTYPES = pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])

# ---- RotaryEmbedding -----------------------------------------------------------------------------------------


def tol(dtype):
    return dict(rtol=2e-3, atol=2e-3) if dtype == np.float16 else dict(rtol=1e-5, atol=1e-5)


def rope_inputs(rng, dtype, shape=(2, 4, 5, 16), rows=40, rot=16):
    x = rng.uniform(-2, 2, shape).astype(dtype)
    theta = rng.uniform(0, 2 * np.pi, (rows, rot // 2))
    pos = rng.integers(0, rows, (shape[0], shape[2] if len(shape) == 4 else shape[1])).astype(np.int64)
    return x, np.cos(theta).astype(dtype), np.sin(theta).astype(dtype), pos


@DTYPES
@pytest.mark.parametrize("interleaved", [0, 1])
def test_rope_matches_reference(rope, dtype, interleaved):
    rng = np.random.default_rng(16 + interleaved)
    x, c, s, p = rope_inputs(rng, dtype)
    poisoned = wgk.tensor(np.full(x.shape, np.nan, dtype))  # a caller-owned output, poisoned first
    out = rope(X=x, cos_cache=c, sin_cache=s, position_ids=p, interleaved=interleaved, Y=poisoned)
    assert list(out) == ["y"] and "Y" in out
    np.testing.assert_array_equal(poisoned.numpy(), out["y"])
    y = out["Y"]
    assert y is out["y"] and y.dtype == dtype and y.shape == x.shape
    np.testing.assert_allclose(y, rope_ref(x, c, s, p, interleaved), **tol(dtype))


def test_rope_port_keys_rank3_partial_rotation(rope):
    """Inputs by port key, rank-3 X with num_heads, a partial rotation: attributes of every kind of use."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 5, 3 * 16)).astype(np.float32)
    theta = rng.uniform(0, 6, (2, 5, 4))  # no position_ids: per-token caches (B, S, rot/2)
    c, s = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    y = rope(x=x, cos=c, sin=s, num_heads=3, rotary_embedding_dim=8)["y"]
    np.testing.assert_allclose(y, rope_ref(x, c, s, None, 0, num_heads=3, rotary_embedding_dim=8), rtol=1e-5,
                               atol=1e-5)
    assert rope.variant == "rank3_cache3"


def test_wrong_accepts_refused(rope):
    """Issue 37: an int past int64 (ctypes wrapped 2**64 + 1 to 1), a port given twice (X= and x=: the last won), a
    NUL in a path or revision (C read up to it) are refused; a 0-d array stays 0-d (it became shape (1,))."""
    rng = np.random.default_rng(5)
    x, c, s, p = rope_inputs(rng, np.float32)
    with pytest.raises(wgk.CallError, match=r"attribute interleaved: 18446744073709551617 is outside int64"):
        rope(X=x, cos_cache=c, sin_cache=s, position_ids=p, interleaved=2**64 + 1)
    with pytest.raises(wgk.CallError, match=r"attribute interleaved: -9223372036854775809 is outside int64"):
        rope(X=x, cos_cache=c, sin_cache=s, position_ids=p, interleaved=-2**63 - 1)
    with pytest.raises(wgk.CallError, match=r"X= and x= both name port x; give it once"):
        rope(X=x, x=x, cos_cache=c, sin_cache=s, position_ids=p)
    with pytest.raises(ValueError, match=r"path_or_id: .* contains a NUL character"):
        wgk.load(ROPE + "\0/etc")
    with pytest.raises(ValueError, match=r"revision: .* contains a NUL character"):
        wgk.load(ROPE, revision="a" * 40 + "\0")
    zero_d = wgk.tensor(np.float32(3.5))
    assert zero_d.shape == () and zero_d.numpy().shape == () and zero_d.numpy() == np.float32(3.5)


def test_rope_chains_on_gpu(rope):
    """output="gpu" keeps Y on the GPU; it is the next call's X, and a wgk.tensor made from numpy is an input."""
    rng = np.random.default_rng(5)
    x, c, s, p = rope_inputs(rng, np.float32)
    first = rope(X=x, cos_cache=c, sin_cache=s, position_ids=p, output="gpu")
    t = first["Y"]
    assert isinstance(t, wgk.Tensor) and t.shape == x.shape and t.dtype == np.float32
    gc = wgk.tensor(c)
    second = rope(X=t, cos_cache=gc, sin_cache=s, position_ids=p, interleaved=1, output="gpu")["y"]
    want = rope_ref(rope_ref(x, c, s, p, 0), c, s, p, 1)
    np.testing.assert_allclose(second.numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(t), rope_ref(x, c, s, p, 0), rtol=1e-5, atol=1e-5)  # t is unchanged


def test_rope_info(rope):
    info = rope.info()
    assert info["op_id"] == "ai.onnx.RotaryEmbedding"
    ports = {p["key"]: p for p in info["ports"]}
    assert ports["x"] == {"key": "x", "onnx_name": "X", "dir": "in", "optional": False, "type_var": "T",
                          "dtypes": ["float32", "float16"]}
    assert ports["positionIds"]["optional"] and ports["positionIds"]["dtypes"] == ["int64"]
    assert ports["y"]["dir"] == "out"
    attrs = {a["name"]: a for a in info["attrs"]}
    assert attrs["interleaved"]["default"] == 0 and attrs["interleaved"]["values"] == [0, 1]
    assert not attrs["num_heads"]["required"] and attrs["num_heads"]["default"] is None
    forms = {"rank3_cache2_pos", "rank4_cache2_pos", "rank3_cache3", "rank4_cache3"}
    assert set(info["variants"]) == forms | {v + "_f16packed" for v in forms}  # packed float16 without shader-f16

# ---- refusals ------------------------------------------------------------------------------------------------


def test_wrong_dtype_is_refused_with_wgks_message(rope):
    rng = np.random.default_rng(7)
    x, c, s, p = rope_inputs(rng, np.float32)
    with pytest.raises(wgk.CallError) as e:
        rope(X=x.astype(np.int32), cos_cache=c, sin_cache=s, position_ids=p)
    assert isinstance(e.value, wgk.Error) and e.value.status == 8
    assert "dtype int32 is not allowed by type constraint T (allowed: float32, float16)" in str(e.value)
    assert "manifest.json:" in e.value.message  # wgk's file:line:column: path: message
    with pytest.raises(wgk.CallError, match=r"X: numpy dtype float64 has no wgk dtype"):
        rope(X=x.astype(np.float64), cos_cache=c, sin_cache=s, position_ids=p)


def test_bad_shape_is_refused(rope):
    rng = np.random.default_rng(8)
    x, c, s, p = rope_inputs(rng, np.float32)
    with pytest.raises(wgk.Error, match=r"num_heads: required for rank-3 x"):
        rope(X=x[0], cos_cache=c, sin_cache=s, position_ids=p)
    with pytest.raises(wgk.CallError, match=r"position"):
        rope(X=x, cos_cache=c, sin_cache=s, position_ids=p + 40)  # past the cache's 40 rows


def test_misspelled_attribute_is_refused_with_a_suggestion(rope):
    rng = np.random.default_rng(9)
    x, c, s, p = rope_inputs(rng, np.float32)
    with pytest.raises(wgk.NotFoundError, match=r"no attribute 'interleavd'; did you mean 'interleaved'"):
        rope(X=x, cos_cache=c, sin_cache=s, position_ids=p, interleavd=1)
    with pytest.raises(ValueError):
        rope(X=x, cos_cache=c, sin_cache=s, output="cpu")


def test_missing_kernel_is_refused():
    with pytest.raises(wgk.Error) as e:
        wgk.load("/nonexistent/ai.onnx.Nothing")
    assert "/nonexistent/ai.onnx.Nothing" in str(e.value)

def test_context_refusal_carries_wgks_message():
    with pytest.raises(wgk.NotFoundError, match=r"adapter: no adapter matches 'no-such-adapter-xyz'"):
        wgk.Context(adapter="no-such-adapter-xyz")


# Each count option past what libwgk allows: libwgk's refusal names the field, so each lands in its own field of
# wgk_context_options (a layout mistake would name another field or none).
@pytest.mark.parametrize("name,value", [
    ("wait_timeout_ms", 86400001), ("pool_bytes", 2**48 + 1), ("queue_write_max", 2**48 + 1), ("host_span", 100),
    ("max_storage_binding_bytes", 1030), ("host_threads", 65), ("host_spin_us", 100001),
    ("wait_spin_us", 1000001), ("pipeline_cache_max_bytes", 2**48 + 1), ("progress_after_ms", 3600001)])
def test_context_option_reaches_its_field(name, value):
    with pytest.raises(wgk.InvalidArgumentError, match=r"context option %s: .* not %d" % (name, value)):
        wgk.Context(**{name: value})


def test_context_switches_reach_their_fields():
    """A switch holding 2 (which the Python side never sends) is refused by libwgk by its field's name."""
    lib = wgk._library()
    for name in wgk._SWITCH_OPTIONS:
        o = wgk._context_options(None, False, None, {})
        setattr(o, name, 2)
        h, msg = wgk._P(), wgk._P()
        assert lib.wgk_context_create(wgk.ctypes.byref(o), wgk.ctypes.byref(h), wgk.ctypes.byref(msg)) == 1
        assert ("context option %s: must be WGK_ON" % name).encode() in wgk.ctypes.string_at(msg.value)
        wgk.ctypes.CDLL(None).free(msg)


def test_context_options_checked_in_python():
    with pytest.raises(ValueError, match=r"host_threads: must be from 1 to 2147483647, not 0"):
        wgk.Context(host_threads=0)
    with pytest.raises(ValueError, match=r"pool_bytes: must be from 0 to 9223372036854775807, not 18446744073709551617"):
        wgk.Context(pool_bytes=2**64 + 1)
    with pytest.raises(TypeError, match=r"staged_upload: expected True or False, got 1"):
        wgk.Context(staged_upload=1)
    with pytest.raises(TypeError, match=r"wait_timeout_ms: expected an int, got float"):
        wgk.Context(wait_timeout_ms=1.5)
    with pytest.raises(TypeError, match=r"unknown option host_thread;"):
        wgk.Context(host_thread=2)
    with pytest.raises(wgk.InvalidArgumentError, match=r"disable_features: unknown feature \"bogus\""):
        wgk.Context(disable_features="bogus")


def test_context_options_accepted():
    with wgk.Context(pool_bytes=0, queue_write_max=0, host_threads=2, host_span=65536, wait_timeout_ms=5000,
                     wait_spin_us=0, host_spin_us=0, staged_upload=True, defer_uploads=False,
                     submit_during_fill=False, max_storage_binding_bytes=1 << 20, disable_features="",
                     pipeline_cache=False, pipeline_cache_max_bytes=1 << 20, pipeline_cache_log=False, progress=True,
                     progress_after_ms=0) as ctx:
        assert ctx.adapter


def test_a_library_that_is_not_libwgk_is_named():
    """WGK_LIBRARY is taken as given; a library without wgk's functions fails the import, naming what it lacks."""
    env = dict(os.environ, WGK_LIBRARY="libm.so.6")
    p = subprocess.run([sys.executable, "-c", "import wgk; wgk.library_path()"], env=env, capture_output=True,
                       text=True)
    assert p.returncode != 0
    assert "ImportError: wgk: no usable libwgk.so" in p.stderr and "libm.so.6 (lacks wgk_status_str" in p.stderr


def test_unverified_package_warns_and_strict_refuses(tmp_path):
    pkg = tmp_path / "rope"
    shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "ai.onnx.RotaryEmbedding"), pkg)
    os.remove(pkg / "build" / "webgpu" / "metadata.json")
    with pytest.warns(UserWarning, match="metadata.json") as w:
        k = wgk.load(str(pkg))
    assert k.warning == str(w[0].message)
    with pytest.raises(wgk.Error, match="metadata.json"):
        wgk.load(str(pkg), strict=True)

# ---- SparseAttention -----------------------------------------------------------------------------------------


def sparse_case(rng, dtype, s_, key_totals, total, packed=False, rotary=False, b_=2, n=4, nkv=2, h_=16, block=16,
                cache=64, layouts=2):
    rows, cols = random_layouts(rng, layouts, cache // block)
    f = lambda *shape: rng.uniform(-1, 1, shape).astype(dtype)
    args = dict(past_key=f(b_, nkv, cache, h_), past_value=f(b_, nkv, cache, h_), block_row_indices=rows,
                block_col_indices=cols, total_sequence_length=np.array([total], np.int32),
                key_total_sequence_lengths=np.array(key_totals, np.int32), num_heads=n, kv_num_heads=nkv,
                sparse_block_size=block)
    if packed:
        args["query"] = f(b_, s_, (n + 2 * nkv) * h_)
    else:
        args.update(query=f(b_, s_, n * h_), key=f(b_, s_, nkv * h_), value=f(b_, s_, nkv * h_))
    if rotary:
        theta = rng.uniform(0, 2 * np.pi, (cache, 8))
        args.update(cos_cache=np.cos(theta).astype(dtype), sin_cache=np.sin(theta).astype(dtype), do_rotary=1,
                    rotary_interleaved=int(rng.integers(0, 2)))
    return args


def run_ref(args):
    a = dict(args)
    return sparse_ref(a["query"], a.get("key"), a.get("value"), a["past_key"], a["past_value"],
                      a["block_row_indices"], a["block_col_indices"], a["total_sequence_length"][0],
                      a["key_total_sequence_lengths"], a["num_heads"], a["kv_num_heads"], a["sparse_block_size"],
                      a.get("cos_cache"), a.get("sin_cache"), a.get("do_rotary", 0), a.get("rotary_interleaved", 0))


@DTYPES
@pytest.mark.parametrize("case", ["prompt", "prompt_packed_rotary", "decode_rotary", "decode_long"])
def test_sparse_matches_reference(sparse, dtype, case):
    rng = np.random.default_rng({"prompt": 1, "prompt_packed_rotary": 2, "decode_rotary": 3, "decode_long": 4}[case])
    if case == "prompt":
        args = sparse_case(rng, dtype, 37, [37, 21], 37)
    elif case == "prompt_packed_rotary":
        args = sparse_case(rng, dtype, 20, [20, 9], 20, packed=True, rotary=True)
    elif case == "decode_rotary":  # two new tokens after 31 and 45 cached ones
        args = sparse_case(rng, dtype, 2, [33, 47], 47, rotary=True)
    else:  # one token over a 256-row cache: the split (flash-decoding) variants
        args = sparse_case(rng, dtype, 1, [200, 77], 200, cache=256)
    poisoned = wgk.tensor(np.full(args["query"].shape[:2] + (4 * 16,), np.nan, dtype))  # a caller-owned output
    out = sparse(**args, outputT=poisoned)
    assert out["outputT"].dtype == dtype and not np.isnan(poisoned.numpy()).any()
    assert set(out) == {"outputT", "pastKeyT", "pastValueT"}
    assert ("_decode" in sparse.variant) == (case == "decode_long"), sparse.variant  # the split forms: _decode, _decode_sg
    want = run_ref(args)
    for name, ref in zip(["output", "past_key", "past_value"], want):
        got = out[name]
        assert got.dtype == dtype
        np.testing.assert_allclose(got, ref, err_msg=name, **tol(dtype))


def test_sparse_caches_stay_on_gpu(sparse):
    """A prompt then a decode step on GPU-resident caches: the in/out ports update the wgk.Tensor in place."""
    rng = np.random.default_rng(21)
    prompt = sparse_case(rng, np.float32, 24, [24, 17], 24)
    ref_out, ref_k, ref_v = run_ref(prompt)
    kt, vt = wgk.tensor(prompt["past_key"]), wgk.tensor(prompt["past_value"])
    out = sparse(**dict(prompt, past_key=kt, past_value=vt), output="gpu")
    assert out["pastKeyT"]._h == kt._h  # the same wgk tensor, updated in place
    np.testing.assert_allclose(out["output"].numpy(), ref_out, rtol=1e-5, atol=1e-5)
    step = sparse_case(rng, np.float32, 1, [25, 18], 25)
    step.update(past_key=ref_k.astype(np.float32), past_value=ref_v.astype(np.float32),
                block_row_indices=prompt["block_row_indices"], block_col_indices=prompt["block_col_indices"])
    want = run_ref(step)
    got = sparse(**dict(step, past_key=kt, past_value=vt))
    for name, ref in zip(["outputT", "pastKeyT", "pastValueT"], want):
        np.testing.assert_allclose(got[name], ref, rtol=1e-5, atol=1e-5, err_msg=name)
    np.testing.assert_allclose(kt.numpy(), want[1], rtol=1e-5, atol=1e-5)


def test_sparse_missing_required_attribute(sparse):
    rng = np.random.default_rng(22)
    args = sparse_case(rng, np.float32, 16, [16, 16], 16)
    del args["kv_num_heads"], args["sparse_block_size"]
    kt = wgk.tensor(args.pop("past_key"))
    before = kt.numpy()
    with pytest.raises(wgk.CallError) as e:
        sparse(past_key=kt, **args)
    assert "kv_num_heads" in str(e.value) and "sparse_block_size" in str(e.value)
    np.testing.assert_array_equal(kt.numpy(), before)  # a refused call changes no buffer


def test_sparse_info(sparse):
    info = sparse.info()
    ports = {p["key"]: p for p in info["ports"]}
    assert ports["pastKeyT"]["dir"] == "inout" and ports["pastKeyT"]["onnx_name"] == "past_key"
    assert ports["keyT"]["optional"] and not ports["queryT"]["optional"]
    assert ports["blockRowIndicesT"]["dtypes"] == ["int32"]
    attrs = {a["name"]: a for a in info["attrs"]}
    assert attrs["num_heads"]["required"] and attrs["sparse_block_size"]["required"]
    assert not attrs["do_rotary"]["required"] and attrs["do_rotary"]["default"] == 0
    assert len(info["variants"]) >= 2


# ---- Optional outputs: made and returned only when asked (docs/loader-semantics.md rule 35) -------------------

LAYERNORM = os.path.join(os.path.dirname(__file__), "..", "spec21run", "ai.onnx.LayerNormalization")


def test_optional_outputs_only_when_asked():
    k = wgk.load(LAYERNORM)
    rng = np.random.default_rng(35)
    x = rng.standard_normal((3, 16)).astype(np.float32)
    s = (rng.standard_normal(16) + 2).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    mu = x.astype(np.float64).mean(-1, keepdims=True)
    inv = 1 / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    y = (x - mu) * inv * s + b
    plain = k(X=x, Scale=s, B=b)
    assert sorted(plain.keys()) == ["Y"] and k.variant == "plain"
    np.testing.assert_allclose(plain["Y"], y, rtol=1e-4, atol=1e-5)
    full = k(X=x, Scale=s, B=b, outputs=["Mean", "InvStdDev"])
    assert sorted(full.keys()) == ["InvStdDev", "Mean", "Y"] and k.variant == "with_stats"
    np.testing.assert_allclose(full["Mean"], mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(full["InvStdDev"], inv, rtol=1e-4, atol=1e-5)
    with pytest.raises(wgk.NotFoundError, match="'Z' is no output port"):
        k(X=x, Scale=s, B=b, outputs=["Z"])
