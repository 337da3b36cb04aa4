"""BL429: sparse tensors, which dynamo does not hold."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import libcst as cst

from ..analysis.values import SPARSE, SPARSE_CLASS, passed, sparse_when_all
from ..analysis.vocabulary import SPARSE_CONSTRUCTORS, SPARSE_CONVERSIONS, SPARSE_ONLY_METHODS, SPARSE_OPERANDS
from ..analysis.walk import find
from ..fixes.masks import name_uses
from .base import Rule, register
from ._util import builtin_name, method_call

if TYPE_CHECKING:
    from ..analysis.values import Val


class _Held(NamedTuple):
    """A name bound to a sparse tensor, or to what may be one."""

    line: int  # of the binding
    requires: "Val | None"  # what must be a tensor for it to be made (None: a constructor, surely)
    returned: bool  # what a call of the tree's function returned: `requires` must turn out sparse
    what: str  # how the finding names it
    branches: tuple[tuple[int, bool], ...]  # the `if`s around the binding, and which branch of each


class _Handed(NamedTuple):
    """What a function's own code shows it is handed sparse: an operand of a sparse-only operation
    (`torch.sparse.mm(adj, x)`, `adj.coalesce()`) that the function did not make."""

    params: dict[str, str]  # parameter: the use that shows it sparse
    reads: dict[int, tuple[str, str]]  # id of the read where dynamo meets the tensor: (its text, the use)


@register
class SparseTensorCreation(Rule):
    CODE = "BL429"
    NAME = "sparse-tensor-creation"
    KIND = "break"
    MESSAGE = "a sparse tensor made in compiled code (`torch.sparse_coo_tensor`, `x.to_sparse()`, ...)"
    SUGGESTION = ("keep the graph dense (`torch.zeros(n, n).index_put_(tuple(idx), values, accumulate=True)`, or "
                  "`index_add_`/`scatter_add` over the edges in place of a sparse matmul), or build the sparse "
                  "tensor outside the compiled code")
    # GB0007: `sparse_coo_tensor` (a builtin dynamo skips); GB0374: the compressed layouts; GB0277: a
    # conversion's sparse result; GB0015: the sparse tensor taken up again after the break
    GB_TYPES = ("GB0007", "GB0374", "GB0277", "GB0015")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # per function being walked: the names bound to a sparse tensor made there, or to what a call of
        # the tree's function returned
        self._held: list[dict[str, _Held]] = []
        # per function being walked: the held names first read in a branch of an `if` the binding is not
        # in, with those branches: a read in another branch of that `if` is a first read too
        self._read_in: list[dict[str, tuple[_Held, set[tuple[int, bool]]]]] = []
        self._ifs: list[cst.If] = []  # the `if` statements being walked, outermost first
        # ids of the names that are no variable (an attribute's name, a keyword), while their function
        # is walked
        self._not_names: set[int] = set()
        self._params: list[set[str]] = []  # per function being walked: its parameters not yet read
        # per function being walked: the requirements of the reports where dynamo gives up on it (None: surely)
        self._given_up: list[list["Val | None"]] = []
        self._kept_reads: set[tuple[int, str]] = set()  # (line, attribute) of the reads of sparse attributes reported
        self._handed: list[_Handed] = []  # per function being walked: what it is handed sparse, not yet reported

    def _made(self, node: cst.BaseExpression) -> tuple[str, "Val | None"] | None:
        """(how, what must be a tensor) where `node` makes a sparse tensor, else None."""
        if type(node) is not cst.Call:
            return None
        name = self.ctx.qualify(node.func)
        if name in SPARSE_CONSTRUCTORS:
            return f"`{name}` makes a sparse tensor", None
        if type(node.func) is cst.Name and self.ctx.value(node.func) == SPARSE_CLASS:
            return f"`{node.func.value}`, a sparse class (`getattr(torch.sparse, ...)`), makes a sparse tensor", None
        call = method_call(node)
        if call is None or call[1] not in SPARSE_CONVERSIONS:
            return None
        requires = self.ctx.tensor_requirement(call[0])
        return (f"`.{call[1]}()` gives a sparse tensor", requires) if requires is not None else None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._held.append({})
        self._read_in.append({})
        self._given_up.append([])
        params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
        # a nested function's parameters are not what the tree's calls of its enclosing function pass
        names = {p.name.value for p in params} - {"self", "cls"}
        self._handed.append(_handed_sparse(self.ctx, node, names) if not self._params else _NOTHING_HANDED)
        self._params.append(names if not self._params else set())
        self._not_names.update(id(p.name) for p in params)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._held.pop()
        self._read_in.pop()
        self._handed.pop()
        self._params.pop()
        self._given_up.pop()
        if not self._held:
            self._not_names.clear()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active():
            return
        made = self._made(node)
        if made is not None:
            self.report(node, f"{made[0]}: dynamo does not support sparse tensors and breaks the graph here",
                        requires=made[1])
        elif builtin_name(self.ctx, node) == "hasattr" and len(node.args) == 2 and _is_self(node.args[0].value) \
                and type(node.args[1].value) is cst.SimpleString:
            # `hasattr(self, "_memo")` looks the attribute up, and takes up the sparse tensor it holds; dynamo
            # resumes after it
            attr = node.args[1].value.evaluated_value
            self._kept(node, attr, self._attribute_value(attr), gives_up=False)

    def _attribute_value(self, attr: str) -> "Val | None":
        """What `self.<attr>` holds where that may be a sparse tensor kept on the object: one a method
        stores there (`self.adj = adj.to_sparse()`), or what a call of the tree's function stored there
        returned (the tree decides); else None."""
        cls = self.ctx.class_info()
        if cls is None or not isinstance(attr, str):
            return None
        if attr in cls.sparse_attrs:
            return SPARSE
        held = cls.returned_calls.get(attr)
        return held if held is not None and held.kind == "ret" and len(cls.callables.get(attr, ())) == 1 else None

    def _kept(self, node: cst.CSTNode, attr: str, value: "Val | None", gives_up: bool = True) -> None:
        """Report a read of a sparse tensor kept on the object; where the read is an attribute's, dynamo
        gives up on the function there, and its later reads no longer break."""
        if value is None or not self._given_up:
            return
        line = self.ctx.positions.span(node)[0]
        requires = None if value.is_sparse else value
        if (line, attr) in self._kept_reads or any(g is None or _same_test(requires, g) for g in self._given_up[-1]):
            return
        self._kept_reads.add((line, attr))
        what = "a sparse tensor" if value.is_sparse else "what a call of the tree's function stored there, a sparse tensor"
        self.report(node, f"`self.{attr}` holds {what}: dynamo cannot take a sparse tensor kept on the object as "
                          "an input, and breaks where it is read", requires=requires,
                    must_be="tensor" if value.is_sparse else "sparse")
        if gives_up:
            self._given_up[-1].append(requires)

    def visit_If(self, node: cst.If) -> None:
        self._ifs.append(node)

    def leave_If(self, original_node: cst.If) -> None:
        self._ifs.pop()

    def _branches(self, line: int) -> tuple[tuple[int, bool], ...]:
        """For each `if` around a line: which of its branches the line is in (its body or not)."""
        return tuple((id(node), line <= self.ctx.positions.span(node.body)[2]) for node in self._ifs)

    def _watching(self) -> bool:
        """Whether the function being walked has names whose reads are looked at."""
        return bool(self._held) and bool(self._held[-1] or self._params[-1])

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._watching():
            self._not_names.add(id(node.attr))  # `graph.adj` reads no local `adj`
        if _is_self(node.value) and self.ctx.active() and node not in self.ctx.assign_targets:
            self._kept(node, node.attr.value, self._attribute_value(node.attr.value))
        if self._handed and id(node) in self._handed[-1].reads:
            self._handed_read(node, *self._handed[-1].reads[id(node)])

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and self._watching():
            self._not_names.add(id(node.keyword))  # nor does `f(adj=...)`'s keyword

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._watching():
            self._not_names.update(id(t.target) for t in node.targets)  # a binding is no read
            rebound = [t.target.value for t in node.targets
                       if type(t.target) is cst.Name and t.target.value in self._params[-1]]
            if rebound:  # a parameter bound again no longer holds what was passed (a read on the right first)
                self._read_first(node.value)
                self._params[-1].difference_update(rebound)
        # a name bound again no longer holds the sparse tensor (a use on the right is taken first), unless
        # in another branch of the `if` that made it
        for target in node.targets:
            if type(target.target) is cst.Name and self._held and target.target.value in self._held[-1] \
                    and not self._elsewhere(target.target.value, self.ctx.positions.span(node)[0]):
                self._read_first(node.value)
                self._held[-1].pop(target.target.value, None)

    def _read_first(self, value: cst.BaseExpression) -> None:
        """Take the reads of the right-hand side of an assignment before its target is bound again (the
        walk reaches them only after `visit_Assign`): attributes' names and keywords first, which read
        no local."""
        found: dict[type, list] = {cst.Attribute: [], cst.Arg: [], cst.Name: []}
        for node in find(value, (cst.Attribute, cst.Arg, cst.Name)):
            found[type(node)].append(node)
        for attribute in found[cst.Attribute]:
            self.visit_Attribute(attribute)
        for arg in found[cst.Arg]:
            self.visit_Arg(arg)
        for used in found[cst.Name]:
            self.visit_Name(used)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._held or not self.ctx.active():
            return
        if not self._held[-1] and not any(type(t.target) is cst.Name for t in original_node.targets):
            return  # (`self.conv = Conv2d(...)`) no name to hold what it makes, nor one already held
        made = self._made(original_node.value)
        line = self.ctx.positions.span(original_node)[0]
        if made is not None:
            held = _Held(line, made[1], False, f"the sparse tensor made at line {line}", self._branches(line))
        elif type(original_node.value) in (cst.Call, cst.Attribute) and \
                (returned := self._returned(original_node.value)):
            # `m = construct_matrix(...)`: a sparse tensor if the helper returns one (the tree decides,
            # unless this file already shows it)
            value = original_node.value
            what = f"the sparse tensor `{self.ctx.source(value.func)}` returned at line {line}" \
                if type(value) is cst.Call else f"the sparse tensor made at line {line}"
            held = _Held(line, None if returned.is_sparse else returned, not returned.is_sparse, what,
                         self._branches(line))
        else:
            return
        if any(g is None or _same_test(held.requires, g) for g in self._given_up[-1]):
            return  # made after dynamo gave up on the function, wherever it breaks: its read never breaks
        if self._again(original_node.value, held, line):
            return  # dynamo runs the rest eagerly wherever this breaks: its read no longer breaks
        for target in original_node.targets:
            if type(target.target) is cst.Name:
                self._held[-1][target.target.value] = held

    def _again(self, node: cst.BaseExpression, made: _Held, line: int) -> bool:
        """A second sparse tensor made (`b = adjacency(...)`) while a name still holds one not yet taken
        up (`a`): dynamo cannot hold `a` when it compiles the graph up to this break, gives up on the
        function here and runs it eagerly, so the later reads of `a` and `b` no longer break. Whether
        the read of `b` is left to this report."""
        for name, held in self._held[-1].items():
            if not set(held.branches) <= set(made.branches) or self._elsewhere(name, line):
                continue
            tests = [h for h in (held, made) if h.requires is not None]
            if len(tests) == 2 and not _same_test(held.requires, made.requires):
                if not (held.returned and made.returned):
                    continue  # a conversion's receiver must be a tensor, a helper's result sparse
                # two helpers' results (`adjacency(...)`, then `product(...)`): a break where both turn
                # out sparse; the reads stay reported, which break where only one does
                self.report(node, self._again_message(name, held), requires=sparse_when_all(
                    [held.requires, made.requires]), must_be="sparse")
                return False
            self.report(node, self._again_message(name, held), requires=tests[0].requires if tests else None,
                        must_be="sparse" if tests and tests[0].returned else "tensor")
            self._given_up[-1].append(tests[0].requires if tests else None)
            # the reads that break only where this does: dynamo no longer traces that far
            for other in [n for n, h in self._held[-1].items() if _implied(h, tests)]:
                self._held[-1].pop(other)
            return _implied(made, tests)
        return False

    @staticmethod
    def _again_message(name: str, held: _Held) -> str:
        return (f"`{name}` holds {held.what} when this makes another: dynamo cannot hold it where it compiles "
                "the graph up to this break, and runs the rest of the function eagerly")

    def _returned(self, node: cst.BaseExpression) -> "Val | None":
        """What a call of a function the tree decides returns, where that may be a sparse tensor (also
        transposed, `make(i, v).mT`, or multiplied by another such call)."""
        value = self.ctx.tensor_requirement(node)
        if value is None:
            return None
        return value if value.kind == "ret" or value.is_sparse or value.is_sparse_when_all else None

    def _elsewhere(self, name: str, line: int) -> bool:
        """Whether a line is in another branch of an `if` whose branch made the sparse tensor `name`
        holds: there the name never holds it."""
        branches = self._held[-1][name].branches
        return bool(set(branches) & {(n, not body) for n, body in self._branches(line)})

    def visit_Name(self, node: cst.Name) -> None:
        if self._handed and id(node) in self._handed[-1].reads:
            self._handed_read(node, *self._handed[-1].reads[id(node)])
        if self._params and node.value in self._params[-1] and id(node) not in self._not_names:
            self._param_read(node)
        if not self._held or id(node) in self._not_names:
            return
        here = self.ctx.positions.span(node)[0]
        branches = set(self._branches(here))
        if node.value in self._held[-1]:
            if self._elsewhere(node.value, here):
                return
            held = self._held[-1].pop(node.value)
            if extra := branches - set(held.branches):
                self._read_in[-1][node.value] = (held, extra)
        elif node.value in self._read_in[-1] and \
                {(n, not body) for n, body in self._read_in[-1][node.value][1]} & branches:
            # `if horizontal: f(adj) else: g(adj)`: each branch's read is the first of its path
            held, read = self._read_in[-1][node.value]
            self._read_in[-1][node.value] = (held, read | branches)
        else:
            return
        if here == held.line or not self.ctx.active() or not set(held.branches) <= branches:
            # (after an `if` one of whose branches made it, the name holds it only when that branch ran:
            # the break there is reported where it is made)
            return
        self.report(node, f"`{node.value}` holds {held.what}: the code after that break takes it up as an input, "
                          "which dynamo cannot hold, and breaks again here", requires=held.requires,
                    must_be="sparse" if held.returned else "tensor")

    def _param_read(self, node: cst.Name) -> None:
        """The first read of a parameter that still holds what the callers pass: where every caller
        passes a sparse tensor (`orthogonalize(a_full, n)`), dynamo cannot hold it as an input of
        this function, whether inlined or compiled as a frame of its own, and breaks here."""
        self._params[-1].discard(node.value)
        function = self.ctx.function
        if function is None or not self.ctx.active():
            return
        value = self.ctx.value(node)
        if not (value.is_tensor or value.symbolic):  # `n: int`, a flag, a default's Python value
            return
        self.report(node, f"`{node.value}` holds the sparse tensor its callers pass: dynamo cannot hold it as "
                          "an input, and breaks at its first read", requires=passed(function.qualname, node.value),
                    must_be="sparse")
        # where no caller the tree shows passes a sparse tensor, the function's own code may show it is
        # handed one (of two reports at one node, the first that stands is kept)
        if node.value in self._handed[-1].params:
            self._handed_read(node, node.value, self._handed[-1].params[node.value])

    def _handed_read(self, node: cst.CSTNode, text: str, use: str) -> None:
        """The first read of a sparse tensor the function is handed (its own code shows it: `use`):
        dynamo cannot wrap it as an input, breaks there and runs the whole function eagerly, so
        nothing later in it breaks again."""
        if not self.ctx.active():
            return
        self.report(node, f"`{text}` is a sparse tensor ({use}): dynamo cannot take a sparse tensor it "
                          "is handed as an input, breaks at its first read and runs the function eagerly")
        self._handed[-1] = _NOTHING_HANDED
        self._given_up[-1].append(None)


_NOTHING_HANDED = _Handed({}, {})
# what a function that may call a sparse-only operation mentions; and what code that handles either
# layout tests (it need not be handed a sparse tensor)
_SPARSE_WORDS = ("sparse.", "spmm", "smm(", "coalesce", "_values(", "_indices(", "_nnz(", "row_indices(",
                 "col_indices(")
_EITHER_LAYOUT = ("is_sparse", "layout", "SparseTensor", "is_torch_sparse")
_ITERATING = frozenset({"enumerate", "zip", "reversed", "list", "tuple", "sorted", "iter"})


def _handed_sparse(ctx, fn: cst.FunctionDef, params: set[str]) -> _Handed:
    """The operands of the sparse-only operations `fn` runs whatever it is handed (not in an `if`, a
    `try`, a conditional expression or a nested function), where the operand is one of its `params`
    (`self` and `cls` left out), a tensor kept on `self`, or an element of what either holds
    (`self.matrices[i]`, a `for` over them): each is a sparse tensor the compiled code is handed, and
    where dynamo first reads it."""
    if not ctx.mentions(fn, _SPARSE_WORDS) or ctx.mentions(fn, _EITHER_LAYOUT):
        return _NOTHING_HANDED
    handed = _Handed({}, {})
    for call, loops in _unconditional_calls(ctx, fn.body.body, {}, params | {"self"}):
        found = _sparse_operand(ctx, call)
        if found is None:
            continue
        operand, use = found
        root = _root(operand)
        if type(root) is not cst.Name:
            continue
        if operand is root and root.value in params:
            handed.params.setdefault(root.value, use)
        elif operand is root and root.value in loops:  # an element of a `for` over what it is handed
            first = _first_read(loops[root.value].body, root.value)
            if first is not None:
                handed.reads.setdefault(id(first), (root.value, use))
        elif type(operand) is cst.Attribute and _is_self(operand.value):
            first = _first_attribute_read(fn.body, operand.attr.value)
            if first is not None:
                handed.reads.setdefault(id(first), (ctx.source(operand), use))
        elif type(operand) is cst.Subscript and (root.value == "self" or root.value in params):
            read = root if root.value in params else _outermost_self_attribute(operand)
            handed.reads.setdefault(id(read), (ctx.source(operand), use))
    return handed


def _unconditional_calls(ctx, body, loops: dict[str, cst.For], roots: set[str]):
    """The calls of the statements `body` runs whatever it is handed, each with the `for` loops over
    what the function is handed (what the names `roots` hold) around it, by target name."""
    for stmt in body:
        if type(stmt) is cst.SimpleStatementLine:
            if next(find(stmt, (cst.IfExp, cst.Lambda, cst.BooleanOperation)), None) is None:
                for call in find(stmt, cst.Call):
                    yield call, loops
        elif type(stmt) is cst.For:
            inner = dict(loops)
            if _iterates_handed(ctx, stmt.iter, roots):
                inner.update((name.value, stmt) for name in find(stmt.target, cst.Name))
            yield from _unconditional_calls(ctx, stmt.body.body, inner, roots)
        elif type(stmt) is cst.With:
            yield from _unconditional_calls(ctx, stmt.body.body, loops, roots)


def _iterates_handed(ctx, node: cst.BaseExpression, roots: set[str]) -> bool:
    """Whether a `for` iterates what one of `roots` holds (through `enumerate`, `zip`, ...)."""
    if type(node) is cst.Call and builtin_name(ctx, node) in _ITERATING:
        return any(_iterates_handed(ctx, arg.value, roots) for arg in node.args)
    root = _root(node)
    return type(root) is cst.Name and root.value in roots


def _sparse_operand(ctx, call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """(the operand, how the finding names the operation) of a sparse-only operation."""
    position = SPARSE_OPERANDS.get(ctx.qualify(call.func))
    if position is not None:
        args = [a for a in call.args if a.keyword is None and not a.star]
        return (args[position].value, f"`{ctx.source(call.func)}` takes one") if len(args) > position else None
    method = method_call(call)
    if method is not None and method[1] in SPARSE_ONLY_METHODS:
        return method[0], f"only a sparse tensor has `.{method[1]}()`"
    return None


def _root(node: cst.BaseExpression) -> cst.BaseExpression:
    while type(node) in (cst.Attribute, cst.Subscript):
        node = node.value
    return node


def _outermost_self_attribute(node: cst.BaseExpression) -> cst.BaseExpression:
    """`self.matrices` in `self.matrices[::-1][i]`: the attribute read of `self`."""
    while not (type(node) is cst.Attribute and _is_self(node.value)):
        node = node.value
    return node


def _first_read(body: cst.CSTNode, name: str) -> cst.Name | None:
    """The first read of `name` in `body`: a use of the variable (`name_uses`) that does not bind it."""
    bound = {id(target.target) for target in find(body, cst.AssignTarget)}
    return next((use for use in name_uses(body, name) if id(use) not in bound), None)


def _first_attribute_read(body: cst.CSTNode, attr: str) -> cst.Attribute | None:
    """The first read of `self.<attr>` in `body` (not a binding of it)."""
    stored: set[int] = set()
    for node in find(body, (cst.AssignTarget, cst.Attribute)):
        if type(node) is cst.AssignTarget:
            stored.add(id(node.target))
        elif id(node) not in stored and node.attr.value == attr and _is_self(node.value):
            return node
    return None


def _is_self(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "self"


def _implied(held: _Held, tests: list[_Held]) -> bool:
    """Whether the read of `held` breaks only where a report that stands on the requirement of
    `tests` (one, or none: sure) does; where the report stands, the read breaks nowhere."""
    if held.requires is None:
        return not tests
    return any(_same_test(held.requires, t.requires) for t in tests)


def _same_test(a: "Val | None", b: "Val | None") -> bool:
    """Whether two requirements decide alike: equal, or what calls of one function return (whatever
    each passes it)."""
    if a is None or b is None:
        return a is b
    if a == b:
        return True
    if a.is_sparse_when_all:  # `torch.cat([lo, hi])` of two such calls
        return all(_same_test(part, b) for part in a.parts)
    return a.kind == b.kind == "ret" and (a.ref, a.name, a.owner) == (b.ref, b.name, b.owner)
