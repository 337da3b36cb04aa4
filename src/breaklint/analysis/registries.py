"""Registries: module-level tables that a function fills with what its callers hand it.

    METHODS = {}

    def register_method(name, constructor):
        METHODS[name] = constructor

    register_method("dopri5", Dopri5)       # often in another file, the package's `__init__`

or a decorator factory (`def register(name): def add(cls): LOSSES[name] = cls; return cls; return
add`, then `@register("focal")` on a class). A later `METHODS[name](...)` runs each class or function
registered. Each file gives what it defines (its dict tables and the functions that fill them) and
the registrations it makes at module level; `Tree` joins them across the tree. Syntax only: the
callers qualify names.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from .summary import DECORATED, STORED
from .syntax import call_arguments, dotted
from .walk import find


def dict_tables(module: cst.Module) -> set[str]:
    """Module-level names bound to a dict display or `dict()`."""
    out: set[str] = set()
    for stmt in _module_statements(module):
        if type(stmt) in (cst.Assign, cst.AnnAssign) and _is_dict(stmt.value):
            targets = [t.target for t in stmt.targets] if type(stmt) is cst.Assign else [stmt.target]
            out.update(t.value for t in targets if type(t) is cst.Name)
    return out


def registrars(module: cst.Module, tables: set[str]) -> dict[str, list[str]]:
    """Module-level functions that store what they are handed into one of `tables`: name ->
    [table, "#i" and the parameter's name] for a parameter stored (`TABLE[key] = param`), or
    [table, DECORATED, ""] for a factory whose inner function stores its own parameter."""
    out: dict[str, list[str]] = {}
    for stmt in module.body if tables else ():
        if type(stmt) is not cst.FunctionDef:
            continue
        own = _positional(stmt)
        inner = [p for node in _nested_functions(stmt) for p in _positional(node)]
        for table, stored in _stores(stmt, tables):
            if stored in own:
                out[stmt.name.value] = [table, f"#{own.index(stored)}", stored]
                break
            if stored in inner:
                out[stmt.name.value] = [table, DECORATED, ""]
                break
    return out


def registrations(module: cst.Module, qualify: Callable[[cst.BaseExpression], str | None],
                  tables: set[str]) -> tuple[dict[str, list[dict[str, str]]], dict[str, list[str]]]:
    """What the file registers at module level: (callee as the file names it -> for each call, a
    statement or an assignment's value, what it passes by "#i" or keyword, and as DECORATED the class or
    function it decorates; an imported table -> as STORED, what a statement `TABLE[key] = name` stores in
    it), and (a table of this file -> what such a statement stores in it)."""
    calls: dict[str, list[dict[str, str]]] = {}
    direct: dict[str, list[str]] = {}
    for stmt in _module_statements(module):
        if type(stmt) in (cst.Expr, cst.Assign) and type(stmt.value) is cst.Call:
            callee = qualify(stmt.value.func)
            passed = _passed(stmt.value, qualify)
            if callee and passed:
                calls.setdefault(callee, []).append(passed)
        if type(stmt) is cst.Assign:
            for table, stored in _subscript_stores(stmt, None):
                held = qualify(cst.Name(stored))
                imported = qualify(cst.Name(table))
                if held and table in tables:
                    direct.setdefault(table, []).append(held)
                elif held and imported and imported != table:
                    calls.setdefault(imported, []).append({STORED: held})
        elif type(stmt) in (cst.ClassDef, cst.FunctionDef):
            made = qualify(stmt.name)
            for decorator in stmt.decorators:
                deco = decorator.decorator
                if type(deco) is cst.Call and (callee := qualify(deco.func)):
                    calls.setdefault(callee, []).append({DECORATED: made or stmt.name.value})
                elif (callee := qualify(deco)) is not None:
                    calls.setdefault(callee, []).append({"#0": made or stmt.name.value})
    return calls, direct


def _module_statements(module: cst.Module) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    for stmt in module.body:
        out.extend(stmt.body if type(stmt) is cst.SimpleStatementLine else [stmt])
    return out


def _is_dict(value: cst.BaseExpression | None) -> bool:
    return type(value) is cst.Dict or (type(value) is cst.Call and dotted(value.func) == "dict"
                                           and not value.args)


def _positional(fn: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]


def _nested_functions(fn: cst.FunctionDef) -> list[cst.FunctionDef]:
    return [stmt for stmt in fn.body.body if type(stmt) is cst.FunctionDef]


def _stores(fn: cst.FunctionDef, tables: set[str]) -> list[tuple[str, str]]:
    """(table, name) for each `TABLE[key] = name` in the function or a function nested in it."""
    return [stored for node in find(fn.body, cst.Assign) for stored in _subscript_stores(node, tables)]


def _subscript_stores(node: cst.Assign, tables: set[str] | None) -> list[tuple[str, str]]:
    """(table, name) for `TABLE[key] = name`, on one of `tables` (None: on any name)."""
    if type(node.value) is not cst.Name:
        return []
    return [(t.target.value.value, node.value.value) for t in node.targets
            if type(t.target) is cst.Subscript and type(t.target.value) is cst.Name
            and (tables is None or t.target.value.value in tables)]


def _passed(call: cst.Call, qualify: Callable[[cst.BaseExpression], str | None]) -> dict[str, str]:
    """What a call hands over by name (`Dopri5`, `solvers.Euler`), by "#i" or keyword."""
    def named(node: cst.BaseExpression) -> str | None:
        return qualify(node) if type(node) in (cst.Name, cst.Attribute) else None
    arguments = call_arguments(call, named)
    if arguments is None:
        return {}
    positional, keywords = arguments
    return {key: held for key, held in [*((f"#{i}", h) for i, h in enumerate(positional)), *keywords] if held}
