"""What a piece of syntax is, without any context: dotted names, the statements of a block, whether a
suite leaves its block, `super()` calls, what a call passes. Asked by every analysis layer, the rules
and the fixes."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Callable, Iterator, TypeVar

import libcst as cst

from .vocabulary import BEARTYPE, JAXTYPED
from .walk import find


def decorator_callee(decorator: cst.Decorator) -> cst.BaseExpression:
    """What a decorator names: `torch.compiler.disable` of `@torch.compiler.disable` and of
    `@torch.compiler.disable(recursive=False)` alike."""
    found = decorator.decorator
    return found.func if type(found) is cst.Call else found


def method_name(node: cst.FunctionDef) -> str:
    """The name a method is known by in its class: a property's setter or deleter (`@scale.setter`,
    `@Base.scale.setter`) is "scale.setter" ("scale.deleter"), its getter keeping "scale"."""
    for decorator in node.decorators:
        callee = decorator.decorator
        if type(callee) is cst.Attribute and callee.attr.value in ("setter", "deleter") \
                and (dotted(callee.value) or "").rpartition(".")[2] == node.name.value:
            return f"{node.name.value}.{callee.attr.value}"
    return node.name.value


def type_checking(decorator: cst.Decorator, qualify: Callable[[cst.BaseExpression], str | None]) -> bool:
    """`@beartype`, `@beartype.beartype` or `@jaxtyped(typechecker=beartype)`: a decorator by which beartype
    checks each call's arguments and result against their annotations."""
    found, name = decorator.decorator, qualify(decorator_callee(decorator))
    if name in BEARTYPE:  # (not with `conf=BeartypeConf(strategy=BeartypeStrategy.O0)`, which checks nothing)
        return not any(a.attr.value == "O0" for a in find(found, cst.Attribute))
    return name == JAXTYPED and type(found) is cst.Call and any(
        a.keyword is not None and a.keyword.value == "typechecker" and qualify(a.value) in BEARTYPE for a in found.args)


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None for anything that is not a plain name chain."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def self_attribute(node: cst.BaseExpression) -> str | None:
    """The name of `self.<name>`; None for any other expression."""
    if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self":
        return node.attr.value
    return None


def self_path(node: cst.BaseExpression) -> list[str]:
    """`self.model.head` -> ["model", "head"]: the attributes read down from `self`, by plain names; [] for
    anything else."""
    names: list[str] = []
    while type(node) is cst.Attribute:
        names.append(node.attr.value)
        node = node.value
    return names[::-1] if type(node) is cst.Name and node.value == "self" else []


def string_index(node: cst.Subscript) -> str | None:
    """`x["key"]`: "key"; None for any other subscript (several elements, a slice, an index that is no
    string literal, a bytes literal)."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index \
            or type(index := node.slice[0].slice.value) is not cst.SimpleString:
        return None
    key = index.evaluated_value
    return key if isinstance(key, str) else None


def name_pattern(node: cst.BaseExpression) -> str | None:
    """The names a string built at run time can take, as a pattern with `*` for what is filled in:
    `f"indices_{s}"`, `"indices_{}".format(s)` and `"indices_" + str(s)` -> "indices_*",
    `f"{s}_running_var"` -> "*_running_var"; None for a literal, or a string with no text of its own."""
    parts: list[str] = []
    if type(node) is cst.FormattedString:
        for part in node.parts:
            parts.append(part.value if type(part) is cst.FormattedStringText else "*")
    elif type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "format" \
            and type(node.func.value) is cst.SimpleString and isinstance(text := node.func.value.evaluated_value, str):
        parts.append(re.sub(r"\{[^{}]*\}", "*", text))
    elif type(node) is cst.BinaryOperation and type(node.operator) is cst.Add:
        for side in (node.left, node.right):
            text = side.evaluated_value if type(side) is cst.SimpleString else None
            parts.append(text if isinstance(text, str) else "*")
    else:
        return None
    pattern = re.sub(r"\*+", "*", "".join(parts))
    return pattern if "*" in pattern and pattern.replace("*", "").replace("_", "").isalnum() else None


def leaves_block(body: cst.BaseSuite) -> bool:
    """A suite whose last statement returns or raises (or leaves the loop): what follows it in the
    enclosing block runs only when the suite did not."""
    statements = body.body
    if not statements:
        return False
    last = statements[-1]
    if type(last) is cst.SimpleStatementLine:
        return bool(last.body) and type(last.body[-1]) in (cst.Return, cst.Raise, cst.Continue, cst.Break)
    return False


def is_super_call(node: cst.BaseExpression) -> bool:
    """`super()` (with or without arguments)."""
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "super"


def is_stub(node: cst.FunctionDef) -> bool:
    """A body that only says it is not there: `raise NotImplementedError` (called or not) or `...`,
    after a docstring if any. `pass` is not one: a hook that does nothing on purpose is written so."""
    body = node.body
    if type(body) is not cst.IndentedBlock:
        statements = [body.body]
    else:
        statements = [line.body for line in body.body if type(line) is cst.SimpleStatementLine]
        if len(statements) != len(body.body):
            return False
    small = [stmt for line in statements for stmt in line]
    if small and type(small[0]) is cst.Expr and type(small[0].value) in (cst.SimpleString, cst.ConcatenatedString):
        small = small[1:]
    if len(small) != 1:
        return False
    stmt = small[0]
    if type(stmt) is cst.Expr:
        return type(stmt.value) is cst.Ellipsis
    if type(stmt) is cst.Raise and stmt.exc is not None:
        exc = stmt.exc.func if type(stmt.exc) is cst.Call else stmt.exc
        return type(exc) is cst.Name and exc.value == "NotImplementedError"
    return False


def iter_statements(body: cst.BaseSuite | list) -> Iterator[cst.CSTNode]:
    """Small statements and compound statements of a block, into nested blocks but not defs."""
    stmts = body.body if isinstance(body, (cst.BaseSuite, cst.Module)) else body
    for stmt in stmts:
        if type(stmt) is cst.SimpleStatementLine:
            yield from stmt.body
        elif type(stmt) in (cst.FunctionDef, cst.ClassDef):
            yield stmt
        elif isinstance(stmt, cst.BaseCompoundStatement):
            yield stmt
            for attr in ("body", "orelse", "finalbody"):
                child = getattr(stmt, attr, None)
                if type(child) is cst.If:
                    yield from iter_statements([child])
                elif type(child) in (cst.Else, cst.Finally):
                    yield from iter_statements(child.body)
                elif isinstance(child, cst.BaseSuite):
                    yield from iter_statements(child)
            for handler in getattr(stmt, "handlers", ()):
                yield from iter_statements(handler.body)


def unseeded(func: cst.BaseExpression) -> cst.BaseExpression:
    """The callee that makes a generator seeded on the spot: `torch.Generator` of
    `torch.Generator(device).manual_seed(seed)`; any other callee as it is."""
    while type(func) is cst.Attribute and func.attr.value == "manual_seed" and type(func.value) is cst.Call:
        func = func.value.func
    return func


# methods of a module (and of a tensor) that return the object they are called on, moved or cast
RETURNS_SELF = frozenset({"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "eval", "train", "requires_grad_"})


def built_call(value: cst.Call) -> cst.Call:
    """The call that builds what `value` gives where the methods after it return the object moved or
    cast: `BboxLoss(reg_max)` of `BboxLoss(reg_max).to(device)`; any other call as it is."""
    while type(value.func) is cst.Attribute and value.func.attr.value in RETURNS_SELF \
            and type(value.func.value) is cst.Call:
        value = value.func.value
    return value


T = TypeVar("T")


def call_arguments(call: cst.Call,
                   value: Callable[[cst.BaseExpression], T]) -> tuple[list[T], list[tuple[str, T]]] | None:
    """What a call passes, as `value` reads each argument: (positional, [(keyword, value)]); None
    where a `*` or `**` hides which parameter takes what."""
    if any(arg.star for arg in call.args):
        return None
    return ([value(a.value) for a in call.args if a.keyword is None],
            [(a.keyword.value, value(a.value)) for a in call.args if a.keyword is not None])


def self_call(func: cst.BaseExpression, methods: set[str] | None) -> str | None:
    """The method `self(...)` runs in a method of a class defining `methods`: its `__call__` where the
    class defines one, else `forward` (a module's call runs it; reach finds it in a base class too);
    None for any other call, or outside a class."""
    if methods is None or type(func) is not cst.Name or func.value != "self":
        return None
    return "__call__" if "__call__" in methods else "forward"


def is_own_class(node: cst.BaseExpression) -> bool:
    """Whether `node` is the class of `self`: `type(self)` or `self.__class__` (whose methods,
    `type(self).count(x)`, are those `self.count(x)` runs)."""
    if type(node) is cst.Attribute:
        return node.attr.value == "__class__" and type(node.value) is cst.Name and node.value.value == "self"
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "type" \
        and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
        and type(node.args[0].value) is cst.Name and node.args[0].value.value == "self"


def literal_elements(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The elements of a list or tuple literal, the values of a dict literal; none of anything else."""
    if type(node) not in (cst.List, cst.Tuple, cst.Dict):
        return []
    return [el.value for el in node.elements if type(el) in (cst.Element, cst.DictElement)]


def named_entries(node: cst.BaseExpression, aliases: dict[str, str],
                  qualify: Callable[[cst.BaseExpression], str | None]) -> list[str]:
    """What a dict, list or tuple literal names: each element (a dict's values) that is a name or a
    dotted name the module binds (`Euler`, `nn.LSTM`, `losses.focal`), qualified."""
    return [q for el in literal_elements(node) if (dotted(el) or ".").split(".")[0] in aliases and (q := qualify(el))]


# the literals and comprehensions whose elements `built_by` reads
_LITERALS = (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.GeneratorExp, cst.DictComp)


def built_in(value: cst.Call, body: cst.BaseSuite | None = None) -> list[cst.Call]:
    """The constructor calls a module container is given: its arguments (`Sequential(Conv(), ReLU())`),
    the elements of a list, tuple or dict literal, or a comprehension's element; of a local list the
    function fills (`layers.append(Block())`, then `ModuleList(layers)` or `Sequential(*layers)`), the
    calls it is filled with (`body`: the function's statements). A starred list or comprehension
    (`Sequential(*[Block() for _ in range(n)])`) gives its elements."""
    out = [built for arg in value.args if not arg.star or (arg.star == "*" and type(arg.value) in _LITERALS)
           for built in built_by(arg.value)]
    locals_ = {arg.value.value for arg in value.args if type(arg.value) is cst.Name and arg.star != "**"}
    for stmt in iter_statements(body) if body is not None and locals_ else ():
        if type(stmt) in (cst.Assign, cst.AugAssign) and type(stmt.value) in _LITERALS and any(
                type(t) is cst.Name and t.value in locals_
                for t in ([x.target for x in stmt.targets] if type(stmt) is cst.Assign else [stmt.target])):
            out.extend(built_by(stmt.value))  # `layers = [Stem()]`, `layers += [Block() for _ in range(n)]`
        elif type(stmt) is cst.Expr and type(call := stmt.value) is cst.Call and type(call.func) is cst.Attribute \
                and type(call.func.value) is cst.Name and call.func.value.value in locals_ \
                and call.func.attr.value in ("append", "extend") and len(call.args) == 1:
            out.extend(added(call, body))
    return out


def added(call: cst.Call, body: cst.BaseSuite | None = None) -> list[cst.Call]:
    """The constructor calls `xs.append(Block())` or `xs.extend([A(), B()])` add to a list; of a local
    appended (`c = cell(n, n)` in each branch, then `xs.append(c)`), the calls every binding of it in
    `body` makes."""
    item = call.args[0].value
    if call.func.attr.value != "append":
        return built_by(item)
    if type(item) is cst.Name and body is not None:
        made = bindings_of(body, item.value)
        return made if made and all(type(m) is cst.Call for m in made) else []
    return [item] if type(item) is cst.Call else []


def bindings_of(body: cst.BaseSuite, local: str) -> list[cst.BaseExpression | None]:
    """What each binding of `local` in a block (and the blocks inside it) assigns it: None for one that
    binds it to no single expression (a loop target, part of a tuple, an import, `+=`)."""
    out: list[cst.BaseExpression | None] = []
    for stmt in iter_statements(body):
        for target, rhs in _bindings(stmt):
            if type(target) is cst.Name and target.value == local:
                out.append(rhs)
            elif type(target) in (cst.Tuple, cst.List) and _names(target, local):
                out.append(None)
    return out


def stepped(target: cst.BaseExpression, it: cst.BaseExpression,
            aliases: Collection[str]) -> list[tuple[cst.Name, cst.BaseExpression]]:
    """(name, iterable) for each name a `for` target binds to an element of one iterable: `for b in xs`;
    `for i, b in enumerate(xs)`; `for a, (b, r) in zip(xs, zip(ys, rs))`; `for k, b in xs.items()`.
    `aliases`: the file's own meanings of names (a rebound `zip` is not the builtin)."""
    if type(target) is cst.Name:
        return [(target, it)]
    if type(target) not in (cst.Tuple, cst.List) or any(type(e) is cst.StarredElement for e in target.elements):
        return []
    parts = [e.value for e in target.elements]
    if type(it) is not cst.Call or any(a.star or a.keyword for a in it.args):
        return []
    if type(it.func) is cst.Attribute and it.func.attr.value == "items" and not it.args and len(parts) == 2:
        return stepped(parts[1], it.func.value, aliases)
    if type(it.func) is not cst.Name or it.func.value in aliases:
        return []
    if it.func.value == "enumerate" and len(parts) == 2 and len(it.args) in (1, 2):
        return stepped(parts[1], it.args[0].value, aliases)
    if it.func.value == "zip" and len(parts) == len(it.args):
        return [pair for part, arg in zip(parts, it.args) for pair in stepped(part, arg.value, aliases)]
    return []


def built_by(held: cst.BaseExpression) -> list[cst.Call]:
    """The calls that build the elements `held` gives: itself, the elements of a list, tuple or
    dict literal, or a comprehension's element."""
    if type(held) in (cst.ListComp, cst.GeneratorExp):
        held = held.elt
    elif type(held) is cst.DictComp:
        held = held.value
    items = literal_elements(held) if type(held) in (cst.List, cst.Tuple, cst.Dict) else [held]
    return [item for item in items if type(item) is cst.Call]


def bound_once(body: cst.BaseSuite, local: str, walrus: bool = True) -> tuple[cst.BaseExpression, int | None] | None:
    """The expression a block binds a local to, where it binds it once, by an assignment: (value, None)
    for `x = value`, (value, i) for the i-th name of `a, x = value`; None where it binds it otherwise
    (a loop, a `with`, an import, twice, `(x := ...)`). `walrus`: whether the block may hold a `:=`
    (where the source shows none, no walk looks for one)."""
    found: list[tuple[cst.BaseExpression | None, int | None]] = []
    for stmt in iter_statements(body):
        for target, rhs in _bindings(stmt):
            if type(target) is cst.Name and target.value == local:
                found.append((rhs, None))
            elif type(target) in (cst.Tuple, cst.List) and _names(target, local):
                parts = target.elements
                at = [i for i, e in enumerate(parts) if type(e.value) is cst.Name and e.value.value == local]
                # a starred or nested target (`a, (b, x) = ...`) binds it to no one element
                plain = at and not any(type(e) is cst.StarredElement for e in parts)
                found.append((rhs if plain else None, at[0] if at else None))
    if len(found) != 1 or found[0][0] is None:
        return None
    if walrus and any(_names(n.target, local) for n in find(body, cst.NamedExpr)):
        return None
    return found[0][0], found[0][1]


def container_elements(value: cst.BaseExpression, body: cst.BaseSuite | None, containers: Collection[str],
                       qualify: Callable[[cst.BaseExpression], str | None]) -> list[cst.Call]:
    """The constructor calls of what a module container holds where a call of one of `containers`
    builds it (`nn.ModuleList([Block() for _ in range(n)])`, `nn.Sequential(A(), B())`, of a list the
    function fills), here or in the one binding of a local (`layers = nn.ModuleList(...)`) in `body`."""
    if type(value) is cst.Name and body is not None:
        bound = bound_once(body, value.value)
        value = bound[0] if bound is not None and bound[1] is None else None
    if type(value) is not cst.Call or qualify(value.func) not in containers:
        return []
    return built_in(value, body)


def torch_module_class(name: str) -> bool:
    """Whether `name` is a class of `torch.nn` (capitalised: `torch.nn.LSTM`, not `torch.nn.functional.relu`)."""
    return name.startswith("torch.nn.") and name.rsplit(".", 1)[-1][:1].isupper()


def torch_modules_built(value: cst.BaseExpression, qualify: Callable[[cst.BaseExpression], str | None]) -> list[str]:
    """The classes of `torch.nn` an argument builds in place (`Seq2Seq(nn.GRU(4, 4))`, either branch of a
    conditional expression): a constructor that keeps one in an attribute runs it where the attribute
    is called (BL413 asks `Tree.handed`)."""
    out = []
    for built in (value.body, value.orelse) if type(value) is cst.IfExp else (value,):
        made = qualify(built.func) if type(built) is cst.Call else None
        if made and torch_module_class(made):
            out.append(made)
    return out


def class_like(name: str) -> bool:
    """Whether a dotted name's last part is capitalised, after any leading underscores (`Block`,
    `_EmformerLayer`): a class, by the naming convention."""
    return name.rsplit(".", 1)[-1].lstrip("_")[:1].isupper()


def rebinds(body: cst.BaseSuite, local: str) -> bool:
    """Whether a block binds `local` anywhere in it (not in nested defs), in any way `_bindings` knows."""
    return any(_names(target, local) for stmt in iter_statements(body) for target, _ in _bindings(stmt))


def _bindings(stmt: cst.CSTNode) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
    """(target, value) of each binding a statement makes of its own (an assignment, a loop target, a
    `with ... as`, an `except ... as`, a `def`, an import); value None where the statement binds no
    single expression."""
    if type(stmt) is cst.Assign:
        return [(t.target, stmt.value) for t in stmt.targets]
    if type(stmt) is cst.AnnAssign:
        return [(stmt.target, stmt.value)]
    if type(stmt) is cst.AugAssign:
        return [(stmt.target, None)]
    if type(stmt) in (cst.FunctionDef, cst.ClassDef):
        return [(stmt.name, None)]
    if type(stmt) in (cst.Import, cst.ImportFrom) and type(stmt.names) is not cst.ImportStar:
        return [(a.asname.name if a.asname else cst.Name(dotted(a.name).split(".")[0]), None) for a in stmt.names]
    if type(stmt) is cst.For:
        return [(stmt.target, None)]
    if type(stmt) is cst.With:
        return [(item.asname.name, None) for item in stmt.items if item.asname is not None]
    if type(stmt) is cst.Try:
        return [(h.name.name, None) for h in stmt.handlers if h.name is not None]
    return []


def _names(node: cst.CSTNode, local: str) -> bool:
    """Whether `node` is, or holds, the name `local`."""
    return any(type(n) is cst.Name and n.value == local for n in find(node, cst.Name))


def shape_indices(node: cst.Subscript) -> list[cst.BaseExpression]:
    """The indices of `x.shape[d]` or `x.size()[d]` (dimensions); none for another subscript."""
    shape = node.value
    if (type(shape) is cst.Attribute and shape.attr.value == "shape") or (
            type(shape) is cst.Call and not shape.args and type(shape.func) is cst.Attribute
            and shape.func.attr.value == "size"):
        return [element.slice.value for element in node.slice if type(element.slice) is cst.Index]
    return []


def paired(targets: list[cst.BaseExpression],
           value: cst.BaseExpression | None) -> Iterator[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
    """Each target of an assignment with what it is bound to: a tuple of targets bound to a tuple of as
    many values (`self.choice, self.bin = choice, bin`) pairs them one by one."""
    for target in targets:
        if type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) \
                and len(target.elements) == len(value.elements) \
                and not any(type(e) is cst.StarredElement for e in (*target.elements, *value.elements)):
            yield from ((t.value, v.value) for t, v in zip(target.elements, value.elements))
        else:
            yield target, value
