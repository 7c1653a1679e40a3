"""Random single-node com.microsoft SparseAttention cases in the ONNX node-test layout, for comparing wgk with
ONNX Runtime's CPU kernel: read by the ONNX Runtime peer (tests/ort/ort_peer.py), which writes them, has ORT
write the expected outputs (tests/ort/run_ort.mjs) and runs `wgk onnx-test` on them (not read by wgk).

Each case folder holds model.onnx (opsets ai.onnx 17 + com.microsoft 1, ir_version 10 set by hand),
test_data_set_0/input_N.pb and feeds.json. ORT's CPU kernel has three quirks the cases declare in feeds.json:
it insists present_* share past_*'s memory ("outputsFrom": the caches are handed in as the outputs too); a
decode call with batch > 1 and unequal key_total_sequence_lengths gives wrong output for the later batch
elements, so such cases are "splitBatch": ORT runs each batch element alone (with total_sequence_length its
own key length, "splitTotals") and the outputs are joined; and kv_num_heads not dividing num_heads crashes it,
so no case has that. Folders ending in _f16 are float16, compared with atol 1e-2 (float32: 1e-4).
"""
import os

import numpy as np
from onnx import TensorProto, helper

from case_folder import write_folder

ATOL = {"": 1e-4, "_f16": 1e-2}  # by the case folder's name ending
# (name, B, S, N, KN, H, block, layouts, local, vstride, pasts (None = prompt), cache, packed, rotary, rot, dtype)
CASES = [
    ("prompt_b16_gqa2", 1, 32, 4, 2, 16, 16, 1, 2, 2, None, 32, False, "off", 0, np.float32),
    ("prompt_b32_packed_neox", 1, 64, 4, 1, 32, 32, 2, 1, 2, None, 64, True, "neox", 32, np.float32),
    ("prompt_b64_interleaved_partial", 1, 80, 2, 1, 64, 64, 1, 1, 2, None, 128, False, "interleaved", 32, np.float32),
    ("prompt_layouts4_gqa4", 2, 48, 8, 2, 16, 16, 4, 1, 2, None, 48, False, "off", 0, np.float32),
    ("decode_s1_b64_gqa4", 1, 1, 8, 2, 64, 64, 4, 1, 2, [150], 256, False, "neox", 64, np.float32),
    ("decode_s1_batch2_split", 2, 1, 4, 2, 16, 16, 1, 2, 2, [7, 40], 64, False, "off", 0, np.float32),
    ("chunk_s3_batch2_split_rotary", 2, 3, 4, 2, 32, 32, 2, 1, 2, [20, 3], 64, True, "interleaved", 32, np.float32),
    ("decode_b128_head128", 1, 1, 2, 1, 128, 128, 1, 1, 2, [300], 384, False, "off", 0, np.float32),
    ("decode_long_past_batch2_split", 2, 1, 8, 2, 64, 64, 4, 2, 4, [1200, 700], 1280, False, "off", 0, np.float32),
    ("prompt_b16_f16", 1, 32, 4, 2, 16, 16, 2, 1, 2, None, 32, False, "neox", 16, np.float16),
    ("decode_s1_batch2_split_f16", 2, 1, 8, 2, 64, 64, 4, 1, 2, [100, 9], 128, True, "neox", 64, np.float16),
]
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.int32: TensorProto.INT32}
BATCHED = ("query", "key", "value", "past_key", "past_value", "key_total_sequence_lengths", "output",
           "present_key", "present_value")


def phi3_layout(num_layout, max_blocks, local, vstride):
    step = max(1, vstride // num_layout)
    rows, cols = [], []
    for l in range(num_layout):
        row, col = [0], []
        for q in range(max_blocks):
            for k in range(q + 1):
                if q - k < local or (k + l * step + 1) % vstride == 0:
                    col.append(k)
            row.append(len(col))
        rows.append(row)
        cols.append(col)
    width = max(len(c) for c in cols)
    return np.array(rows, np.int32), np.array([c + [-1] * (width - len(c)) for c in cols], np.int32)


def write(folder, name, feeds, attrs, outputs, extra):
    names = list(feeds) if "key" in feeds else [list(feeds)[0], "", ""] + list(feeds)[1:]  # packed QKV
    node = helper.make_node("SparseAttention", names, ["output", "present_key", "present_value"],
                            domain="com.microsoft", **attrs)
    dt = feeds["query"].dtype.type
    def dims(n, shape):  # the batch axis symbolic, so the oracle may run one batch element at a time
        return ["batch"] + list(shape[1:]) if n in BATCHED else list(shape)
    inputs = [helper.make_tensor_value_info(n, ONNX_TYPE[v.dtype.type], dims(n, v.shape)) for n, v in feeds.items()]
    outs = [helper.make_tensor_value_info(n, ONNX_TYPE[dt], dims(n, s)) for n, s in outputs]
    graph = helper.make_graph([node], name, inputs, outs)
    model = helper.make_model(graph, opset_imports=[helper.make_operatorsetid("", 17),
                                                    helper.make_operatorsetid("com.microsoft", 1)])
    model.ir_version = 10
    write_folder(folder, model, feeds, [n for n, _ in outputs], extra)


def case(out, rng, name, B, S, N, KN, H, block, layouts, local, vstride, pasts, cache, packed, rotary, rot, dt):
    prompt = pasts is None
    kts = [S] * B if prompt else [p + S for p in pasts]
    total = S if prompt else max(kts)
    max_blocks = -(-cache // block)
    width = (N + 2 * KN) * H if packed else N * H
    feeds = {"query": rng.uniform(-1, 1, [B, S, width]).astype(dt)}
    if not packed:
        feeds["key"] = rng.uniform(-1, 1, [B, S, KN * H]).astype(dt)
        feeds["value"] = rng.uniform(-1, 1, [B, S, KN * H]).astype(dt)
    feeds["past_key"] = rng.uniform(-1, 1, [B, KN, cache, H]).astype(dt)
    feeds["past_value"] = rng.uniform(-1, 1, [B, KN, cache, H]).astype(dt)
    feeds["block_row_indices"], feeds["block_col_indices"] = phi3_layout(layouts, max_blocks, local, vstride)
    feeds["total_sequence_length"] = np.array([total], np.int32)
    feeds["key_total_sequence_lengths"] = np.array(kts, np.int32)
    attrs = {"num_heads": N, "kv_num_heads": KN, "sparse_block_size": block}
    if rotary != "off":
        attrs.update(do_rotary=1, rotary_interleaved=int(rotary == "interleaved"))
        angles = rng.uniform(-np.pi, np.pi, [cache, rot // 2])
        feeds["cos_cache"] = np.cos(angles).astype(dt)
        feeds["sin_cache"] = np.sin(angles).astype(dt)
    if rng.integers(0, 2):
        attrs["scale"] = float(rng.uniform(0.05, 0.5))
    outputs = [("output", [B, S, N * H]), ("present_key", [B, KN, cache, H]), ("present_value", [B, KN, cache, H])]
    split = not prompt and B > 1 and len(set(kts)) > 1
    batched = [n for n in feeds if n in BATCHED]
    suffix = "_f16" if dt == np.float16 and not name.endswith("_f16") else ""
    extra = {"outputsFrom": {"present_key": "past_key", "present_value": "past_value"}}
    if split:
        extra.update(splitBatch=batched, splitTotals={"total_sequence_length": "key_total_sequence_lengths"})
    write(os.path.join(out, name + suffix), name, feeds, attrs, outputs, extra)

