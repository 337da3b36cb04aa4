"""Bad input never crashes a run: each bad file is one diagnostic, the other files are still linted,
and the exit status is the documented one. Generated programs never make the analysis raise."""

from __future__ import annotations

import faulthandler
import json
import os
import subprocess
import textwrap
import time
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from breaklint import analyze, autofix, engine
from breaklint.analysis import parse
from breaklint.fixes import apply as applier
from breaklint.config import Config
from breaklint.engine import analyze_source, lint, lint_source

from conftest import run_cli

# The generated programs are often odd on purpose (`1()`); the compiler's warnings about them are noise.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::hypothesis.errors.HypothesisWarning")

MODEL = "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x.item()\n"


def _json(proc: subprocess.CompletedProcess) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for d in json.loads(proc.stdout):
        out.setdefault(d["path"], []).append(d)
    return out


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A project of one good model and one bad file of every kind."""
    (tmp_path / "model.py").write_text(MODEL)
    bad = {
        "syntax.py": b"import torch\ndef f(:\n    pass\n",
        "py2.py": b"import torch\nprint 'hello'\n",
        "undecodable.py": b"import torch\nx = '\xff\xfe'\n",
        "nul.py": b"import torch\nx = 1\x00\n",
        "empty.py": b"",
        "libcst_limit.py": b"import torch\n\n\ndef f(x):\n    (y): int = 1\n    return x\n",
        "deep_chain.py": b"import torch\nx = " + b"+".join([b"a"] * 2000) + b"\n",
        "too_deep_for_python.py": b"import torch\nx = " + b"+".join([b"a"] * 100_000) + b"\n",
        "parens.py": b"import torch\nx = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n",
        # (in a function: module-level data this large is walked empty, see the bulky-data test)
        "long_strings.py": b"import torch\ndef f():\n    return (" + b"\n".join([b"'a'"] * 20_000) + b")\n",
        "big.py": b"import torch\n" + b"x = [" + b",\n".join(b"%d" % i for i in range(1_200_000)) + b"]\n",
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "pkg.py").mkdir()  # a directory that looks like a Python file
    (tmp_path / "pkg.py" / "inner.py").write_text(MODEL)
    os.symlink("loop_b.py", tmp_path / "loop_a.py")  # a symlink loop
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    return tmp_path


def test_every_bad_input_is_one_diagnostic_and_the_rest_is_linted(tree: Path) -> None:
    start = time.monotonic()
    proc = run_cli("--no-cache", "--format", "json", ".", cwd=tree)
    elapsed = time.monotonic() - start
    assert proc.returncode == 1, proc.stderr  # findings, and no internal error
    assert "Traceback" not in proc.stderr
    found = _json(proc)
    codes = {path: [d["code"] for d in items] for path, items in found.items()}
    assert codes["model.py"] == ["BL101"] and codes["pkg.py/inner.py"] == ["BL101"]
    for name in ("syntax.py", "py2.py", "undecodable.py", "nul.py", "too_deep_for_python.py", "parens.py",
                 "loop_a.py", "loop_b.py"):
        assert codes[name] == ["BL001"], name
    for name in ("libcst_limit.py", "deep_chain.py", "long_strings.py", "big.py"):
        assert codes[name] == ["BL004"], name
    assert "empty.py" not in found
    message = {path: items[0]["message"] for path, items in found.items()}
    assert "Missing parentheses in call to 'print'" in message["py2.py"]  # Python's own words
    assert "null bytes" in message["nul.py"]
    assert "symbolic links" in message["loop_a.py"]
    assert "too many nested parentheses" in message["parens.py"]
    assert "libcst's parser cannot read line 5" in message["libcst_limit.py"]
    assert found["libcst_limit.py"][0]["line"] == 5
    assert "nested more than" in message["deep_chain.py"]
    assert "max-file-size" in message["big.py"]
    assert elapsed < 60  # the 12 MB file is not parsed, the deep chain not handed to libcst


def test_internal_errors_are_exit_2_but_keep_the_other_files(tree: Path, monkeypatch) -> None:
    """Only a bug in breaklint (BL003) exits 2; BL001 and BL004 are findings (exit 1)."""
    proc = run_cli("--no-cache", "--select", "BL004", ".", cwd=tree)
    assert proc.returncode == 1 and "BL004" in proc.stdout and "BL101" not in proc.stdout


def test_a_deep_implicit_string_concatenation_is_analyzed() -> None:
    """libcst nests `'a' 'b' ...` to the right; walking 3,000 of them needs a deeper stack than the default."""
    source = "import torch\n\n\n@torch.compile\ndef f(x):\n    s = (" + "\n".join(["'a'"] * 3000) + ")\n    return x.item()\n"
    found = lint_source(source)
    assert [f.code for f in found] == ["BL101"]


def test_python_line_ends_and_form_feeds() -> None:
    """CRLF, lone CR and form feeds count lines as Python counts them."""
    body = "import torch\n\n\n@torch.compile\ndef f(x):\n\x0c    y = x + 1\n    return y.item()\n"
    for newline in ("\n", "\r\n", "\r"):
        found = lint_source(body.replace("\n", newline))
        assert [(f.code, f.line, f.col) for f in found] == [("BL101", 7, 12)], repr(newline)


def test_unreadable_and_vanishing_files(tmp_path: Path, monkeypatch) -> None:
    """A file that cannot be read, or is deleted after discovery, is BL001; the others are linted."""
    for name in ("good.py", "secret.py", "gone.py"):
        (tmp_path / name).write_text(MODEL)
    real_read = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "secret.py":  # the tests run as root, which chmod 000 does not stop
            raise PermissionError(13, "Permission denied", str(self))
        return real_read(self)

    real_discover = engine.discover

    def discover(paths, config, notes=None):
        files = real_discover(paths, config, notes)
        (tmp_path / "gone.py").unlink()
        return files

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(engine, "discover", discover)
    result = lint([tmp_path], Config(root=tmp_path, respect_gitignore=False), jobs=1, use_cache=False)
    errors = {f.path.name: f.message for f in result.errors}
    assert errors == {"secret.py": "cannot read file: Permission denied",
                      "gone.py": "cannot read file: No such file or directory"}
    assert [(f.path.name, f.code) for f in result.findings] == [("good.py", "BL101")]


def test_missing_path_is_reported_and_the_others_still_linted(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL)
    proc = run_cli("--no-cache", "nope.py", "model.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "nope.py: no such file or directory" in proc.stderr
    assert "BL101" in proc.stdout


def test_a_directory_git_ignores_says_so(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("lib/\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "model.py").write_text(MODEL)
    proc = run_cli("--no-cache", "lib", cwd=tmp_path)
    assert proc.returncode == 0
    assert "lib: all 1 Python file here are ignored by git" in proc.stderr
    named = run_cli("--no-cache", "lib/model.py", cwd=tmp_path)  # a file named explicitly is linted
    assert named.returncode == 1 and "BL101" in named.stdout


def test_the_code_is_never_run(tmp_path: Path) -> None:
    """Linting, fixing and writing SARIF for a file that writes a marker when imported or run."""
    marker = tmp_path / "marker"
    payload = textwrap.dedent(f"""
        import pathlib
        pathlib.Path({str(marker)!r}).write_text("ran")
        import torch


        @torch.compile
        def f(x):
            print(x)
            return x.sum().item()


        if __name__ == "__main__":
            pathlib.Path({str(marker)!r}).write_text("ran as main")
    """)
    (tmp_path / "evil.py").write_text(payload)
    (tmp_path / "evil_pkg").mkdir()
    (tmp_path / "evil_pkg" / "__init__.py").write_text(payload)
    for args in (["--no-cache", "."], ["."], ["--fix", "--unsafe-fixes", "."], ["--format", "sarif", "-o", "out.sarif", "."]):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode in (0, 1), proc.stderr
        assert not marker.exists(), args
    assert json.loads((tmp_path / "out.sarif").read_text())["version"] == "2.1.0"


def test_fix_keeps_the_encoding_and_the_bom(tmp_path: Path) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\n\n\n@torch.compile\ndef f(x):\n"
                      b"    s = '\xe9'\n    print(x)\n    return x\n")
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfimport torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n")
    proc = run_cli("--no-cache", "--fix", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert b"s = '\xe9'" in latin.read_bytes() and b"is_compiling" in latin.read_bytes()
    assert bom.read_bytes().startswith(b"\xef\xbb\xbfimport torch") and b"is_compiling" in bom.read_bytes()


# ---------------------------------------------------------------------- generated programs
SETTINGS = settings(max_examples=int(os.environ.get("BREAKLINT_GENERATED", "150")), derandomize=True,
                    deadline=None, database=None, suppress_health_check=list(HealthCheck))


def as_forward(program: str) -> str:
    """The program as the body of an `nn.Module.forward`, so that reach, the rules and the value analysis see it."""
    return ("import torch\nfrom torch import nn\n\n\nclass Generated(nn.Module):\n    def forward(self, x, y=None):\n"
            + textwrap.indent(program, " " * 8, lambda line: True) + "\n        return x\n")


EVERY_RULE = Config(select=["ALL"])


def _every_rule_and_fix(source: str) -> None:
    """Every rule, then `--fix --unsafe-fixes` to its end: no rule raises on the source or on any fixed
    text, every fixed text parses, and once the fixes settle a further round changes nothing."""
    text = source
    for _ in range(8):  # as `fixes.run`: fixes that overlap an applied one wait for the next round
        found = lint_source(text, Path("generated.py"), EVERY_RULE)
        assert not [f.message for f in found if f.code == "BL003"]
        after, applied = applier.apply(text, [f.fix for f in found if f.fix is not None])
        if not applied:
            return
        compile(after, "fixed.py", "exec")
        text = after
    raise AssertionError(f"fixes still change the text after 8 rounds:\n{text}")


@SETTINGS
@given(hypothesmith.from_node())
def test_generated_programs(program: str) -> None:
    _every_rule_and_fix("import torch\n" + program)
    _every_rule_and_fix(as_forward(program))


@SETTINGS
@given(hypothesmith.from_grammar())
def test_programs_generated_from_the_grammar(program: str) -> None:
    _every_rule_and_fix("import torch\n" + program)
    _every_rule_and_fix(as_forward(program))


# Tensor-shaped statements, composed at random: they reach the rules and the value analysis,
# which hypothesmith's programs (almost never about tensors) rarely do.
ATOMS = st.sampled_from(["x", "y", "self.w", "torch.ones(3)", "x.sum()", "x[x > 0]", "x.item()", "len(x)",
                         "x.shape[0]", "1", "2.5", "'s'", "None", "[x, y]", "(x, 1)", "{'k': x}", "x.nonzero()",
                         "self.layer(x)", "torch.where(x > 0, x, y)", "x.tolist()", "range(3)", "(lambda v: v)"])


def _expr(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "*", "<", "==", "and", "or", "@", "**", "if x else"]), children)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(children, st.sampled_from([".item()", ".sum()", "[0]", "[1:]", ".shape", ".float()", "()"]))
        .map(lambda t: (f"({t[0]})" if t[0][:1].isdigit() else t[0]) + t[1]),  # `(1).item()`, not `1.item()`
        st.tuples(st.sampled_from(["int", "float", "bool", "print", "len", "abs", "torch.relu", "self.f", "max"]),
                  children).map(lambda t: f"{t[0]}({t[1]})"),
        st.lists(children, max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
        children.map(lambda e: f"[v for v in {e}]"),
    )


EXPR = st.recursive(ATOMS, _expr, max_leaves=6)
NAMES = st.sampled_from(["x", "y", "z", "n", "self.w", "out[0]", "a, b"])


def _stmts(children):
    block = children.map(lambda body: textwrap.indent(body, "    "))
    return st.one_of(
        st.tuples(EXPR, block, block).map(lambda t: f"if {t[0]}:\n{t[1]}\nelse:\n{t[2]}"),
        st.tuples(NAMES, EXPR, block).map(lambda t: f"for {t[0]} in {t[1]}:\n{t[2]}"),
        st.tuples(EXPR, block).map(lambda t: f"while {t[0]}:\n{t[1]}\n    break"),
        st.tuples(EXPR, block).map(lambda t: f"with {t[0]}:\n{t[1]}"),
        st.tuples(block, block).map(lambda t: f"try:\n{t[0]}\nexcept Exception as e:\n{t[1]}"),
        st.tuples(block).map(lambda t: f"def helper(v):\n{t[0]}\n    return v\nx = helper(x)"),
        st.lists(children, min_size=1, max_size=3).map("\n".join),
    )


SIMPLE = st.one_of(
    st.tuples(NAMES, EXPR).map(lambda t: f"{t[0]} = {t[1]}"),
    st.tuples(NAMES.filter(lambda n: "," not in n), st.sampled_from(["+=", "*=", "-="]), EXPR).map(" ".join),
    EXPR,
    EXPR.map(lambda e: f"assert {e}, 'message'"),
    EXPR.map(lambda e: f"return {e}"),
    st.just("pass"), st.just("del y"), st.just("raise ValueError(x)"),
)
PROGRAMS = st.recursive(SIMPLE, _stmts, max_leaves=8)


@SETTINGS
@given(PROGRAMS)
def test_generated_tensor_programs(program: str) -> None:
    source = as_forward(program)
    compile(source, "generated.py", "exec")  # the generator makes valid Python
    result = analyze_source(source, Path("generated.py"), "generated")
    assert not result.errors, [e.message for e in result.errors]
    _every_rule_and_fix(source)


def test_a_worker_that_crashes_costs_only_its_file(tmp_path: Path, monkeypatch) -> None:
    """A crash in native code kills a worker process; the file it held is BL004, every other file is linted."""
    for i in range(20):
        (tmp_path / f"m{i:02d}.py").write_text(MODEL)
    (tmp_path / "crash.py").write_text(MODEL)
    real = analyze.analyze_source

    def analyze_source(source, path, module):
        if path.name == "crash.py":
            faulthandler.disable()  # pytest's handler would print the dying worker's stack
            os.abort()  # as a segfault in a parser would
        return real(source, path, module)

    monkeypatch.setattr(analyze, "analyze_source", analyze_source)  # the forked workers inherit it
    monkeypatch.setattr(engine, "PARALLEL_BYTES", 0)  # these small files would be analyzed in-process
    result = lint([tmp_path], Config(root=tmp_path, respect_gitignore=False), jobs=2, use_cache=False)
    assert [(f.path.name, f.code) for f in result.errors] == [("crash.py", "BL004")]
    assert "crashed" in result.errors[0].message
    assert sorted(f.path.name for f in result.findings) == [f"m{i:02d}.py" for i in range(20)]


# ---------------------------------------------------------------------- bulky generated data
def test_bulky_module_level_data_is_walked_empty_with_lines_and_columns_kept(monkeypatch) -> None:
    monkeypatch.setattr(parse, "BULKY_VALUE", 200)
    rows = "".join(f'    ("op{i}", torch.float16, {i}): (1, -2, 3.5),\n' for i in range(20))
    source = ("import torch\nfrom .ops import relu\n\nTABLE = {\n" + rows + "}  # end\n"
              "REFS = {" + ", ".join(f'"k{i}": relu' for i in range(20)) + "}\n"
              "FNS = [" + ", ".join("lambda x: x" for _ in range(20)) + "]\n\n\n"
              "@torch.compile\ndef f(x):\n    return x.item()\n")
    blanked = parse.without_bulky_data(source)
    assert blanked.splitlines()[3] == "TABLE = {" and "op1" not in blanked
    assert [len(line) for line in blanked.splitlines()[:3]] == [len(line) for line in source.splitlines()[:3]]
    assert blanked.count("\n") == source.count("\n") and blanked.splitlines()[24] == "}  # end"
    assert "relu, " in blanked and "lambda x" in blanked  # tables naming code are kept for reach
    found = [(f.code, f.line, f.col) for f in lint_source(source, Path("m.py"))]
    monkeypatch.setattr(parse, "BULKY_VALUE", 10**9)
    assert found == [(f.code, f.line, f.col) for f in lint_source(source, Path("m.py"))] == [("BL101", 32, 11)]
