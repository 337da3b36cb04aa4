"""What breaklint knows of torch's API and of Python's: which calls decide branches under compile,
which torch functions and tensor methods give something other than a tensor, which give bools, which
annotations name scalars. Plain tables, asked by the analysis layers and some rules."""

from __future__ import annotations

import libcst as cst

from . import values as V
from .methods import SAME_KIND_METHODS, TENSOR_METHODS
from .optimizer_classes import OPTIMIZER_MODULE


COMPILE = {"torch.compile"}
# calls that make a compiler, which the next call applies: `torch._dynamo.optimize("inductor")(fn)`
COMPILER_FACTORIES = frozenset({"torch._dynamo.optimize"})
# Decorators that make a method an attribute: reading it runs the method.
# decorators that make a method a property: reading the attribute runs it (torch's own
# `lazy_property`, which torch.distributions and the libraries built on it use, caches the value)
PROPERTIES = frozenset({"property", "functools.cached_property", "cached_property",
                        "torch.distributions.utils.lazy_property"})
# the decorators of a pydantic model's validators: building the model runs them from pydantic-core,
# a compiled extension that dynamo cannot trace (the models' base: hierarchy.PYDANTIC_MODELS)
PYDANTIC_VALIDATORS = frozenset({"pydantic.field_validator", "pydantic.model_validator", "pydantic.validator",
                                 "pydantic.root_validator", "pydantic.functional_validators.field_validator",
                                 "pydantic.functional_validators.model_validator"})
# the decorators by which beartype checks each call's arguments and result (`@beartype`, also on a class:
# then on each of its methods); `@jaxtyped(typechecker=beartype)` is one too (syntax.type_checking)
BEARTYPE = frozenset({"beartype.beartype", "beartype._decor.decormain.beartype"})
JAXTYPED = "jaxtyping.jaxtyped"
# the annotations of which beartype checks one item, picked at random (`random.getrandbits`, a builtin
# dynamo does not trace: probed on torch 2.13 and 2.14.1), by their last name in `typing`, `beartype.typing`,
# `collections.abc` or the builtins; a `Tuple[T, ...]` too (a tuple of fixed length is checked whole)
SAMPLED_HINTS = frozenset({"list", "List", "Sequence", "MutableSequence"})
HINT_MODULES = frozenset({"", "builtins", "typing", "typing_extensions", "beartype.typing", "collections.abc"})
DISABLE = {
    "torch.compiler.disable",
    "torch._dynamo.disable",
    "torch._disable_dynamo",
}
# Decorators that make a function an operator of torch.library, or a kernel of one: dynamo calls the op as
# one node of the graph (its fake implementation gives the shapes) and traces none of the function's code
# (`@torch.library.custom_op("mylib::op", mutates_args=())`, `@torch.library.impl("mylib::op", "cpu")`)
OPERATOR_MAKERS = frozenset({"torch.library.custom_op", "torch._library.custom_ops.custom_op", "torch.library.impl",
                             "torch.library.register_kernel"})
# functions that register a fake implementation for the op they name (`register_fake("mylib::op")`)
FAKE_REGISTRARS = frozenset({"torch.library.register_fake", "torch.library.impl_abstract"})
# torch's functions that decide what dynamo traces of the code they decorate: a module-level name bound to
# one (`_custom_op = torch.library.custom_op`, often under a version guard whose other branch defines a
# no-op fallback) is that function (names.py)
TRACE_DECORATORS = DISABLE | OPERATOR_MAKERS | FAKE_REGISTRARS
# Calls whose value under torch.compile is known: these decide which branch
# of an `if` dynamo traces.
TRUE_UNDER_COMPILE = {
    "torch.compiler.is_compiling",
    "torch.compiler.is_dynamo_compiling",
    "torch._dynamo.is_compiling",
    "torch._utils.is_compiling",
}
COMPILING_HELPERS = {"is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling"}
FALSE_UNDER_COMPILE = {
    "torch.jit.is_scripting",
    "torch.jit.is_tracing",
    "torch.onnx.is_in_onnx_export",
}
# torch functions that return something other than a tensor.
TORCH_NON_TENSOR = {
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel",
    "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.get_default_dtype",
    "torch.device", "torch.dtype", "torch.Size", "torch.no_grad", "torch.enable_grad",
    "torch.inference_mode", "torch.set_grad_enabled", "torch.compile", "torch.finfo", "torch.iinfo",
    "torch.promote_types", "torch.result_type", "torch.can_cast", "torch.is_nonzero", "torch.equal",
    "torch.split", "torch.chunk", "torch.unbind", "torch.tensor_split", "torch.meshgrid",
    "torch.broadcast_tensors", "torch.autocast", "torch.get_autocast_gpu_dtype", "torch.broadcast_shapes",
}
TORCH_SEQUENCE = {
    "torch.split", "torch.chunk", "torch.unbind", "torch.tensor_split", "torch.meshgrid",
    "torch.broadcast_tensors",
}
# torch's classes of objects the code keeps and hands on, by what each makes: a generator (`generator=`
# breaks the graph) and a quasi-random engine (`torch.quasirandom` is skipped whole): both BL421
# torch's builder of C++ extensions at run time, and what it builds: a module whose functions (pybind11)
# dynamo does not trace (BL411)
EXTENSION_MODULE = "torch.utils.cpp_extension"
EXTENSION_BUILDERS = frozenset({f"{EXTENSION_MODULE}.load", f"{EXTENSION_MODULE}.load_inline"})
# tensorly's plugin that makes `tensorly.einsum` run opt_einsum's contraction (its cached expressions:
# an `lru_cache` dynamo skips) for the whole process, once a module calls it at import
TENSORLY_OPT_EINSUM = "tensorly.plugins.use_opt_einsum"
TORCH_OBJECTS = {"torch.Generator": V.GENERATOR, "torch._C.Generator": V.GENERATOR,
                 "torch.quasirandom.SobolEngine": V.SOBOL_ENGINE}
# torch's constructors of a sparse tensor from its indices and values, and a tensor's methods that
# give its sparse form (BL429)
SPARSE_CONSTRUCTORS = frozenset({
    "torch.sparse_coo_tensor", "torch.sparse_csr_tensor", "torch.sparse_csc_tensor", "torch.sparse_bsr_tensor",
    "torch.sparse_bsc_tensor", "torch.sparse_compressed_tensor",
    # the legacy typed classes (`torch.sparse.FloatTensor(indices, values, size)`)
    *(f"{module}.{kind}Tensor" for module in ("torch.sparse", "torch.cuda.sparse")
      for kind in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")),
})
# the modules of those legacy classes, whose class code picks by name (`getattr(torch.sparse, type_name)`)
SPARSE_CLASS_MODULES = frozenset({"torch.sparse", "torch.cuda.sparse"})
SPARSE_CONVERSIONS = frozenset({"to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
                                "to_sparse_bsc"})
# a sparse tensor's methods whose result is sparse too, and torch's products that are sparse when both
# factors are
SPARSE_KEEPING = frozenset({"coalesce", "index_select", "transpose", "t", "to", "cpu", "cuda", "float", "double",
                            "half", "clone", "detach", "requires_grad_"})
SPARSE_PRODUCTS = frozenset({"torch.sparse.mm", "torch.mm"})
SPARSE_KEEPING_ATTRS = frozenset({"T", "mT", "H", "mH", "data"})  # a sparse tensor's transposes, and itself
# torch's functions made for a sparse operand, by the operand's position, and the tensor methods that
# raise on a dense tensor: code calling them unconditionally is handed a sparse tensor (BL429)
SPARSE_OPERANDS = {"torch.sparse.mm": 0, "torch.spmm": 0, "torch.smm": 0, "torch.hspmm": 0, "torch.sspaddmm": 1,
                   "torch.sparse.addmm": 1, "torch.sparse.sum": 0, "torch.sparse.softmax": 0,
                   "torch.sparse.log_softmax": 0}
SPARSE_ONLY_METHODS = frozenset({"coalesce", "is_coalesced", "_values", "_indices", "_nnz", "crow_indices",
                                 "col_indices", "ccol_indices", "row_indices"})
TORCH_NON_TENSOR_PREFIXES = (
    "torch.cuda.", "torch.backends.", "torch.jit.", "torch.compiler.", "torch._dynamo.",
    "torch.distributed.", "torch.utils.data.", "torch.autograd.profiler.", "torch.profiler.",
    "torch.testing.", "torch.onnx.", "torch.hub.", "torch.version.", "torch.amp.", "torch._C.",
    "torch.overrides.", "torch.fx.", "torch.export.", "torch.library.", "torch._inductor.", "torch._guards.",
    "torch.__",  # the module's own attributes: `torch.__version__.startswith("1.9.")`, `torch.__config__.show()`
    OPTIMIZER_MODULE,
)
# `torch.is_autocast_enabled()`, `torch.are_deterministic_algorithms_enabled()`, ...
PREDICATE_PREFIXES = ("is_", "are_", "has_", "get_")
# Builtins that inspect what they are handed without calling it.
TYPE_TESTS = {"isinstance", "issubclass", "hasattr", "getattr", "setattr", "type", "id", "callable"}
# `typing.cast(T, value)`: the value the code declares to be a `T`
CASTS = frozenset({"typing.cast", "typing_extensions.cast"})
# Tensor methods and attributes whose value is not a tensor.
# tensor subclasses a module keeps: building one gives a tensor, not a module
TENSOR_CLASSES = {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer", "torch.nn.parameter.Buffer"}
NON_TENSOR_METHODS = {
    "item", "tolist", "equal", "size", "dim", "ndimension", "numel", "nelement", "data_ptr",
    "element_size", "stride", "storage_offset", "is_contiguous", "is_floating_point",
    "is_complex", "numpy", "get_device", "__len__", "untyped_storage", "storage",
    "is_pinned", "is_set_to", "has_names", "type", "register_hook", "backward",
    "is_inference", "is_shared", "is_signed", "is_coalesced", "is_same_size", "is_conj", "is_neg",
    "split", "chunk", "unbind", "tensor_split",
}
SEQUENCE_METHODS = {"split", "chunk", "unbind", "tensor_split"}
NON_TENSOR_ATTRS = {
    "shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "layout",
    "is_sparse", "is_quantized", "is_meta", "names", "training", "grad_fn", "itemsize", "nbytes",
}
TENSOR_ATTRS = {"T", "mT", "H", "mH", "data", "grad", "real", "imag"}
# The fields of what `torch.max(x, dim)`, `torch.sort`, `topk` or `torch.linalg.eigh` return, which
# the analysis takes for a tensor: each is a tensor
RESULT_FIELDS = {"values", "indices", "eigenvalues", "eigenvectors", "solution", "LU", "pivots", "Vh"}
# The methods of `torch.Tensor` that give a pair of tensors (`values, indices = x.topk(k)`)
RESULT_METHODS = {"topk", "sort", "kthvalue", "cummax", "cummin", "aminmax", "mode"}
# Methods that exist on tensors and rarely on anything else that reaches
# compiled code: a receiver of unknown type calling one is taken as a tensor.
TENSOR_ONLY_METHODS = {
    "sum", "mean", "any", "all", "abs", "norm", "std", "var", "amax", "amin", "argmax",
    "argmin", "prod", "isnan", "isinf", "isfinite", "sigmoid", "softmax", "log_softmax",
    "exp", "sqrt", "rsqrt", "float", "half", "long", "int", "bool", "double", "bfloat16",
    "detach", "clone", "contiguous", "view", "reshape", "permute", "transpose",
    "unsqueeze", "squeeze", "flatten", "matmul", "bmm", "masked_fill", "clamp",
    "logical_not", "logical_and", "logical_or", "eq", "ne", "gt", "ge", "lt", "le",
    "cumsum", "cumprod", "gather", "scatter", "expand", "expand_as", "type_as", "sign",
    "relu", "tanh", "max", "min",
}
# Methods that give a tensor exactly when their receiver is one: on a value the tree decides (a
# parameter, what a helper returns), what they return is decided with it.
RECEIVER_KIND_METHODS = TENSOR_METHODS | SAME_KIND_METHODS
# Methods that keep a tensor's dtype (a bool mask stays a bool mask): what reshapes, reorders, selects
# or copies its elements. As torch functions (`torch.triu(mask)`), their first operand's.
SHAPE_METHODS = {
    "unsqueeze", "squeeze", "view", "reshape", "permute", "transpose", "flatten", "expand", "expand_as",
    "repeat", "contiguous", "clone", "detach", "flip", "roll", "t", "narrow", "view_as", "reshape_as",
    "unflatten", "movedim", "repeat_interleave", "tile", "triu", "tril", "triu_", "tril_", "diagonal", "diag",
    "swapaxes", "swapdims", "moveaxis", "fliplr", "flipud", "rot90", "broadcast_to", "ravel", "select",
    "index_select", "gather", "take", "take_along_dim", "unfold", "squeeze_", "unsqueeze_", "t_", "transpose_",
    "masked_fill", "masked_fill_",
}
# torch functions that pad a tensor and keep its dtype (a mask padded, even with `value=1.0`, is one of bools)
PADDING = frozenset({"torch.nn.functional.pad", "torch.constant_pad_nd"})
# tensor methods that move or copy a tensor and keep its dtype (`to` too, given only a device: `moves_only`)
DEVICE_MOVES = frozenset({"cpu", "cuda", "pin_memory", "contiguous", "clone", "detach"})
# torch factories whose fill value, a Python bool, makes a tensor of bools (`torch.full((n,), True)`)
FILLED = {"torch.full": 1, "torch.full_like": 1}
_LITERAL_KINDS = {
    cst.Integer: V.NUMBER, cst.Float: V.NUMBER, cst.Imaginary: V.NUMBER,
    cst.SimpleString: V.STR, cst.ConcatenatedString: V.STR, cst.FormattedString: V.STR,
}
_NAME_CONSTANTS = {"True": V.BOOL, "False": V.BOOL, "None": V.NONE}
BOOL_FUNCS = {
    "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isposinf", "torch.isneginf",
    "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.logical_xor",
    "torch.eq", "torch.ne", "torch.gt", "torch.ge", "torch.lt", "torch.le", "torch.isin",
    "torch.isclose", "torch.signbit", "torch.all", "torch.any",
}
BOOL_METHODS = {
    "bool", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_and",
    "logical_or", "logical_not", "logical_xor", "eq", "ne", "gt", "ge", "lt", "le",
    "isclose", "signbit", "all", "any", "greater", "greater_equal", "less", "less_equal", "not_equal", "isreal",
}
TENSOR_ANNOTATIONS = {"torch.Tensor"}
# torch's tensor types named by their dtype (`torch.FloatTensor`): an annotation of one of these names,
# torch's or an alias a package defines for it (`LongTensor: TypeAlias = torch.Tensor`), says a tensor
# (of bools: `BoolTensor`)
TYPED_TENSORS = {"FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
                 "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor"}
SEQUENCE_ANNOTATIONS = {
    "typing.List", "typing.Tuple", "typing.Sequence", "list", "tuple", "collections.abc.Sequence",
}
SCALAR_ANNOTATIONS = {"int", "float", "bool", "str", "bytes", "complex"}
NOT_MODULES = {"torch.nn.Parameter", "torch.nn.ParameterList", "torch.nn.ParameterDict",
               "torch.nn.Buffer", "torch.nn.functional", "torch.nn.init", "torch.nn.utils"}


UNREADABLE = V.Val("unknown", name="unreadable annotation")

# `numpy.random`'s draws that `torch._numpy` makes as torch's own when handed a size: the array of them is a
# tensor to dynamo, and nothing breaks until the code reads a number out of it (`int(a[0])`); without a
# size each gives a Python number, read at the call (GB0033). The position of the size among the
# arguments, or None where any positional argument is a size (`rand(3)`). `choice` breaks with a size too
# (GB0033), and the other draws have no counterpart there (GB0294): BL405 reports those. Probed on torch
# 2.13 and 2.14.1 (and the fixture's lines on 2.11).
NUMPY_SIZED_DRAWS = {"numpy.random.uniform": 2, "numpy.random.normal": 2, "numpy.random.randint": 2,
                     "numpy.random.random": 0, "numpy.random.random_sample": 0, "numpy.random.sample": 0,
                     "numpy.random.rand": None, "numpy.random.randn": None}
# NumPy under compile: dynamo runs the main namespace, `fft`, `linalg` and `random` as torch ops
# (`torch._numpy`), so what they give is a tensor to it (`int(np.prod(x.shape))` reads a tensor's
# value, `range(np.prod(...))` breaks). These modules have no counterpart there (dynamo skips every
# numpy file, so calling them breaks the graph: BL411), and these functions give no array.
NUMPY_SKIPPED = ("numpy.polynomial.", "numpy.ma.", "numpy.char.", "numpy.strings.", "numpy.lib.",
                 "numpy.emath.", "numpy.rec.", "numpy.ctypeslib.", "numpy.testing.")
# NumPy's functions that `torch._numpy` has no counterpart of (torch 2.11 to 2.14, NumPy 1.26 to 2.4):
# dynamo breaks the graph at a call of any of them, whatever it is handed ("attempted to trace numpy
# function unsupported by PyTorch"). NumPy 2's new names for functions `torch._numpy` has (`acos`,
# `concat`, `pow`, `permute_dims`) are the same objects and trace; the last six are NumPy 1's only.
# The file functions are BL409's. `tests/test_tensor_inference.py` checks this against the
# installed torch.
NUMPY_UNTRACED = frozenset(f"numpy.{name}" for name in (
    # arrays: making, reshaping, selecting, sorting, sets
    "apply_along_axis", "apply_over_axes", "argpartition", "asanyarray", "asarray_chkfinite", "asfortranarray",
    "asmatrix", "astype", "block", "bmat", "compress", "delete", "extract", "fromfunction", "fromiter",
    "frombuffer", "fromstring", "insert", "ix_", "lexsort", "mask_indices", "matrix_transpose", "partition",
    "piecewise", "place", "putmask", "ravel_multi_index", "require", "select", "trim_zeros", "unravel_index",
    "unstack", "intersect1d", "isin", "setdiff1d", "setxor1d", "union1d", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "packbits", "unpackbits",
    # arithmetic and statistics
    "bitwise_count", "cumulative_prod", "cumulative_sum", "digitize", "ediff1d", "einsum_path", "frexp",
    "histogram_bin_edges", "interp", "matvec", "vecdot", "vecmat", "sort_complex", "spacing", "trapezoid",
    "unwrap", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin",
    "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar",
    "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval", "roots",
    "linalg.cross", "linalg.diagonal", "linalg.matmul", "linalg.matrix_norm", "linalg.matrix_transpose",
    "linalg.outer", "linalg.svdvals", "linalg.tensordot", "linalg.trace", "linalg.vecdot", "linalg.vector_norm",
    # types, formatting, settings, dates
    "isdtype", "isfortran", "iterable", "mintypecode", "promote_types", "typename", "may_share_memory",
    "shares_memory", "array2string", "array_repr", "array_str", "base_repr", "binary_repr",
    "format_float_positional", "format_float_scientific", "get_printoptions", "set_printoptions", "printoptions",
    "getbufsize", "setbufsize", "geterr", "seterr", "geterrcall", "seterrcall", "frompyfunc", "nested_iters",
    "busday_count", "busday_offset", "is_busday", "datetime_as_string", "datetime_data", "isnat",
    "get_include", "info", "show_config", "show_runtime", "test", "linalg.test", "fft.test",
    # NumPy 1 only
    "trapz", "in1d", "msort", "asfarray", "find_common_type", "issubclass_",
    # classes: made in compiled code, each breaks where it is made (its integer types trace, under any name)
    "poly1d", "matrix", "recarray", "record", "ndindex", "ndenumerate", "nditer", "broadcast", "busdaycalendar",
    "longdouble", "clongdouble", "float128", "complex256", "datetime64", "timedelta64", "str_", "bytes_", "void",
    "object_", "errstate", "vectorize",
))
# NumPy's index tricks: objects whose indexing (`np.ogrid[-m:m + 1, -n:n + 1]`, `np.r_[a, 0, b]`, `np.s_[1:3]`)
# runs a `__getitem__` of NumPy's own, which dynamo skips (GB0008, probed on torch 2.11, 2.13 and 2.14.1): the
# graph breaks at the subscript (BL411). The grids and concatenations make NumPy arrays; `s_` and `index_exp` slices.
NUMPY_ARRAY_TRICKS = frozenset({"numpy.ogrid", "numpy.mgrid", "numpy.r_", "numpy.c_"})
NUMPY_INDEX_TRICKS = NUMPY_ARRAY_TRICKS | {"numpy.s_", "numpy.index_exp"}
NUMPY_TRICK_NAMES = frozenset(name.removeprefix("numpy.") for name in NUMPY_INDEX_TRICKS)
# NumPy's functions that make an array from Python numbers (a size, bounds, a fill value): under compile
# `torch._numpy` makes each a tensor, so an element read back as a Python number (`int(np.arange(n)[k])`,
# `float(np.linspace(0, 1, k)[i])`) is a tensor's value (probed on torch 2.13 and 2.14.1: GB0033)
NUMPY_FACTORIES = frozenset(f"numpy.{name}" for name in (
    "arange", "zeros", "ones", "empty", "full", "linspace", "logspace", "geomspace", "eye", "identity", "tri"))
# NumPy's reductions: `torch._numpy` runs one on anything but a Python float as torch ops, an element of a
# tuple of sizes or a kept shape among it (`int(np.prod(shape))` breaks: GB0033 of a sequence or an array,
# GB0208 of a Python int; probed on torch 2.13 and 2.14.1)
NUMPY_REDUCTIONS = frozenset(f"numpy.{name}" for name in (
    "prod", "sum", "max", "min", "amax", "amin", "mean", "cumprod", "cumsum"))
# NumPy's functions that take arrays, which make one of a shape as of a list (`np.array(x.shape[2:])`),
# where one that computes elementwise on a Python number gives a number dynamo folds (`np.ceil(h / 7)`)
NUMPY_TAKES_ARRAYS = NUMPY_REDUCTIONS | frozenset(f"numpy.{name}" for name in (
    "array", "asarray", "any", "all", "argmax", "argmin", "argsort", "sort", "nonzero", "flatnonzero", "where",
    "unique", "concatenate", "stack", "transpose", "reshape", "squeeze", "expand_dims", "flip", "diff"))
# The `order=` that `torch._numpy` takes of each NumPy function with one (its default): any other raises
# NotImplementedError while dynamo runs the call, and the graph breaks there (GB0087; probed on torch 2.13 and
# 2.14.1: `np.asarray(a, order="C")` breaks, `np.zeros(n, order="C")` traces)
NUMPY_ORDERS = {**{f"numpy.{name}": "K" for name in ("array", "asarray", "copy", "empty_like", "full_like",
                                                     "ones_like", "zeros_like", "einsum")},
                **{f"numpy.{name}": "C" for name in ("empty", "full", "ones", "zeros", "eye", "reshape", "ravel")}}
# NumPy's comparisons into a Python bool: dynamo runs them as `torch.allclose` / `torch.equal` (`torch._numpy`),
# on any array-like, and reads the bool where it is made (probed on torch 2.13 and 2.14.1: GB0033 at the call,
# no break where the bool is tested); BL103's
NUMPY_COMPARED_INTO_BOOL = frozenset(f"numpy.{name}" for name in ("allclose", "array_equal", "array_equiv"))
NUMPY_FILE_FUNCTIONS = frozenset(f"numpy.{name}" for name in (
    "save", "load", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile", "fromregex",
    "memmap"))
NUMPY_NOT_ARRAYS = (
    *NUMPY_SKIPPED, "numpy.typing.", "numpy.dtype", "numpy.iinfo", "numpy.finfo",
    "numpy.issubdtype", "numpy.isscalar", "numpy.ndim", "numpy.shape", "numpy.size", "numpy.result_type",
    "numpy.promote_types", "numpy.can_cast", "numpy.errstate", "numpy.printoptions", "numpy.set_printoptions",
    "numpy.get_printoptions", "numpy.seterr", "numpy.geterr", "numpy.broadcast_shapes", "numpy.random.seed",
    "numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator", "numpy.vectorize",
    "numpy.frompyfunc", "numpy.linalg.LinAlgError",
)

# einops: each of these gives a tensor when handed one (its pattern and sizes are strings and ints);
# `pack` gives a tensor and the packed shapes, `unpack` a list of tensors
EINOPS_TENSOR = frozenset({"einops.rearrange", "einops.repeat", "einops.reduce", "einops.einsum"})
EINOPS_SEQUENCE = frozenset({"einops.unpack"})
# einx: each operation takes a pattern and then its operands (`einx.less("n, b -> b n", seq, lens)`), and gives a
# tensor as soon as one operand is one; these give a tensor of bools
EINX_BOOL = frozenset(f"einx.{name}" for name in (
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
    "logical_not", "any", "all"))

# Modules whose name in a frame's code makes dynamo compile the frame (`has_tensor_in_frame`: a global
# bound to torch, a module of torch's, or NumPy): the usual ones a comprehension names
FRAME_MODULES = frozenset({
    "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.linalg", "torch.fft", "torch.special",
    "torch.distributions", "torch.autograd", "torch.sparse", "torch.cuda", "torch.optim", "torch.jit",
    "torch.distributed", "torch.nested", "torch.masked", "torch.func", "torch.utils", "torch.utils.checkpoint",
    "torch.nn.utils", "torch.testing", "torch.amp", "torch.backends", "torch.random", "torch.compiler",
    "numpy", "numpy.linalg", "numpy.fft", "numpy.random",
})

# a module's hooks that run around each call of its forward, inside the compiled code (dynamo traces
# them with the call); backward hooks run in the backward pass
FORWARD_HOOKS = frozenset({"register_forward_hook", "register_forward_pre_hook"})

# calls that run the function handed first with the arguments after it
CHECKPOINTS = frozenset({"torch.utils.checkpoint.checkpoint"})

# Context managers dynamo cannot enter (BL414): locks and semaphores,
LOCK_FACTORIES = frozenset({
    "threading.Lock", "threading.RLock", "threading.Semaphore", "threading.BoundedSemaphore",
    "threading.Condition", "multiprocessing.Lock", "multiprocessing.RLock",
})
# and torch's backend switches written as context managers: each reads or sets its flags through calls that
# answer Python values, and dynamo cannot enter it ("Unsupported context manager", GB0142; probed on torch
# 2.13 and calibrated in fixtures/BL414.py). `torch.nn.attention.sdpa_kernel`, what replaced `sdp_kernel`,
# traces.
BACKEND_CONTEXTS = {
    "torch.backends.cuda.sdp_kernel": "`torch.nn.attention.sdpa_kernel([SDPBackend.FLASH_ATTENTION, ...])`, "
                                      "which dynamo traces",
    "torch.backends.cudnn.flags": "setting the flags once outside the compiled code",
    "torch.backends.mkldnn.flags": "setting the flags once outside the compiled code",
    "torch.backends.opt_einsum.flags": "setting the flags once outside the compiled code",
    "torch.backends.mkl.verbose": "turning verbose output on outside the compiled code",
    "torch.backends.mkldnn.verbose": "turning verbose output on outside the compiled code",
}


# Calls that read sizes, counts or bounds as Python ints (BL303 reports a tensor there; a compile
# root's parameter passed there is no tensor: calls.py).
SIZE_FACTORIES = frozenset({
    "torch.arange", "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
    "torch.randperm", "torch.eye", "torch.linspace", "torch.logspace",
})  # (`torch.randint` has a branch of its own: its upper bound is read, not its size)


# Tensor methods whose positional arguments are sizes (`new_full`: its first).
SIZE_METHODS = frozenset({"view", "reshape", "expand", "repeat", "tile", "new_zeros", "new_ones", "new_empty",
                          "new_full"})
# Other calls that read a count, a length or a bound as a Python int: the positions (after the tensor
# itself, for a method) and keywords that hold one. The function form counts the tensor as position 0.
# `capture_scalar_outputs` lets dynamo trace some of them; those of `SPECIALIZED` (rules/dynamic_shape.py)
# it makes specialize the value, which still breaks, and on those of `FAILING` (`roll`'s shifts, `pad`'s widths,
# `randint`'s upper bound) the compile fails with the setting. (`kthvalue`'s k behaves as those do on
# torch 2.13, and a tensor as `randint`'s lower bound fails the compile without the setting too; no
# fixture has either yet, so both are left out.)
COUNT_ARGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "topk": ((0,), ("k",)), "split": ((0,), ("split_size_or_sections", "split_size")),
    "chunk": ((0,), ("chunks",)), "multinomial": ((0,), ("num_samples",)), "narrow": ((2,), ("length",)),
    "unfold": ((1, 2), ("size", "step")), "tensor_split": ((0,), ("indices_or_sections", "sections", "indices")),
    "histc": ((0,), ("bins",)), "diag": ((0,), ("diagonal",)), "roll": ((0,), ("shifts",)),
    "repeat_interleave": ((), ("output_size",)),  # (its tensor `repeats` alone is BL301's)
}
# libraries dynamo does not trace whose objects a module may build and keep (`self.tree = cKDTree(points)`): a
# method of such an object, or the object called, runs their code (BL411; NumPy's own are `torch._numpy`'s)
LIBRARY_OBJECT_PREFIXES = ("scipy.", "cv2.", "PIL.", "sklearn.", "skimage.", "numba.", "pandas.", "shapely.",
                           "networkx.", "pycocotools.", "pywt.", "tqdm.", "opt_einsum.", "librosa.", "resampy.")
# torchaudio's spectrograms: `_get_spec_norms` asks `torch.jit.isinstance` of the `normalized` argument, which dynamo
# skips, so every call of these breaks inside torchaudio (GB0007; torchaudio 2.1 to 2.11, probed on torch 2.11 and
# 2.14.1): the functions, and the transforms whose forward runs one, called or kept (`self.mel = MelSpectrogram(...)`)
TORCHAUDIO_SPECTRAL = frozenset(
    f"torchaudio.{where}.{name}" for where, names in (
        ("functional", ("spectrogram", "inverse_spectrogram", "spectral_centroid")),
        ("transforms", ("Spectrogram", "InverseSpectrogram", "MelSpectrogram", "MFCC", "LFCC", "SpectralCentroid")))
    for name in names)


def torchaudio_spectral(name: str) -> bool:
    """Whether a qualified name is one of `TORCHAUDIO_SPECTRAL`, by its public name or its module's
    (`torchaudio.transforms._transforms.MelSpectrogram`)."""
    parts = name.split(".")
    return len(parts) > 2 and parts[0] == "torchaudio" and f"torchaudio.{parts[1]}.{parts[-1]}" in TORCHAUDIO_SPECTRAL


WINDOW_FUNCTIONS = frozenset(f"torch.{name}_window" for name in ("hann", "hamming", "blackman", "bartlett", "kaiser"))
COUNT_FUNCTIONS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    **{f"torch.{name}": (tuple(i + 1 for i in at), words) for name, (at, words) in COUNT_ARGS.items()
       if name != "unfold"},
    "torch.tril_indices": ((0, 1), ("row", "col")), "torch.triu_indices": ((0, 1), ("row", "col")),
    "torch.nn.functional.interpolate": ((1,), ("size",)), "torch.nn.functional.one_hot": ((1,), ("num_classes",)),
    "torch.tile": ((1,), ("dims",)), "torch.nn.functional.pad": ((1,), ("pad",)),
    # the length of a window or of `fftfreq`'s frequencies, the length `n` (or lengths `s`) an FFT pads or
    # cuts its input to, `combinations`' r, `vander`'s columns, an adaptive pooling's output size
    **dict.fromkeys(("torch.fft.fftfreq", "torch.fft.rfftfreq"), ((0,), ("n",))),
    **dict.fromkeys(WINDOW_FUNCTIONS, ((0,), ("window_length",))),
    **dict.fromkeys((f"torch.fft.{name}" for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")),
                    ((1,), ("n",))),
    **dict.fromkeys((f"torch.fft.{name}{n}" for name in ("fft", "ifft", "rfft", "irfft") for n in "2n"),
                    ((1,), ("s",))),
    "torch.combinations": ((1,), ("r",)), "torch.vander": ((1,), ("N",)),
    **dict.fromkeys((f"torch.nn.functional.adaptive_{kind}_pool{d}d" for kind in ("avg", "max") for d in "123"),
                    ((1,), ("output_size",))),
}


# Dimensions: the positions of tensor methods' and torch functions' arguments that name a dimension
# (a method's after the tensor, a function's counting the tensor as 0), and the keywords that do.
# Calls where the same position may hold a tensor (`x.max(y)`, `torch.norm(x, p)`) are left out.
DIM_METHODS: dict[str, tuple[int, ...]] = {
    **dict.fromkeys(("sum", "mean", "prod", "softmax", "log_softmax", "unsqueeze", "squeeze", "flatten", "size",
                     "cumsum", "cumprod", "argmax", "argmin", "unbind", "logsumexp", "std", "var", "all", "any",
                     "amax", "amin", "count_nonzero", "nansum", "nanmean", "cummax", "cummin", "sort", "argsort",
                     "median", "mode", "select", "index_select", "gather", "scatter", "scatter_add", "index_add",
                     "index_fill", "index_copy", "narrow", "flip", "unfold"), (0,)),
    **dict.fromkeys(("transpose", "swapaxes", "swapdims", "movedim", "moveaxis"), (0, 1)),
    **dict.fromkeys(("split", "chunk", "roll", "kthvalue"), (1,)),
}
DIM_FUNCTIONS: dict[str, tuple[int, ...]] = {
    **{f"torch.{name}": tuple(i + 1 for i in at) for name, at in DIM_METHODS.items() if name != "size"},
    **dict.fromkeys(("torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.nn.functional.softmax",
                     "torch.nn.functional.log_softmax", "torch.nn.functional.glu"), (1,)),
}
DIM_WORDS = frozenset({"dim", "dims", "axis", "dim0", "dim1", "start_dim", "end_dim"})


def number_arguments(node: cst.Call, name: str | None) -> list[cst.BaseExpression]:
    """The arguments a call reads as Python numbers: those of `range` and of `math`'s functions, the
    sizes of a new tensor, of `view`, `reshape`, `expand`, ..., the counts of `topk`, `split`,
    `F.interpolate`'s size, and the dimensions a torch function or tensor method takes (`x.sum(d)`,
    `torch.cat(xs, dim=d)`; each element of a tuple or list of them)."""
    if name == "range" or (name or "").startswith("math."):
        return [arg.value for arg in node.args]
    args = [arg for arg in node.args if arg.keyword is None and not arg.star]
    method = node.func.attr.value if type(node.func) is cst.Attribute and not (name or "").startswith("torch.") \
        else None
    dims = DIM_FUNCTIONS.get(name or "", ()) if method is None else DIM_METHODS.get(method, ())
    out = _elements([args[i] for i in dims if i < len(args)])
    if method is not None or (name or "").startswith("torch."):
        out += _elements([arg for arg in node.args if arg.keyword is not None and arg.keyword.value in DIM_WORDS])
    words: tuple[str, ...] = ()
    if name in SIZE_FACTORIES:
        picked = args[:3] if name in ("torch.arange", "torch.linspace", "torch.logspace") else \
            args[:1] if name == "torch.full" else args
        words = ("size",)
    elif name in COUNT_FUNCTIONS:
        at, words = COUNT_FUNCTIONS[name]
        picked = [args[i] for i in at if i < len(args)]
    elif method in SIZE_METHODS:
        picked = args[:1] if method == "new_full" else args
    elif method in COUNT_ARGS:
        at, words = COUNT_ARGS[method]
        picked = [args[i] for i in at if i < len(args)]
    else:
        return out
    picked += [arg for arg in node.args if arg.keyword is not None and arg.keyword.value in words]
    return out + _elements(picked)


def _elements(args: list[cst.Arg]) -> list[cst.BaseExpression]:
    """The values of `args`, each element of a tuple or list among them on its own."""
    out: list[cst.BaseExpression] = []
    for arg in args:
        value = arg.value
        out.extend(el.value for el in value.elements) if type(value) in (cst.Tuple, cst.List) else out.append(value)
    return out
