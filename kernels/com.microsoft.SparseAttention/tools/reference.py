"""com.microsoft SparseAttention in float64 numpy, written from ONNX Runtime's contrib-op definition and sharing
no code with wgk: the op's reference for the tests, found by op id through tests/python/references.py (not read by
wgk).

reference(inputs, attrs) takes the ONNX input names (query, key, value, past_key, past_value, block_row_indices,
block_col_indices, total_sequence_length, key_total_sequence_lengths, cos_cache, sin_cache; key and value absent
when query is packed) and attributes, and returns output, present_key and present_value; sparse_ref is the same
with positional arguments. random_layouts makes random block masks for tests."""
import numpy as np


def rotate(x, cos, sin, interleaved):
    """x (..., H) rotated with cos/sin (..., rot/2) broadcast over x's leading dims."""
    rot = 2 * cos.shape[-1]
    xr, rest = x[..., :rot], x[..., rot:]
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
        yr = np.stack([cos * x1 - sin * x2, sin * x1 + cos * x2], axis=-1).reshape(xr.shape)
    else:
        x1, x2 = xr[..., :rot // 2], xr[..., rot // 2:]
        yr = np.concatenate([cos * x1 - sin * x2, sin * x1 + cos * x2], axis=-1)
    return np.concatenate([yr, rest], axis=-1)


def sparse_ref(q, k, v, past_k, past_v, rows, cols, total, key_totals, num_heads, kv_num_heads, block,
               cos=None, sin=None, do_rotary=0, rotary_interleaved=0, scale=0.0):
    """Returns (output, present_key, present_value) in float64. k/v None: q is packed [Q|K|V]."""
    q = np.asarray(q, np.float64)
    b_, s_, _ = q.shape
    pk, pv = np.array(past_k, np.float64), np.array(past_v, np.float64)
    h_ = pk.shape[-1]
    if k is None:
        q, k, v = np.split(q, [num_heads * h_, (num_heads + kv_num_heads) * h_], axis=-1)
    q = q.reshape(b_, s_, num_heads, h_)
    k = np.asarray(k, np.float64).reshape(b_, s_, kv_num_heads, h_)
    v = np.asarray(v, np.float64).reshape(b_, s_, kv_num_heads, h_)
    scale = scale or 1.0 / np.sqrt(h_)
    out = np.zeros((b_, s_, num_heads, h_))
    layouts = rows.shape[0]
    for b in range(b_):
        past = 0 if int(total) == s_ else int(key_totals[b]) - s_
        pos = past + np.arange(s_)
        qb, kb = q[b], k[b]
        if do_rotary:
            c, sn = np.asarray(cos, np.float64)[pos][:, None, :], np.asarray(sin, np.float64)[pos][:, None, :]
            qb, kb = rotate(qb, c, sn, rotary_interleaved), rotate(kb, c, sn, rotary_interleaved)
        pk[b, :, past:past + s_] = kb.transpose(1, 0, 2)
        pv[b, :, past:past + s_] = v[b].transpose(1, 0, 2)
        for h in range(num_heads):
            kvh, lay = h // (num_heads // kv_num_heads), h % layouts
            for s in range(s_):
                p = pos[s]
                r = p // block
                active = set(int(c) for c in cols[lay, rows[lay, r]:rows[lay, r + 1]])
                keys = [j for j in range(min(p + 1, int(key_totals[b]))) if j // block in active]
                if not keys:
                    continue
                sc = scale * (pk[b, kvh, keys] @ qb[s, h])
                w = np.exp(sc - sc.max())
                out[b, s, h] = (w / w.sum()) @ pv[b, kvh, keys]
    return out.reshape(b_, s_, num_heads * h_), pk, pv


# wgk's package updates the caches in place (in/out ports past_key, past_value): their new values are the ONNX
# outputs present_key and present_value.
IN_PLACE = {"past_key": "present_key", "past_value": "present_value"}


def reference(inputs, attrs):
    out, pk, pv = sparse_ref(inputs["query"], inputs.get("key"), inputs.get("value"), inputs["past_key"],
                             inputs["past_value"], np.asarray(inputs["block_row_indices"]),
                             np.asarray(inputs["block_col_indices"]),
                             int(np.asarray(inputs["total_sequence_length"]).reshape(-1)[0]),
                             np.asarray(inputs["key_total_sequence_lengths"]).reshape(-1), int(attrs["num_heads"]),
                             int(attrs["kv_num_heads"]), int(attrs["sparse_block_size"]), inputs.get("cos_cache"),
                             inputs.get("sin_cache"), int(attrs.get("do_rotary", 0)),
                             int(attrs.get("rotary_interleaved", 0)), float(attrs.get("scale", 0.0)))
    return {"output": out, "present_key": pk, "present_value": pv}


def random_layouts(rng, layouts, max_blocks):
    """CSR block masks: each block row keeps its diagonal block and a random subset of the earlier ones."""
    rows = np.zeros((layouts, max_blocks + 1), np.int32)
    per = []
    for lay in range(layouts):
        cols = []
        for r in range(max_blocks):
            row = sorted(set([r] + [c for c in range(r) if rng.random() < 0.5]))
            cols.extend(row)
            rows[lay, r + 1] = len(cols)
        per.append(cols)
    width = max(len(c) for c in per)
    cols = np.zeros((layouts, width), np.int32)
    for lay, c in enumerate(per):
        cols[lay, :len(c)] = c
    return rows, cols
