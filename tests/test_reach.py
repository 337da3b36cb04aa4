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
