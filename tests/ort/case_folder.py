"""What the ops' ORT-comparison case writers (kernels/<op id>/tools/ort_cases.py) share: one case folder in the
ONNX node-test layout (model.onnx, test_data_set_0/input_N.pb) plus feeds.json, the same inputs as JSON for
run_ort.mjs, which runs ORT. tests/ort/ort_peer.py puts this folder on the writers' import path."""
import json
import os

import numpy as np
import onnx
from onnx import numpy_helper

JSON_TYPE = {np.float32: "float32", np.float16: "float16", np.int32: "int32", np.int64: "int64"}


def write_folder(folder, model, feeds, outputs, extra=None):
    """Saves model and the inputs (dict name -> array, in ONNX input order); feeds.json lists the outputs."""
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for i, (n, v) in enumerate(feeds.items()):
        with open(os.path.join(folder, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(v, n).SerializeToString())
    as_json = {n: {"type": JSON_TYPE[v.dtype.type], "dims": list(v.shape),
                   "data": (v.view(np.uint16) if v.dtype == np.float16 else v).ravel().tolist()}
               for n, v in feeds.items()}
    with open(os.path.join(folder, "feeds.json"), "w") as f:
        json.dump(dict(outputs=list(outputs), feeds=as_json, **(extra or {})), f)

