"""The package's architecture as tests: the import-linter contracts of pyproject.toml, no import circle,
and rooms small enough to read (no class over 300 lines, no module over 500, generated catalogues aside)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "src" / "breaklint"
GENERATED = {"_catalog.py"}


def test_the_import_contracts_hold() -> None:
    lint_imports = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    proc = subprocess.run([lint_imports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout and "BROKEN" not in proc.stdout


def test_no_import_circle() -> None:
    import grimp

    graph = grimp.build_graph("breaklint")
    circles = [(a, b) for a in sorted(graph.modules) for b in graph.find_modules_directly_imported_by(a)
               if graph.chain_exists(importer=b, imported=a)]
    assert circles == []


def test_rooms_are_small() -> None:
    big_modules, big_classes = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in GENERATED:
            continue
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 500:
            big_modules.append((path.relative_to(PACKAGE).as_posix(), text.count("\n")))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 300:
                big_classes.append((path.relative_to(PACKAGE).as_posix(), node.name))
    assert big_modules == [] and big_classes == []


def test_every_module_says_what_it_knows() -> None:
    """One docstring at the top of each module: what it knows and who asks it."""
    missing = [path.relative_to(PACKAGE).as_posix() for path in sorted(PACKAGE.rglob("*.py"))
               if path.name != "__main__.py" and ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) is None]
    assert missing == []


def test_the_rule_base_class_needs_neither_the_context_nor_the_registry() -> None:
    """`rules.base` is imported before any context exists: it asks the context only through `self.ctx`."""
    code = ("import sys, breaklint.rules.base\n"
            "print(sorted(m for m in sys.modules if m in ('breaklint.registry', 'breaklint.analysis.context')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def _leaf_node_classes() -> set[str]:
    import inspect

    import libcst as cst

    return {name for name, cls in vars(cst).items() if inspect.isclass(cls) and issubclass(cls, cst.CSTNode)
            and not inspect.isabstract(cls) and not cls.__subclasses__()}


def _exact_type_tests(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, class name) of each `type(x) is cst.C`, `is not`, `in (cst.A, ...)` and `not in`."""
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call)
                and isinstance(node.left.func, ast.Name) and node.left.func.id == "type"):
            continue
        for op, right in zip(node.ops, node.comparators):
            kinds = right.elts if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Tuple) else [right]
            for kind in kinds:
                if isinstance(kind, ast.Attribute) and isinstance(kind.value, ast.Name) and kind.value.id == "cst":
                    out.append((node.lineno, kind.attr))
    return out


def test_exact_type_tests_name_leaf_node_classes() -> None:
    """`type(node) is cst.C` equals `isinstance(node, cst.C)` only where no class derives from C: an
    abstract kind (`cst.BaseExpression`) there would never match."""
    leaves = _leaf_node_classes()
    assert {"Name", "Call", "Attribute"} <= leaves and "BaseExpression" not in leaves
    seen, wrong = 0, []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, name in _exact_type_tests(ast.parse(path.read_text(encoding="utf-8"))):
            seen += 1
            if name not in leaves:
                wrong.append(f"{path.relative_to(PACKAGE).as_posix()}:{line}: cst.{name}")
    assert seen > 100 and wrong == []


def test_the_exact_type_check_finds_an_abstract_kind() -> None:
    tree = ast.parse("ok = type(n) is cst.Name\nbad = type(n) in (cst.Name, cst.BaseSuite)\n"
                     "worse = type(n) is not cst.BaseExpression\n")
    leaves = _leaf_node_classes()
    assert [(line, name) for line, name in _exact_type_tests(tree) if name not in leaves] == [
        (2, "BaseSuite"), (3, "BaseExpression")]
