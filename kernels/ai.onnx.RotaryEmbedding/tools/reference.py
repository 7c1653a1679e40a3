"""ONNX RotaryEmbedding (opset 23) in float64 numpy, written from the ONNX definition and sharing no code with wgk:
the op's reference for the tests, found by op id through tests/python/references.py (not read by wgk).

reference(inputs, attrs) takes the ONNX input names (X, cos_cache, sin_cache, position_ids) and attributes
(interleaved, num_heads, rotary_embedding_dim) and returns {"Y": ...}; rope_ref is the same with positional
arguments. example_inputs(rng, shapes) makes valid inputs for the docs' checks (tests/docs/doc_examples.py)."""
import numpy as np


def rope_ref(x, cos_cache, sin_cache, position_ids=None, interleaved=0, num_heads=None, rotary_embedding_dim=0):
    x = np.asarray(x, np.float64)
    rank3 = x.ndim == 3
    if rank3:  # (B, S, N*H) -> (B, N, S, H)
        b, s, hidden = x.shape
        x = x.reshape(b, s, num_heads, hidden // num_heads).transpose(0, 2, 1, 3)
    head = x.shape[-1]
    rot = rotary_embedding_dim or head
    cos, sin = np.asarray(cos_cache, np.float64), np.asarray(sin_cache, np.float64)
    if position_ids is not None:
        cos, sin = cos[position_ids], sin[position_ids]  # (B, S, rot/2)
    cos, sin = cos[:, None, :, :], sin[:, None, :, :]    # over heads
    xr, rest = x[..., :rot], x[..., rot:]
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
    else:
        x1, x2 = xr[..., :rot // 2], xr[..., rot // 2:]
    y1, y2 = cos * x1 - sin * x2, sin * x1 + cos * x2
    if interleaved:
        yr = np.stack([y1, y2], axis=-1).reshape(xr.shape)
    else:
        yr = np.concatenate([y1, y2], axis=-1)
    y = np.concatenate([yr, rest], axis=-1)
    if rank3:
        y = y.transpose(0, 2, 1, 3).reshape(b, s, -1)
    return y


def reference(inputs, attrs):
    return {"Y": rope_ref(inputs["X"], inputs["cos_cache"], inputs["sin_cache"], inputs.get("position_ids"),
                          int(attrs.get("interleaved", 0)), attrs.get("num_heads"),
                          int(attrs.get("rotary_embedding_dim", 0)))}


def example_inputs(rng, shapes=None):
    """Valid random inputs by ONNX name, for the docs' checks: of the given shapes ({name: shape}; the position
    ids index the caches' rows), or a small call of the card's CLI example when shapes is None."""
    shapes = shapes or {"X": (2, 3, 5, 8), "cos_cache": (10, 4), "sin_cache": (10, 4), "position_ids": (2, 5)}
    theta = rng.uniform(-np.pi, np.pi, shapes["cos_cache"])
    out = {"X": rng.uniform(-1, 1, shapes["X"]).astype(np.float32), "cos_cache": np.cos(theta).astype(np.float32),
           "sin_cache": np.sin(theta).astype(np.float32)}
    if "position_ids" in shapes:
        out["position_ids"] = rng.integers(0, shapes["cos_cache"][0], shapes["position_ids"]).astype(np.int64)
    return out
