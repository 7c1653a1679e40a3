"""The registry of the ops' float64 numpy references, found by op id: the reference of op <op id> is
kernels/<op id>/tools/reference.py, in the package's own folder (a new package brings its own; nothing here names
an op). Each defines reference(inputs, attrs) -> {output name: array}, taking the ONNX input and attribute names,
and may add helpers with positional arguments (rope_ref, sparse_ref, random_layouts). Used by the Python binding's
tests, the docs' examples, the ONNX Runtime peer (tests/ort/ort_peer.py) and bench/firstcall.sh.

  import references
  references.ops()                                  -> {op id: reference.py path} of every package that has one
  references.load("ai.onnx.RotaryEmbedding")        -> the module (its helpers)
  references.reference("ai.onnx.RotaryEmbedding")   -> its reference(inputs, attrs)

The references share no code with wgk: they are written from the ONNX and ONNX Runtime definitions.
"""
import glob
import importlib.util
import os
import sys

KERNELS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels"))
_loaded = {}


def ops(kernels=KERNELS):
    """{op id: path} of every kernels/<op id>/tools/reference.py."""
    return {os.path.basename(os.path.dirname(os.path.dirname(p))): p
            for p in sorted(glob.glob(os.path.join(kernels, "*", "tools", "reference.py")))}


def load(op_id, kernels=KERNELS):
    """The reference module of op_id; a KeyError naming the folder it looked in and the ops that have one."""
    path = os.path.join(kernels, op_id, "tools", "reference.py")
    if path in _loaded:
        return _loaded[path]
    if not os.path.isfile(path):
        raise KeyError(f"{op_id}: no numpy reference ({path} does not exist); ops with one: "
                       f"{', '.join(ops(kernels)) or 'none'}")
    spec = importlib.util.spec_from_file_location("reference_" + op_id.replace(".", "_"), path)
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ inside a package folder
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    if not callable(getattr(module, "reference", None)):
        raise KeyError(f"{path}: defines no reference(inputs, attrs)")
    _loaded[path] = module
    return module


def reference(op_id, kernels=KERNELS):
    return load(op_id, kernels).reference
