"""wgk for Python: WebGPU kernel packages called with numpy arrays, over libwgk's C API (include/wgk.h) by ctypes.

    import numpy as np, wgk
    rope = wgk.load("webgpu-kernels/ai.onnx.RotaryEmbedding", version=1)
    out = rope(X=x, cos_cache=c, sin_cache=s, position_ids=p, interleaved=1)   # {"y": ndarray}
    out["Y"]                                  # the same array: outputs answer to the ONNX name too
    g = rope(X=x, cos_cache=c, sin_cache=s, position_ids=p, output="gpu")       # {"y": wgk.Tensor}, no copy back
    rope(X=g["y"], cos_cache=c, sin_cache=s, position_ids=p)["y"]              # chained on the GPU
    rope.info()                               # the contract: ports, attributes, variants

Inputs are keyword arguments named by the port key ("x") or the ONNX name ("X"); a numpy array (any object
np.asarray takes, C order, one of the dtypes of wgk.DTYPES; nothing is converted) or a wgk.Tensor; None leaves
an optional input unset. Every other keyword is an attribute: int, float, str, a sequence of ints, or any value
as JSON. A refusal raises a subclass of wgk.Error carrying wgk's message ("file:line:column: path: message"); a
refused call dispatches nothing. `output` is the keyword of the result's form, so an output port whose ONNX name is
"output" (SparseAttention's) is given a caller-owned tensor by its port key (outputT=...). In/out ports (SparseAttention's caches) are returned as outputs; a numpy array
passed to one is copied to the GPU and left unchanged, a wgk.Tensor is updated in place.

The library: $WGK_LIBRARY when set, else the libwgk.so of the prefix this package is installed in
(<prefix>/lib/python3/dist-packages/wgk), else the build tree of a source checkout (build/libwgk.so), else the
system's. Objects of one process share a default context (wgk.default_context()), made at first use.

Errors: every refusal raises a subclass of wgk.Error that is also the builtin exception a Python caller would
catch for it, so `except ValueError` works as well as `except wgk.CallError`:

    ValueError            InvalidArgumentError ParseError ManifestError DigestError EvalError CallError
                          NoVariantError LimitError UnsupportedError
    LookupError and
      FileNotFoundError   NotFoundError (a package, a file, an adapter, an attribute, an input)
    OSError               IOFailedError (reading a file, the Hub)
    TimeoutError          WaitTimeoutError (a GPU wait ran past its limit)
    MemoryError           OutOfMemoryError
    RuntimeError          NoAdapterError DeviceError ShaderError GPUError

Contexts, kernels and tensors release their GPU objects when collected, or at once with close() or a `with`
block: `with wgk.load(...) as rope: ...`.
"""
import ctypes
import ctypes.util
import difflib
import inspect
import json
import os
import threading
import warnings

import numpy as np

__version__ = "0.1.0"  # the project's version: CMakeLists.txt project(), pyproject.toml (tests/python checks all three)

# The error subclasses stay out of __all__: `from wgk import *` brings only Error, and help(wgk) documents them
# once, in the table above, not each with the builtin exceptions' methods.
__all__ = ["load", "tensor", "Context", "Kernel", "Tensor", "Error", "DTYPES", "default_context", "library_path"]

# ---- errors: one class per wgk_status, all subclasses of Error ------------------------------------------------


class Error(Exception):
    """A refusal by wgk: status (the wgk_status number), status_name and message (wgk's text). Each subclass
    also derives from its natural builtin exception (the module's help lists them)."""

    status = None
    status_name = "error"

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def __str__(self):
        return self.message


_STATUS = [  # wgk.h's wgk_status, by number: (class name, status name, the builtin it also is)
    (1, "InvalidArgumentError", "WGK_ERR_INVALID_ARGUMENT", (ValueError,)),
    (2, "OutOfMemoryError", "WGK_ERR_OUT_OF_MEMORY", (MemoryError,)),
    (3, "IOFailedError", "WGK_ERR_IO", (OSError,)),
    (4, "ParseError", "WGK_ERR_PARSE", (ValueError,)),
    (5, "ManifestError", "WGK_ERR_MANIFEST", (ValueError,)),
    (6, "DigestError", "WGK_ERR_DIGEST", (ValueError,)),
    (7, "EvalError", "WGK_ERR_EVAL", (ValueError,)),
    (8, "CallError", "WGK_ERR_CALL", (ValueError,)),
    (9, "NoVariantError", "WGK_ERR_NO_VARIANT", (ValueError,)),
    (10, "NoAdapterError", "WGK_ERR_NO_ADAPTER", (RuntimeError,)),
    (11, "DeviceError", "WGK_ERR_DEVICE", (RuntimeError,)),
    (12, "ShaderError", "WGK_ERR_SHADER", (RuntimeError,)),
    (13, "GPUError", "WGK_ERR_GPU", (RuntimeError,)),
    (14, "LimitError", "WGK_ERR_LIMIT", (ValueError,)),
    (15, "WaitTimeoutError", "WGK_ERR_TIMEOUT", (TimeoutError,)),
    (16, "UnsupportedError", "WGK_ERR_UNSUPPORTED", (ValueError,)),
    (17, "NotFoundError", "WGK_ERR_NOT_FOUND", (FileNotFoundError, LookupError)),
]
_ERROR_CLASSES = {}
for _code, _cls, _name, _builtins in _STATUS:
    _ERROR_CLASSES[_code] = type(_cls, (Error,) + _builtins, {
        "status": _code, "status_name": _name, "__module__": __name__,
        "__doc__": "wgk's %s; also a %s." % (_name, " and a ".join(b.__name__ for b in _builtins))})
    globals()[_cls] = _ERROR_CLASSES[_code]


def _raise(status, message):
    cls = _ERROR_CLASSES.get(status, Error)
    raise cls(message or "%s (no message)" % cls.status_name, status)

# ---- dtypes --------------------------------------------------------------------------------------------------

# wgk_dtype number -> numpy dtype (host layout: wgk_dtype_size bytes per element)
_DTYPE_NP = {1: np.float32, 2: np.float16, 3: np.int32, 4: np.uint32, 5: np.int64, 6: np.int8, 7: np.uint8,
             8: np.bool_, 9: np.int16}
_NP_DTYPE = {np.dtype(v): k for k, v in _DTYPE_NP.items()}
DTYPES = tuple(np.dtype(v).name for v in _DTYPE_NP.values())  # the numpy dtypes wgk takes

# ---- the library ---------------------------------------------------------------------------------------------


class _PortInfo(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("onnx_name", ctypes.c_char_p), ("dir", ctypes.c_int),
                ("optional", ctypes.c_bool), ("type_var", ctypes.c_char_p), ("dtypes", ctypes.POINTER(ctypes.c_int)),
                ("dtype_names", ctypes.POINTER(ctypes.c_char_p)), ("n_dtypes", ctypes.c_size_t)]


class _AttrInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("required", ctypes.c_bool), ("default_json", ctypes.c_char_p),
                ("values_json", ctypes.POINTER(ctypes.c_char_p)), ("n_values", ctypes.c_size_t),
                ("description", ctypes.c_char_p)]


# The option structs end in zeroed spare bytes: a later libwgk that appends a field to one reads zero there, the
# value a C caller's designated initializer gives a field it does not name.
class _ContextOptions(ctypes.Structure):
    _fields_ = [("adapter", ctypes.c_char_p), ("verbose", ctypes.c_bool), ("wgpu_instance", ctypes.c_void_p),
                ("wgpu_device", ctypes.c_void_p), ("disable_features", ctypes.c_char_p),
                ("wait_timeout_ms", ctypes.c_int64), ("pool_bytes", ctypes.c_int64),
                ("queue_write_max", ctypes.c_int64), ("host_span", ctypes.c_int64),
                ("max_storage_binding_bytes", ctypes.c_int64), ("host_threads", ctypes.c_int32),
                ("host_spin_us", ctypes.c_int32), ("wait_spin_us", ctypes.c_int32), ("staged_upload", ctypes.c_int8),
                ("defer_uploads", ctypes.c_int8), ("submit_during_fill", ctypes.c_int8),
                ("log", ctypes.c_void_p), ("log_user", ctypes.c_void_p),  # NULL: the library says nothing
                ("pipeline_cache_max_bytes", ctypes.c_int64), ("progress_after_ms", ctypes.c_int32),
                ("pipeline_cache", ctypes.c_int8), ("pipeline_cache_log", ctypes.c_int8), ("progress", ctypes.c_int8),
                ("_spare", ctypes.c_uint64 * 16)]


_WGK_ON, _WGK_OFF = 1, -1
# The runtime strategies of wgk_context_options (include/wgk.h): (name, C type's largest value, whether 0 means
# "none" here, given to C as WGK_OFF). None leaves a field to its default (its environment variable, else wgk's).
_COUNT_OPTIONS = [("wait_timeout_ms", 2**63 - 1, False), ("pool_bytes", 2**63 - 1, True),
                  ("queue_write_max", 2**63 - 1, True), ("host_span", 2**63 - 1, False),
                  ("max_storage_binding_bytes", 2**63 - 1, False), ("host_threads", 2**31 - 1, False),
                  ("host_spin_us", 2**31 - 1, True), ("wait_spin_us", 2**31 - 1, True),
                  ("pipeline_cache_max_bytes", 2**63 - 1, False), ("progress_after_ms", 2**31 - 1, True)]
_SWITCH_OPTIONS = ["staged_upload", "defer_uploads", "submit_during_fill", "pipeline_cache", "pipeline_cache_log",
                   "progress"]


def _context_options(adapter, verbose, disable_features, strategies):
    """A _ContextOptions; an option of the wrong type or sign raises before C sees it (C checks the ranges)."""
    if adapter is not None and not isinstance(adapter, str):
        raise TypeError("adapter: expected a str (an index or a name substring), got %s" % type(adapter).__name__)
    if disable_features is not None and not isinstance(disable_features, str):
        raise TypeError("disable_features: expected a str (a comma list), got %s" % type(disable_features).__name__)
    for text, what in ((adapter, "adapter"), (disable_features, "disable_features")):
        if text is not None and "\0" in text:
            raise ValueError("%s: contains a NUL character" % what)
    o = _ContextOptions()
    o.adapter = adapter.encode() if adapter is not None else None
    o.verbose = bool(verbose)
    o.disable_features = disable_features.encode() if disable_features is not None else None
    unknown = set(strategies) - {n for n, _, _ in _COUNT_OPTIONS} - set(_SWITCH_OPTIONS)
    if unknown:
        raise TypeError("Context: unknown option %s; the options: %s" % (
            ", ".join(sorted(unknown)), ", ".join([n for n, _, _ in _COUNT_OPTIONS] + _SWITCH_OPTIONS)))
    for name, top, none_ok in _COUNT_OPTIONS:
        v = strategies.get(name)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError("%s: expected an int, got %s" % (name, type(v).__name__))
        low = 0 if none_ok else 1
        if v < low or v > top:
            raise ValueError("%s: must be from %d to %d, not %d" % (name, low, top, v))
        setattr(o, name, _WGK_OFF if v == 0 else v)
    for name in _SWITCH_OPTIONS:
        v = strategies.get(name)
        if v is None:
            continue
        if not isinstance(v, bool):
            raise TypeError("%s: expected True or False, got %r" % (name, v))
        setattr(o, name, _WGK_ON if v else _WGK_OFF)
    return o


class _KernelOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_int), ("revision", ctypes.c_char_p), ("strict", ctypes.c_bool),
                ("trust_remote_code", ctypes.c_bool), ("_spare", ctypes.c_uint64 * 16)]


_P = ctypes.c_void_p
_I64P = ctypes.POINTER(ctypes.c_int64)
_SIGNATURES = {  # name: (restype, argtypes); wgk_status is an int
    "wgk_status_str": (ctypes.c_char_p, [ctypes.c_int]),
    "wgk_context_create": (ctypes.c_int, [ctypes.POINTER(_ContextOptions), ctypes.POINTER(_P), ctypes.POINTER(_P)]),
    "wgk_context_destroy": (None, [_P]),
    "wgk_context_errmsg": (ctypes.c_char_p, [_P]),
    "wgk_context_errcode": (ctypes.c_int, [_P]),
    "wgk_context_adapter": (ctypes.c_char_p, [_P]),
    "wgk_kernel_load": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(_KernelOptions), ctypes.POINTER(_P)]),
    "wgk_kernel_destroy": (None, [_P]),
    "wgk_kernel_op_id": (ctypes.c_char_p, [_P]),
    "wgk_kernel_warning": (ctypes.c_char_p, [_P]),
    "wgk_kernel_version": (ctypes.c_int, [_P]),
    "wgk_kernel_port_count": (ctypes.c_size_t, [_P]),
    "wgk_kernel_port": (ctypes.POINTER(_PortInfo), [_P, ctypes.c_size_t]),
    "wgk_kernel_attr_count": (ctypes.c_size_t, [_P]),
    "wgk_kernel_attr": (ctypes.POINTER(_AttrInfo), [_P, ctypes.c_size_t]),
    "wgk_kernel_variant_count": (ctypes.c_size_t, [_P]),
    "wgk_kernel_variant_id": (ctypes.c_char_p, [_P, ctypes.c_size_t]),
    "wgk_tensor_create": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, _I64P, _P, ctypes.POINTER(_P)]),
    "wgk_tensor_retain": (_P, [_P]),
    "wgk_tensor_release": (None, [_P]),
    "wgk_tensor_dtype": (ctypes.c_int, [_P]),
    "wgk_tensor_rank": (ctypes.c_int, [_P]),
    "wgk_tensor_shape": (_I64P, [_P]),
    "wgk_tensor_host_bytes": (ctypes.c_size_t, [_P]),
    "wgk_tensor_read": (ctypes.c_int, [_P, _P, ctypes.c_size_t]),
    "wgk_call_create": (ctypes.c_int, [_P, ctypes.POINTER(_P)]),
    "wgk_call_destroy": (None, [_P]),
    "wgk_call_set_input": (ctypes.c_int, [_P, ctypes.c_char_p, _P]),
    "wgk_call_set_output": (ctypes.c_int, [_P, ctypes.c_char_p, _P]),
    "wgk_call_set_attr_int": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_int64]),
    "wgk_call_set_attr_float": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_double]),
    "wgk_call_set_attr_string": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p]),
    "wgk_call_set_attr_ints": (ctypes.c_int, [_P, ctypes.c_char_p, _I64P, ctypes.c_size_t]),
    "wgk_call_set_attr_json": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p]),
    "wgk_call_run": (ctypes.c_int, [_P]),
    "wgk_call_output": (_P, [_P, ctypes.c_char_p]),
    "wgk_call_want_output": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_bool, ctypes.c_int]),
    "wgk_call_variant": (ctypes.c_char_p, [_P]),
}

_lib = None
_lib_path = None
_lock = threading.Lock()


def _candidates():
    env = os.environ.get("WGK_LIBRARY")
    if env:
        return [env]  # an explicit choice is never second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    try:  # written by `cmake --install`: the library folder relative to this package
        from . import _install
        found.append(os.path.normpath(os.path.join(here, _install.LIBDIR, "libwgk.so")))
    except ImportError:
        pass
    found.append(os.path.normpath(os.path.join(here, "..", "..", "build", "libwgk.so")))  # python/wgk of a checkout
    system = ctypes.util.find_library("wgk")
    if system:
        found.append(system)
    return found


def library_path():
    """The libwgk.so this process uses (loading it on first call)."""
    _library()
    return _lib_path


def _library():
    global _lib, _lib_path
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append(path + " (missing)")
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s)" % (path, e))
                continue
            missing = [name for name in _SIGNATURES if not hasattr(lib, name)]
            if missing:
                tried.append("%s (lacks %s: older than this binding)" % (path, ", ".join(missing)))
                continue
            for name, (res, args) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = res, args
            _lib, _lib_path = lib, path
            return lib
        raise ImportError("wgk: no usable libwgk.so; set WGK_LIBRARY to its path. Tried: " + "; ".join(tried))


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None

# ---- handles --------------------------------------------------------------------------------------------------


class _Handle:
    """What Context, Kernel and Tensor share: the libwgk handle one of them owns (self._h), dropped by close(), on
    leaving a `with` block, or when the object is collected. A subclass says how to drop it (_free)."""

    _h = None  # also what close() and __del__ see of an object whose __init__ raised before setting it

    def _free(self, h):
        raise NotImplementedError

    def close(self):
        """Drops this object's libwgk handle now rather than at collection; closing twice is harmless."""
        h, self._h = self._h, None
        if h:
            self._free(h)

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._h:
            raise ValueError("wgk.%s: used after close()" % type(self).__name__)
        return self._h

# ---- contexts ------------------------------------------------------------------------------------------------


class Context(_Handle):
    """One WebGPU device and its caches (wgk_context). adapter: an index or name substring (default: $WGK_ADAPTER,
    else high-performance). disable_features: device features wgk acts as if absent, a comma list ("shader-f16").
    close() drops the device and caches at once; kernels and tensors made from it keep working until they are
    closed or collected, and the context makes nothing new.

    The runtime strategies of wgk_context_options, by keyword; None (the default) leaves each to its environment
    variable, else wgk's default (docs/environment.md): wait_timeout_ms, pool_bytes (0: none kept), queue_write_max
    (0: every upload staged), host_span, max_storage_binding_bytes, host_threads, host_spin_us (0: none),
    wait_spin_us (0: block at once), pipeline_cache_max_bytes, progress_after_ms (0: at once), and the switches
    staged_upload, defer_uploads, submit_during_fill, pipeline_cache, pipeline_cache_log (its counts go nowhere: the
    binding sets no log), progress (True or False). A value outside its range raises ValueError naming it."""

    def __init__(self, adapter=None, verbose=False, disable_features=None, **strategies):
        lib = _library()
        self._lib = lib
        opts = _context_options(adapter, verbose, disable_features, strategies)
        h, msg = _P(), _P()
        st = lib.wgk_context_create(ctypes.byref(opts), ctypes.byref(h), ctypes.byref(msg))
        if st != 0:
            text = ctypes.string_at(msg.value).decode("utf-8", "replace") if msg.value else ""
            if msg.value:
                ctypes.CDLL(None).free(msg)
            _raise(st, text)
        self._h = h.value

    def _free(self, h):
        self._lib.wgk_context_destroy(h)

    @property
    def adapter(self):
        """The adapter in one line: "lavapipe (llvmpipe ...), vulkan, cpu"."""
        return _s(self._lib.wgk_context_adapter(self._handle()))

    def _check(self, status):
        if status != 0:
            _raise(status, _s(self._lib.wgk_context_errmsg(self._handle())))

    def load(self, path_or_id, version=0, revision=None, strict=False, trust_remote_code=False):
        """A kernel package: a folder, or a repo id "webgpu-kernels/<op id>" (search path, Hub cache, Hub).

        version=0 and no revision: the newest version on this machine (the Hub cache's or the bundled copy's),
        without a request to choose it; none there raises wgk.NotFoundError (name a version to fetch one).
        The same rule as the C API and the CLI (docs/hub.md, "Which version a name without one loads")."""
        return Kernel(self, path_or_id, version, revision, strict, trust_remote_code)

    def tensor(self, array):
        """A GPU tensor holding a copy of array (numpy; C order; a dtype of wgk.DTYPES)."""
        return Tensor._from_numpy(self, array, "tensor")


_default = None


_default_lock = threading.Lock()


def default_context():
    """The process's shared context, made at first use (adapter: $WGK_ADAPTER, else high-performance)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


def load(path_or_id, version=0, revision=None, strict=False, trust_remote_code=False, context=None):
    """A kernel package on context (default: wgk.default_context()); see Kernel."""
    return (context or default_context()).load(path_or_id, version, revision, strict, trust_remote_code)


def tensor(array, context=None):
    """A GPU tensor holding a copy of array, on context (default: wgk.default_context())."""
    return (context or default_context()).tensor(array)

# ---- tensors -------------------------------------------------------------------------------------------------


class Tensor(_Handle):
    """A tensor on the GPU (a wgk_tensor, reference held): pass it as an input, or copy it back with .numpy().
    close() releases the GPU memory at once (if no call still holds it)."""

    def __init__(self, context, handle):
        self._ctx = context  # keeps the context (and the library) alive as long as the tensor
        self._h = handle

    @classmethod
    def _from_numpy(cls, ctx, array, name):
        a = np.asarray(array)
        dt = _NP_DTYPE.get(a.dtype)
        if dt is None:
            raise CallError("%s: numpy dtype %s has no wgk dtype (wgk takes %s); convert it first, e.g. "
                            "a.astype(np.float32)" % (name, a.dtype, ", ".join(DTYPES)), 8)
        a = np.ascontiguousarray(a).reshape(a.shape)  # ascontiguousarray alone makes a 0-d array 1-d
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        h = _P()
        ctx._check(ctx._lib.wgk_tensor_create(ctx._handle(), dt, a.ndim, shape, a.ctypes.data_as(_P), ctypes.byref(h)))
        return cls(ctx, h.value)

    def _free(self, h):
        self._ctx._lib.wgk_tensor_release(h)

    @property
    def dtype(self):
        return np.dtype(_DTYPE_NP[self._ctx._lib.wgk_tensor_dtype(self._handle())])

    @property
    def shape(self):
        lib = self._ctx._lib
        rank, dims = lib.wgk_tensor_rank(self._handle()), lib.wgk_tensor_shape(self._handle())
        return tuple(dims[i] for i in range(rank))

    def numpy(self):
        """Waits for the GPU and copies the tensor into a new numpy array."""
        out = np.empty(self.shape, dtype=self.dtype)
        lib = self._ctx._lib
        self._ctx._check(lib.wgk_tensor_read(self._handle(), out.ctypes.data_as(_P), out.nbytes))
        return out

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        if not self._h:
            return "wgk.Tensor(closed)"
        return "wgk.Tensor(shape=%s, dtype=%s)" % (self.shape, self.dtype.name)

# ---- kernels -------------------------------------------------------------------------------------------------


class Outputs(dict):
    """A call's outputs keyed by port key ("y"); the ONNX name ("Y") finds the same entry."""

    def __init__(self, items, aliases):
        super().__init__(items)
        self._aliases = aliases

    def __missing__(self, name):
        if name in self._aliases:
            return self[self._aliases[name]]
        raise KeyError(name)

    def __contains__(self, name):
        return dict.__contains__(self, name) or name in self._aliases


_DIRS = {1: "in", 2: "out", 3: "inout"}


class _Port:
    """A port of the contract, copied out of libwgk at load (the kernel may be closed before the object goes)."""

    def __init__(self, info):
        self.key, self.onnx_name, self.dir = _s(info.key), _s(info.onnx_name), info.dir
        self.optional, self.type_var = bool(info.optional), _s(info.type_var)
        self.dtypes = [_s(info.dtype_names[i]) for i in range(info.n_dtypes)]


class Kernel(_Handle):
    """A loaded kernel package (wgk_kernel): call it with its inputs and attributes as keywords.

    inspect.signature(kernel) (and help on a call in an IDE) lists the kernel's own inputs by ONNX name,
    its attributes with their defaults, and its caller-owned outputs; kernel.info() is the whole contract.
    Use it in a `with` block, or call close(), to drop it at once; outputs it already returned stay valid."""

    def __init__(self, ctx, path_or_id, version=0, revision=None, strict=False, trust_remote_code=False):
        self._ctx = ctx
        self._lib = ctx._lib
        path_text = os.fsdecode(path_or_id) if isinstance(path_or_id, (bytes, os.PathLike)) else path_or_id
        for text, what in ((path_text, "path_or_id"), (revision, "revision")):
            if isinstance(text, str) and "\0" in text:  # C would read the text only up to the NUL
                raise ValueError("%s: %r contains a NUL character" % (what, text))
        if isinstance(version, bool) or not isinstance(version, (int, np.integer)) or not 0 <= int(version) < 2**31:
            raise ValueError("version: must be an int from 0 to 2147483647, not %r" % (version,))
        opts = _KernelOptions(int(version), revision.encode() if revision else None, bool(strict),
                              bool(trust_remote_code))
        h = _P()
        ctx._check(self._lib.wgk_kernel_load(ctx._handle(), os.fsencode(path_or_id), ctypes.byref(opts),
                                             ctypes.byref(h)))
        self._h = h.value
        if self.warning:  # an unverified package (no metadata.json digests)
            warnings.warn(self.warning, stacklevel=3)
        self._ports = [_Port(self._lib.wgk_kernel_port(self._h, i).contents)
                       for i in range(self._lib.wgk_kernel_port_count(self._h))]
        self._by_name = {}
        for p in self._ports:
            self._by_name[p.key] = p
            self._by_name[p.onnx_name] = p
        self._attrs = self._read_attrs()
        self.variant = None  # the variant the last call ran
        self.__signature__ = self._signature()

    def _free(self, h):
        self._lib.wgk_kernel_destroy(h)

    @property
    def op_id(self):
        return _s(self._lib.wgk_kernel_op_id(self._handle()))

    @property
    def warning(self):
        """A one-line warning for an unverified package, else None."""
        return _s(self._lib.wgk_kernel_warning(self._handle()))

    @property
    def version(self):
        """The contract version the package records (the one a load without a version chose), else 0."""
        return int(self._lib.wgk_kernel_version(self._handle()))

    def _read_attrs(self):
        lib, h, attrs = self._lib, self._handle(), []
        for i in range(lib.wgk_kernel_attr_count(h)):
            a = lib.wgk_kernel_attr(h, i).contents
            attrs.append({"name": _s(a.name), "required": bool(a.required),
                          "default": json.loads(a.default_json) if a.default_json is not None else None,
                          "values": [json.loads(a.values_json[j]) for j in range(a.n_values)] if a.n_values else None,
                          "description": _s(a.description)})
        return attrs

    def info(self):
        """The contract: {"op_id", "ports": [{key, onnx_name, dir ("in", "out", "inout"), optional, type_var,
        dtypes}], "attrs": [{name, required, default, values, description}], "variants": [id]}; default and
        values are decoded JSON (values None: any value of the type)."""
        lib, h = self._lib, self._handle()
        ports = [{"key": p.key, "onnx_name": p.onnx_name, "dir": _DIRS.get(p.dir, str(p.dir)),
                  "optional": p.optional, "type_var": p.type_var, "dtypes": list(p.dtypes)} for p in self._ports]
        variants = [_s(lib.wgk_kernel_variant_id(h, i)) for i in range(lib.wgk_kernel_variant_count(h))]
        return {"op_id": self.op_id, "ports": ports, "attrs": [dict(a) for a in self._attrs], "variants": variants}

    def _inputs(self):
        return [p for p in self._ports if p.dir != 2]

    def _signature(self):
        """The call's keywords: inputs by ONNX name (None: an optional input left unset), attributes with their
        defaults (required ones have none), caller-owned outputs by port key, then output."""
        params, seen = [], set()

        def add(name, default, annotation):
            if name and name.isidentifier() and name not in seen:
                seen.add(name)
                params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                                annotation=annotation))
        for p in self._inputs():
            add(p.onnx_name if p.onnx_name.isidentifier() else p.key, None if p.optional else inspect.Parameter.empty,
                "%s array or wgk.Tensor (%s)" % (p.type_var or "tensor", ", ".join(p.dtypes)))
        for a in self._attrs:
            add(a["name"], inspect.Parameter.empty if a["required"] else a["default"], "attribute")
        for p in self._ports:
            if p.dir == 2:
                add(p.key, None, "wgk.Tensor to write into (optional)")
        add("outputs", None, "optional outputs to make and return (by port key or ONNX name)")
        add("output", "numpy", '"numpy" or "gpu"')
        return inspect.Signature(params)

    def _set_attr(self, call, name, value):
        lib, n = self._lib, name.encode()
        if isinstance(value, (bool, np.bool_)):
            return lib.wgk_call_set_attr_int(call, n, int(value))
        ints = [value] if isinstance(value, (int, np.integer)) else (
            list(value) if isinstance(value, (list, tuple, np.ndarray)) else [])
        for v in ints:  # ctypes would wrap them silently (2**64 + 1 ran as 1)
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and not -2**63 <= int(v) < 2**63:
                raise CallError("attribute %s: %d is outside int64 (from -2^63 to 2^63 - 1)" % (name, int(v)), 8)
        if isinstance(value, str) and "\0" in value:
            raise CallError("attribute %s: the string contains a NUL character" % name, 8)
        if isinstance(value, (int, np.integer)):
            return lib.wgk_call_set_attr_int(call, n, int(value))
        if isinstance(value, (float, np.floating)):
            return lib.wgk_call_set_attr_float(call, n, float(value))
        if isinstance(value, str):
            return lib.wgk_call_set_attr_string(call, n, value.encode())
        if isinstance(value, (list, tuple, np.ndarray)) and all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
            vals = (ctypes.c_int64 * max(len(value), 1))(*[int(v) for v in value])
            return lib.wgk_call_set_attr_ints(call, n, vals, len(value))
        try:
            text = json.dumps(value)
        except TypeError:
            raise CallError("attribute %s: a value of type %s is not an attribute value (int, float, str, a list "
                            "of ints, or a JSON value)" % (name, type(value).__name__), 8) from None
        return lib.wgk_call_set_attr_json(call, n, text.encode())

    def _no_input(self, name):
        """The refusal of a tensor given under a name that is no port of the kernel."""
        names = [p.onnx_name for p in self._inputs()]
        keys = [p.key for p in self._inputs() if p.key != p.onnx_name]
        folded = {n.lower(): n for n in names + keys}
        near = difflib.get_close_matches(name, names + keys, n=1, cutoff=0.5) or [
            folded[m] for m in difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.5)]
        hint = "; did you mean '%s'?" % near[0] if near else ""
        return NotFoundError("no input '%s' (inputs: %s)%s" % (name, ", ".join(names), hint), 17)

    def __call__(self, output="numpy", outputs=None, **inputs_and_attributes):
        """Runs the kernel once and returns its outputs, a dict keyed by port key ("y"; the ONNX name "Y" finds
        the same entry).

        Keywords: each input by ONNX name ("X") or port key ("x"), as a numpy array (C order, a dtype of
        wgk.DTYPES; nothing is converted) or a wgk.Tensor already on the GPU, None for an optional input left
        unset; each attribute by name (int, float, str, a list of ints, or a JSON value; a missing one takes its
        default); an output port by key given a wgk.Tensor to write into. output="numpy" (default) copies the
        outputs back as numpy arrays, output="gpu" returns wgk.Tensor objects that stay on the GPU (pass them to
        the next call). In/out ports are returned too: a wgk.Tensor given to one is updated in place.
        outputs=[...] names the optional outputs the call asks for (an optional output is made and returned
        only when asked: listed here, or given a wgk.Tensor to write into); only the outputs made are returned.

        inspect.signature(kernel) lists this kernel's own keywords. A refusal raises a wgk.Error (a misspelled
        input: NotFoundError, "no input 'XX' (inputs: X, ...); did you mean 'X'?") and dispatches nothing."""
        if output not in ("numpy", "gpu"):
            raise ValueError("output: %r is neither \"numpy\" nor \"gpu\"" % (output,))
        ctx, lib = self._ctx, self._lib
        attr_names = {a["name"] for a in self._attrs}
        given = {}
        for name, value in inputs_and_attributes.items():
            if name not in self._by_name and name not in attr_names and isinstance(value, (np.ndarray, Tensor)):
                raise self._no_input(name)
            port = self._by_name.get(name)
            if port is not None:  # X= and x= name one port: which to run with is not for wgk to guess
                if port.key in given:
                    raise CallError("%s= and %s= both name port %s; give it once" % (given[port.key], name, port.key), 8)
                given[port.key] = name
        h = _P()
        ctx._check(lib.wgk_call_create(self._handle(), ctypes.byref(h)))
        call, keep = h.value, []
        try:
            for name, value in inputs_and_attributes.items():
                port = self._by_name.get(name)
                if port is not None and port.dir == 2:  # a caller-owned output (wgk_call_set_output)
                    if not isinstance(value, Tensor):
                        raise CallError("%s: an output port takes a wgk.Tensor to write into, not %s"
                                        % (name, type(value).__name__), 8)
                    ctx._check(lib.wgk_call_set_output(call, name.encode(), value._handle()))
                elif port is not None:
                    if value is None:
                        t = None
                    elif isinstance(value, Tensor):
                        t = value
                    else:
                        t = Tensor._from_numpy(ctx, value, name)
                        keep.append(t)
                    ctx._check(lib.wgk_call_set_input(call, name.encode(), t._handle() if t is not None else None))
                else:  # an attribute; a name the contract lacks is refused by wgk, with a suggestion
                    ctx._check(self._set_attr(call, name, value))
            for name in outputs or ():
                port = self._by_name.get(name)
                if port is None or port.dir != 2:
                    raise NotFoundError("outputs: '%s' is no output port of %s" % (name, self.op_id), 17)
                ctx._check(lib.wgk_call_want_output(call, name.encode(), True, 0))
            ctx._check(lib.wgk_call_run(call))
            self.variant = _s(lib.wgk_call_variant(call))
            items, aliases = {}, {}
            for p in self._ports:
                if p.dir == 1:
                    continue
                t = lib.wgk_call_output(call, p.key.encode())
                if not t:
                    continue  # an output the call did not produce
                gpu = Tensor(ctx, lib.wgk_tensor_retain(t))
                items[p.key] = gpu if output == "gpu" else gpu.numpy()
                if p.onnx_name != p.key:
                    aliases[p.onnx_name] = p.key
            return Outputs(items, aliases)
        finally:
            lib.wgk_call_destroy(call)

    def __repr__(self):
        if not self._h:
            return "wgk.Kernel(closed)"
        return "wgk.Kernel(%r)" % self.op_id
