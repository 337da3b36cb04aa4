"""The torch ops whose parameters take a Python number (a `Scalar`), which BL103 checks for a
tensor handed over (`tensor_value.TensorValue._scalar_argument`), with what to write instead."""

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
