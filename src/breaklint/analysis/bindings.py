"""What names are bound to as the walk passes assignments, `for` targets (`zip`, `enumerate` taken
apart) and comprehensions (a scope of their own: their targets hide the outer names only inside),
and which parameters the function uses as flags, integers (a slice bound, `range(n)`) or strings
(compared with one, or set to one).
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from . import values as V
from .call_values import updated
from .chains import typed_chain
from .declared import bind_annotated, declare_local
from .frames import comprehension_frame
from .passing import picked_entry
from .summary import element_of, put_back
from .syntax import stepped, string_index
from .values import Val
from .vocabulary import CASTS
from .walk import find


class Bindings:
    """Names bound by assignments, loop targets and comprehensions; parameters used as scalars.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def _note_scalar_use(self, node: cst.BaseExpression | None) -> None:
        """`node` is used as a flag, an integer or a string: if it is one of the function's own
        parameters (or one negated, or in arithmetic with something), the function takes that
        parameter for a Python scalar."""
        while True:
            if type(node) is cst.BinaryOperation and isinstance(node.operator, _ARITHMETIC):
                self._note_scalar_use(node.left)
                node = node.right
            elif type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
                node = node.expression
            else:
                break
        if type(node) is cst.Name and self._scopes:
            value = self._scopes[-1].values.get(node.value)
            info = self._scopes[-1].info
            if value is not None and value.kind == "param" and value.ref == info.qualname:
                info.scalar_uses.add(node.value)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        """`method == "dopri5"`, `mode in ("bilinear", "nearest")`: a parameter compared with strings
        holds a string (a tensor never equals one), which the function takes for a Python value too."""
        left = node.left
        for comparison in node.comparisons:
            right = comparison.comparator
            if type(comparison.operator) in (cst.In, cst.NotIn):
                if _strings(right):
                    self._note_scalar_use(left)
            elif type(comparison.operator) not in (cst.Is, cst.IsNot):
                if isinstance(right, _STRING):
                    self._note_scalar_use(left)
                elif isinstance(left, _STRING):
                    self._note_scalar_use(right)
                elif type(comparison.operator) in (cst.Equal, cst.NotEqual) and self._scopes:
                    _note_peers(self._scopes[-1], left, right)
                if self._scopes:
                    self._note_size_peer(left, right)
                    self._note_size_peer(right, left)
            left = right

    def _note_size_peer(self, name: cst.BaseExpression, other: cst.BaseExpression) -> None:
        """`x.shape[-2] <= num_tokens`: a parameter compared with a size (of a shape) is a count."""
        if type(name) is cst.Name and (held := self._scopes[-1].values.get(name.value)) is not None \
                and held.kind == "param" and self.value(other).kind == "size":
            self._note_scalar_use(name)

    def visit_Slice(self, node: cst.Slice) -> None:
        for bound in (node.lower, node.upper, node.step):
            self._note_scalar_use(bound)

    def visit_For(self, node: cst.For) -> None:
        if not self._scopes:
            return
        self._bind_loop_target(node.target, node.iter)
        attr = self._self_attr(node.iter)
        cls = self._classes[-1] if self._classes else None
        if type(node.target) is cst.Name and attr and cls and attr in cls.submodules:
            self._scopes[-1].modules.add(node.target.value)

    # A comprehension has a scope of its own (Python 3). libcst walks its element before its `for`
    # clauses, so all its targets are bound on entering it; the names they hide hold their earlier
    # values again on leaving it.
    def _enter_comprehension(self, node: cst.BaseComp | cst.DictComp) -> None:
        hidden: dict[str, Val | None] = {}
        self._comprehensions.append(hidden)
        if not self._scopes:
            return
        values = self._scopes[-1].values
        branches, self._branch_names = self._branch_names, []  # bound for good, not joined with a loop's
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            for name in find(comp.target, cst.Name):
                hidden.setdefault(name.value, values.get(name.value))
            self._bind_loop_target(comp.target, comp.iter)
            comp = comp.inner_for_in
        self._branch_names = branches

    def _leave_comprehension(self) -> None:
        hidden = self._comprehensions.pop()
        if not self._scopes:
            return
        for name in hidden:
            self._scopes[-1].held.pop(name, None)
        put_back(self._scopes[-1].values, hidden)
        self._qualified = (None, None)  # names changed meaning

    def _note_frame(self, node: cst.ListComp | cst.SetComp | cst.DictComp) -> None:
        """An outermost comprehension of the function's own code (`FunctionInfo.comprehension_frames`)."""
        if len(self._scopes) == 1 and not self._comprehensions:
            fn = self._scopes[0].info
            rests_on = comprehension_frame(node, fn, self._scopes[0].values, self.qualify, self.value)
            if rests_on is not None:
                fn.comprehension_frames.append((self.positions.span(node), *rests_on))

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._note_frame(node)
        self._enter_comprehension(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._leave_comprehension()

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._note_frame(node)
        self._enter_comprehension(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._leave_comprehension()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._note_frame(node)
        self._enter_comprehension(node)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._leave_comprehension()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._enter_comprehension(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._leave_comprehension()

    def _bind_loop_target(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """`for t in it`: t holds an element of `it`; `zip` and `enumerate` are taken apart."""
        scope = self._scopes[-1]
        if type(it) is cst.Call and type(it.func) is cst.Name and it.func.value in ("zip", "enumerate") \
                and it.func.value not in self.aliases and type(target) in (cst.Tuple, cst.List):
            names = [el.value for el in target.elements]
            args = [a.value for a in it.args if a.keyword is None and not a.star]
            if it.func.value == "enumerate" and len(names) == 2 and args:
                self._assign_value(names[0], V.NUMBER)
                self._assign_value(names[1], V.elem(self.value(args[0])))
                _hold_element(self, names[1], args[0])
                return
            if it.func.value == "zip" and len(names) == len(args):
                for sub, arg in zip(names, args):
                    self._assign_value(sub, V.elem(self.value(arg)))
                    _hold_element(self, sub, arg)
                return
            for sub in names:
                self._assign_value(sub, V.UNKNOWN)
            return
        self._assign_value(target, V.elem(self.value(it)))
        _hold_element(self, target, it)
        if type(target) is cst.Name:
            scope.values.setdefault(target.value, V.UNKNOWN)
            self._qualified = (None, None)  # names changed meaning

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.assign_targets.add(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if type(node.target) is not cst.Subscript:  # `x[i] += v` reads `x[i]` too
            self.assign_targets.add(node.target)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._scopes:
            return
        value = self.value(original_node.value)
        if (flag := self.compile_value(original_node.value)) is not None:
            value = V.COMPILING if flag else V.NOT_COMPILING  # a compile check kept in a local
        attr = self._self_attr(original_node.value)
        choice = self._origins(original_node.value) \
            if type(original_node.value) in (cst.BooleanOperation, cst.IfExp) else []
        for target in original_node.targets:
            if (key := _string_key(target.target)) is not None:
                items = self._scopes[-1].items
                items[key] = V.join(items[key], value) if key in items else value
            _note_kept(self, target.target, value)
            if isinstance(original_node.value, _STRING):
                self._note_scalar_use(target.target)  # `if method is None: method = "dopri5"`
            # a parameter bound again under an `if` (`if semiring is None: semiring = self.semiring`)
            # may still hold what the callers pass
            kept = [("param", target.target.value)] if _passed_before_if(self, target.target) else []
            self._assign_value(target.target, _unstarred(target.target, original_node.value, self.value) or value)
            _note_keyed(self, target.target, original_node.value)
            _note_test(self._scopes[-1], target.target, original_node.value)
            if type(target.target) in (cst.Tuple, cst.List):
                self._hold_elements(target.target, original_node.value)
            if type(target.target) is cst.Name:
                scope = self._scopes[-1]
                self._hold(target.target.value, attr)
                if kept + choice and (kept or len(choice) > 1):
                    scope.either[target.target.value] = kept + (choice or self._origins(original_node.value))
                else:
                    scope.either.pop(target.target.value, None)
                if type(original_node.value) in (cst.Name, cst.Attribute, cst.IfExp) or \
                        type(original_node.value) in (cst.Call, cst.Subscript) and self._held_functions(original_node.value):
                    named = scope.functions.setdefault(target.target.value, [])
                    named.extend(f for f in self._held_functions(original_node.value) if f not in named)
                elif held := self.held_in_literal(original_node.value) or picked_entry(self, original_node.value):
                    scope.functions[target.target.value] = held  # `loss_map = {"boxes": ...}`; `fn = loss_map.get(k)`
                elif (returned := self.returned_by(original_node.value)) is not None:
                    # `solver_cls = select(method)`: what `select` returns, which reach looks up; and, of a
                    # call handed a table of functions (`get_method(name, methods, method)` with `methods`
                    # a literal dict of them here), each of those, which it may pick and hand back
                    scope.functions[target.target.value] = [returned, *_handed_tables(scope, original_node.value)]
                scope.bound.pop(target.target.value, None)
                if bound := self.bound_method(original_node.value):
                    scope.bound[target.target.value] = bound
                scope.tuples.pop(target.target.value, None)
                if type(original_node.value) is cst.Tuple:
                    scope.tuples[target.target.value] = original_node.value
                if made := self.built_from(original_node.value):  # under an `if`, what it held may stay
                    scope.made[target.target.value] = _joined(scope.made, target.target.value, made, self._if_frames)
                else:
                    scope.made.pop(target.target.value, None)
            if type(target.target) is cst.Name and type(original_node.value) is cst.Call \
                    and self.qualify(original_node.value.func) == "logging.getLogger":
                self._scopes[-1].loggers.add(target.target.value)

    def _hold(self, name: str, attr: str | None) -> None:
        """`name = self.attr`: the local holds what the attribute does (a module, a callable, an object
        a constructor was handed), so calling it, or a method of it, runs that; any other value ends it."""
        cls = self.class_info()
        if attr is not None and cls is not None and cls.holds_object(attr):
            self._scopes[-1].held[name] = attr
        else:
            self._scopes[-1].held.pop(name, None)

    def _origins(self, value: cst.BaseExpression) -> list[tuple[str, str]]:
        """Where what `value` holds may come from (`Scope.either`): each operand of `a or b` and each
        branch of `a if c else b` that is a parameter still holding what the callers pass, or an
        attribute of `self`."""
        if type(value) is cst.BooleanOperation:
            return self._origins(value.left) + self._origins(value.right)
        if type(value) is cst.IfExp:
            return self._origins(value.body) + self._origins(value.orelse)
        if (attr := self._self_attr(value)) is not None:
            return [("attr", attr)]
        return [("param", param)] if (param := self._parameter(value)) is not None else []

    def _hold_elements(self, target: cst.Tuple | cst.List, value: cst.BaseExpression) -> None:
        """`step, control = self.step, self.control`: each name holds its attribute, as one assignment
        of each would."""
        pairs = type(value) in (cst.Tuple, cst.List) and len(value.elements) == len(target.elements) \
            and not any(type(el) is cst.StarredElement for el in (*value.elements, *target.elements))
        for i, el in enumerate(target.elements):
            if type(el.value) is cst.Name:
                self._hold(el.value.value, self._self_attr(value.elements[i].value) if pairs else None)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if self._scopes and type(original_node.target) is cst.Name:
            bind_annotated(self, original_node)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        if self._scopes and type(original_node.target) is cst.Name:
            scope = self._scopes[-1]
            name = original_node.target.value
            scope.values[name] = updated(original_node.operator, scope.values.get(name, V.UNKNOWN),
                                         self.value(original_node.value))  # `keep &= valid`: a mask
            self._qualified = (None, None)  # names changed meaning

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        """`if (m := x.max()) > 0:` binds `m` as `m = x.max()` would (for the rest of the function)."""
        if self._scopes and type(original_node.target) is cst.Name:
            self._assign_value(original_node.target, self.value(original_node.value))

    def _assign_value(self, target: cst.BaseExpression, value: Val) -> None:
        """Bind a target (a name, or a tuple or list of targets) to a value. Inside a loop body or
        handler, a name rebound there holds the new value for the rest of the body and is joined
        with what it held before once the body ends (`_leave_branch`: the body may not run);
        branches of an `if` are joined when it ends (`leave_If`), so a flag set to `False` and
        reassigned only in training stays a Python bool."""
        scope = self._scopes[-1]
        if type(target) is cst.Name:
            name = target.value
            if self._branch_names:
                self._branch_names[-1].setdefault(name, scope.values.get(name))
            scope.values[name] = value
            if not any(name in names for names in self._filling):
                # rebound: its parameter's annotation no longer says what it is, unless the binding
                # fills in a `None` (`if vocab is None: vocab = load()` of `vocab: Vocab | None`)
                scope.typed.pop(name, None)
            scope.keyed.pop(name, None)  # (`state = self.state[p]` sets it again, `_note_keyed`)
            self._qualified = (None, None)  # names changed meaning
        elif type(target) in (cst.Tuple, cst.List):
            elements = list(target.elements)
            starred = any(type(el) is cst.StarredElement for el in elements)
            for index, el in enumerate(elements):
                if type(el) is cst.StarredElement:
                    self._assign_value(el.value, V.OBJECT)
                else:
                    self._assign_value(el.value, V.elem(value) if starred else V.elem(value, index, len(elements)))


_STRING = (cst.SimpleString, cst.ConcatenatedString)  # a string literal
# arithmetic that keeps a Python number a Python number, and a tensor a tensor
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def _note_kept(ctx: Bindings, target: cst.BaseExpression, value: Val) -> None:
    """`state["mask"] = m` on `self.state[p]`, `self.cache["valid"] = v`, and each key of a dict a
    method stores whole (`self.params = {"apply": mask}`): what any method of the class stores there,
    a read in any other sees (`Names.kept_item`, `ClassInfo.attr_values`)."""
    if (cls := ctx.class_info()) is None:
        return
    if type(target) is cst.Subscript and (kept := ctx.kept_item(target)) is not None:
        kept_values = [(kept, value)]
    elif value.kind == "dict" and value.keys and value.name != V.RECORD and (attr := ctx._self_attr(target)):
        kept_values = [(f"{attr}[{key!r}]", part) for key, part in zip(value.keys, value.parts)]
    else:
        return
    for kept, part in kept_values:
        old = cls.attr_values.get(kept)
        cls.attr_values[kept] = part if old is None else V.join(old, part)


def _note_keyed(ctx: Bindings, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
    """`state = self.state[p]`, `d = self.cache`: the local stands for that attribute's element, or the
    attribute (`Scope.keyed`); `states = traj.states` of `traj: Traj`, for what `Traj` keeps there (`Scope.typed`,
    "Traj|states"); `states = cast(States, s)`, for a `States` (`Scope.typed`); any other binding of the name ends
    that (`_assign_value`)."""
    if type(target) is not cst.Name:
        return
    scope = ctx._scopes[-1]
    if type(value) is cst.Subscript and (attr := ctx._self_attr(value.value)) is not None:
        scope.keyed[target.value] = element_of(attr)
    elif (attr := ctx._self_attr(value)) is not None:
        scope.keyed[target.value] = attr
    elif (typed := typed_chain(ctx.typed_class, value)) is not None:
        scope.typed[target.value] = typed
    elif type(value) is cst.Call and ctx.qualify(value.func) in CASTS and value.args and not value.args[0].keyword:
        declare_local(ctx, target.value, value.args[0].value)


def _note_test(scope, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
    """`is_packed = isinstance(input, PackedSequence)`: the local holds that test, with what the name it
    tests holds now (`Scope.tests`); any other binding of the local ends that."""
    if type(target) is not cst.Name:
        return
    scope.tests.pop(target.value, None)
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "isinstance" \
            and value.args and type(value.args[0].value) is cst.Name:
        scope.tests[target.value] = (value, scope.values.get(value.args[0].value.value))


def _string_key(target: cst.BaseExpression) -> tuple[str, str] | None:
    """`state["step"]` as the target of a store: ("state", "step"); None for any other target."""
    if not (type(target) is cst.Subscript and type(target.value) is cst.Name):
        return None
    key = string_index(target)
    return (target.value.value, key) if key is not None else None


def _unstarred(target: cst.BaseExpression, value: cst.BaseExpression,
               evaluate: Callable[[cst.BaseExpression], Val]) -> Val | None:
    """`b, n, d, device = *x.shape, x.device`: the values of a tuple with one starred element,
    lined up with a target of fixed length (the names before and after the star take the
    elements around it, the names between take elements of what is starred). None where the
    lengths do not say which is which."""
    if not (type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List)):
        return None
    stars = [i for i, el in enumerate(value.elements) if type(el) is cst.StarredElement]
    if len(stars) != 1 or any(type(el) is cst.StarredElement for el in target.elements):
        return None
    lead, trail = value.elements[:stars[0]], value.elements[stars[0] + 1:]
    between = len(target.elements) - len(lead) - len(trail)
    if between < 0:
        return None
    spread = V.elem(evaluate(value.elements[stars[0]].value))
    return V.seq([*(evaluate(el.value) for el in lead), *[spread] * between,
                  *(evaluate(el.value) for el in trail)])


def _strings(node: cst.BaseExpression) -> bool:
    """A tuple, list or set literal of strings only."""
    return type(node) in (cst.Tuple, cst.List, cst.Set) and bool(node.elements) and all(
        isinstance(el.value, _STRING) for el in node.elements)


def _note_peers(scope, left: cst.BaseExpression, right: cst.BaseExpression) -> None:
    """`adjoint_method != method`, two of the function's own parameters compared for equality (a
    name holding either of two, after `if adjoint_method is None: adjoint_method = method`, stands
    for both): whichever of them holds a Python scalar, the other is compared with one (reach
    decides)."""
    ours = [_own_params(scope, side) for side in (left, right)]
    for one, others in ((ours[0], ours[1]), (ours[1], ours[0])):
        for name in one:
            rest = sorted(others - {name})
            if rest:
                peers = scope.info.scalar_peers.setdefault(name, [])
                peers.extend(o for o in rest if o not in peers)


def _own_params(scope, node: cst.BaseExpression) -> set[str]:
    """The parameters of the scope's function that a bare name holds (one, or either of several)."""
    if type(node) is not cst.Name:
        return set()
    value = scope.values.get(node.value)
    parts = value.parts if value is not None and value.kind == "join" else (value,)
    if any(p is None or p.kind != "param" or p.ref != scope.info.qualname for p in parts):
        return set()
    return {p.name for p in parts}


def _hold_element(ctx: Bindings, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
    """`for block in self.blocks`: the loop variable holds a module of the list, as `self.blocks[i]`
    does (calling it runs theirs); any other iterable ends what the name held. `for group in
    self.param_groups`: a store under a key of the variable is the class's (`Scope.keyed`). `for fn
    in (focal, dice)`: calling it runs each (`_hold_functions`). A name of a tuple target steps
    through its own iterable (`for name, block in self.blocks.items()`, `for i, (block, rate) in
    enumerate(zip(self.blocks, self.rates))`)."""
    cls = ctx.class_info()
    for name, source in stepped(target, it, ctx.aliases):
        attr = ctx._self_attr(source)
        held = _stepped_attribute(ctx, source) if attr is None else attr
        ctx._hold(name.value, held if held is not None and cls is not None and cls.holds_object(held) else None)
        if attr is not None:
            ctx._scopes[-1].keyed[name.value] = element_of(attr)
        _hold_functions(ctx, name, source)


def _stepped_attribute(ctx: Bindings, it: cst.BaseExpression) -> str | None:
    """The attribute of `self` whose elements a loop over `it` steps through in some order or part:
    `reversed(self.blocks)`, `list(self.blocks)`, `self.blocks[1:]`, `self.blocks.values()`."""
    if type(it) is cst.Call and len(it.args) == 1 and not it.args[0].keyword and not it.args[0].star \
            and type(it.func) is cst.Name and it.func.value in ("reversed", "list", "tuple", "iter") \
            and it.func.value not in ctx.aliases:
        it = it.args[0].value
    elif type(it) is cst.Subscript and len(it.slice) == 1 and type(it.slice[0].slice) is cst.Slice:
        it = it.value
    elif type(it) is cst.Call and not it.args and type(it.func) is cst.Attribute and it.func.attr.value == "values":
        it = it.func.value
    return ctx._self_attr(it)


def _hold_functions(ctx: Bindings, target: cst.Name, it: cst.BaseExpression) -> None:
    """`for fn in (focal, dice):`, `for step in [self._a, self._b]:` (or over a local bound to such a
    list or tuple): calling the loop variable runs each; any other iterable ends what it held."""
    scope = ctx._scopes[-1]
    held = ctx.held_in_literal(it) if type(it) in (cst.List, cst.Tuple) else \
        scope.functions.get(it.value, []) if type(it) is cst.Name and ctx.value(it).kind == "seq" else []
    if held:
        scope.functions[target.value] = list(held)
    else:
        scope.functions.pop(target.value, None)


def _passed_before_if(ctx: Bindings, target: cst.BaseExpression) -> bool:
    """Whether `target`, bound in a branch of an `if`, is a parameter that held what the callers pass
    before that `if` (the test may have narrowed it: `if semiring is None:`)."""
    frame = ctx._if_frames[-1] if ctx._if_frames else None
    if type(target) is not cst.Name or not frame or ctx.function is None:
        return False
    before = frame[0].get(target.value)
    return before is not None and before.kind == "param" and before.ref == ctx.function.qualname


def _handed_tables(scope, call: cst.Call) -> list[str]:
    """The functions, or module-level tables of them, that the locals a call is handed hold as a literal
    table (`methods = {"rk4": rk4_ivp, ...}`), other than what a call returned."""
    return list(dict.fromkeys(held for arg in call.args if type(arg.value) is cst.Name
                              for held in scope.functions.get(arg.value.value, ()) if not held.endswith("()")))


def _joined(made: dict[str, list[str]], name: str, now: list[str], under_if: list) -> list[str]:
    """What a local holds once built again: `now`; under an `if`, also what it held before the branch."""
    return list(dict.fromkeys([*made.get(name, ()), *now])) if under_if else now
