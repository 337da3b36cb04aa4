"""The torch ops that BL103 (`tensor_value.TensorScalarCast`) knows read a tensor's value: those whose
parameters take a Python number (a `Scalar`) or a dimension, which it checks for a tensor handed over,
with what to write instead; those that compare two tensors into a Python bool; those that read the data
to check it."""

from __future__ import annotations

import libcst as cst

from ._util import computed_tensor, filled_with_tensor, keyword, method_call

# torch functions that read a value of the data to check it (calibrated in fixtures/BL103.py)
READ_TO_CHECK = frozenset({"torch.cov", "torch.corrcoef"})
# Comparisons of two tensors that give a Python bool (`aten.equal`, `aten.allclose`): dynamo breaks
# to read it, with or without `capture_scalar_outputs`; calibrated in fixtures/BL103.py
COMPARED_INTO_BOOL = {"torch.equal": "equal", "torch.allclose": "allclose"}

# Torch ops whose parameters below take a Python number (a `Scalar`), each with its place among
# the positional arguments of the `torch.*` form (None: keyword only). Dynamo reads a tensor there
# with `.item()` and breaks (GB0033); each op is calibrated in fixtures/BL103.py. Where the same
# op's in-place form (`add_`, `addcdiv`) traced on the torch releases calibrated, it is left out.
SCALAR_PARAMETERS = {
    "torch.add": {"alpha": None}, "torch.sub": {"alpha": None}, "torch.rsub": {"alpha": None},
    "torch.addcmul": {"value": None}, "torch.addmm": {"beta": None, "alpha": None},
    "torch.addr": {"beta": None, "alpha": None}, "torch.addmv": {"beta": None, "alpha": None},
    "torch.addbmm": {"beta": None, "alpha": None}, "torch.baddbmm": {"beta": None, "alpha": None},
    "torch.nn.functional.leaky_relu": {"negative_slope": 1}, "torch.nn.functional.elu": {"alpha": 1},
    "torch.nn.functional.hardtanh": {"min_val": 1, "max_val": 2},
    "torch.nn.functional.threshold": {"threshold": 1, "value": 2}, "torch.nn.functional.pad": {"value": 3},
    "torch.full_like": {"fill_value": 1},
    # a method only (`x.new_full(size, fill)`): its place among the method's arguments; `torch.full`
    # and `fill_` take a 0-d tensor and trace
    "torch.new_full": {"fill_value": 1},
}
SCALAR_METHODS = frozenset({"torch.add", "torch.sub", "torch.addcmul", "torch.addmm", "torch.addr", "torch.addmv",
                            "torch.addbmm", "torch.baddbmm", "torch.new_full"})  # also `t.add(...)`
SCALAR_SUGGESTIONS = {
    "torch.new_full": "build it with `torch.full(size, t, dtype=..., device=...)`, which takes a 0-d tensor and traces",
    "torch.full_like": "build it with `torch.ones_like(x) * t`, or `torch.full(x.shape, t)`, which take a tensor",
    "torch.nn.functional.pad": "pad with zeros around the shifted tensor instead: `F.pad(x - t, pad) + t`",
    "torch.nn.functional.threshold": "write it with `torch.where(x > t, x, value)`",
}
SCALE_SUGGESTION = "multiply the operand by the tensor instead: `torch.add(a, b * t)` for `torch.add(a, b, alpha=t)`"
# (op, parameter) traced with `capture_scalar_outputs` from torch 2.13 (calibrated in fixtures/BL103.py:
# `beta` of `addr` and `addmv` still breaks with it)
SCALAR_TRACED = frozenset({("torch.add", "alpha"), ("torch.addcmul", "value"), ("torch.addr", "alpha"),
                           ("torch.addmv", "alpha"), ("torch.addbmm", "alpha"), ("torch.addbmm", "beta"),
                           ("torch.baddbmm", "alpha"), ("torch.baddbmm", "beta")})


# Torch ops whose parameters below take a dimension as a Python int: a tensor there is
# read with `.item()` and breaks (GB0033; with `capture_scalar_outputs` dynamo still cannot guard on the
# value), calibrated in fixtures/BL103.py. Each method's positions among its arguments (None: every
# one, as `permute(*dims)` and `flip(*dims)` take); the `torch.*` form takes the tensor first.
DIMENSION_METHODS: dict[str, tuple[int, ...] | None] = {
    "permute": None, "flip": None, "transpose": (0, 1), "swapaxes": (0, 1), "swapdims": (0, 1),
    "movedim": (0, 1), "moveaxis": (0, 1), "flatten": (0, 1), "narrow": (0,), "select": (0,),
    **{name: (0,) for name in ("unsqueeze", "squeeze", "unbind", "cumsum", "cumprod", "softmax", "log_softmax",
                               "sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "nansum",
                               "count_nonzero", "index_select", "gather")},
}
DIMENSION_FUNCTIONS: dict[str, tuple[int, ...] | None] = {
    **{f"torch.{name}": (None if positions is None else tuple(p + 1 for p in positions))
       for name, positions in DIMENSION_METHODS.items()},
    "torch.cat": (1,), "torch.concat": (1,), "torch.concatenate": (1,), "torch.stack": (1,),
    "torch.nn.functional.softmax": (1,), "torch.nn.functional.log_softmax": (1,),
}
DIMENSION_KEYWORDS = frozenset({"dim", "dims", "start_dim", "end_dim", "dim0", "dim1"})  # (`roll`'s shifts: BL303)


def dimension_arguments(ctx, node) -> tuple[str, list, cst.BaseExpression | None]:
    """(`permute`, its arguments that take a dimension, its receiver) for a call of a torch op of the
    tables above: those at its positions (a star argument where every position takes one) and its
    keywords of a dimension; the receiver of a method's positional arguments, which must be a tensor
    too (`nx.sum(d, 2)` of a backend object `nx` is no tensor's); ("", [], None) for any other call."""
    qual = ctx.qualify(node.func) or ""
    call = method_call(node)
    args = [a for a in node.args if a.keyword is None]
    receiver = None
    if qual in DIMENSION_FUNCTIONS:
        op, positions, args = qual.rsplit(".", 1)[-1], DIMENSION_FUNCTIONS[qual], args[1:]
        positions = positions and tuple(p - 1 for p in positions)
    elif call is not None and call[1] in DIMENSION_METHODS and not qual.startswith("torch.") \
            and ctx.tensor_requirement(call[0]) is not None:
        op, positions, receiver = call[1], DIMENSION_METHODS[call[1]], call[0]
    else:
        return "", [], None
    taken = [a for i, a in enumerate(args) if positions is None or i in positions and not a.star]
    return op, taken + [a for a in (keyword(node, name) for name in DIMENSION_KEYWORDS) if a is not None], receiver


DIMENSION_SUGGESTION = ("pass the dimension as a Python int (`list(range(x.dim()))` rather than `np.arange(x.dim())`, "
                        "`x.dim() - 1` rather than a tensor's value)")


def dimension_argument(rule, node) -> bool:
    """BL103 (`TensorScalarCast`): `x.permute(*dims)` with `dims = list(np.arange(x.dim()))`,
    `x.sum(dim=d)` with `d = y.argmax()`: a tensor where a torch op takes a dimension as a Python int.
    Only a tensor the code computes counts (a NumPy array's element among them), not a parameter the
    caller may hand a tensor or an int (as for BL303's sizes)."""
    ctx = rule.ctx
    op, taken, receiver = dimension_arguments(ctx, node)
    held = ctx.value(receiver) if receiver is not None else None
    for arg in taken:
        value = ctx.value(arg.value)
        for part in value.parts if arg.star or value.kind == "seq" else (value,):
            if held is not None and arg.keyword is None:
                # a method's positional dimension, of a receiver that is a tensor: one of the two may be
                # left to the tree to decide, not both
                requires = part if held.is_tensor and (part.is_tensor or computed_tensor(part)) else \
                    held if held.symbolic and part.is_tensor else None
            else:
                requires = part if computed_tensor(part) or filled_with_tensor(part) else None
            if requires is not None:
                rule.report(arg.value, f"`{ctx.source(arg.value)}` is a tensor passed as a dimension of `{op}`, "
                                       "which takes a Python int", DIMENSION_SUGGESTION, requires=requires)
                return True
    return False
