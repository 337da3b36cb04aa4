"""Custom operators of torch.library: their code is never traced (reach stops at them), and a call of one
the tree defines with nothing dynamo can run on fake tensors is BL441. The cases that matter are checked
against dynamo on the installed torch."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
import torch

from breaklint.config import Config
from breaklint.engine import lint, lint_source


def findings(source: str, name: str = "m.py") -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in lint_source(dedent(source), Path(name), Config()))


def test_an_ops_own_code_is_not_compiled_code() -> None:
    # dynamo calls the op as one node (its fake gives the shapes): the print and `.item()` inside break nothing
    assert findings("""
        import torch

        @torch.library.custom_op("t1::scaled", mutates_args=())
        def scaled(x: torch.Tensor) -> torch.Tensor:
            print("inside the op")
            return x * x.max().item()

        @scaled.register_fake
        def _(x):
            return torch.empty_like(x)

        @torch.library.impl("t1::other", "cpu")
        def other_kernel(x):
            print("a kernel")
            return x

        @torch.compile
        def f(x):
            return scaled(x) + torch.ops.t1.scaled(x) + other_kernel(x)
    """) == []


def test_a_library_op_with_kernels_for_devices_only_breaks_at_each_call() -> None:
    source = """
        import torch

        lib = torch.library.Library("t2", "DEF")
        lib.define("cpu_only(Tensor x) -> Tensor")
        lib.impl("cpu_only", lambda x: x.relu(), "CPU")
        lib.define("any_device(Tensor x) -> Tensor")
        lib.impl("any_device", lambda x: x.relu())
        lib.define("meta(Tensor x) -> Tensor")
        lib.impl("meta", lambda x: x.relu(), "CPU")
        lib.impl("meta", lambda x: torch.empty_like(x), dispatch_key="Meta")
        torch.library.define("t2::faked", "(Tensor x) -> Tensor")
        torch.library.impl("t2::faked", "cpu", lambda x: x.relu())
        torch.library.impl("t2::defaulted", ["default"], lambda x: x.relu())

        @torch.library.register_fake("t2::faked")
        def _(x):
            return torch.empty_like(x)

        @torch.compile
        def f(x):
            y = torch.ops.t2.cpu_only(x) + torch.ops.t2.cpu_only.default(x)
            y = y + torch.ops.t2.meta(x) + torch.ops.t2.faked(x) + torch.ops.t2.any_device(x)
            return y + torch.ops.ext.fused(x)
    """
    found = lint_source(dedent(source), Path("m.py"), Config())
    assert [(f.line, f.col, f.code) for f in found] == [(22, 8, "BL441"), (22, 35, "BL441")]
    assert "`torch.ops.t2.cpu_only(...)` runs `t2::cpu_only`, whose kernels are for devices only" in found[0].message


def test_a_custom_op_without_a_fake_is_reported_where_torch_compile_raises() -> None:
    found = lint_source(dedent("""
        import torch

        @torch.library.custom_op("t3::bare", mutates_args=())
        def bare(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        @torch.compile
        def f(x):
            return bare(x) + 1
    """), Path("m.py"), Config())
    assert [(f.line, f.code) for f in found] == [(10, "BL441")]
    assert "raises here" in found[0].message

    # what dynamo does with such an op on the installed torch: it cannot run it on fake tensors
    @torch.library.custom_op("breaklint_test::bare", mutates_args=())
    def bare(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    def f(x):
        return bare(x) + 1

    torch._dynamo.reset()
    with pytest.raises(Exception, match="fake"):
        torch.compile(f, backend="eager")(torch.ones(2))


def test_the_op_its_fake_and_its_call_may_be_three_files(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            import torch

            lib = torch.library.Library("t4", "DEF")
            lib.define("blur(Tensor x) -> Tensor")
            lib.impl("blur", lambda x: x, "CUDA")

            @torch.library.custom_op("t4::sharpen", mutates_args=())
            def sharpen(x: torch.Tensor) -> torch.Tensor:
                return x
        """,
        "pkg/fakes.py": """
            import torch
            from .ops import sharpen

            @sharpen.register_fake
            def _(x):
                return torch.empty_like(x)
        """,
        "pkg/model.py": """
            import torch
            from torch import nn
            from .ops import sharpen

            class Net(nn.Module):
                def forward(self, x):
                    return sharpen(torch.ops.t4.blur(x))
        """,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")
    result = lint([tmp_path / "pkg"], Config(root=tmp_path), jobs=1, use_cache=False)
    assert [(f.path.name, f.line, f.code) for f in result.findings] == [("model.py", 8, "BL441")]
    assert "`t4::blur`" in result.findings[0].message

    (tmp_path / "pkg/fakes.py").unlink()  # the custom op's fake gone: its call is reported too
    result = lint([tmp_path / "pkg"], Config(root=tmp_path), jobs=1, use_cache=False)
    assert [(f.line, f.col, f.code) for f in result.findings] == [(8, 15, "BL441"), (8, 23, "BL441")]


def test_a_module_level_name_bound_to_torchs_decorator_is_that_decorator() -> None:
    # the version guard's other branch defines a no-op fallback; on the torch the code runs on, the name is
    # torch's own: the op's code is not traced, its fake is registered, and the excluded function breaks
    assert findings("""
        import torch

        if hasattr(torch, "library"):
            _custom_op = torch.library.custom_op
            _register_fake = torch.library.register_fake
            _disable = torch.compiler.disable
        else:
            def _custom_op(name, fn=None, /, *, mutates_args):
                return lambda f: f

            def _register_fake(op, fn=None):
                return lambda f: f

            def _disable(fn):
                return fn

        @_custom_op("t5::attn", mutates_args=())
        def attn(q: torch.Tensor) -> torch.Tensor:
            return q * q.max().item()

        @_register_fake("t5::attn")
        def _(q):
            return torch.empty_like(q)

        @_disable
        def log_shapes(q):
            return q

        @torch.compile
        def f(q):
            return log_shapes(attn(q))
    """) == [(32, "BL410")]
