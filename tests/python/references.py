"""Independent float64 references of the shipped ops, in numpy, for the Python binding's tests (test_wgk.py) and the
docs' examples (tests/docs/doc_examples.py): written from the ONNX and ONNX Runtime definitions, sharing no code
with wgk."""
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
