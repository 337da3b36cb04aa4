"""What torch.compile reaches: decided from the source alone, across files."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from breaklint.config import Config
from breaklint.engine import lint, lint_source


def codes_by_line(source: str) -> dict[int, str]:
    return {f.line: f.code for f in lint_source(dedent(source), Path("m.py"), Config())}


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")


def test_forward_of_module_subclasses_through_aliases() -> None:
    found = codes_by_line("""
        import torch.nn as nn
        from torch.nn import Module as Base

        class A(nn.Module):
            def forward(self, x):
                print(x)

        class B(Base):
            def forward(self, x):
                print(x)

        class C(B):
            def forward(self, x):
                print(x)

        class NotAModule:
            def forward(self, x):
                print(x)
    """)
    assert found == {7: "BL401", 11: "BL401", 15: "BL401"}


def test_init_training_loop_and_uncalled_methods_are_not_traced() -> None:
    found = codes_by_line("""
        import torch

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                print("init")

            def forward(self, x):
                return self.helper(x)

            def helper(self, x):
                print("reached through self.helper")
                return x

            def report(self):
                print("never called from forward")

        def train(model, x):
            print(model(x).sum().item())
    """)
    assert found == {13: "BL401"}


def test_compiled_functions_and_their_callees() -> None:
    found = codes_by_line("""
        import torch

        def helper(x):
            print("helper")
            return x

        @torch.compile(mode="reduce-overhead")
        def decorated(x):
            return helper(x)

        def passed(x):
            print("passed to torch.compile")
            return x

        fast = torch.compile(passed)

        def plain(x):
            print("not compiled")
    """)
    assert found == {5: "BL401", 13: "BL401"}


def test_every_form_of_handing_a_function_to_compile_at_module_level() -> None:
    found = codes_by_line("""
        import functools
        import torch

        class Opt:
            def step(self, x):
                print("a method of a module-level instance")

        class Base:
            def run(self, x):
                print("a method the class inherits, on an instance built in the call")

        class Child(Base):
            pass

        def scaled(k, x):
            print("under functools.partial")

        def tuned(x):
            print("the compiler torch.compile(mode=...) makes")

        def optimized(x):
            print("torch._dynamo.optimize(...)(fn)")

        @torch._dynamo.optimize("inductor")
        def decorated(x):
            print("decorated by torch._dynamo.optimize")

        class Net(torch.nn.Module):
            def forward(self, x):
                return x

            def export_helper(self, x):
                print("not compiled: only forward runs under `net.compile()`")

        def untouched(x):
            print("handed to nothing")

        opt = Opt()
        step = torch.compile(opt.step)
        run = torch.compile(Child().run)
        fn = torch.compile(functools.partial(scaled, 2))
        fast = torch.compile(mode="max-autotune")(tuned)
        faster = torch._dynamo.optimize("inductor")(optimized)
        net = Net()
        net.compile()
    """)
    assert found == {7: "BL401", 11: "BL401", 17: "BL401", 20: "BL401", 23: "BL401", 27: "BL401"}


def test_compile_called_inside_a_function_roots_what_it_is_handed(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/parts.py": """
        class Loss:
            def __call__(self, x):
                print("a local instance handed to torch.compile")
                return x

        class Encoder:
            def __call__(self, x):
                print("an attribute handed to torch.compile")
                return x

        class Report:
            def write(self, x):
                print("a method called, never compiled")
    """, "pkg/train.py": """
        import re
        import torch
        from .parts import Encoder, Loss, Report

        class Trainer:
            def __init__(self):
                self.encoder = Encoder()
                self.encoder = torch.compile(self.encoder)
                self.fast_step = torch.compile(self.train_step, fullgraph=False)
                self.pattern = re.compile("x")

            def train_step(self, x):
                print("a method compiled in the constructor")
                return self.encoder(x)

            def compile(self):
                print("a class's own method named compile is not compiled code")

            def setup(self):
                self.compile()

        def main():
            loss = Loss()
            loss = torch.compile(loss)
            report = Report()
            report.write(1)
            return loss, re.compile("abc")
    """})
    found = {(Path(f.path).name, f.line) for f in lint([tmp_path], Config(select=["BL401"])).findings}
    assert found == {("parts.py", 4), ("parts.py", 9), ("train.py", 14)}


def test_disabled_bodies_are_skipped_and_calls_to_them_flagged() -> None:
    found = codes_by_line("""
        import torch
        import torch._dynamo

        @torch._dynamo.disable
        def log_stats(x):
            print(x)

        class M(torch.nn.Module):
            def forward(self, x):
                log_stats(x)
                return x
    """)
    assert found == {11: "BL410"}


def test_branch_skipped_under_compile() -> None:
    found = codes_by_line("""
        import torch

        @torch.compile
        def f(x):
            if torch.compiler.is_compiling():
                y = x + 1
            else:
                print("eager branch")
            if torch.jit.is_scripting():
                print("scripting only")
            elif not torch._dynamo.is_compiling():
                print("eager only")
            else:
                print("traced")
            return x
    """)
    assert found == {15: "BL401"}


def test_submodule_forward_is_reached_across_files(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            import torch

            class Base(torch.nn.Module):
                pass
        """,
        "pkg/layers.py": """
            from .base import Base

            class Block(Base):
                def forward(self, x):
                    return scale(x)

            def scale(x):
                return x / x.max().item()
        """,
        "pkg/utils.py": """
            import torch

            def unrelated(x):
                return x.sum().item()
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), jobs=1, use_cache=False)
    got = {(f.path.name, f.line, f.code) for f in result.findings}
    assert got == {("layers.py", 9, "BL101")}
    assert "pkg.layers.Block.forward" in result.reached
    assert "pkg.layers.scale" in result.reached


def test_calls_through_submodules_and_module_lists(tmp_path: Path) -> None:
    write(tmp_path, {
        "net.py": """
            import torch
            from torch import nn

            class Head(nn.Module):
                def forward(self, x):
                    return x

                def decode(self, x):
                    return x.nonzero()

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = Head()
                    self.blocks = nn.ModuleList([nn.Linear(4, 4)])

                def forward(self, x):
                    for block in self.blocks:
                        x = block(x)
                    if x.mean() > 0:
                        x = x * 2
                    return self.head(x)
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), jobs=1, use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(21, "BL201")}


def test_elif_chain_after_a_branch_taken_under_compile_is_dead() -> None:
    found = codes_by_line("""
        import torch

        @torch.compile
        def f(x):
            if torch.compiler.is_compiling():
                x = x + 1
            elif x.sum() > 0:
                print("eager")
            else:
                print("eager too")
            print("traced")
            return x
    """)
    assert found == {12: "BL401"}


def test_self_calls_reach_overrides_in_subclasses() -> None:
    found = codes_by_line("""
        import torch

        class Base(torch.nn.Module):
            def forward(self, x):
                return self.apply_transform(x)

            def apply_transform(self, x):
                return x

        class Flip(Base):
            def apply_transform(self, x):
                return x.flip(0) if x.sum() > 0 else x

        class Unrelated:
            def apply_transform(self, x):
                return x.sum().item()
    """)
    assert found == {13: "BL201"}


def test_a_class_handed_to_a_type_test_is_not_constructed() -> None:
    # `isinstance(m, Head)` does not run `Head.__init__`; `checkpoint(helper, x)` runs `helper`, and
    # a class handed to another call is not taken to be built by it
    found = codes_by_line("""
        import torch
        from torch import nn
        from torch.utils.checkpoint import checkpoint

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                print("building")

            def forward(self, x):
                return x

        def helper(x):
            print("in checkpoint")
            return x

        class Net(nn.Module):
            def forward(self, x, layers):
                for m in layers:
                    if isinstance(m, Head) or issubclass(type(m), Head):
                        x = m(x)
                kinds = list(map(Head, [1]))
                return checkpoint(helper, x), kinds
    """)
    assert found == {15: "BL401"}


def test_property_returning_a_function_from_a_table_reaches_that_function(tmp_path: Path) -> None:
    write(tmp_path, {
        "losses.py": """
            def focal(x, y):
                return (x - y).nonzero()

            def dice(x, y):
                return float(x.sum())

            def unused(x, y):
                print(x)
        """,
        "model.py": """
            import torch
            from losses import dice, focal

            LOSSES = {"focal": focal, "dice": dice}

            class Model(torch.nn.Module):
                def __init__(self, kind="focal"):
                    super().__init__()
                    self.kind = kind

                @property
                def loss_function(self):
                    return LOSSES[self.kind]

                def forward(self, x, y):
                    return self.loss_function(x, y)
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    assert found == {("losses.py", 3, "BL301"), ("losses.py", 6, "BL103")}


def test_methods_of_a_module_level_object_are_reached() -> None:
    found = codes_by_line("""
        import torch

        class Helper:
            def info_rank0(self, msg):
                print(msg)

            def never(self):
                print("not called from compiled code")

        helper = Helper()

        class M(torch.nn.Module):
            def forward(self, x):
                helper.info_rank0("step")
                return x
    """)
    assert found == {6: "BL401"}


def test_class_handed_in_as_a_default_argument_is_what_the_attribute_holds() -> None:
    found = codes_by_line("""
        import torch.nn as nn

        class Encoder(nn.Module):
            def __init__(self, rnn_layer=nn.LSTM, norm=None):
                super().__init__()
                self.rnn = rnn_layer(8, 8)
                self.norm = norm(8) if norm else None

            def forward(self, x):
                out, _ = self.rnn(x)
                return out
    """)
    assert found == {11: "BL413"}


def test_level_named_methods_of_a_logger_are_logging_calls() -> None:
    found = codes_by_line("""
        import logging
        import torch

        logger = logging.getLogger(__name__)

        class M(torch.nn.Module):
            def forward(self, x):
                logger.info_rank0("a")
                logger.error_once("b")
                self.log_prob(x)
                return x

            def log_prob(self, x):
                return x
    """)
    assert found == {9: "BL402", 10: "BL402"}


def test_pieces_of_a_parameter_split_in_forward_are_tensors() -> None:
    found = codes_by_line("""
        import torch

        class Post(torch.nn.Module):
            def forward(self, x):
                boxes = x.sigmoid()
                for box in boxes.unbind(0):
                    if box[0] > 0:
                        pass
                first, second = x.chunk(2)
                return float(second.sum())
    """)
    assert found == {8: "BL201", 11: "BL103"}


def test_methods_of_a_local_built_from_a_table_of_classes_are_reached(tmp_path: Path) -> None:
    write(tmp_path, {"solvers.py": """
        import torch

        class Euler:
            def __init__(self, y0):
                self.y0 = y0

            def integrate(self, t):
                print("step")
                return self.y0

        class Dopri:
            def integrate(self, t):
                if t[0] > 0:
                    return t
                return t * 2

        class Unused:
            def integrate(self, t):
                print("never")

        SOLVERS = {"euler": Euler, "dopri": Dopri}

        def odeint(y0, t, method="dopri"):
            solver = SOLVERS[method](y0)
            return solver.integrate(t)
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["*solvers.odeint"]
    result = lint([tmp_path], config, use_cache=False)
    # and the call itself: `solver` was built in compiled code (BL426)
    assert {(f.line, f.code) for f in result.findings} == {(9, "BL401"), (14, "BL201"), (26, "BL426")}


def test_a_method_of_an_attribute_declared_by_annotation_runs_each_override(tmp_path: Path) -> None:
    # `self.transform = transform` with `transform: Transform`: the attribute may hold any subclass,
    # so `self.transform.call_and_ladj(x)` runs each one's own method; an attribute declared as
    # `nn.Module` says too little to pick methods by, and classes outside the hierarchy stay unreached
    write(tmp_path, {"flows.py": """
        from typing import Optional

        import torch
        from torch import nn
        from torch.distributions import Transform

        class Affine(Transform):
            def call_and_ladj(self, x):
                print("affine")
                return x * 2, x.new_zeros(())

        class Monotonic(Affine):
            def call_and_ladj(self, x):
                if x.sum() > 0:
                    return x, x
                return -x, x

        class Other:
            def call_and_ladj(self, x):
                print("never")

        class Block(nn.Module):
            def reset(self):
                print("never either")

        class Flow:
            def __init__(self, transform: Transform, block: nn.Module, extra: Optional[Transform] = None):
                self.transform = transform
                self.block = block
                self.extra = extra

            def log_prob(self, x):
                z, ladj = self.transform.call_and_ladj(x)
                self.block.reset()
                return z + ladj
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["*flows.Flow.log_prob"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(10, "BL401"), (15, "BL201")}


def test_an_attribute_declared_with_a_union_of_none_runs_each_override(tmp_path: Path) -> None:
    # `transform: Transform | None` says what `Optional[Transform]` says; `Transform | Other` says
    # too little to pick one class by
    write(tmp_path, {"flows.py": """
        import torch

        class Transform:
            def apply(self, x):
                print("base")
                return x

        class Other:
            def apply(self, x):
                print("other")
                return x

        class Flow:
            def __init__(self, transform: Transform | None = None, either: Transform | Other = None):
                self.transform = transform
                self.either = either

            def log_prob(self, x):
                return self.transform.apply(x) + self.either.apply(x)
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["*flows.Flow.log_prob"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(6, "BL401")}


def test_an_attribute_declared_by_a_forward_reference_runs_each_override(tmp_path: Path) -> None:
    # `sampler: "Sampler"` (the class imported only for type checkers) declares `Sampler` as the bare
    # name would: its subclasses' overrides run; a string that is no name declares nothing
    write(tmp_path, {"samplers.py": """
        from abc import ABC, abstractmethod

        class Sampler(ABC):
            @abstractmethod
            def sample(self, x):
                raise NotImplementedError

        class Hard(Sampler):
            def sample(self, x):
                print("mining")
                return x
    """, "loss.py": """
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from samplers import Sampler

        class Loss:
            def __init__(self, sampler: "Sampler", other: "list of samplers"):
                self.sampler = sampler
                self.other = other

            def compute(self, x):
                return self.sampler.sample(x) + self.other.sample(x)
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["*loss.Loss.compute"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.path.name, f.line, f.code) for f in result.findings} == {("samplers.py", 11, "BL401")}


def test_a_base_method_runs_what_its_subclasses_store_in_an_attribute(tmp_path: Path) -> None:
    # `Model.posterior` calls `self.transform.untransform(p)`; only the subclasses' constructors set
    # `self.transform` (a class built there, or a parameter's declared class): `self` may be either;
    # a class that derives from neither stays unreached
    write(tmp_path, {"models.py": """
        import torch
        from torch import nn

        class Transform(nn.Module):
            def untransform(self, p):
                raise NotImplementedError

        class Standardize(Transform):
            def untransform(self, p):
                if p.sum() > 0:
                    return p * 2
                return p

        class Declared:
            def untransform(self, p):
                print("declared")
                return p

        class Unrelated:
            def untransform(self, p):
                print("never")
                return p

        class Model(nn.Module):
            def posterior(self, x):
                return self.transform.untransform(x + 1)

        class Built(Model):
            def __init__(self):
                super().__init__()
                self.transform = Standardize()

        class Handed(Model):
            def __init__(self, transform: Declared | None = None):
                super().__init__()
                self.transform = transform

        class Head(nn.Module):
            def __init__(self, model: Model):
                super().__init__()
                self.model = model

            def forward(self, x):
                return self.model.posterior(x)
    """})
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(11, "BL201"), (17, "BL401")}


def test_a_value_declared_as_an_interface_runs_the_classes_that_provide_it(tmp_path: Path) -> None:
    # `Controller` only declares its methods (`raise NotImplementedError`, `...`): a class of the
    # tree with a method of each of those names provides it without deriving from it, and a value
    # annotated `Controller` may hold one (an attribute or a parameter). A class lacking one of the
    # methods does not provide it, nor does any class provide a one-method declaration or a base
    # class whose methods do something
    write(tmp_path, {"solve.py": """
        import torch
        from torch import nn

        class Controller(nn.Module):
            def init(self, x):
                \"\"\"The first step.\"\"\"
                raise NotImplementedError()

            def adapt(self, x):
                ...

        class Integral(nn.Module):
            def init(self, x):
                return x

            def adapt(self, x):
                print("integral")
                return x

        class Partial(nn.Module):
            def adapt(self, x):
                print("lacks init")

        class Hook:
            def run(self, x):
                raise NotImplementedError

        class Logged:
            def run(self, x):
                print("never: one method declares no interface")

        class Base:
            def start(self, x):
                return x

            def adjust(self, x):
                return x

        class Other:
            def start(self, x):
                return x

            def adjust(self, x):
                print("never: Base's methods have bodies")

        class Solver:
            def __init__(self, controller: Controller, hook: Hook, base: Base):
                self.controller = controller
                self.hook = hook
                self.base = base

            def solve(self, x):
                self.hook.run(x)
                self.base.adjust(x)
                return self.controller.adapt(self.controller.init(x))

        def step(controller: Controller, x):
            return controller.adapt(x)
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["*solve.Solver.solve"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(18, "BL401")}
    config.entry_points = ["*solve.step"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(18, "BL401")}


def test_a_parameter_annotated_with_a_protocol_runs_its_implementers(tmp_path: Path) -> None:
    # a `typing.Protocol` is an interface of `...` methods: what provides every one of them is called
    write(tmp_path, {"proto.py": """
        from typing import Protocol

        import torch

        class Stepper(Protocol):
            def step(self, x: torch.Tensor) -> torch.Tensor: ...

            def reset(self) -> None: ...

        class Euler:
            def step(self, x):
                if x.sum() > 0:
                    return x
                return -x

            def reset(self):
                pass

        def integrate(stepper: Stepper, x):
            return stepper.step(x)
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["*proto.integrate"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(13, "BL201")}


def test_apply_through_a_local_that_names_the_function_class() -> None:
    # `func = Solve` then `func.apply(x)`: the local names the class, so `Solve.forward` runs; a
    # method of a function held so (`cache_clear` of a cached helper) does not run the function
    assert codes_by_line("""
        import functools

        import torch
        from torch.autograd import Function

        class Solve(Function):
            @staticmethod
            def forward(ctx, x):
                if x.sum() > 0:
                    return x
                return -x

        @functools.lru_cache
        def helper(n):
            print("never")

        @torch.compile
        def solve(x):
            func = Solve
            cached = helper
            cached.cache_clear()
            return func.apply(x)
    """) == {10: "BL201"}


def test_apply_of_an_autograd_function_runs_its_forward() -> None:
    # dynamo traces `Clip.apply(x, 1.0)` through `Clip.forward(ctx, x, limit)`: the arguments land
    # on the parameters after `ctx`; and through `Clip.backward` where an input needs its gradient
    # (handed the gradients, not `apply`'s arguments); `apply` of a class that is no autograd.Function
    # reaches nothing
    assert codes_by_line("""
        import torch

        class Base(torch.autograd.Function):
            pass

        class Clip(Base):
            @staticmethod
            def forward(ctx, x, limit):
                if x.sum() > limit:
                    x = x / 2
                return x

            @staticmethod
            def backward(ctx, g):
                print(g)
                return g, None

        class Plain:
            @staticmethod
            def apply(x):
                print(x)

            def forward(self, x):
                print(x)

        @torch.compile
        def run(x):
            Plain.apply(x)
            return Clip.apply(x, 1.0)
    """) == {10: "BL201", 16: "BL401", 22: "BL401"}  # Plain.apply is a plain static method, called as one


def test_classes_a_factory_function_returns_are_built_and_their_methods_run(tmp_path: Path) -> None:
    # `solver_cls = methods.select(method)` holds a class `select` returns (here from a dict literal
    # indexed by the method's name), so `solver_cls(...)` runs its `__init__` and `solver.integrate`
    # its method; a class no factory returns stays unreached, and a call that returns no class
    # (`helper(x)`) adds no edge
    write(tmp_path, {
        "fac/__init__.py": "",
        "fac/solvers.py": """
            import torch

            class Euler:
                def __init__(self, dt):
                    self.dt = dt

                def integrate(self, y0, ts):
                    print("euler")
                    return y0

            class Heun:
                def __init__(self, dt):
                    print("heun init")
                    self.dt = dt

                def integrate(self, y0, ts):
                    if ts[0] > 0:
                        return y0
                    return -y0

            class Unused:
                def integrate(self, y0, ts):
                    print("never")
        """,
        "fac/methods.py": """
            import torch
            from .solvers import Euler, Heun

            def select(method):
                return {"euler": Euler, "heun": Heun}[method]

            def helper(x):
                return x * 2
        """,
        "fac/api.py": """
            import torch
            from . import methods

            def sdeint(y0, ts, method="euler"):
                solver_cls = methods.select(method)
                scaled = methods.helper(y0)
                solver = solver_cls(dt=0.1)
                return solver.integrate(scaled, ts)
        """,
    })
    config = Config(root=tmp_path)
    config.entry_points = ["*api.sdeint"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.path.name, f.line, f.code) for f in result.findings} == {
        ("solvers.py", 9, "BL401"), ("solvers.py", 14, "BL401"), ("solvers.py", 18, "BL201"),
        ("api.py", 9, "BL426")}  # a method that breaks, on the solver built in compiled code


def test_files_that_never_name_torch_are_read_too(tmp_path: Path) -> None:
    # `fixed.py` never names torch, yet its solver overrides a method compiled code runs, and
    # `pkg/__init__.py` (imports alone) is where the entry point's package exports it from
    write(tmp_path, {
        "pkg/__init__.py": """
            from .api import solve
            from .fixed import Euler
        """,
        "pkg/base.py": """
            import torch

            class Solver:
                def integrate(self, y):
                    return self._step(y)

                def _step(self, y):
                    return y
        """,
        "pkg/fixed.py": """
            from .base import Solver

            class Euler(Solver):
                def _step(self, y):
                    if y.sum() > 0:
                        return y
                    return -y
        """,
        "pkg/api.py": """
            import torch
            from .fixed import Euler

            @torch.compile
            def solve(y):
                solver = Euler()
                return solver.integrate(y)
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert {(f.path.name, f.line, f.code) for f in result.findings} == {("fixed.py", 6, "BL201"), ("api.py", 8, "BL426")}


def test_methods_of_annotated_parameters_and_of_a_constructor_call() -> None:
    # `sde: BaseSDE` may be any subclass: `sde.f(...)` runs BaseSDE.f and each override; a name
    # rebound in the function forgets its annotation; `Stepper(0.1).step(out)` runs `__init__`
    # and `step` (the constructor breaks, so the object is a real one by the call, whose bound method
    # dynamo rebuilds: no second break there, probed on 2.13)
    assert codes_by_line("""
        import torch

        class BaseSDE:
            def f(self, t, y):
                return y

            def g(self, t, y):
                print("g")

        class Linear(BaseSDE):
            def f(self, t, y):
                if y.sum() > 0:
                    return y
                return -y

        class Stepper:
            def __init__(self, dt):
                print("init")
                self.dt = dt

            def step(self, y):
                print("step")
                return y

        def integrate(sde: BaseSDE, y, ts):
            out = sde.f(ts[0], y)
            sde = object()
            sde.g(ts[0], y)
            return Stepper(0.1).step(out)

        @torch.compile
        def run(y, ts):
            return integrate(Linear(), y, ts)
    """) == {13: "BL201", 19: "BL401", 23: "BL401"}


def test_methods_named_through_getattr_on_self() -> None:
    # `getattr(self, "_loss")(x)` runs `_loss`; `self.fn = getattr(self, f"_run_{mode}")` holds one of
    # the methods whose name starts with `_run_` (in this class or a subclass), and `self.fn(x)`
    # runs each; other methods stay unreached
    assert codes_by_line("""
        from torch import nn

        class M(nn.Module):
            def __init__(self, mode="a"):
                super().__init__()
                self.fn = getattr(self, f"_run_{mode}")

            def _run_a(self, x):
                print("a")
                return x

            def _loss(self, x):
                print("loss")
                return x

            def _other(self, x):
                print("never")

            def forward(self, x):
                getattr(self, "_loss")(x)
                return self.fn(x)

        class N(M):
            def _run_b(self, x):
                print("b")
                return x
    """) == {10: "BL401", 14: "BL401", 26: "BL401"}


def test_what_constructors_are_handed_runs_where_the_attribute_is_called(tmp_path: Path) -> None:
    # A base class stores what its constructor is handed (`self.head = head`, `self.post = post`);
    # a subclass in another file hands over an instance built in a local, one built in the call,
    # and a function by keyword; the base's forward calls each: their code runs under compile. A
    # function default (`loss_fn=dice`) is held unless a caller hands over another; a class handed
    # over and built by the constructor (`self.cell = cell_cls()`) is an instance of that class.
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            from torch import nn

            def dice(y):
                print("dice")
                return y

            class Detector(nn.Module):
                def __init__(self, backbone, head, post=None, loss_fn=dice, cell_cls=None):
                    super().__init__()
                    self.backbone = backbone
                    self.head = head
                    self.post = post
                    self.loss_fn = loss_fn
                    self.cell = cell_cls()

                def forward(self, x):
                    y = self.head(self.backbone(x))
                    y = self.post(y)
                    self.cell.reset(y)
                    return self.loss_fn(self.head.decode(y))
        """,
        "pkg/models.py": """
            import torch

            from .base import Detector

            def nms(y):
                keep = torch.nonzero(y > 0)
                return y[keep]

            def unused(y):
                print("never handed over")

            class Head:
                def __call__(self, f):
                    print("head")
                    return f

                def decode(self, y):
                    return y.tolist()

            class Backbone:
                def __call__(self, x):
                    print("backbone")
                    return x

            class Cell:
                def reset(self, y):
                    print("reset")

            class MyDetector(Detector):
                def __init__(self):
                    backbone = Backbone()
                    super().__init__(backbone, Head(), post=nms, cell_cls=Cell)
        """,
    })
    result = lint([tmp_path], Config())
    found = {(f.path.name, f.line, f.code) for f in result.findings}
    assert found == {
        ("base.py", 5, "BL401"),  # dice, the default
        ("models.py", 7, "BL301"),  # nms, handed by keyword
        ("models.py", 15, "BL401"), ("models.py", 19, "BL102"),  # Head(): __call__ and decode
        ("models.py", 23, "BL401"),  # a local built from Backbone, handed by position
        ("models.py", 28, "BL401"),  # Cell, built by the constructor, its method called
    }


def test_methods_of_what_a_parameter_is_handed() -> None:
    # `integrate(Noise(), y, run_twice)`: `sde.f(...)` runs `Noise.f` (and overrides of it), `runner(z)`
    # runs `run_twice`; a parameter handed on (`inner(sde)`) is followed to the outer caller; a
    # class nobody hands over stays unreached
    assert codes_by_line("""
        import torch
        from torch import nn

        class Noise:
            def f(self, t, y):
                if t > 0.5:
                    return y
                return y

        class Louder(Noise):
            def f(self, t, y):
                print("louder")
                return y

        class Unused:
            def f(self, t, y):
                print("never")

        def inner(sde, y):
            return sde.f(y.sum(), y)

        def integrate(sde, y, runner):
            z = inner(sde, y)
            return runner(z)

        def run_twice(z):
            return z.item()

        class Solver(nn.Module):
            def forward(self, y):
                return integrate(Noise(), y, run_twice)
    """) == {7: "BL201", 13: "BL401", 28: "BL101"}


def test_an_attribute_handed_to_a_function_runs_what_it_holds() -> None:
    # `Solve.apply(self.inner, x)`: `forward(ctx, inner, x)` calls `inner.solve(x)`, which runs
    # `Inner.solve` (the instance built in the attribute); there `self.controller` holds the
    # instance handed to the constructor (`Integral()`) and, by its annotation, any override of
    # `adapt`; a function stored in an attribute and handed on through a local (`hook = self.hook`)
    # runs where it is called; an attribute handed back into its own class's constructor
    # (`Outer(self.again)`) ends
    assert codes_by_line("""
        import torch
        from torch import nn

        class Controller:
            def adapt(self, x):
                return x

        class Integral(Controller):
            def adapt(self, x):
                return torch.add(x, x, alpha=x.sum())

        class Inner(nn.Module):
            def __init__(self, controller: Controller):
                super().__init__()
                self.controller = controller

            def solve(self, x):
                return self.controller.adapt(x)

        class Solve(torch.autograd.Function):
            @staticmethod
            def forward(ctx, inner, x):
                return inner.solve(x)

        def report(x):
            print(x)
            return x

        def run(fn, x):
            return fn(x)

        class Outer(nn.Module):
            def __init__(self, inner=None):
                super().__init__()
                self.inner = Inner(Integral())
                self.hook = report
                self.again = inner

            def forward(self, x):
                hook = self.hook
                y = run(hook, Solve.apply(self.inner, x))
                return Outer(self.again)(y)
    """) == {11: "BL103", 27: "BL401"}


def test_a_function_reached_only_in_training_names_the_condition() -> None:
    # `self.loss(...)` is called only under `if self.training:`: its findings, and those of what it
    # calls, say so and where; `decode` is reached in both modes, and `shared` both under the
    # condition and without it, so neither names one
    found = {f.line: f for f in lint_source(dedent("""
        import torch
        from torch import nn

        def focal(logits, target):
            if target.sum() == 0:
                return logits.sum() * 0
            return logits.mean()

        def shared(y):
            print("shared")
            return y

        def decode(y):
            return y[torch.nonzero(y > 0)]

        class Head(nn.Module):
            def forward(self, x, target=None):
                y = shared(x * 2)
                if self.training:
                    return self.loss(y, target)
                return decode(y)

            def loss(self, y, target):
                print("loss")
                return focal(shared(y), target)
    """), Path("m.py"), Config())}
    assert sorted(found) == [6, 11, 15, 25]
    assert found[6].message.endswith("(reached only when `self.training`, in `Head.forward`)")
    assert found[25].condition == found[25].reached_when == "self.training" and found[25].kind == "break"
    assert "reached only" not in found[11].message + found[15].message


def test_a_function_reached_only_for_half_precision_inputs_is_a_hazard() -> None:
    found = lint_source(dedent("""
        import torch
        from torch import nn

        def upcast(x):
            print("upcast")
            return x.float()

        class M(nn.Module):
            def forward(self, x):
                if x.dtype == torch.float16:
                    x = upcast(x)
                return x * 2
    """), Path("m.py"), Config())
    assert [(f.line, f.code, f.kind, f.condition) for f in found] == [(6, "BL401", "hazard", "x.dtype == torch.float16")]


def test_a_recurrent_module_class_handed_to_a_constructor_in_another_file(tmp_path: Path) -> None:
    # `Encoder(rnn_layer=nn.GRU)` in one file, `self.rnn = rnn_layer(...)` and `self.rnn(x)` in
    # another: BL413, unless the project sets `allow_rnn`
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/enc.py": """
            from torch import nn

            class Encoder(nn.Module):
                def __init__(self, rnn_layer, hidden=4):
                    super().__init__()
                    self.rnn = rnn_layer(hidden, hidden)

                def forward(self, x):
                    y, _ = self.rnn(x)
                    return y
        """,
        "pkg/model.py": """
            from torch import nn

            from .enc import Encoder

            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.enc = Encoder(rnn_layer=nn.GRU)

                def forward(self, x):
                    return self.enc(x)
        """,
    })
    found = [(f.path.name, f.line, f.code) for f in lint([tmp_path], Config()).findings]
    assert found == [("enc.py", 10, "BL413")]
    assert not lint([tmp_path], Config(dynamo_config={"allow_rnn": ["true"]})).findings


def test_reading_a_property_runs_its_getter() -> None:
    # `self.lengthscale` and `self.scale` (a base class's property) are read in forward: their getters
    # run under compile; a property nothing reads, and a method read without a call, do not run
    assert codes_by_line("""
        import torch
        from torch import nn

        class Base(nn.Module):
            @property
            def scale(self):
                print("scale")
                return 2.0

            def helper(self):
                print("never called")

        class Kernel(Base):
            def __init__(self):
                super().__init__()
                self.raw = nn.Parameter(torch.zeros(3))

            @property
            def lengthscale(self):
                if self.raw.sum() > 0:
                    return self.raw.exp()
                return self.raw

            @property
            def unused(self):
                print("never read")

            def forward(self, x):
                fn = self.helper
                return x * self.lengthscale * self.scale
    """) == {8: "BL401", 21: "BL201"}


def test_an_object_built_in_compiled_code_and_called_runs_its_call_method() -> None:
    # a matcher built in forward and called (`matcher(x)`), and a module built and called at once
    # (`Loss()(y)`): `Matcher.__call__` and `Loss.forward` run under compile; a built object that is
    # never called does not run its `__call__`
    assert codes_by_line("""
        import torch
        from torch import nn

        class Matcher:
            def __init__(self, cost):
                self.cost = cost

            def __call__(self, x):
                if x.sum() > 0:
                    return x
                return x + 1

        class Unused:
            def __call__(self, x):
                print("never called")

        class Loss(nn.Module):
            def forward(self, x):
                print("loss")
                return x

        class M(nn.Module):
            def forward(self, x):
                matcher = Matcher(1.0)
                unused = Unused()
                return Loss()(matcher(x)), unused
    """) == {10: "BL201", 20: "BL401"}


def test_methods_held_in_a_dict_run_when_looked_up_and_called() -> None:
    # a criterion keeps its losses in a dict of bound methods (in `__init__`, or a local one), and
    # forward calls them by key: each method the dict holds runs; one no dict holds does not
    assert codes_by_line("""
        import torch
        from torch import nn

        class Criterion(nn.Module):
            def __init__(self):
                super().__init__()
                self.loss_map = {"labels": self.loss_labels, "boxes": self.loss_boxes}

            def loss_labels(self, out, tgt):
                if out.sum() > 0:
                    return out
                return tgt

            def loss_boxes(self, out, tgt):
                print("boxes")
                return out

            def loss_cardinality(self, out, tgt):
                return (out > 0).sum().item()

            def unused(self, out):
                print("never")

            def get_loss(self, loss, out, tgt):
                local = {"card": self.loss_cardinality}
                return local[loss](out, tgt)

            def forward(self, out, tgt):
                losses = [self.loss_map[k](out, tgt) for k in ("labels", "boxes")]
                return losses, self.get_loss("card", out, tgt)
    """) == {11: "BL201", 16: "BL401", 20: "BL101"}


def test_objects_a_factory_function_returns_run_their_methods(tmp_path: Path) -> None:
    # `bm = make_noise(shape)` holds an instance the factory built: `bm(t0, t1)` runs its
    # `__call__`, `bm.sample()` and `make_noise(s).draw()` its methods, and a classmethod that
    # returns `cls(...)` gives an instance of its class; a method nothing calls stays unreached
    write(tmp_path, {
        "fac/__init__.py": "",
        "fac/noise.py": """
            import torch

            class Noise:
                def __init__(self, shape):
                    self.shape = shape

                @classmethod
                def like(cls, y):
                    return cls(y.shape)

                def __call__(self, ta, tb):
                    print("call")
                    return torch.randn(self.shape)

                def sample(self):
                    print("sample")
                    return torch.randn(self.shape)

                def draw(self):
                    print("draw")
                    return torch.randn(self.shape)

                def step(self):
                    print("step")
                    return torch.randn(self.shape)

                def unused(self):
                    print("never")

            def make_noise(shape):
                noise = Noise(shape)
                return noise

            def make_again(shape):
                return make_noise(shape)
        """,
        "fac/api.py": """
            from .noise import Noise, make_noise, make_again

            def sdeint(y0):
                bm = make_noise(y0.shape)
                other = make_again(y0.shape)
                return bm(0.0, 1.0) + other.sample() + make_noise(y0.shape).draw() + Noise.like(y0).step()
        """,
    })
    config = Config(root=tmp_path)
    config.entry_points = ["*api.sdeint"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.path.name, f.line) for f in result.findings if f.code == "BL401"} == {
        ("noise.py", 13), ("noise.py", 17), ("noise.py", 21), ("noise.py", 25)}


def test_a_context_manager_of_the_tree_runs_enter_and_exit() -> None:
    # `with Timer():`, `with timer:` and `with self.guard:` run the class's `__enter__` and
    # `__exit__` under compile; a context manager of another package is not looked into
    assert codes_by_line("""
        import contextlib
        import torch
        from torch import nn

        class Timer:
            def __enter__(self):
                print("enter")
                return self

            def __exit__(self, *exc):
                print("exit")
                return False

        class Guard:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                print("guard exit")

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.guard = Guard()

            def forward(self, x):
                with Timer():
                    x = x + 1
                timer = Timer()
                with timer, self.guard, contextlib.nullcontext():
                    return x * 2
    """) == {8: "BL401", 12: "BL401", 20: "BL401"}


def test_a_property_s_instance_and_a_class_attribute_holding_a_class() -> None:
    # `self.helper.sample()` runs the method of the instance the property returns; `noise_cls =
    # Noise` in the class body holds a class, so `self.noise_cls(shape)` builds one (its `__init__`
    # runs, not its `__call__`) and the method of what it built runs
    assert codes_by_line("""
        import torch
        from torch import nn

        class Helper:
            def sample(self):
                print("helper")

        class Noise:
            def __init__(self, shape):
                print("init")

            def __call__(self, x):
                print("never: the class is built, not called")

            def sample(self):
                print("noise")

        class M(nn.Module):
            noise_cls = Noise
            EPS = 1e-6

            @property
            def helper(self):
                return Helper()

            def forward(self, x):
                self.helper.sample()
                noise = self.noise_cls(x.shape)
                return noise.sample()
    """) == {7: "BL401", 11: "BL401", 17: "BL401", 30: "BL426"}


def test_names_imported_inside_a_function_resolve_there_only(tmp_path: Path) -> None:
    # a package's own module imported in the function (against an import cycle) reaches its
    # functions; `import numpy as np` in forward makes `np.random` numpy's; after the function the
    # name means what the module says again (here a local function of the same name)
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            def helper(x):
                print("helper")
                return x
        """,
        "pkg/model.py": """
            import torch
            from torch import nn

            def np_random():
                return 0.5

            class M(nn.Module):
                def forward(self, x):
                    from .ops import helper
                    import numpy as np
                    return helper(x) * np.random.rand()

            class N(nn.Module):
                def forward(self, x):
                    np = 1
                    return x * np
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert {(f.path.name, f.line, f.code) for f in result.findings} == {
        ("ops.py", 3, "BL401"), ("model.py", 12, "BL405")}


def test_an_attribute_set_from_a_factory_holds_what_it_returns(tmp_path: Path) -> None:
    # `self.noise = make_noise(...)` in `__init__`: forward's `self.noise.sample()` and `self.noise(...)`
    # run the methods of the instance the factory built; `self.table = make_table(4)` is the tensor
    # it returns; an attribute from a factory of a function holds that function
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/parts.py": """
            import torch

            class Noise:
                def __call__(self, t):
                    print("call")
                    return t

                def sample(self):
                    print("sample")
                    return torch.zeros(3)

                def unused(self):
                    print("never")

            def make_noise():
                return Noise()

            def make_table(n):
                return torch.arange(n)

            def scale(x):
                print("scale")
                return x

            def pick_fn(name):
                return scale
        """,
        "pkg/model.py": """
            import torch
            from .parts import make_noise, make_table, pick_fn

            class Model(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.noise = make_noise()
                    self.table = make_table(4)
                    self.fn = pick_fn("scale")
                    self.count = len("abc")

                def forward(self, x):
                    if self.table[0] > 0:
                        x = x + 1
                    if self.count > 1:
                        x = x - 1
                    return self.fn(self.noise.sample() + self.noise(x))
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert {(f.path.name, f.line, f.code) for f in result.findings} == {
        ("parts.py", 6, "BL401"), ("parts.py", 10, "BL401"), ("parts.py", 23, "BL401"), ("model.py", 14, "BL201")}


def test_a_name_of_another_package_handed_to_a_call_is_no_edge() -> None:
    # `map(Integral, ...)` hands over a class of the standard library: a reference that is not the
    # tree's, which reach skips (it once raised on it)
    assert codes_by_line("""
        from numbers import Integral
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                kinds = list(map(Integral, [1]))
                print(kinds)
                return x
    """) == {8: "BL401"}


_CALLERS_IN_ORDER = """
import sys
from pathlib import Path
from breaklint.analysis.reach import Reach
from breaklint.analyze import analyze_source

root = Path(sys.argv[1])
results = [analyze_source(p.read_text(), p, p.stem) for p in sorted(root.glob("*.py"))]
reach = Reach([r.summary for r in results], [], [])
print([caller for caller, _, _ in reach.callers["helpers.helper"]])
"""


def test_the_walk_and_the_callers_it_finds_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    # a callee's callers are joined in the order the walk found them (cycles cut where the walk
    # came in): that order once followed a set of the roots, and results changed with PYTHONHASHSEED
    import os
    import subprocess
    import sys

    write(tmp_path, {
        "helpers.py": """
            def helper(x, n):
                return x * n
        """,
        "models.py": "import torch\nfrom helpers import helper\n" + "".join(
            f"\nclass Block{i}(torch.nn.Module):\n    def forward(self, x):\n        return helper(x, {i})\n"
            for i in range(12)),
    })
    orders = {
        subprocess.run([sys.executable, "-c", _CALLERS_IN_ORDER, str(tmp_path)], capture_output=True, text=True,
                       check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
        for seed in range(4)
    }
    assert len(orders) == 1
    assert eval(orders.pop()) == [f"models.Block{i}.forward" for i in range(12)]


def test_a_local_holding_an_attribute_runs_its_methods() -> None:
    """`control = self.control` (or `step, control = self.step, self.control`) then
    `control.adapt(y)` runs what `self.control.adapt(y)` would: the object a constructor was handed."""
    found = codes_by_line("""
        import torch
        from torch import nn

        class Control(nn.Module):
            def __init__(self, rtol: float):
                super().__init__()
                self.register_buffer("rtol", torch.tensor(rtol))

            def adapt(self, y):
                return torch.add(y, y.abs(), alpha=self.rtol)

            def init(self, y):
                print("init")
                return y

        class Solver(nn.Module):
            def __init__(self, control: Control, scale: float):
                super().__init__()
                self.control = control
                self.scale = scale

            def forward(self, y):
                control = self.control
                y = control.adapt(y)
                first, scale = self.control, self.scale
                return first.init(y) * scale

        class Totals(nn.Module):
            def sum(self):
                print("not reached")

        class Rebound(nn.Module):
            def __init__(self, totals: Totals):
                super().__init__()
                self.totals = totals

            def forward(self, y):
                totals = self.totals
                totals = y * 2  # no longer the attribute
                return totals.sum()
    """)
    assert found == {11: "BL103", 14: "BL401"}


def test_a_generic_base_is_its_class() -> None:
    """`class Fixed(Controller[State])` subclasses `Controller`: a method called on an attribute
    annotated `Controller` runs the subclass's override too."""
    found = codes_by_line("""
        from typing import Generic, TypeVar

        from torch import nn

        S = TypeVar("S")

        class Controller(nn.Module, Generic[S]):
            def adapt(self, y):
                return y

        class Fixed(Controller[int]):
            def adapt(self, y):
                print("fixed")
                return y

        class Solver(nn.Module):
            def __init__(self, control: Controller):
                super().__init__()
                self.control = control

            def forward(self, y):
                return self.control.adapt(y)
    """)
    assert found == {14: "BL401"}


def test_an_object_built_in_compiled_code_holds_what_its_constructor_was_passed(tmp_path: Path) -> None:
    """`Problem(y0, t_eval)` in the entry point, then `problem.t_eval` in the solver it is handed to:
    the attribute holds what the call passed (here the entry point's tensor). Where the tree never
    builds the class in compiled code, such an attribute stays undecided."""
    write(tmp_path, {"pk/__init__.py": "", "pk/problems.py": """
        class Problem:
            def __init__(self, y0, t_eval, flag=False):
                self.y0 = y0
                self.t_eval = t_eval
                self.flag = flag


        class Unbuilt:
            def __init__(self, mask):
                self.mask = mask
    """, "pk/solver.py": """
        import torch

        from .problems import Problem, Unbuilt


        def solve(problem: Problem):
            y_eval = torch.zeros_like(problem.y0)
            at_start = problem.t_eval[:, 0] == 0
            y_eval[at_start] = 1.0
            return y_eval[at_start]


        def other(state: Unbuilt, x):
            return x[state.mask == 1]


        def solve_ivp(y0, t_eval):
            return solve(Problem(y0, t_eval))
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["pk.solver.solve_ivp", "pk.solver.other"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(f.path.name, f.line, f.code) for f in result.findings} == {("solver.py", 11, "BL302")}


def test_a_pydantic_model_built_in_compiled_code_breaks_and_runs_its_validators(tmp_path: Path) -> None:
    # building the model breaks (pydantic-core validates it), wherever its `BaseModel` base is
    # declared; pydantic then calls the validators, which dynamo traces as frames of their own;
    # a method no validator decorator marks, and a model built outside compiled code, are not run
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            from pydantic import BaseModel

            class TensorModel(BaseModel):
                model_config = {"arbitrary_types_allowed": True}
        """,
        "pkg/checks.py": """
            import torch
            from pydantic import field_validator

            from .base import TensorModel

            class Inputs(TensorModel):
                time: torch.Tensor

                @field_validator("time", mode="before")
                @classmethod
                def non_negative(cls, v):
                    if torch.any(v < 0):
                        raise ValueError("negative time")
                    return v

                def unused(self, v):
                    if torch.any(v < 0):
                        raise ValueError("never run")
                    return v
        """,
        "pkg/loss.py": """
            import torch

            from .checks import Inputs

            @torch.compile
            def loss(time):
                checked = Inputs(time=time)
                return checked.time.sum()

            def outside(time):
                return Inputs(time=time)
        """,
    })
    found = {(f.path.name, f.line, f.code) for f in lint([tmp_path], Config(root=tmp_path), use_cache=False).findings}
    assert found == {("loss.py", 8, "BL411"), ("checks.py", 13, "BL201")}


def test_a_class_attribute_that_a_subclass_overrides_builds_either_class(tmp_path: Path) -> None:
    # `struct = Chain` in the base, `struct = Tree` in a subclass of another file: `self.struct(2)`
    # in the base's method may build either (as `self.method()` may run an override), and a method
    # called on what it built, directly or through a local, runs on each; an instance of what the
    # attribute holds handed to a function runs there too
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            import torch

            class Chain:
                def __init__(self, k):
                    self.k = k

                def total(self, x):
                    return x.sum() * self.k

            def use(s, x):
                return s.total(x)

            class Dist:
                struct = Chain

                def __init__(self, x):
                    self.x = x

                def direct(self):
                    return self.struct(2).total(self.x)

                def through_a_local(self):
                    s = self.struct(2)
                    return s.total(self.x)

                def handed(self):
                    return use(self.struct(2), self.x)
        """,
        "pkg/tree.py": """
            from .base import Chain, Dist

            class Tree(Chain):
                def total(self, x):
                    print("tree")
                    return x.sum()

            class Other:
                def total(self, x):
                    print("never built here")
                    return x

            class TreeDist(Dist):
                struct = Tree
        """,
    })
    for method in ("direct", "through_a_local", "handed"):
        result = lint([tmp_path], Config(root=tmp_path, entry_points=[f"pkg.base.Dist.{method}"]), use_cache=False)
        # `Tree.total` breaks (its print), reached from each; `Other` is in no attribute
        found = {(f.path.name, f.line, f.code) for f in result.findings if f.code == "BL401"}
        assert found == {("tree.py", 6, "BL401")}, method


def test_what_a_registrar_stores_in_a_module_level_table_is_run_by_a_call_of_its_entry(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": """
        from .registry import register, solve
        from .methods import Euler, Midpoint

        register("euler", Euler)
    """, "pkg/registry.py": """
        METHODS = {}
        LOSSES = {}

        def register(name, constructor):
            METHODS[name] = constructor

        def loss(name):
            def add(fn):
                LOSSES[name] = fn
                return fn
            return add

        def solve(y, method="euler", kind="l1"):
            stepper = METHODS[method](y)
            return LOSSES[kind](stepper.y)
    """, "pkg/methods.py": """
        from .registry import METHODS, loss

        class Euler:
            def __init__(self, y):
                print("euler")
                self.y = y

        class Midpoint:
            def __init__(self, y):
                print("midpoint")
                self.y = y

        class Unregistered:
            def __init__(self, y):
                print("never")
                self.y = y

        METHODS["midpoint"] = Midpoint

        @loss("l1")
        def l1(y):
            print("l1")
            return y.abs()

        def l2(y):
            print("never")
            return y * y
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["pkg.registry.solve"]
    result = lint([tmp_path], config, use_cache=False)
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    # the class registered by a call in another file, the one stored by a statement of its own
    # module, and the function a decorator factory registers; not what no one registers
    assert found == {("methods.py", 6, "BL401"), ("methods.py", 11, "BL401"), ("methods.py", 23, "BL401")}


def test_a_method_bound_to_a_local_runs_where_the_local_is_called_or_handed_on() -> None:
    # `closure = sf.closure` then `closure(x)` runs the method and gives what it returns (a tensor
    # here, which the test then reads); `step = self.step` the same on the instance; a bound method
    # handed to another function may run there; a local later bound to something else runs nothing
    assert codes_by_line("""
        import torch

        class Objective:
            def __init__(self, fun):
                self.fun = fun

            def closure(self, x):
                return torch.autograd.grad(self.fun(x), x)[0]

            def evaluate(self, x, t):
                print("evaluate")
                return x + t

            def unused(self, x):
                print("never")
                return x

        class Solver(torch.nn.Module):
            def step(self, x):
                print("step")
                return x

            def forward(self, x):
                step = self.step
                return step(x)

        def search(evaluate, x):
            return evaluate(x, 0.5)

        @torch.compile
        def minimize(fun, x0):
            sf = Objective(fun)
            closure = sf.closure
            g = closure(x0)
            if g.norm() < 1e-3:
                return x0
            ev = sf.evaluate
            y = search(ev, x0)
            other = sf.unused
            other = len
            return other(y)
    """) == {9: "BL419", 12: "BL401", 21: "BL401", 35: "BL426", 36: "BL201"}
    # (39: `search` is handed `ev`, a bound method of the object built here, and breaks through it; but
    # past line 35, which surely breaks, dynamo runs `minimize` eagerly and 39 is no break of its own)


def test_an_instance_built_from_a_class_the_callers_hand_over_runs_that_class_methods() -> None:
    # `m = subproblem(x)` of a parameter: `m.solve(r)` runs `solve` of each class the callers pass
    # for it (a method that breaks, on an object built in compiled code: BL426), and what it returns
    # is that method's value
    assert codes_by_line("""
        import torch

        class Base:
            def __init__(self, x):
                self.x = x

        class Steihaug(Base):
            def solve(self, r):
                return self.x * r

        class Exact(Base):
            def solve(self, r):
                print("exact")
                return self.x

        class Unused(Base):
            def solve(self, r):
                print("never")
                return self.x

        def trust_region(x0, subproblem):
            m = subproblem(x0)
            p = m.solve(2.0)
            if p.sum() > 0:
                return p
            return x0

        @torch.compile
        def run_steihaug(x):
            return trust_region(x, subproblem=Steihaug)

        @torch.compile
        def run_exact(x):
            return trust_region(x, Exact)
    """) == {14: "BL401", 24: "BL426", 25: "BL201"}


def test_reading_a_lazy_property_of_torch_distributions_runs_its_getter() -> None:
    # `torch.distributions.utils.lazy_property` is a property that caches what its getter returns
    assert codes_by_line("""
        import torch
        from torch.distributions.utils import lazy_property

        class Chain(torch.nn.Module):
            def __init__(self, potentials):
                super().__init__()
                self.potentials = potentials

            @lazy_property
            def partition(self):
                print("partition")
                return self.potentials.logsumexp(-1)

            def forward(self, y):
                return self.partition + y
    """) == {12: "BL401"}


def test_a_class_handed_over_runs_its_static_and_class_methods() -> None:
    # a class held as a strategy (`semiring=LogSemiring`, `self.semiring = semiring`):
    # `semiring.sum(x)` runs that class's static method and `semiring.dot(a, b)` its class method,
    # for each class the callers hand over and for the default where a call leaves it out; a class
    # that no call gives is not reached
    assert codes_by_line("""
        import torch

        class LogSemiring:
            @staticmethod
            def sum(x):
                return torch.logsumexp(x, -1)

            @classmethod
            def dot(cls, a, b):
                print(cls.__name__)
                return a @ b

        class MaxSemiring(LogSemiring):
            @staticmethod
            def sum(x):
                return x.max(-1).values[: int(x.max())]

        class CountSemiring(LogSemiring):
            @staticmethod
            def sum(x):
                print("never")
                return x

        def chain(x, semiring=LogSemiring):
            return semiring.dot(x, x)

        class Parser(torch.nn.Module):
            def __init__(self, semiring=LogSemiring):
                super().__init__()
                self.semiring = semiring

            def forward(self, x):
                return chain(self.semiring.sum(x))

        def build():
            return torch.compile(Parser(semiring=MaxSemiring))
    """) == {11: "BL401", 17: "BL103"}


def test_a_local_that_holds_a_parameter_or_an_attribute_runs_what_either_holds() -> None:
    # `semiring = semiring or self.semiring`, `... if ... else ...`, and a parameter bound again
    # under an `if` (`if semiring is None: semiring = self.semiring`): calling the local, or a method
    # of it, runs what the callers hand over and what the attribute holds
    assert codes_by_line("""
        import torch

        class LogSemiring:
            @staticmethod
            def sum(x):
                print("log")
                return torch.logsumexp(x, -1)

        class MaxSemiring(LogSemiring):
            @staticmethod
            def sum(x):
                print("max")
                return x.max(-1).values

        class KSemiring(LogSemiring):
            @staticmethod
            def sum(x):
                print("k")
                return x.sum(-1)

        class Never(LogSemiring):
            @staticmethod
            def sum(x):
                print("never")
                return x

        def soft(x):
            print("soft")
            return x

        class Chain(torch.nn.Module):
            def __init__(self, semiring=LogSemiring, act=soft):
                super().__init__()
                self.semiring = semiring
                self.act = act

            def _dp(self, x, semiring=None):
                semiring = semiring or self.semiring
                return semiring.sum(x)

            def _inside(self, x, semiring=None):
                if semiring is None:
                    semiring = self.semiring
                return semiring.sum(x)

            def _act(self, x, act=None):
                act = self.act if act is None else act
                return act(x)

            def forward(self, x):
                return self._dp(x, MaxSemiring) + self._inside(x, KSemiring) + self._act(x)

        def build():
            return torch.compile(Chain())
    """) == {7: "BL401", 13: "BL401", 19: "BL401", 29: "BL401"}


def test_a_private_method_on_an_object_of_unknown_class_runs_the_family_of_that_name() -> None:
    # `op = ctx.tree(*args)` gives an object whose class the tree cannot tell: `op._solve(rhs)` runs
    # `_solve` of the one family of classes that defines it (the base's and each override); a private
    # name that two unrelated classes define (`_step`) runs neither, and a public name (`solve`, a
    # tensor may have it) runs nothing
    assert codes_by_line("""
        import torch

        class Operator:
            def _solve(self, rhs):
                return rhs

        class Dense(Operator):
            def _solve(self, rhs):
                return rhs[: int(rhs.max())]

        class Diag(Operator):
            def _solve(self, rhs):
                print("diag")
                return rhs

        class Euler:
            def _step(self, x):
                print("euler")
                return x

        class Heun:
            def _step(self, x):
                print("heun")
                return x

        class Unrelated:
            def solve(self, rhs):
                print("public")
                return rhs

        def solve(make, rhs):
            op = make.tree(rhs)
            out = op._solve(rhs)
            return op._step(out) + op.solve(out)

        @torch.compile
        def run(make, rhs):
            return solve(make, rhs)
    """) == {10: "BL103", 14: "BL401"}


def test_a_method_reached_by_its_name_alone_does_not_make_its_caller_break() -> None:
    # the caller of a method found by name alone is not taken to break where that method does: an
    # object built in compiled code whose method calls `op._matmul(x)` is not reported (BL426),
    # while the method that breaks is
    assert codes_by_line("""
        import torch

        class Operator:
            def _matmul(self, x):
                return x

            def apply(self, make, x):
                op = make.tree(x)
                return op._matmul(x)

        class Cat(Operator):
            def _matmul(self, x):
                print("cat")
                return x

        @torch.compile
        def run(make, x):
            op = Operator()
            y = op.apply(make, x)
            return y + 1
    """) == {14: "BL401"}


def test_the_methods_of_what_a_method_of_the_instance_returns_run() -> None:
    # `self._struct().sum(x)` and `s = self._struct()` then `s.sum(x)`: the method of the object
    # that `_struct` (or a subclass's override of it) returns runs, as for a module-level factory
    assert codes_by_line("""
        import torch

        class Chain:
            def sum(self, x):
                return x[: int(x.max())]

        class Tree:
            def marginals(self, x):
                print("tree")
                return x

        class Base(torch.nn.Module):
            def _struct(self):
                return Chain()

        class Model(Base):
            def forward(self, x):
                s = self._struct()
                return s.sum(x) + self._helper().marginals(x)

            def _helper(self):
                return Tree()

        class Other(Model):
            def _struct(self):
                return Tree()
    """) == {6: "BL103", 10: "BL401", 20: "BL426"}


def test_a_property_read_on_another_object_runs_its_getter() -> None:
    # dynamo runs a property's getter wherever the attribute is read: on an object built in compiled
    # code, on a parameter the callers hand an instance, on what `self.helper` holds; a method that is
    # only read (a bound method kept, never called) does not run, and neither does an unread property
    assert codes_by_line("""
        import torch
        from torch import nn
        from torch.distributions.utils import lazy_property

        class Dist:
            def __init__(self, x):
                self.x = x

            @property
            def total(self):
                return self.x.sum().item()

            @lazy_property
            def peak(self):
                return self.x.max().item()

            @property
            def unread(self):
                print("never read")

            def method(self):
                print("never called")

        def spread(dist):
            return dist.peak

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.helper = Dist(torch.zeros(3))

            def forward(self, x):
                dist = Dist(x)
                kept = dist.method
                return dist.total + spread(dist) + self.helper.total
    """) == {12: "BL101", 16: "BL101"}


def test_a_method_decorated_with_a_descriptor_class_of_the_tree_is_a_getter(tmp_path: Path) -> None:
    # a package's own caching decorator (a class with `__get__` that calls what it wraps), defined in
    # another module: reading the attribute runs the decorated method, as a property's getter runs
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            class cached:
                def __init__(self, wrapped):
                    self.wrapped = wrapped

                def __get__(self, instance, owner=None):
                    value = self.wrapped(instance)
                    setattr(instance, self.wrapped.__name__, value)
                    return value

            class plain:
                def __init__(self, wrapped):
                    self.wrapped = wrapped
        """,
        "pkg/model.py": """
            import torch
            from torch import nn
            from .utils import cached, plain

            class M(nn.Module):
                @cached
                def norm(self):
                    print("norm")
                    return 2.0

                @plain
                def other(self):
                    print("a decorator with no __get__ makes no getter")

                def forward(self, x):
                    return x * self.norm * self.other
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    assert found == {("model.py", 9, "BL401")}


def test_a_decorator_of_the_tree_that_returns_a_wrapper_runs_around_each_call(tmp_path: Path) -> None:
    # `@logged` returns a function it defines: that wrapper runs wherever `helper` is called (probed:
    # dynamo breaks at its `print`); `@register` hands back what it decorates, and runs only at import
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            import functools

            REGISTRY = {}

            def logged(fn):
                @functools.wraps(fn)
                def inner(*args, **kwargs):
                    print("calling", fn.__name__)
                    return fn(*args, **kwargs)
                return inner

            def register(fn):
                print("registered", fn.__name__)
                REGISTRY[fn.__name__] = fn
                return fn
        """,
        "pkg/model.py": """
            import torch
            from torch import nn
            from .utils import logged, register

            @logged
            def helper(x):
                return x * 2

            @register
            def other(x):
                return x + 1

            class M(nn.Module):
                def forward(self, x):
                    return helper(x) + other(x)
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    assert found == {("utils.py", 9, "BL401")}


def test_a_function_a_factory_makes_runs_where_what_keeps_it_is_called(tmp_path: Path) -> None:
    # `make_tau(variant)` defines `tau` and returns it: kept by the constructor (`self.act = make_tau("a")`),
    # handed to a base's constructor (`super().__init__(make_tau("b"))`, directly or through a local) and
    # called in compiled code, only `tau` runs there (probed: dynamo breaks at its `print`); the factory's own
    # `print` ran when the module was built, and a factory no compiled code calls what it made of stays out
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/factories.py": """
            def make_tau(variant):
                print("building", variant)

                def tau(x):
                    print("tau", variant)
                    return x * 2

                return tau

            def make_sigma(variant):
                print("building", variant)

                def sigma(x):
                    print("sigma", variant)
                    return x * 3

                return sigma

            def make_rho(variant):
                print("building", variant)

                def rho(x):
                    print("rho", variant)
                    return x * 4

                return rho

            def make_unused(variant):
                def unused(x):
                    print("unused", variant)
                    return x

                return unused
        """,
        "pkg/model.py": """
            from torch import nn
            from .factories import make_rho, make_sigma, make_tau, make_unused

            class Keeps(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.act = make_tau("a")
                    self.spare = make_unused("a")

                def forward(self, x):
                    return self.act(x)

            class Base(nn.Module):
                def __init__(self, fn):
                    super().__init__()
                    self.fn = fn

                def forward(self, x):
                    return self.fn(x)

            class Handed(Base):
                def __init__(self):
                    super().__init__(make_sigma("b"))

            class HandedThroughALocal(Base):
                def __init__(self):
                    fn = make_rho("c")
                    super().__init__(fn)
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    found = {(Path(f.path).name, f.line, f.code) for f in result.findings}
    assert found == {("factories.py", 6, "BL401"), ("factories.py", 15, "BL401"), ("factories.py", 24, "BL401")}


def test_a_method_called_on_a_new_instance_a_method_returned_breaks_where_it_surely_breaks() -> None:
    # `self.__class__(...)` and `type(self)(...)` build another instance of the class: a method called on
    # it runs (probed: a `print` in `solve`, called on `op.transpose()`, is a reconstruction failure at
    # the call); past the first such call dynamo runs `forward` eagerly (probed: `t.solve(x)` on the next
    # line is no break); a method that breaks only in one `case` of a `match` is no sure break
    found = codes_by_line("""
        import torch
        from torch import nn

        class Op:
            def __init__(self, x):
                self.x = x

            def transpose(self):
                return self.__class__(self.x.T)

            def double(self):
                return type(self)(self.x * 2)

            def solve(self, y):
                print("solving")
                return y / self.x

            def apply(self, y):
                match y:
                    case torch.Tensor():
                        return y * self.x
                    case _:
                        return self.solve(y)

        class M(nn.Module):
            def forward(self, x):
                op = Op(x)
                t = op.transpose()
                a = op.double().solve(x)
                b = t.solve(x)
                c = op.transpose().apply(x)
                return a + b + c
    """)
    assert found == {16: "BL401", 30: "BL426"}


def test_a_method_inherited_from_a_base_that_returns_a_new_instance_counts_as_one() -> None:
    # `transpose` is defined in the base and called on the subclass's instance: what it returns is
    # still a new instance, and BL426 asks of `solve` that it surely break (here only in a branch)
    found = codes_by_line("""
        import torch
        from torch import nn

        class Base:
            def __init__(self, x):
                self.x = x

            def transpose(self):
                return self.__class__(self.x.T)

        class Op(Base):
            def solve(self, y):
                if y.shape[0] > 3:
                    print("large")
                return y / self.x

        class M(nn.Module):
            def forward(self, x):
                op = Op(x)
                a = op.transpose().solve(x)
                return a
    """)
    assert found == {15: "BL401"}


def test_a_function_wrapped_in_functools_partial_runs_where_the_partial_is_called() -> None:
    assert codes_by_line("""
        import functools
        from functools import partial

        import torch

        def focal(x, gamma=2.0):
            print("focal")
            return x

        def dice(x, smooth=1.0):
            print("dice")
            return x

        def never(x):
            print("never")
            return x

        class Loss(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.loss = functools.partial(focal, gamma=1.0)
                self.unused = partial(never)

            def forward(self, x):
                other = partial(dice, smooth=0.5)
                return self.loss(x) + other(x)

        loss = torch.compile(Loss())
    """) == {8: "BL401", 12: "BL401"}


def test_the_modules_a_container_is_built_with_run_where_it_or_an_element_is_called() -> None:
    # the loop variable over `self.blocks` holds one of its modules: the call is an edge to each class
    # built in the container (a second break follows where a generator over them is summed: BL437)
    source = """
        import torch
        from torch import nn

        class Block(nn.Module):
            def forward(self, x):
                return x[x > 0].sum()

        class Other(nn.Module):
            def forward(self, x):
                return x.nonzero().sum()

        class Stack(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = nn.ModuleList([Block() for _ in range(3)])
                self.tail = nn.Sequential(Other(), nn.ReLU())

            def forward(self, x):
                y = sum(block(x) for block in self.blocks)
                return y + sum(m(x) for m in self.tail)

        stack = torch.compile(Stack())
    """
    assert codes_by_line(source) == {7: "BL302", 11: "BL301", 20: "BL437", 21: "BL437"}


def test_building_a_dataclass_runs_its_post_init() -> None:
    # the `__init__` that `dataclasses` writes calls `__post_init__`; a class that writes its own
    # `__init__` runs only that
    found = codes_by_line("""
        from dataclasses import dataclass

        import torch


        @dataclass
        class Mixture:
            logits: torch.Tensor

            def __post_init__(self):
                if not torch.all(torch.isfinite(self.logits)):
                    raise ValueError("logits contains NaN or Inf")


        class Checked:
            def __init__(self, logits):
                self.logits = logits

            def __post_init__(self):
                if not torch.all(torch.isfinite(self.logits)):
                    raise ValueError("never called")


        @torch.compile
        def f(x):
            return Mixture(x * 2).logits + Checked(x).logits
    """)
    assert found == {12: "BL201"}


def test_methods_of_the_instance_an_attribute_holds_run_where_it_is_called() -> None:
    # chosen once in `__init__` (plainly, by a condition, or wrapped in `functools.partial`): each may
    # run; a data attribute copied to another is no method
    found = codes_by_line("""
        import functools

        import torch
        from torch import nn


        class Model(nn.Module):
            def __init__(self, train_step=True):
                super().__init__()
                self.scale = torch.ones(1)
                self.step = self._step_a if train_step else self._step_b
                self.finish = functools.partial(self._finish, k=2)
                self.other = self.scale

            def _step_a(self, x):
                return x.item()

            def _step_b(self, x):
                return x.tolist()

            def _finish(self, x, k):
                return float(x) * k

            def forward(self, x):
                return self.step(x.sum()), self.finish(x.sum()), self.other * x
    """)
    assert found == {17: "BL101", 20: "BL102", 23: "BL103"}


def test_a_class_level_table_of_functions_runs_what_it_holds() -> None:
    found = codes_by_line("""
        import torch
        from torch import nn


        def dice(x):
            return x.item()


        def focal(x):
            return x.tolist()


        class Loss(nn.Module):
            LOSSES = {"dice": dice, "focal": focal}

            def __init__(self, name="dice"):
                super().__init__()
                self.name = name

            def forward(self, x):
                return self.LOSSES[self.name](x.sum())
    """)
    assert found == {7: "BL101", 11: "BL102"}


def test_post_init_of_a_class_that_is_no_dataclass_is_not_run() -> None:
    found = codes_by_line("""
        import torch


        class Plain:
            def __post_init__(self):
                print("nothing calls this")


        @torch.compile
        def f(x):
            Plain()
            return x + 1
    """)
    assert found == {}


def test_a_parameter_filled_in_where_it_is_none_keeps_its_declared_class() -> None:
    """`if vocab is None: vocab = load()` of `vocab: Vocab | None`: its methods are still the
    declared class's (and its subclasses'), whatever the callers hand over; rebound under any other
    test, the annotation no longer says what it holds."""
    found = codes_by_line("""
        from typing import Optional

        import torch


        class Vocab:
            def lookup(self, x):
                print(x)


        def load() -> Vocab:
            return Vocab()


        @torch.compile
        def encode(x, vocab: Optional[Vocab] = None):
            if vocab is None:
                vocab = load()
            return vocab.lookup(x)


        class Other:
            def lookup(self, x):
                print("other", x)


        def other() -> Vocab:
            return Vocab()


        @torch.compile
        def rebound(x, vocab: Other, fresh: bool):
            if fresh:
                vocab = other()
            return vocab.lookup(x)
        """)
    assert found == {9: "BL401"}


def test_folders_without_init_inside_a_package_are_part_of_its_module_names(tmp_path: Path) -> None:
    # `pkg/models/` and `pkg/models/utils/` have no `__init__.py`: namespace portions of `pkg`, which
    # Python imports as `pkg.models.net` and `pkg.models.utils.boxes`; the relative import, the entry
    # point and the call across files all name them so. A folder above the package (`src/`) is no part.
    write(tmp_path, {"src/pkg/__init__.py": "from .models.net import Net\n", "src/pkg/models/net.py": """
        import torch
        from .utils.boxes import select

        class Net(torch.nn.Module):
            def forward(self, x):
                return select(x * 2)

        def detect(x):
            return select(x + 1)
    """, "src/pkg/models/utils/boxes.py": """
        def select(scores):
            return scores[scores > 0.5]
    """})
    from breaklint.source import module_name_for

    assert module_name_for(tmp_path / "src/pkg/models/utils/boxes.py") == "pkg.models.utils.boxes"
    assert module_name_for(tmp_path / "src/pkg/__init__.py") == "pkg"
    config = Config(root=tmp_path)
    config.entry_points = ["pkg.models.net.detect"]
    result = lint([tmp_path], config, use_cache=False)
    assert {(Path(f.path).name, f.line, f.code) for f in result.findings} == {("boxes.py", 3, "BL302")}


def test_a_decorators_calls_are_not_calls_of_the_function_it_decorates(tmp_path: Path) -> None:
    # `@Locked()` builds its object where `helper` is defined, at import: compiling `run` runs `helper`
    # (and the wrapper `Locked.__call__` returns), never `Locked.__init__`
    write(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": """
        import threading

        import torch

        class Locked:
            def __init__(self):
                self.lock = threading.Lock()

            def __call__(self, f):
                return f

        @Locked()
        def helper(x):
            print("reached")
            return x * 2

        @torch.compile
        def run(x):
            return helper(x)
    """})
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert {(f.line, f.code) for f in result.findings} == {(15, "BL401")}


def test_an_entry_picked_from_a_table_of_callables_runs_what_the_table_holds() -> None:
    found = codes_by_line("""
        import torch
        from torch import nn


        def total(x):
            return x.sum().item()


        SCALARS = {"total": total}


        class Loss(nn.Module):
            def __init__(self, kind="first"):
                super().__init__()
                self.kind = kind

            def first(self, x):
                return x.max().item()

            def second(self, x):
                return x.min().tolist()

            def third(self, x):
                return x.mean().item()

            def unused(self, x):
                return x.std().item()

            def forward(self, x):
                weights = {"first": self.first, "second": self.second}
                pick = weights.get(self.kind)
                if pick is None:
                    raise ValueError(self.kind)
                other = {"third": self.third}[self.kind]
                scalar = SCALARS.get(self.kind, total)
                return pick(x) + other(x) + scalar(x)
    """)
    assert found == {7: "BL101", 19: "BL101", 22: "BL102", 25: "BL101"}


def test_a_method_called_on_what_a_function_annotated_to_return_a_class_gives_runs_that_class_s_method() -> None:
    found = codes_by_line("""
        import torch


        class Hyper(torch.Tensor):
            def similarity(self, other):
                raise NotImplementedError


        class Dense(Hyper):
            def similarity(self, other):
                score = (self * other).sum(-1)
                if torch.isclose(score, torch.zeros_like(score)).any():
                    return score
                return score / 2


        class Unrelated:
            def similarity(self, other):
                return other.item()


        def ensure(x) -> Hyper:
            return x.as_subclass(Dense)


        def similarity(x, y):
            x = ensure(x)
            return x.similarity(y)


        class Model(torch.nn.Module):
            def forward(self, x, y):
                return similarity(x, y)
    """)
    assert found == {13: "BL201"}  # (the annotation says what runs, not that the object was built here: no BL426)
