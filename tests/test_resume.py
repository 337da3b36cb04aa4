"""BL426: a method that breaks the graph, called on an object the compiled function built.

Dynamo cannot rebuild the bound method of an object created during tracing, so it cannot resume
just after such a call (GB0092). These tests pin where the engine says so and where it does not.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from breaklint.config import Config
from breaklint.engine import lint, lint_source

STEPPER = """
import torch


class Stepper:
    def __init__(self, scale):
        self.scale = scale

    def step(self, x):
        if x.sum() > 0:
            return x * self.scale
        return x

    def shift(self, x):
        return x + self.scale

    def __call__(self, x):
        return self.step(x)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
"""


def findings(body: str, config: Config | None = None) -> list[tuple[int, str]]:
    source = STEPPER + dedent(body)
    return [(f.line, f.code) for f in lint_source(source, Path("m.py"), config or Config())]


def line_of(body: str, text: str) -> int:
    lines = (STEPPER + dedent(body)).splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def test_a_breaking_method_of_a_local_object_is_reported_at_the_call() -> None:
    body = """
        @torch.compile
        def run(x):
            stepper = Stepper(2.0)
            y = stepper.step(x)
            return Stepper(3.0).step(y)
    """
    assert (line_of(body, "y = stepper.step(x)"), "BL426") in findings(body)
    # dynamo runs the rest of `run` eagerly past the first (probed on 2.13: no break at the second)
    assert (line_of(body, "Stepper(3.0).step(y)"), "BL426") not in findings(body)
    assert (line_of(body, "if x.sum() > 0"), "BL201") in findings(body)


def test_no_report_on_an_object_whose_constructor_breaks() -> None:
    # its constructor breaks whenever it runs: dynamo breaks at the constructor call and the resumed code
    # holds a real object, whose bound method it rebuilds (probed on 2.13: no break at `engine.draw(4)`)
    body = """
        class Engine(Stepper):
            def __init__(self, scale):
                self.scale = scale
                self.sobol = torch.quasirandom.SobolEngine(dimension=2, scramble=True, seed=0)

        @torch.compile
        def run(x):
            engine = Engine(2.0)
            y = engine.step(x)
            stepper = Stepper(2.0)
            return stepper.step(y)
    """
    assert (line_of(body, "y = engine.step(x)"), "BL426") not in findings(body)
    assert (line_of(body, "return stepper.step(y)"), "BL426") in findings(body)


def test_past_a_call_that_may_not_break_the_next_one_is_reported() -> None:
    body = """
        @torch.compile
        def run(x, flag: bool):
            stepper = Stepper(2.0)
            if flag:
                x = stepper.step(x)
            return Stepper(3.0).step(x)
    """
    assert (line_of(body, "x = stepper.step(x)"), "BL426") in findings(body)
    assert (line_of(body, "Stepper(3.0).step(x)"), "BL426") in findings(body)


def test_no_report_where_dynamo_handles_the_break_otherwise() -> None:
    # a loop, a with block, a try, a comprehension, a nested function: the break is the method's own
    body = """
        @torch.compile
        def run(x, items):
            stepper = Stepper(2.0)
            for _ in range(2):
                x = stepper.step(x)
            with torch.no_grad():
                x = stepper.step(x)
            try:
                x = stepper.step(x)
            except ValueError:
                pass
            ys = [stepper.step(i) for i in items]

            def inner(z):
                return stepper.step(z)

            return inner(x), ys
    """
    assert [code for _, code in findings(body)] == ["BL201"]


def test_no_report_on_objects_the_function_did_not_build_or_methods_that_trace() -> None:
    body = """
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.stepper = Stepper(2.0)

            def forward(self, x, given):
                a = self.stepper.step(x)
                b = given.step(x)
                built = Stepper(2.0)
                c = built.shift(x)
                d = built(x)
                with built as entered:
                    e = x + 1
                return a + b + c + d + e
    """
    assert [code for _, code in findings(body)] == ["BL201"]


def test_a_break_lifted_by_a_setting_lifts_the_call_too() -> None:
    body = """
        class Counter:
            def count(self, x):
                return int(x.sum().item())

        @torch.compile
        def run(x):
            counter = Counter()
            return x * counter.count(x)
    """
    assert [code for _, code in findings(body)] == ["BL101", "BL426"]
    lifted = Config(dynamo_config={"capture_scalar_outputs": ["true"]})
    assert findings(body, lifted) == []


def test_the_break_is_found_through_calls_in_other_files(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/util.py": """
            def count(x):
                return int(x.sum().item())  # noqa: BL101
        """,
        "pkg/solvers.py": """
            from .util import count

            class Euler:
                def integrate(self, x):
                    return self.advance(x) * 2

                def advance(self, x):
                    return x * count(x)

            SOLVERS = {"euler": Euler}

            def make_solver(name):
                return SOLVERS[name]()
        """,
        "pkg/api.py": """
            import torch

            from .solvers import SOLVERS, make_solver

            @torch.compile
            def odeint(x, method="euler"):
                solver = SOLVERS[method]()
                y = solver.integrate(x)
                return make_solver(method).integrate(y)
        """,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")
    # the break inside is suppressed where it is, but dynamo still breaks there: the calls stand
    found = [f for f in lint([tmp_path], Config(root=tmp_path)).findings if f.code == "BL426"]
    # (dynamo runs the rest of `odeint` eagerly past the first: the second call is no break of its own)
    assert [(f.path.name, f.line) for f in found] == [("api.py", 9)]
    assert all("`integrate` breaks the graph (at `pkg/util.py:3`)" in f.message for f in found)
    assert all("the rest of `odeint`" in f.message for f in found)


def test_the_call_is_suppressed_and_selected_like_any_finding() -> None:
    body = """
        @torch.compile
        def run(x):
            stepper = Stepper(2.0)
            return stepper.step(x)  # noqa: BL426
    """
    assert [code for _, code in findings(body)] == ["BL201"]
    assert [code for _, code in findings(body.replace("  # noqa: BL426", ""), Config(ignore=["BL426"]))] == ["BL201"]



def test_a_bound_method_of_a_local_object_handed_to_a_call_that_breaks_is_reported_there() -> None:
    body = """
        def apply(fn, x):
            return fn(x) + 1

        def scaled(fn, x):
            return x * 2

        class Model:
            def __init__(self, x, closure):
                self.value = closure(x)

        @torch.compile
        def run(x):
            stepper = Stepper(2.0)
            closure = stepper.step
            m = Model(x, closure)
            y = apply(stepper.step, m.value)
            z = apply(stepper.shift, y)
            w = scaled(closure, z)
            return apply(stepper.scale, w), apply(stepper, w)
    """
    found = findings(body)
    # `Model(x, closure)` and `apply(stepper.step, ...)`: each runs `Stepper.step` (reached through the
    # bound method handed over), which breaks, and dynamo cannot rebuild the bound method to resume
    assert (line_of(body, "m = Model(x, closure)"), "BL426") in found
    # past it dynamo runs `run` eagerly (probed on 2.13: no break at the next call)
    assert (line_of(body, "y = apply(stepper.step"), "BL426") not in found
    # a handed method that traces, a callee that does not call it, an attribute holding a value, and
    # the object itself (which dynamo rebuilds) are no such call
    for text in ("z = apply(stepper.shift", "w = scaled(closure", "return apply(stepper.scale"):
        assert (line_of(body, text), "BL426") not in found


PICK = """
import torch
from torch import nn


def pick(mask):
    return mask.nonzero().view(-1)


def rows(t):
    if t.shape[0] > 2:
        return t[:2]
    return t
"""


def held(body: str) -> list[int]:
    source = PICK + dedent(body)
    return [f.line for f in lint_source(source, Path("m.py"), Config()) if f.code == "BL433"]


def held_line(body: str, text: str) -> int:
    return next(i for i, line in enumerate((PICK + dedent(body)).splitlines(), 1) if text in line)


def test_a_tensor_method_waiting_on_a_call_that_breaks_breaks_again() -> None:
    # BL433: the bound method `x.index_select` is on dynamo's stack when `pick` breaks
    body = """
        @torch.compile
        def gather(x, mask):
            x = x * 2
            a = x.index_select(0, pick(mask))
            b = x.float().add(other=pick(mask).sum())
            return a, b
    """
    assert held(body) == [held_line(body, "a = x.index_select"), held_line(body, "b = x.float()")]


def test_no_second_break_where_nothing_is_held_across_the_first() -> None:
    body = """
        @torch.compile
        def gather(x, mask, out: list):
            x = x * 2
            a = torch.index_select(x, 0, pick(mask))  # the function form: nothing bound is held
            i = pick(mask)
            b = x.index_select(0, i)  # computed on an earlier line
            c = x + pick(mask)  # an operator
            out.append(pick(mask))  # a method of a Python object
            d = x.index_select(0, rows(x))  # `rows` does not break
            for _ in range(2):
                x = x.index_select(0, pick(mask))  # in a loop dynamo runs the function eagerly
            e = pick(mask).index_select(0, i)  # a call in the receiver runs before the method is loaded
            return a, b, c, d, e
    """
    assert held(body) == []


def test_the_receiver_is_a_tensor_where_the_callers_say_so() -> None:
    body = """
        class Scorer:
            def score(self, m):
                return m

        class Net(nn.Module):
            def forward(self, x, mask):
                return self.scaled(x, mask) + self.scored(Scorer(), mask)

            def scaled(self, p, mask):
                return p.mul(pick(mask).sum())

            def scored(self, s, mask):
                return s.score(pick(mask))
    """
    assert held(body) == [held_line(body, "return p.mul(")]
