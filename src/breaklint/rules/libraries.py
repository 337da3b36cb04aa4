"""BL411: calls into libraries dynamo does not trace (C extensions, modules on its skip list, NumPy's
functions and classes `torch._numpy` lacks, a C++ extension torch builds at run time)."""

from __future__ import annotations

import libcst as cst

from ..analysis.vocabulary import (
    LIBRARY_OBJECT_PREFIXES, LOCK_FACTORIES, NUMPY_INDEX_TRICKS, NUMPY_ORDERS, NUMPY_SKIPPED, NUMPY_TRICK_NAMES,
    NUMPY_UNTRACED, TORCHAUDIO_SPECTRAL, torchaudio_spectral
)
from .base import register
from .by_name import CallRule
from ._util import keyword

_EXTENSION = "<extension>"  # what `OpaqueExtensionCall.matches` gives for a function of a C++ extension
_OBJECTS = "<objects>"  # and for a NumPy array of Python objects
_ORDER = "<order>"  # and for a NumPy call asking for a memory order `torch._numpy` does not take
_SPECTRAL_BREAK = ("its spectrogram asks `torch.jit.isinstance` of its `normalized` argument, which dynamo skips, so "
                   "the graph breaks inside it at every call (torchaudio 2.1 to 2.11)")
# torchaudio's spectrogram functions, by their public names and their module's
_SPECTRAL_FUNCTIONS = frozenset(alias for name in TORCHAUDIO_SPECTRAL if ".functional." in name
                                for alias in (name, name.replace(".functional.", ".functional.functional.")))
# NumPy's array makers that take a dtype: dynamo traces each (`torch._numpy`) but for `dtype=object`
NUMPY_ARRAY_MAKERS = frozenset({"numpy.array", "numpy.asarray", "numpy.empty", "numpy.zeros", "numpy.ones",
                                "numpy.full"})


@register
class OpaqueExtensionCall(CallRule):
    CODE = "BL411"
    NAME = "opaque-extension-call"
    KIND = "break"
    MESSAGE = ("a call into a library dynamo does not trace (C extension, skipped module, or a NumPy function "
               "`torch._numpy` lacks)")
    SUGGESTION = (
        "use the torch equivalent, wrap the call as a custom op (`torch.library.custom_op`), "
        "or move it outside the compiled region"
    )
    # GB0098: `torch.jit.trace` is disabled for dynamo; GB0294: a NumPy function `torch._numpy` lacks;
    # GB0008: anomaly detection's constructor, `torch.utils.data`'s classes and NumPy's index tricks, which
    # dynamo will not inline; GB0055: a NumPy array of objects; GB0087: a NumPy `order=` `torch._numpy` does not
    # take; GB0156: a function of a compiled extension module, or a numba dispatcher (on torch 2.14 a type of its
    # own, which 2.13's registry lacks)
    GB_TYPES = ("GB0007", "GB0156", "GB0098", "GB0294", "GB0008", "GB0055", "GB0087")
    # numpy's own modules that torch._numpy has no counterpart of (vocabulary.py)
    NUMPY_SKIPPED: tuple[str, ...] = NUMPY_SKIPPED
    # the libraries whose objects a class may also keep (scipy, cv2, PIL, ..., librosa), and the standard
    # library's C modules
    PREFIXES = (*LIBRARY_OBJECT_PREFIXES, "bisect.", "heapq.", "hashlib.", "zlib.", "base64.", "uuid.", "decimal.",
                "array.", "locale.", "fnmatch.", "torch.utils.data.", *NUMPY_SKIPPED)
    # torch's own functions that dynamo skips: packing a batch of sequences for an RNN, compiling
    # with TorchScript at run time (calling what it made traces), the legacy `Variable` wrapper,
    # autograd's anomaly detection (turned on, or entered as a context) and LOBPCG; and the making of
    # a thread's lock, semaphore, condition or event
    NAMES = frozenset({"torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pad_packed_sequence",
                       "torch.nn.utils.rnn.pack_sequence", "torch.nn.utils.rnn.unpack_sequence",
                       "torch.nn.utils.rnn.unpad_sequence", "torch.autograd.Variable",
                       "torch.autograd.variable.Variable", "torch.jit.script", "torch.jit.trace",
                       "torch.autograd.set_detect_anomaly", "torch.autograd.detect_anomaly",
                       "torch.autograd.anomaly_mode.set_detect_anomaly", "torch.autograd.anomaly_mode.detect_anomaly",
                       "torch.lobpcg", "torch._lobpcg.lobpcg", "threading.get_ident", "threading.current_thread",
                       "threading.local", "threading.Event", *LOCK_FACTORIES, *NUMPY_UNTRACED, *NUMPY_ARRAY_MAKERS,
                       "tensorly.einsum", *_SPECTRAL_FUNCTIONS})

    ASK_EXTENSIONS = True

    def visit_Call(self, node: cst.Call) -> None:
        # a method of an object of such a library that the class keeps (`self.tree.query(p)` of
        # `self.tree = cKDTree(points)`), or the object called (`self.interp(t)`): no name of the call says
        # so, so `check_call` is never asked about it
        cls = self.ctx.class_info()
        if cls is None or type(node.func) is not cst.Attribute or not self.ctx.active():
            return
        attr = self.ctx._self_attr(node.func) or self.ctx._self_attr(node.func.value)
        maker = self._kept_object(cls, attr) if attr is not None else None
        if maker is not None and torchaudio_spectral(maker):
            self.report(node, f"`{self.ctx.source(node)}` runs the torchaudio `{maker.rpartition('.')[2]}` kept in "
                              f"`self.{attr}`: {_SPECTRAL_BREAK}")
        elif maker is not None:
            self.report(node, f"`{self.ctx.source(node)}` runs code of the `{maker}` object kept in `self.{attr}`: "
                              f"dynamo does not trace `{maker.split('.')[0]}`, so the graph breaks at the call")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # NumPy's index tricks (`np.ogrid[-m:m + 1, -n:n + 1]`, `np.r_[a, 0, b]`): indexing one runs NumPy's own
        # `__getitem__`, which no call of the code names
        value = node.value
        if type(value) is cst.Attribute and value.attr.value in NUMPY_TRICK_NAMES and self.ctx.active() \
                and (qual := self.ctx.qualify(value)) in NUMPY_INDEX_TRICKS:
            self.report(node, f"`{self.ctx.source(node)}` indexes `{qual}`, whose `__getitem__` dynamo skips (NumPy's "
                              "own code): the graph breaks at the subscript")

    def matches(self, node: cst.Call) -> str | None:
        func = node.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in self.ctx.extensions \
                and self.ctx.qualify(func) == f"{func.value.value}.{func.attr.value}":  # (not a local of that name)
            return _EXTENSION
        order = keyword(node, "order")  # (looked for first: most calls have none, and need no second `qualify`)
        if order is not None and type(order.value) is cst.SimpleString and (qual := self.ctx.qualify(func)) \
                in NUMPY_ORDERS and order.value.evaluated_value != NUMPY_ORDERS[qual]:
            return _ORDER
        what = super().matches(node)
        if what in _SPECTRAL_FUNCTIONS and self.ctx.module.split(".")[0] == "torchaudio":
            return None  # (torchaudio's own code: where it breaks is BL417's, at the `torch.jit.isinstance`)
        if what in NUMPY_ARRAY_MAKERS:
            return _OBJECTS if self._object_dtype(node) else None
        if what == "tensorly.einsum":
            return what if self.ctx.opt_einsum_plugin else None
        return what

    def _kept_object(self, cls, attr: str, depth: int = 0) -> str | None:
        """The library call that made what `self.<attr>` keeps, by the class or a base of the same file."""
        if attr in cls.library_objects:
            return cls.library_objects[attr]
        if attr in cls.submodules or attr in cls.tensor_attrs or depth > 8:
            return None  # (kept something else here)
        classes = self.ctx.summary.classes
        return next((made for base in cls.bases if base in classes
                     and (made := self._kept_object(classes[base], attr, depth + 1)) is not None), None)

    def _object_dtype(self, node: cst.Call) -> bool:
        """`dtype=object` (`np.object_`, `"O"`, `"object"`): an array of Python objects."""
        dtype = keyword(node, "dtype")
        if dtype is None:
            return False
        value = dtype.value
        if type(value) is cst.SimpleString:
            return value.evaluated_value in ("O", "object")
        if type(value) is cst.Name and value.value == "object":
            return "object" not in self.ctx.aliases  # the builtin, no import of that name
        return self.ctx.qualify(value) == "numpy.object_"

    def describe(self, node: cst.Call, what: str) -> str:
        if what is _OBJECTS:
            return (f"`{self.ctx.source(node)}` makes a NumPy array of Python objects: `torch._numpy` has no object "
                    "dtype, so the graph breaks at the call, and again where the code after it first uses the array")
        if what is _ORDER:
            order = keyword(node, "order").value.evaluated_value
            return (f"`{self.ctx.source(node)}` asks for `order={order!r}`, which `torch._numpy`, through which dynamo "
                    "traces NumPy, does not take: the graph breaks at the call")
        if what == "tensorly.einsum":
            return (f"`{self.ctx.source(node)}`: this module turns on tensorly's opt_einsum plugin "
                    "(`use_opt_einsum()`), which runs the contraction through opt_einsum's cached expressions, "
                    "which dynamo skips")
        if what is _EXTENSION:
            module = node.func.value.value
            return (f"`{self.ctx.source(node)}` calls into `{module}`, the C++ extension that "
                    f"`{self.ctx.extensions[module]}` builds at run time: dynamo does not trace its functions")
        if what in NUMPY_UNTRACED:
            return (f"`{self.ctx.source(node)}`: `torch._numpy`, through which dynamo traces NumPy, has no "
                    f"`{what.removeprefix('numpy.')}`, so the graph breaks at the call")
        if torchaudio_spectral(what):
            return f"`{self.ctx.source(node)}` runs torchaudio's `{what.rpartition('.')[2]}`: {_SPECTRAL_BREAK}"
        if what in self.NAMES:
            return f"`{self.ctx.source(node)}`: dynamo skips `{what}`, so the graph breaks at the call"
        if what.startswith("torch.utils.data."):  # datasets and loaders: torch's own, skipped whole
            return f"`{self.ctx.source(node)}`: dynamo skips `torch.utils.data`, so the graph breaks at the call"
        package = ".".join(what.split(".")[:2]) if what.startswith(self.NUMPY_SKIPPED) else what.split(".")[0]
        return f"`{self.ctx.source(node)}` calls into `{package}`, which dynamo does not trace"
