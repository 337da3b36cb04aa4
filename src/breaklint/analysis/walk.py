"""The one batched walk of a file's tree: every visitor's hooks, called as libcst's traversal calls them.

On a large tree, libcst's `visit_batched` took longer than the rules themselves:
- it finds each visitor's `visit_*` / `leave_*` methods with `inspect.getmembers` for every file;
- its read-only traversal rebuilds and validates a copy of every node on the way back up;
- `MetadataWrapper` walks the whole tree once more, with no visitors, after computing positions.
Here a visitor class's hooks are found once, each node type's once per walk, and the walk reads the
tree in place, announcing the same attributes in the same order (learned from libcst, never listed
by hand); a node type whose subtree no visitor hooks (a name, a number, whitespace and punctuation
unless comments are hooked) is not entered. Positions come from `positions.Positions`. Tests compare
every hook call with libcst's own traversal.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import cache

import libcst as cst
from libcst import MaybeSentinel

Hook = Callable[[cst.CSTNode], None]


@cache
def hook_names(cls: type[cst.BatchableCSTVisitor]) -> tuple[str, ...]:
    """The `visit_*` / `leave_*` methods `cls` defines, without libcst's empty stubs."""
    names = []
    for name in dir(cls):
        if name.startswith(("visit_", "leave_")):
            method = getattr(cls, name)
            if callable(method) and not getattr(method, "_is_no_op", False):
                names.append(name)
    return tuple(names)


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False  # only the parent's own attributes are recorded

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)


@cache
def optional_fields(cls: type[cst.CSTNode]) -> tuple[str, ...]:
    """The attributes of a node type that may be None. What libcst visits in a node depends on its type
    and on which of these are None: an f-string's `format_spec` is skipped unannounced when None, other
    optional attributes are announced, empty. So a walk plan is learned per type and that shape."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.default is None)


_OPTIONAL: dict[type, tuple[str, ...]] = {}  # optional_fields, looked up without a call in the walk
_SEQUENCES = (tuple, list)


def child_fields(node: cst.CSTNode) -> tuple[str, ...]:
    """The attributes of `node` that libcst's own traversal visits, in its order.

    Learned from libcst: its `_visit_and_replace_children` announces each attribute it visits
    (`on_visit_attribute`), so a recorder that never descends collects them, once per shape."""
    recorder = _Recorder()
    node._visit_and_replace_children(recorder)
    return tuple(recorder.fields)


# libcst's whitespace, comments and punctuation (commas, dots, operators): nodes that hold nothing but
# each other. Two thirds of a tree's nodes; a walk whose visitors hook none of them never enters them.
_TRIVIA_MODULES = ("libcst._nodes.whitespace", "libcst._nodes.op")


@cache
def _subclasses(cls: type) -> frozenset[type]:
    """`cls` and every class derived from it."""
    found, todo = {cls}, [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return frozenset(found)


@cache
def trivia_types() -> frozenset[type]:
    return frozenset(t for t in _subclasses(cst.CSTNode) if t.__module__ in _TRIVIA_MODULES)


@cache
def _concrete(cls: type) -> frozenset[type]:
    """`cls` and its subclasses that can be nodes of a tree (not abstract)."""
    return frozenset(c for c in _subclasses(cls) if dataclasses.is_dataclass(c) and not inspect.isabstract(c))


@cache
def _type_hints(cls: type[cst.CSTNode]) -> dict[str, object] | None:
    """`cls`'s resolved annotations, once per class (resolving them is most of `declared_children`), or
    None when libcst's module cannot resolve one: then anything may be in any attribute."""
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - an annotation libcst's module cannot resolve
        return None


@cache
def declared_children(cls: type[cst.CSTNode], attr: str) -> frozenset[type] | None:
    """The node types libcst declares attribute `attr` of `cls` may hold (`Call.whitespace_after_func`:
    the whitespace types; `Name.lpar`: `LeftParen`), or None when its annotation cannot be read."""
    hints = _type_hints(cls)
    hint = hints.get(attr) if hints is not None else None
    if hint is None:
        return None
    found: set[type] = set()
    todo = [hint]
    while todo:
        current = todo.pop()
        if typing.get_origin(current) is not None:  # Union, Optional, Sequence, Literal
            todo.extend(a for a in typing.get_args(current) if not isinstance(a, str))
        elif isinstance(current, type) and issubclass(current, cst.CSTNode):
            found |= _concrete(current)
        elif not isinstance(current, type):
            return None  # a forward reference or a form not known here
    return frozenset(found)


@cache
def unhooked_types(hooked: frozenset[str]) -> frozenset[type]:
    """The node types a walk calling the hooks named `hooked` need not enter: no hook names them, and
    none of the types libcst declares their attributes to hold needs entering (a `Name`, its
    parentheses, a number, a string; whitespace and commas unless comments are hooked)."""
    named = {name.split("_")[1] for name in hooked}
    nodes = _concrete(cst.CSTNode)
    children = {cls: [declared_children(cls, f.name) for f in dataclasses.fields(cls)] for cls in nodes}
    entered = {cls for cls in nodes if cls.__name__ in named or any(c is None for c in children[cls])}
    changed = True
    while changed:
        changed = False
        for cls in nodes - entered:
            if any(not held.isdisjoint(entered) for held in children[cls]):
                entered.add(cls)
                changed = True
    return frozenset(nodes - entered)


_FIELDS: dict[object, tuple[str, ...]] = {}  # child_fields per node shape, learned once per process
# per set of hooked names, per node shape: the hook names and attributes a walk plans with (`_plan`)
_LAYOUTS: dict[frozenset[str], dict[object, tuple]] = {}


def _shape(node: cst.CSTNode) -> object:
    """What decides which attributes libcst visits in `node`: its type, and which optional attributes
    are None."""
    cls = node.__class__
    optional = _OPTIONAL.get(cls)
    if optional is None:
        optional = _OPTIONAL[cls] = optional_fields(cls)
    return (cls, *[getattr(node, name) is None for name in optional]) if optional else cls


def _fields(node: cst.CSTNode, shape: object) -> tuple[str, ...]:
    fields = _FIELDS.get(shape)
    if fields is None:
        fields = _FIELDS[shape] = child_fields(node)
    return fields


@cache
def _not_holding(types: type | tuple[type, ...]) -> frozenset[type]:
    """The node types whose subtree can hold no node of `types`: what a walk hooking only them skips."""
    wanted = (types,) if isinstance(types, type) else types
    return unhooked_types(frozenset(f"visit_{cls.__name__}" for t in wanted for cls in _concrete(t)))


def find(node: cst.CSTNode, types: type | tuple[type, ...]) -> Iterator[cst.CSTNode]:
    """Every node of `types` in `node`'s subtree (`node` included), in the order libcst's traversal
    meets them, as `libcst.matchers.findall(node, m.TypeName())` gives them.

    `findall` runs a full visit, which rebuilds and validates a copy of every node of the subtree
    (a tenth of a model library's walk went to the fixes' searches for comments), and importing
    `libcst.matchers` takes 0.18 s, a tenth of a pre-commit call. This reads the tree in place and,
    as the walk does, enters no node type whose subtree cannot hold one of `types`."""
    skip = _not_holding(types)
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, types):
            yield current
        children = []
        for attr in _fields(current, _shape(current)):
            child = getattr(current, attr)
            if child.__class__ in _SEQUENCES:
                children.extend(item for item in child if item.__class__ not in skip)
            elif child is not None and child is not MaybeSentinel.DEFAULT and child.__class__ not in skip:
                children.append(child)
        todo.extend(reversed(children))


@cache
def _hook_owners(kinds: tuple[type, ...], without: frozenset[str]) -> tuple[dict[str, tuple[int, ...]], frozenset[str]]:
    """For visitors of these classes, in this order: each hook name's visitors (by position), and the
    names hooked; once per set of classes, not per file."""
    owners: dict[str, list[int]] = {}
    for i, kind in enumerate(kinds):
        for name in hook_names(kind):
            if name not in without:
                owners.setdefault(name, []).append(i)
    return {name: tuple(found) for name, found in owners.items()}, frozenset(owners)


class BatchedWalk:
    """Calls every visitor's hooks for each node, in the order and with the attribute hooks that
    libcst's traversal would (a test compares the two on real code), but without rebuilding each node
    on the way back up: libcst's read-only visit still constructs and validates a copy of every node,
    about half of its cost."""

    def __init__(self, visitors: Sequence[cst.BatchableCSTVisitor], without: Collection[str] = ()) -> None:
        """`without`: hook names not to call in this walk (`visit_Comment` in a file that has no
        suppression comment); with no hook left on trivia, the walk skips whitespace and punctuation."""
        self._visitors = tuple(visitors)
        self._owners, hooked = _hook_owners(tuple(type(v) for v in visitors), frozenset(without))
        self._hooked = hooked
        # hook name -> the visitors' bound methods, made for the names the nodes met ask for
        self._table: dict[str, tuple[Hook, ...]] = {}
        self._plans: dict[object, tuple] = {}
        self._skip = unhooked_types(hooked)
        # what the walk does with a child of each type it met: nothing (a type it skips), call these
        # hooks (a type whose nodes it enters no attribute of), or, for a type not here, walk it
        self._routes: dict[type, tuple[Hook, ...]] = dict.fromkeys(self._skip, ())
        self._layouts = _LAYOUTS.setdefault(hooked, {})

    def _hooks(self, name: str) -> tuple[Hook, ...]:
        """The bound methods called for hook `name`, in the visitors' order."""
        hooks = self._table.get(name)
        if hooks is None:
            visitors = self._visitors
            hooks = self._table[name] = tuple(getattr(visitors[i], name) for i in self._owners.get(name, ()))
        return hooks

    def _plan(self, node: cst.CSTNode, key: object) -> tuple:
        """The hooks to call and the attributes to enter for nodes of this shape, in this walk."""
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = self._layout(node, key)
        hooks = self._hooks
        visit, fields, leave = layout
        plan = self._plans[key] = (hooks(visit),
                                   tuple((attr, hooks(enter), hooks(exit_)) for attr, enter, exit_ in fields),
                                   hooks(leave))
        if key is type(node) and not plan[1]:  # a leaf of this walk (a name): its hooks, called in place
            self._routes[key] = plan[0] + plan[2]
        return plan

    def _layout(self, node: cst.CSTNode, key: object) -> tuple:
        """`_plan` by hook name: the same for every walk that hooks the same names."""
        name = type(node).__name__
        hooked = self._hooked
        fields = []
        for attr in _fields(node, key):
            enter, leave = f"visit_{name}_{attr}", f"leave_{name}_{attr}"
            held = declared_children(type(node), attr)
            if enter in hooked or leave in hooked or held is None or not held <= self._skip:
                fields.append((attr, enter, leave))
        return f"visit_{name}", tuple(fields), f"leave_{name}"

    def walk(self, node: cst.CSTNode) -> None:
        # `_shape`, inline: this runs for every node of every file
        cls = node.__class__
        optional = _OPTIONAL.get(cls)
        if optional is None:
            optional = _OPTIONAL[cls] = optional_fields(cls)
        key = (cls, *[getattr(node, name) is None for name in optional]) if optional else cls
        plan = self._plans.get(key) or self._plan(node, key)
        for hook in plan[0]:
            hook(node)
        routes = self._routes
        for attr, enter, leave in plan[1]:
            for hook in enter:
                hook(node)
            child = getattr(node, attr)
            if child.__class__ in _SEQUENCES:
                for item in child:
                    route = routes.get(item.__class__)
                    if route is None:
                        self.walk(item)
                    else:
                        for hook in route:
                            hook(item)
            elif child is not None and child is not MaybeSentinel.DEFAULT:
                route = routes.get(child.__class__)
                if route is None:
                    self.walk(child)
                else:
                    for hook in route:
                        hook(child)
            for hook in leave:
                hook(node)
        for hook in plan[2]:
            hook(node)

    def walk_in_parts(self, outline: cst.Module, parts: Iterable[cst.Module]) -> None:
        """Walk one module given in pieces, as `walk` would walk it whole: the module's own hooks get
        `outline` (its module-level statements, with the bodies of defs and classes left out), and the
        statements are walked from `parts` (the module's statements, several at a time, each parsed on
        its own), in order. Only the part being walked need be alive."""
        plan = self._plans.get(cst.Module) or self._plan(outline, cst.Module)
        for hook in plan[0]:
            hook(outline)
        skip = self._skip
        for part in parts:
            for attr, enter, leave in plan[1]:
                for hook in enter:
                    hook(part)
                for item in getattr(part, attr):
                    if item.__class__ not in skip:
                        self.walk(item)
                for hook in leave:
                    hook(part)
            del part
        for hook in plan[2]:
            hook(outline)
