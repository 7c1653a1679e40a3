"""Random single-node RotaryEmbedding-23 cases in the ONNX node-test layout, for comparing wgk with ONNX Runtime's
CPU kernel: read by the ONNX Runtime peer (tests/ort/ort_peer.py), which writes them, has ORT write the expected
outputs (tests/ort/run_ort.mjs) and runs `wgk onnx-test` on them (not read by wgk).

Each case folder holds model.onnx (opset 23, ir_version 10 set by hand: python3-onnx 1.12 predates both),
test_data_set_0/input_N.pb and feeds.json (the same inputs as JSON for run_ort.mjs). The cases cover both
pairings, full and partial rotation, 3D and 4D X, with and without position_ids, float32 and float16, compared
with `wgk onnx-test`'s default tolerance.
"""
import os

import numpy as np
from onnx import TensorProto, helper

from case_folder import write_folder

# (name, rank, heads, head_size, rot (0 = full), interleaved, position ids, dtype)
CASES = [
    ("r4_full_neox_pos", 4, 3, 16, 0, 0, True, np.float32),
    ("r4_full_gptj_pos", 4, 2, 8, 0, 1, True, np.float32),
    ("r4_partial_neox_nopos", 4, 2, 16, 8, 0, False, np.float32),
    ("r4_partial_gptj_nopos", 4, 4, 12, 4, 1, False, np.float32),
    ("r3_full_neox_nopos", 3, 4, 8, 0, 0, False, np.float32),
    ("r3_partial_gptj_pos", 3, 2, 20, 12, 1, True, np.float32),
    ("r3_partial_neox_pos", 3, 3, 32, 16, 0, True, np.float32),
    ("r3_full_gptj_nopos", 3, 1, 64, 0, 1, False, np.float32),
    ("r4_partial_neox_pos_f16", 4, 2, 16, 8, 0, True, np.float16),
    ("r3_full_gptj_nopos_f16", 3, 2, 8, 0, 1, False, np.float16),
]
ONNX_TYPE = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16}


def case(out, rng, name, rank, heads, head, rot, inter, pos, dt):
    batch, seq, max_pos = int(rng.integers(1, 4)), int(rng.integers(1, 7)), 24
    half = (rot or head) // 2
    x_shape = [batch, heads, seq, head] if rank == 4 else [batch, seq, heads * head]
    cache_shape = [max_pos, half] if pos else [batch, seq, half]
    angles = rng.uniform(-np.pi, np.pi, cache_shape)
    feeds = {"X": rng.uniform(-2, 2, x_shape).astype(dt), "cos_cache": np.cos(angles).astype(dt),
             "sin_cache": np.sin(angles).astype(dt)}
    if pos:
        feeds["position_ids"] = rng.integers(0, max_pos, [batch, seq]).astype(np.int64)
    attrs = {"interleaved": inter}
    if rot:
        attrs["rotary_embedding_dim"] = rot
    if rank == 3:
        attrs["num_heads"] = heads
    names = list(feeds)
    node = helper.make_node("RotaryEmbedding", names, ["Y"], **attrs)
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64 if n == "position_ids" else ONNX_TYPE[dt],
                                           list(v.shape)) for n, v in feeds.items()]
    graph = helper.make_graph([node], name, inputs, [helper.make_tensor_value_info("Y", ONNX_TYPE[dt], x_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_operatorsetid("", 23)])
    model.ir_version = 10
    write_folder(os.path.join(out, name), model, feeds, ["Y"])

