"""BL427: a module constructor that dynamo compiles as a frame of its own.

Where the code that builds a module runs eagerly (a compiled function that breaks inside its own
loop or `try`, or a constructor that breaks), dynamo compiles each module constructor called there
as a frame of its own, on a module not yet initialized, and breaks at its first use of it (GB0119).
These tests pin where the engine says so and where it does not.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from breaklint.config import Config
from breaklint.engine import lint, lint_source

MODULES = """
import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self, k):
        \"\"\"A scale.\"\"\"
        k = float(k)
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * self.k


class Plain:
    def __init__(self, k):
        self.k = k
"""


def findings(body: str, config: Config | None = None) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in lint_source(MODULES + dedent(body), Path("m.py"), config or Config()))


def line_of(body: str, text: str, nth: int = 0) -> int:
    lines = (MODULES + dedent(body)).splitlines()
    return [i for i, line in enumerate(lines, 1) if text in line][nth]


def test_a_module_built_by_a_function_that_breaks_in_a_try_is_reported_at_its_first_use() -> None:
    body = """
        @torch.compile
        def run(x):
            scale = Scale(2.0)
            try:
                print("scaling")
            except ValueError:
                pass
            return scale(x)
    """
    found = findings(body)
    # the statement that uses the instance first, not the docstring or the line before it
    assert (line_of(body, "super().__init__()"), "BL427") in found
    assert (line_of(body, 'print("scaling")'), "BL401") in found
    message = next(f.message for f in lint_source(MODULES + dedent(body), Path("m.py"), Config()) if f.code == "BL427")
    assert "`run` builds this module and breaks inside a loop or `try`" in message


def test_no_report_where_the_building_code_is_traced() -> None:
    body = """
        @torch.compile
        def straight(x):
            scale = Scale(2.0)
            y = scale(x)
            print("done")
            return y

        @torch.compile
        def plain_in_a_loop(x):
            holder = Plain(2.0)
            for _ in range(2):
                if x.sum() > 0:
                    x = x * holder.k
            return x

        def eager_only(x):
            scale = Scale(2.0)
            for _ in range(2):
                print(x)
            return scale(x)
    """
    # a break in straight-line code resumes after it; a plain class has no uninitialized module;
    # a function compile never reaches builds nothing in compiled code
    assert "BL427" not in {code for _, code in findings(body)}


def test_modules_built_by_a_constructor_that_runs_eagerly_are_reported_too() -> None:
    body = """
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = Scale(3.0)
                print("head built")

            def forward(self, x):
                return self.scale(x)

        @torch.compile
        def run(x):
            x = x + 1
            return Head()(x)
    """
    found = findings(body)
    # Head's constructor breaks (print): it runs as a frame of its own, eagerly, and builds a Scale
    assert (line_of(body, "super().__init__()", 1), "BL427") in found
    assert (line_of(body, "super().__init__()", 0), "BL427") in found


def test_a_statement_flagged_for_its_own_break_is_not_reported_twice() -> None:
    body = """
        class Legacy(nn.Module):
            def __init__(self):
                nn.Module.__init__(self)
                self.k = 2.0

            def forward(self, x):
                return x * self.k

        @torch.compile
        def run(x):
            x = x + 1
            return Legacy()(x)
    """
    assert [code for line, code in findings(body) if line == line_of(body, "nn.Module.__init__(self)")] == ["BL418"]


def test_the_constructor_is_found_in_another_file(tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(dedent("""
        from torch import nn


        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self.k = 2.0


        class Noisy(Base):
            def __init__(self):
                super().__init__()
                print("built")

            def forward(self, x):
                return x * self.k
    """), encoding="utf-8")
    (tmp_path / "model.py").write_text(dedent("""
        import torch
        from layers import Noisy


        @torch.compile
        def run(x):
            x = x + 1
            return Noisy()(x)
    """), encoding="utf-8")
    result = lint([tmp_path], Config(root=tmp_path))
    assert {(f.path.name, f.line, f.code) for f in result.findings} == {
        ("layers.py", 14, "BL401"), ("layers.py", 13, "BL427"), ("layers.py", 7, "BL427")}


def test_the_finding_is_suppressed_and_selected_like_any_finding() -> None:
    body = """
        @torch.compile
        def run(x):
            scale = Scale(2.0)
            for _ in range(2):
                x = scale(x)
                if x.sum() > 0:
                    x = x - 1
            return x
    """
    assert (line_of(body, "super().__init__()"), "BL427") in findings(body)
    assert "BL427" not in {code for _, code in findings(body, Config(ignore=["BL427"]))}
    quiet = MODULES.replace("super().__init__()", "super().__init__()  # breaklint: ignore[BL427]")
    assert "BL427" not in {f.code for f in lint_source(quiet + dedent(body), Path("m.py"), Config())}


def test_breaks_and_constructions_that_run_only_sometimes_are_reported_as_such() -> None:
    body = """
        import warnings


        class Checked(nn.Module):
            def __init__(self, k):
                super().__init__()
                if k < 0:
                    warnings.warn("negative scale")
                self.k = k

            def forward(self, x):
                return x * self.k

        @torch.compile
        def checked(x):
            x = x + 1
            return Checked(2.0)(x)

        @torch.compile
        def logs_in_a_loop_sometimes(x, verbose: bool = False):
            scale = Scale(2.0)
            for _ in range(2):
                x = scale(x)
                if verbose:
                    print(x)
            return x

        @torch.compile
        def builds_sometimes(x, extra: bool = False):
            for _ in range(2):
                if x.sum() > 0:
                    x = x - 1
            if extra:
                x = Scale(3.0)(x)
            return x
    """
    found = findings(body)
    # the warning, the print and the data-dependent `if` are still reported where they are ...
    assert {code for _, code in found} >= {"BL403", "BL401", "BL201"}
    # ... but a loop costs its frame only where its print runs, which makes no frame run eagerly.
    # The frame that surely breaks in its loop builds `Scale` only under `if extra:`, and `Checked`'s
    # constructor breaks only where its warning runs: each finding says so.
    reported = [f for f in lint_source(MODULES + dedent(body), Path("m.py"), Config()) if f.code == "BL427"]
    assert [(f.line, f.code) for f in reported] == [(line_of(body, "super().__init__()"), "BL427"),
                                                    (line_of(body, "super().__init__()", 1), "BL427")]
    assert f"(this module is built on line {line_of(body, 'x = Scale(3.0)(x)')}, in a branch)" in reported[0].message
    assert f"its constructor may break (at `m.py:{line_of(body, 'warnings.warn')}`, in a branch)" \
        in reported[1].message


# a module whose constructor keeps a function from a parameter's default
DEFAULTED = """
        def rms(v):
            return v.pow(2).mean().sqrt()


        class Controller(nn.Module):
            def __init__(self, atol, norm=rms):
                super().__init__()
                self.atol = atol
                self.norm = norm
"""


def test_a_frame_given_up_on_at_an_unresumable_call_runs_its_constructors_eagerly() -> None:
    body = DEFAULTED + """


        class Classed(nn.Module):
            def __init__(self, atol, norm=Plain):
                super().__init__()
                self.atol = atol
                self.norm = norm


        class Stepper:
            def __init__(self, controller):
                self.controller = controller

            def solve(self, y):
                return y[y > 0].sum() * self.controller.atol


        @torch.compile
        def left_to_the_default(y, controller=None):
            if controller is None:
                controller = Controller(1e-3)
            return Stepper(controller).solve(y)


        @torch.compile
        def passed_explicitly(y):
            stepper = Stepper(Controller(1e-3, norm=rms))
            return stepper.solve(y)


        @torch.compile
        def a_class_by_default(y):
            stepper = Stepper(Classed(1e-3))
            return stepper.solve(y)
    """
    reported = [f for f in lint_source(MODULES + dedent(body), Path("m.py"), Config()) if f.code == "BL427"]
    # only where the object left to its default holds a function: that function has no source to
    # rebuild it from, so dynamo gives up on the whole frame, whose constructors then break
    assert [f.line for f in reported] == [line_of(body, "super().__init__()", 1)]
    assert reported[0].message.startswith("dynamo runs all of `left_to_the_default` eagerly")
    assert "keeps `rms`, a function from a default argument" in reported[0].message
    assert "in a branch" in reported[0].message


def test_a_frame_given_up_on_at_a_break_of_its_own_names_the_break() -> None:
    body = DEFAULTED + """


        @torch.compile
        def logs_after_building(y):
            scale = Scale(2.0)
            controller = Controller(1e-3)
            print("built")
            return scale(y) * controller.atol


        @torch.compile
        def logs_before_building(y):
            print("building")
            controller = Controller(1e-3)
            return y * controller.atol
    """
    reported = [f for f in lint_source(MODULES + dedent(body), Path("m.py"), Config()) if f.code == "BL427"]
    # both modules of the frame that breaks after building the controller; nothing for the frame that
    # breaks before it (dynamo resumes after that print with nothing to rebuild)
    assert sorted(f.line for f in reported) == sorted([line_of(body, "super().__init__()", 0),
                                                       line_of(body, "super().__init__()", 1)])
    printed = line_of(body, "built")
    assert all(f.message.startswith("dynamo runs all of `logs_after_building` eagerly: it breaks the graph on "
                                     f"line {printed}, and the `Controller` built") for f in reported)


def test_a_loop_whose_break_is_followed_by_a_return_is_no_eager_frame() -> None:
    """Dynamo looks for a loop around a break in the code after it, up to the first `return`: where an
    `if` on a tensor returns at once, it finds none and resumes after the break; where the code after
    the break jumps back first (a `continue`, the end of the loop body), it runs the frame eagerly."""
    returns = """
        @torch.compile
        def first_large(x, rows):
            scale = Scale(2.0)
            for row in rows:
                if row.sum() > 100:
                    return scale(row)
            return x
    """
    jumps_back = """
        @torch.compile
        def count_large(x, rows):
            scale = Scale(2.0)
            for row in rows:
                if row.sum() > 100:
                    x = x + 1
            return scale(x)
    """
    continues = """
        @torch.compile
        def skip_large(x, rows):
            scale = Scale(2.0)
            for row in rows:
                if row.sum() > 100:
                    continue
                return scale(row)
            return x
    """
    assert [code for _, code in findings(returns)] == ["BL201"]
    assert (line_of(jumps_back, "super().__init__()"), "BL427") in findings(jumps_back)
    assert (line_of(continues, "super().__init__()"), "BL427") in findings(continues)

    def message(body: str) -> str:
        return next(f.message for f in lint_source(MODULES + dedent(body), Path("m.py"), Config()) if f.code == "BL201")
    assert message(returns).endswith("the branch returns at once, so it finds no loop to give up on and resumes "
                                     "after the break")
    assert message(jumps_back).endswith("dynamo cannot split a graph in a loop and runs the whole function eagerly")
