"""Method names: those of `torch.Tensor` that give a tensor, and those common enough to objects of
every kind (a tensor's, a module's, a builtin container's or string's, a logger's, an optimizer's, a
distribution's) that a call of one on an object the analysis cannot tell says nothing of which class
it is. Plain tables; no libcst here (the tree level asks them on a warm run)."""

from __future__ import annotations

# The methods of `torch.Tensor` that give a tensor (elementwise math, reductions, indexing, linear
# algebra, in-place forms; from `dir(torch.Tensor)`, less those that give a Python value, several
# tensors, or share a name with a method of a builtin type such as `list.index` or `dict.values`):
# on a value the tree decides, a tensor if the receiver is one. Never a guess on their own, unlike
# `TENSOR_ONLY_METHODS`.
TENSOR_METHODS = frozenset({
    "abs", "abs_", "absolute", "absolute_", "acos", "acos_", "acosh", "acosh_", "add_", "addbmm",
    "addbmm_", "addcdiv", "addcdiv_", "addcmul", "addcmul_", "addmm", "addmm_", "addmv", "addmv_",
    "addr", "addr_", "adjoint", "all", "amax", "amin", "angle", "any", "arccos", "arccos_", "arccosh",
    "arccosh_", "arcsin", "arcsin_", "arcsinh", "arcsinh_", "arctan", "arctan2", "arctan2_", "arctan_",
    "arctanh", "arctanh_", "argmax", "argmin", "argsort", "argwhere", "as_strided", "as_strided_",
    "as_strided_scatter", "asin", "asin_", "asinh", "asinh_", "atan", "atan2", "atan2_", "atan_",
    "atanh", "atanh_", "baddbmm", "baddbmm_", "bernoulli", "bernoulli_", "bfloat16", "bincount",
    "bitwise_and", "bitwise_and_", "bitwise_left_shift", "bitwise_left_shift_", "bitwise_not",
    "bitwise_not_", "bitwise_or", "bitwise_or_", "bitwise_right_shift", "bitwise_right_shift_",
    "bitwise_xor", "bitwise_xor_", "bmm", "bool", "broadcast_to", "byte", "cauchy_", "cdouble", "ceil",
    "ceil_", "cfloat", "chalf", "char", "cholesky", "cholesky_inverse", "clamp", "clamp_", "clamp_max",
    "clamp_max_", "clamp_min", "clamp_min_", "clip", "clip_", "clone", "conj", "conj_physical",
    "conj_physical_", "contiguous", "copy_", "copysign", "copysign_", "corrcoef", "cos", "cos_", "cosh",
    "cosh_", "count_nonzero", "cov", "cross", "cumprod", "cumprod_", "cumsum", "cumsum_", "deg2rad",
    "deg2rad_", "det", "detach", "detach_", "diag", "diag_embed", "diagflat", "diagonal",
    "diagonal_scatter", "diff", "digamma", "digamma_", "dist", "div", "div_", "divide", "divide_",
    "dot", "double", "eq", "eq_", "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", "exp", "exp2",
    "exp2_", "exp_", "expand", "expand_as", "expm1", "expm1_", "exponential_", "fill_",
    "fill_diagonal_", "fix", "fix_", "flatten", "flip", "fliplr", "flipud", "float", "float_power",
    "float_power_", "floor", "floor_", "floor_divide", "floor_divide_", "fmax", "fmin", "fmod", "fmod_",
    "frac", "frac_", "gather", "gcd", "gcd_", "ge", "ge_", "geometric_", "ger", "greater", "greater_",
    "greater_equal", "greater_equal_", "gt", "gt_", "half", "hardshrink", "heaviside", "heaviside_",
    "histc", "hypot", "hypot_", "i0", "i0_", "igamma", "igamma_", "igammac", "igammac_", "index_add",
    "index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_", "index_put", "index_put_",
    "index_reduce", "index_reduce_", "index_select", "inner", "int", "inverse", "isclose", "isfinite",
    "isinf", "isnan", "isneginf", "isposinf", "isreal", "istft", "kron", "lcm", "lcm_", "ldexp",
    "ldexp_", "le", "le_", "lerp", "lerp_", "less", "less_", "less_equal", "less_equal_", "lgamma",
    "lgamma_", "log", "log10", "log10_", "log1p", "log1p_", "log2", "log2_", "log_", "log_normal_",
    "log_softmax", "logaddexp", "logaddexp2", "logcumsumexp", "logdet", "logical_and", "logical_and_",
    "logical_not", "logical_not_", "logical_or", "logical_or_", "logical_xor", "logical_xor_", "logit",
    "logit_", "logsumexp", "long", "lt", "lt_", "masked_fill", "masked_fill_", "masked_scatter",
    "masked_scatter_", "masked_select", "matmul", "matrix_exp", "matrix_power", "max", "maximum",
    "mean", "median", "min", "minimum", "mm", "moveaxis", "movedim", "mul", "mul_", "multinomial",
    "multiply", "multiply_", "mv", "mvlgamma", "mvlgamma_", "nan_to_num", "nan_to_num_", "nanmean",
    "nanmedian", "nanquantile", "nansum", "narrow", "narrow_copy", "ne", "ne_", "neg", "neg_",
    "negative", "negative_", "new_empty", "new_empty_strided", "new_full", "new_ones", "new_tensor",
    "new_zeros", "nextafter", "nextafter_", "nonzero", "nonzero_static", "norm", "normal_", "not_equal",
    "not_equal_", "outer", "permute", "pinverse", "polygamma", "polygamma_", "positive", "pow", "pow_",
    "prelu", "prod", "put", "put_", "quantile", "rad2deg", "rad2deg_", "random_", "ravel", "reciprocal",
    "reciprocal_", "relu", "relu_", "remainder", "remainder_", "renorm", "renorm_", "repeat",
    "repeat_interleave", "reshape", "reshape_as", "resize", "resize_", "resize_as", "resize_as_",
    "resolve_conj", "resolve_neg", "roll", "rot90", "round", "round_", "rsqrt", "rsqrt_", "scatter",
    "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_", "select",
    "select_scatter", "sgn", "sgn_", "short", "sigmoid", "sigmoid_", "sign", "sign_", "signbit", "sin",
    "sin_", "sinc", "sinc_", "sinh", "sinh_", "slice_inverse", "slice_scatter", "softmax", "sqrt",
    "sqrt_", "square", "square_", "squeeze", "squeeze_", "std", "stft", "sub", "sub_", "subtract",
    "subtract_", "sum", "sum_to_size", "swapaxes", "swapaxes_", "swapdims", "swapdims_", "t", "t_",
    "take", "take_along_dim", "tan", "tan_", "tanh", "tanh_", "tile", "trace", "transpose",
    "transpose_", "tril", "tril_", "triu", "triu_", "true_divide", "true_divide_", "trunc", "trunc_",
    "type_as", "unflatten", "unfold", "uniform_", "unique", "unique_consecutive", "unsqueeze",
    "unsqueeze_", "var", "vdot", "view", "view_as", "where", "xlogy", "xlogy_", "zero_",
})

# Methods that tensors and modules both have, each returning an object of its receiver's kind
# (`t.to(device)` a tensor, `m.to(device)` a module): on a value the tree decides, a tensor if the
# receiver is one.
SAME_KIND_METHODS = {"to", "cpu", "cuda", "type", "requires_grad_", "pin_memory", "share_memory_"}

# Names shared by objects of many kinds, outside a tensor's methods above: an object the analysis
# cannot tell that calls one may be a module, a list, a dict, a string, an array, a logger, an
# optimizer or scheduler, a distribution, a file, a lock.
COMMON_METHODS = frozenset({
    # a tensor's that give something else, and those a module shares with it
    "item", "tolist", "size", "dim", "numel", "numpy", "stride", "split", "chunk", "unbind", "backward",
    "register_hook", *SAME_KIND_METHODS,
    # nn.Module
    "forward", "train", "eval", "parameters", "named_parameters", "buffers", "named_buffers", "modules",
    "named_modules", "children", "named_children", "apply", "register_buffer", "register_parameter",
    "register_module", "add_module", "state_dict", "load_state_dict", "zero_grad", "extra_repr",
    "get_submodule", "get_parameter", "get_buffer", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "reset_parameters", "compile",
    # builtin containers and strings
    "get", "items", "keys", "values", "append", "extend", "pop", "popitem", "update", "copy", "clear",
    "insert", "remove", "index", "count", "sort", "reverse", "setdefault", "add", "discard", "union",
    "intersection", "difference", "issubset", "issuperset", "join", "format", "strip", "lstrip",
    "rstrip", "replace", "startswith", "endswith", "lower", "upper", "encode", "decode", "find",
    "rsplit", "splitlines", "partition", "rpartition", "isdigit", "title",
    # NumPy arrays
    "astype", "tobytes", "fill",
    # loggers and warnings
    "debug", "info", "warning", "warn", "error", "exception", "critical",
    # optimizers, schedulers, distributions, samplers, random generators
    "step", "add_param_group", "get_last_lr", "sample", "rsample", "log_prob", "entropy", "cdf", "icdf",
    "random", "randint", "choice", "shuffle", "uniform", "normal", "manual_seed", "seed",
    # files, locks, threads, processes, iterators
    "read", "write", "close", "open", "flush", "seek", "acquire", "release", "wait", "set", "is_set",
    "start", "run", "send", "throw",
})


def is_protocol(name: str) -> bool:
    """A method name private to a package's own classes (`_solve`; not `__len__`, not `solve`): on an
    object of a class the analysis cannot tell, such a call can only run one of the tree's methods of
    that name (`Tree.protocol`)."""
    return name.startswith("_") and not name.startswith("__") and len(name) > 2


def guessable(name: str) -> bool:
    """Whether a method name tells which of the tree's classes an object of no class the analysis can
    tell belongs to, where only one family of the tree's classes defines it (`Tree.protocol`): a
    private one (`_solve`), or a public one that no tensor, module, builtin container, string, logger,
    optimizer or distribution also has (`predict`, `postprocess`; not `step`, `get`, `sum`)."""
    if name.startswith("_"):
        return is_protocol(name)
    return len(name) > 2 and name not in COMMON_METHODS and name not in TENSOR_METHODS


# the modules that hold modules: calling an element of one (a loop over it, `self.blocks[i](x)`), or a
# `Sequential` as a whole, runs each module built into it (here, beside the method names, for what
# needs no parser: the engine's `follow` asks too)
MODULE_CONTAINERS = {"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Sequential"}
