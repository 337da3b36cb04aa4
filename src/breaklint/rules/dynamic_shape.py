"""BL3xx: operators whose output shape depends on the data."""

from __future__ import annotations

import libcst as cst

from ..analysis import values as V
from ..analysis.literals import integer
from ..analysis.vocabulary import COUNT_ARGS, COUNT_FUNCTIONS, SIZE_FACTORIES, SIZE_METHODS
from ..finding import Fix
from ..fixes.masks import (elementwise_names, first_position, masked_reduction, masked_write,
                           only_whole_tests, unique_to_input, whole_test_operand)
from .base import Rule, register
from ._util import (CAPTURE_SCALARS, CAPTURE_SHAPES, computed_tensor, filled_with_tensor, keyword, maybe_tensor,
                    method_call, positional)

DYNAMIC_FUNCS = {
    "torch.nonzero": "nonzero",
    "torch.argwhere": "argwhere",
    "torch.unique": "unique",
    "torch.unique_consecutive": "unique_consecutive",
    "torch.masked_select": "masked_select",
    "torch.bincount": "bincount",
    "torch.combinations": "combinations",  # a `masked_select` inside, whatever the input
    "torch.nn.functional.ctc_loss": "ctc_loss",  # no meta kernel: breaks with the setting too
    # its `rank` and `singular_values` have data-dependent sizes, whatever the driver; no meta kernel either
    "torch.linalg.lstsq": "lstsq",
    # torchvision's: its fake NMS gives a data-dependent number of boxes, and `remove_small_boxes` ends in a
    # one-argument `torch.where`; dynamo breaks at the caller's line (probed on torch 2.11 with torchvision
    # 0.26, CPU and CUDA: bench/external/torchvision_ops.py, bench/results/external_ops.txt)
    **dict.fromkeys(("torchvision.ops.nms", "torchvision.ops.boxes.nms", "torch.ops.torchvision.nms",
                     "torch.ops.torchvision.nms.default", "torchvision.ops.batched_nms",
                     "torchvision.ops.boxes.batched_nms"), "nms"),
    **dict.fromkeys(("torchvision.ops.remove_small_boxes", "torchvision.ops.boxes.remove_small_boxes"),
                    "remove_small_boxes"),
}
# the module whose call with a target picks each cluster's rows by `nonzero()` (its `log_prob` and `predict` do not)
ADAPTIVE_SOFTMAX = frozenset({"torch.nn.AdaptiveLogSoftmaxWithLoss",
                              "torch.nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss"})
DYNAMIC_METHODS = {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount"}
# NumPy's: dynamo runs NumPy calls on arrays from tensors (`scores.cpu().numpy()`) as torch ops, with
# the same data-dependent sizes (a literal list is left alone: whether dynamo folds it is not confirmed)
NUMPY_DYNAMIC = {
    "numpy.nonzero": "nonzero", "numpy.flatnonzero": "nonzero", "numpy.argwhere": "argwhere",
    "numpy.unique": "unique", "numpy.bincount": "bincount",
}
REWRITES = {
    "nonzero": "`torch.nonzero_static(x, size=N)` with an upper bound, or keep a boolean mask",
    "argwhere": "`torch.nonzero_static(x, size=N)` with an upper bound, or keep a boolean mask",
    "where": "the three-argument `torch.where(cond, a, b)`, or `torch.nonzero_static` with an upper bound",
    "unique": "a fixed-size formulation (e.g. `torch.bincount(x, minlength=K)`-style counting with "
              "`scatter_add`, or sorting and masking), or move it outside the compiled region",
    "unique_consecutive": "a fixed-size formulation, or move it outside the compiled region",
    "masked_select": "`torch.where(mask, x, 0)` (keeps the shape), or multiply by the mask",
    "bincount": "`torch.zeros(K).scatter_add_(0, x, torch.ones_like(x))` with a known number of bins K",
    "repeat_interleave": "`output_size=N` with the total length N, so the shape is known when tracing",
    "one_hot": "`num_classes=K` with the number of classes K, so the shape does not come from the largest value",
    "lstsq": "the normal equations, `torch.linalg.solve(A.mT @ A, A.mT @ B)` (a small ridge term keeps them "
             "well posed), or `torch.linalg.pinv(A) @ B`, whose shapes are fixed",
    "ctc_loss": "a loss computed outside the compiled region (return the log-probabilities from forward)",
    "nms": "a fixed number of boxes: keep the `torch.topk` best scores and suppress overlaps with a mask built "
           "from `box_iou` (so the shape stays fixed), or run NMS on the compiled call's outputs, after it",
    "remove_small_boxes": "a mask of the boxes to keep (`(w >= min_size) & (h >= min_size)`) that later steps "
                          "weigh or `torch.where` by, or drop them after the compiled call",
    "adaptive_log_softmax": "`log_prob(h)` of all classes (a fixed shape) and the target's entries gathered from "
                            "it, `.gather(1, target[:, None])`, or the loss computed outside the compiled region",
    "combinations": "the index pairs of `torch.triu_indices(n, n, offset=1)` (a fixed size for a known `n`), "
                    "gathered from the input",
}


@register
class DynamicShapeOp(Rule):
    CODE = "BL301"
    NAME = "dynamic-shape-op"
    KIND = "break"
    MESSAGE = "an operator whose output shape depends on tensor values"
    SUGGESTION = "use a fixed-size formulation (masks, `torch.where(cond, a, b)`, `nonzero_static`)"
    # GB0246: `one_hot` without its number of classes; GB0037: an op with no meta kernel (`lstsq`) under
    # `capture_dynamic_output_shape_ops`
    GB_TYPES = ("GB0036", "GB0246", "GB0037")

    def _tensor_repeats(self, node: cst.Call, index: int) -> "V.Val | None":
        """The value of the `repeats` argument (positional at `index`, or by keyword) when it may be a tensor."""
        args = positional(node)
        repeats = args[index] if len(args) > index else keyword(node, "repeats")
        return self.ctx.tensor_requirement(repeats.value) if repeats is not None else None

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function being walked: (candidate index, name) of `name = torch.unique(x)` findings whose
        # fix stands only if `name` then only feeds tests over every element
        self._pending: list[list[tuple[int, cst.Name]]] = []
        self._tested: set[int] = set()  # ids of the names such tests read
        # the nodes those ids belong to, held so that no id is reused by a later node of the file
        # (a file walked in pieces frees each piece's nodes)
        self._held: list[cst.CSTNode] = []
        # id of `torch.where(c)` -> the fix of `torch.where(c)[0][0]`, and the value of `c`, which the fix
        # hands to torch: it must be a known tensor
        self._positions: dict[int, tuple[cst.Call, Fix, tuple[V.Val | None, ...]]] = {}

    def _adaptive_softmax(self, node: cst.Call) -> bool:
        """A call with a target of an `nn.AdaptiveLogSoftmaxWithLoss` the code builds (`self.out(h, target)`):
        it picks each cluster's rows with `nonzero()`. Looked for only where the file names the class."""
        return len(node.args) >= 2 and type(node.func) in (cst.Attribute, cst.Name) \
            and self.ctx.file_mentions(("AdaptiveLogSoftmaxWithLoss",)) \
            and any(made in ADAPTIVE_SOFTMAX for made in self.ctx.module_classes(node.func))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.ctx.active():
            found = first_position(self.ctx, node)
            if found is not None:
                call, fix, cond = found
                self._positions[id(call)] = (call, fix, (cond,))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._pending.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        pending = self._pending.pop()
        # a name each of whose assignments is such a `torch.unique` is tested the same either way
        tested = self._tested | {id(target) for _, target in pending}
        for index, target in pending:
            if not only_whole_tests(original_node, target.value, target, tested):
                self.withdraw_fix(index)

    def _unique_fix(self, node: cst.Call) -> Fix | None:
        offer = unique_to_input(self.ctx, node) if self._pending else None
        if offer is None:
            return None
        self._pending[-1].append((len(self.ctx.candidates), offer[1]))
        return offer[0]

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        operand = whole_test_operand(self.ctx, node)
        if operand is not None:
            names = elementwise_names(self.ctx, operand) or []
            if len({n.value for n in names}) == 1:  # one tensor, tested with numbers
                self._tested.update(id(n) for n in names)
                self._held.extend(names)
        qual = self.ctx.qualify(node.func)
        op = DYNAMIC_FUNCS.get(qual or "")
        if op is None and qual == "torch.where" and len(node.args) == 1:
            op = "where"
        call = method_call(node)
        requires = None
        if qual in NUMPY_DYNAMIC or qual == "numpy.where" and len(node.args) == 1:
            operand = positional(node)[:1]
            # an array from a tensor (or what may be one), not a literal dynamo folds
            requires = self.ctx.tensor_requirement(operand[0].value) \
                if operand and type(operand[0].value) not in (cst.List, cst.Tuple) else None
            op = NUMPY_DYNAMIC.get(qual, "where") if requires is not None else None
        if qual == "torch.nn.functional.one_hot":
            # the number of classes, unless given, is the largest value plus one
            args = positional(node)
            classes = args[1] if len(args) > 1 else keyword(node, "num_classes")
            if classes is None or integer(classes.value) == -1:
                op = "one_hot"
        if op is None and qual == "torch.repeat_interleave":
            # `torch.repeat_interleave(repeats)` alone is dynamic too
            args = positional(node)
            if len(args) == 1 and keyword(node, "repeats") is None:
                op = "repeat_interleave"
            else:
                requires = self._tensor_repeats(node, 1)
                op = "repeat_interleave" if requires is not None else None
        elif op is None and call is not None and not (qual or "").startswith("torch."):
            receiver, method = call
            if method in DYNAMIC_METHODS and maybe_tensor(self.ctx, receiver) and not self.ctx.is_module_ref(receiver):
                op = method
            elif method == "repeat_interleave" and self.ctx.tensor_requirement(receiver) is not None:
                requires = self._tensor_repeats(node, 0)
                op = "repeat_interleave" if requires is not None else None
        if op == "repeat_interleave" and keyword(node, "output_size") is not None:
            op = None
        if op is None and self._adaptive_softmax(node):
            op = "adaptive_log_softmax"
        if op is None:
            return
        if op == "unique" and not (qual or "").startswith("numpy."):
            fix, needs = self._unique_fix(node), ()
        else:
            held, fix, needs = self._positions.get(id(node), (None, None, ()))
            if held is not node:
                fix, needs = None, ()
        self.report(
            node,
            f"`{self.ctx.source(node)}` has an output shape that depends on the data ({op})",
            f"use {REWRITES[op]}",
            requires=requires,
            fix=fix,
            fix_needs=needs,
            # one_hot, lstsq and the adaptive softmax break with the setting too; combinations fails to compile with it
            unless=() if op in ("one_hot", "combinations", "ctc_loss", "lstsq", "adaptive_log_softmax")
            else (CAPTURE_SHAPES,),
        )


@register
class BooleanMaskIndex(Rule):
    CODE = "BL302"
    PRECISION = "medium"
    NAME = "boolean-mask-index"
    KIND = "break"
    MESSAGE = "indexing with a boolean mask gives a data-dependent shape"
    SUGGESTION = (
        "keep the shape: `torch.where(mask, x, 0)` or `x * mask`, reduce with a masked sum/mean, "
        "or assign through the mask (`x[mask] = v` traces fine)"
    )
    GB_TYPES = ("GB0036",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # masked reads a statement or call rewrites -> the fix, and the values it hands to torch (the
        # masks, the tensors read and the one written): each must be a known tensor
        self._fixes: dict[cst.Subscript, tuple[Fix, tuple[V.Val | None, ...]]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.ctx.active() and len(node.targets) == 1:
            target = node.targets[0].target
            self._offer(masked_write(self.ctx, target, None, node.value), target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.ctx.active():
            self._offer(masked_write(self.ctx, node.target, node.operator, node.value), node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.active():
            self._offer(masked_reduction(self.ctx, node))

    def _offer(self, offer: tuple[Fix, list[cst.Subscript]] | None, written: cst.BaseExpression | None = None
               ) -> None:
        if offer is None:
            return
        masked = [*offer[1], *([written] if type(written) is cst.Subscript else [])]
        needs = tuple(self.ctx.tensor_requirement(part) for read in masked
                      for part in (read.value, read.slice[0].slice.value))
        for read in offer[1]:
            self._fixes.setdefault(read, (offer[0], needs))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # `x[mask] = v` traces (an index_put); `x[mask] += v` reads `x[mask]` first, and breaks
        if not self.ctx.active() or node in self.ctx.assign_targets or self.ctx.indexes_tree_object(node):
            return
        values = [self.ctx.value(element.slice.value) for element in node.slice if type(element.slice) is cst.Index]
        # a mask the walk shows first; else each symbolic index (a parameter, what a helper returns), which
        # counts where the tree shows a mask there (`keep(x, scores > t)` calling `return x[mask]`): of the
        # reports at one node, the engine keeps the first that stands
        shown = next((v for v in values if v.bool_shaped), None)
        fix, needs = self._fixes.get(node, (None, ()))
        for value in [shown] if shown is not None else [v for v in values if v.symbolic] or self._handed(node):
            self.report(node, f"`{self.ctx.source(node)}` selects elements by a boolean mask: "
                              "the result's length depends on the data", requires=value, fix=fix, fix_needs=needs,
                        unless=(CAPTURE_SHAPES,), must_be="tensor" if value.bool_shaped else "bools")

    def _handed(self, node: cst.Subscript) -> list[V.Val]:
        """What the callers pass for each parameter annotated as a tensor that indexes `node` as it was
        handed over (`mask_m: Tensor`): the annotation says a tensor, the callers whether one of bools."""
        function = self.ctx.function
        if function is None:
            return []
        return [V.passed(function.qualname, index.value) for element in node.slice
                if type(element.slice) is cst.Index and (index := self._as_handed(element.slice.value)) is not None
                and (declared := function.declared.get(index.value)) is not None and declared.is_tensor
                and not declared.is_bool_tensor and self.ctx.value(index) == declared]

    def _as_handed(self, index: cst.BaseExpression) -> cst.Name | None:
        """The name an index is, or is moved to a device from keeping its dtype (`torch.as_tensor(keep,
        device=v.device)`, `keep.to(v.device)`)."""
        if type(index) is not cst.Call or not index.args or index.args[0].keyword or index.args[0].star:
            return index if type(index) is cst.Name else None
        if self.ctx.qualify(index.func) == "torch.as_tensor" and all(
                a.keyword is not None and a.keyword.value == "device" for a in index.args[1:]):
            index = index.args[0].value
        elif type(index.func) is cst.Attribute and index.func.attr.value == "to" and len(index.args) == 1 \
                and type(index.args[0].value) in (cst.Attribute, cst.Name):
            index = index.func.value
        return index if type(index) is cst.Name else None


SPECIALIZED = frozenset({"split", "chunk", "unfold", "tril_indices", "triu_indices", "one_hot", "histc", "diag",
                         "combinations", "vander",  # and the FFTs' lengths, the windows, the adaptive poolings:
                         *(name.rsplit(".", 1)[1] for name in COUNT_FUNCTIONS
                           if name.startswith(("torch.fft.", "torch.nn.functional.adaptive_"))
                           or name.endswith("_window"))})
FAILING = frozenset({"roll", "pad", "randint"})
NO_SETTING = SPECIALIZED | FAILING  # no setting lifts these
# the message's word for what the calls whose integer argument is no size read from the tensor
READS = {"randint": "upper bound", "roll": "shift", "pad": "padding"}


@register
class TensorAsSize(Rule):
    CODE = "BL303"
    NAME = "tensor-as-size"
    KIND = "break"
    MESSAGE = ("a tensor's value used as a size or a count: of a new tensor, a range bound, of `view`, "
               "`reshape`, `expand`, `split`, `chunk`, `narrow`, `topk`'s `k`, `randint`'s upper bound, "
               "`roll`'s shift, `F.pad`'s widths, ...")
    SUGGESTION = (
        "size new tensors from shapes (`x.shape[0]`, `x.size(1)`), which dynamo knows while tracing; "
        "or build a fixed-size tensor and mask it"
    )
    GB_TYPES = ("GB0033",)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        qual = self.ctx.qualify(node.func)
        args = positional(node)
        call = method_call(node)
        unless: tuple[str, ...] = (CAPTURE_SCALARS,)
        if qual == "torch.randint":
            # its upper bound: `randint(high, size)`, `randint(low, high, size)`, or the last positional
            # argument where `size=` is a keyword; then its size, which `capture_scalar_outputs` lets
            # dynamo trace (the bound it does not)
            given = keyword(node, "size")
            high = (len(args) - 1,) if given is not None else (1,) if len(args) >= 3 else (0,)
            if self._report_sizes(node, _counts(node, args, high if args else (), ("high",)), (), READS["randint"]):
                return
            sizes = [given] if given is not None else args[-1:] if len(args) >= 2 else []
        elif qual in SIZE_FACTORIES:
            sizes = args[:3] if qual in ("torch.arange", "torch.linspace", "torch.logspace") else \
                args[:1] if qual == "torch.full" and len(args) < 3 else args
            if (given := keyword(node, "size")) is not None:  # `torch.zeros(size=(n, d))`
                sizes = [*sizes, given]
        elif qual in COUNT_FUNCTIONS:
            # `topk`'s k, `split`'s sizes, `tril_indices`' rows, ...: read as Python ints
            sizes = _counts(node, args, *COUNT_FUNCTIONS[qual])
            unless = () if qual.rsplit(".", 1)[-1] in NO_SETTING else unless
        elif call is not None and call[1] in COUNT_ARGS and maybe_tensor(self.ctx, call[0]) \
                and not (qual or "").startswith("torch."):
            sizes = _counts(node, args, *COUNT_ARGS[call[1]])
            unless = () if call[1] in NO_SETTING else unless
        elif call is not None and call[1] in SIZE_METHODS and maybe_tensor(self.ctx, call[0]):
            # `x.view(-1, n)`, `x.new_zeros(n)`: a tensor method that reads its sizes as Python ints; a
            # shape built by concatenating tuples (`lead + (m, d)`) is a tuple, whatever its parts hold
            sizes = [a for a in (args[:1] if call[1] == "new_full" else args) if not _concatenated(a.value)]
        else:
            return
        what = "size" if qual == "torch.randint" else \
            READS.get((qual or (call[1] if call is not None else "")).rsplit(".", 1)[-1], "size")
        self._report_sizes(node, sizes, unless, what)

    def _report_sizes(self, node: cst.Call, sizes: list[cst.Arg], unless: tuple[str, ...], what: str) -> bool:
        """Report the first of `sizes` (each an argument, or a tuple or list of them) that holds a
        tensor; whether one did."""
        for arg in sizes:
            if type(arg.value) in (cst.Tuple, cst.List):
                elements = [el.value for el in arg.value.elements]
            else:
                elements = [arg.value]
            for el in elements:
                value = self.ctx.value(el)
                if value.kind == "seq" and len(value.parts) == 1 and value.parts[0].is_tensor \
                        and type(el) is cst.Call:
                    value = value.parts[0]  # `tuple(batch_sizes)`, `list(lengths)`: each element a tensor
                if computed_tensor(value) or filled_with_tensor(value):
                    self.report(node, f"`{self.ctx.source(node)}` takes its {what} from the value of tensor "
                                      f"`{self.ctx.source(el)}`", requires=value, unless=unless)
                    return True
        return False


def _counts(node: cst.Call, args: list[cst.Arg], at: tuple[int, ...], words: tuple[str, ...]) -> list[cst.Arg]:
    """The arguments of `node` at positions `at` or named by `words`."""
    found = [args[i] for i in at if i < len(args)]
    return found + [arg for word in words if (arg := keyword(node, word)) is not None]


def _concatenated(node: cst.BaseExpression) -> bool:
    """`lead + (m, d)`: a tuple (or list) built by concatenation."""
    return type(node) is cst.BinaryOperation and any(
        type(side) in (cst.Tuple, cst.List) for side in (node.left, node.right))
