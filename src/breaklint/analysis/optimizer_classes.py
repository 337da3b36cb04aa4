"""torch's optimizer classes by name: what `torch.optim` makes (`SGD`, `Adam`, ..., and their base), which
rules ask of a call or an object (BL436, BL448, BL451) and reach of a class's bases (a class of the tree deriving
from one, built in compiled code: BL451). Plain tables; no libcst here (reach asks them on a warm run)."""

from __future__ import annotations

# what a call of it makes is an object of the class called (an optimizer, a learning-rate schedule)
OPTIMIZER_MODULE = "torch.optim."
# torch's optimizers whose `step` torch wraps to set the grad mode around the update, breaking the
# graph there on purpose (`torch._dynamo.graph_break()` before and after, in
# `torch.optim.optimizer._use_grad`); `LBFGS`, `SparseAdam`, `Adafactor` and `Muon` take
# `torch.no_grad()` instead (a test reads the list off the installed torch)
GRAPH_BREAKING_OPTIMIZERS = frozenset(f"{OPTIMIZER_MODULE}{name}" for name in (
    "ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "SGD"))
# the base class of torch's optimizers, as an annotation declares what a wrapper is handed
OPTIMIZER_BASES = frozenset({f"{OPTIMIZER_MODULE}Optimizer", f"{OPTIMIZER_MODULE}optimizer.Optimizer"})
# every optimizer class of `torch.optim` (and their base), whose `zero_grad`, `state_dict`, `load_state_dict`
# and `add_param_group` torch marks `torch._disable_dynamo` (BL448)
TORCH_OPTIMIZERS = GRAPH_BREAKING_OPTIMIZERS | frozenset(f"{OPTIMIZER_MODULE}{name}" for name in (
    "Optimizer", "optimizer.Optimizer", "LBFGS", "SparseAdam", "Adafactor", "Muon"))
# their class names, as `torch.optim` and its modules (`torch.optim.adam.Adam`) export them
_OPTIMIZER_NAMES = frozenset(name.rpartition(".")[2] for name in TORCH_OPTIMIZERS)
_NOT_OPTIMIZERS = (f"{OPTIMIZER_MODULE}lr_scheduler.", f"{OPTIMIZER_MODULE}swa_utils.")


def torch_optimizer(name: str | None) -> bool:
    """Whether a qualified name is one of torch's optimizer classes (or their base), by whichever of
    `torch.optim`'s modules it is imported from; not by way of its learning-rate schedules or weight averaging,
    which import the base (`torch.optim.lr_scheduler.Optimizer`)."""
    return name is not None and name.startswith(OPTIMIZER_MODULE) and not name.startswith(_NOT_OPTIMIZERS) \
        and name.rpartition(".")[2] in _OPTIMIZER_NAMES
