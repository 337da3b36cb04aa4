"""BL447: a call, in compiled code, of a function beartype checks, where the check of an annotation runs
what dynamo cannot trace. Its fixture (fixtures/BL447.py) holds the list and sequence annotations, which
dynamo breaks on in every torch the fixtures run on; here, what decides the finding (the decorator, on the
function or its class; which annotations; the call, from another file too), and jaxtyping's array types,
whose check torch 2.14 breaks on and torch 2.13 traces wrongly (the compiled call raises)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from breaklint.config import Config
from breaklint.engine import lint

from test_reach_edges import dynamo_lines, write_package
from test_tensor_inference import reported


CHECKED = '''
import torch
from beartype import beartype
from beartype.typing import Dict, List, Optional, Tuple
from torch import Tensor, nn


@beartype
def pair(x: Tensor, extra: Optional[Tuple[Tensor, Tensor]] = None, named: Dict[str, Tensor] = {}) -> Tensor:
    return x * 2


@beartype
def nested(x: Tensor, groups: Dict[str, List[Tensor]]) -> Tensor:
    return x


@beartype
def optional_list(x: Tensor, xs: list[Tensor] | None = None) -> Tensor:
    return x


@beartype
def returns_list(x: Tensor) -> List[Tensor]:
    return [x]


def plain(xs: List[Tensor]) -> Tensor:
    return xs[0]


@beartype
def eager_only(xs: List[Tensor]) -> Tensor:
    return xs[0]


@torch.compile
def compiled(x):
    x = pair(x, (x, x), {"x": x})
    x = nested(x, {"x": [x]})
    x = optional_list(x)
    x = returns_list(x)[0]
    return plain([x])
'''


def test_which_annotations_make_the_checked_call_break() -> None:
    """A list nested in a dict, a list in a `|` union and a returned list are found; a tensor, an optional
    tuple of fixed length, a dict of tensors are not, nor a function beartype does not check, nor one that
    compiled code does not call."""
    assert reported(CHECKED) == [("x = nested(x, {\"x\": [x]})", "BL447"), ("x = optional_list(x)", "BL447"),
                                 ("x = returns_list(x)[0]", "BL447")]


def test_a_checked_class_checks_its_methods_and_is_found_from_another_file(tmp_path: Path) -> None:
    package = write_package(tmp_path, {
        "layers.py": '''
            import beartype
            from typing import Sequence
            from torch import Tensor, nn


            @beartype.beartype
            class Mixer(nn.Module):
                def forward(self, x: Tensor, memories: Sequence[Tensor] = ()):
                    return x

                def scale(self, x: Tensor, n: int) -> Tensor:
                    return x * n
            ''',
        "model.py": '''
            from torch import nn
            from pkg.layers import Mixer


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.mixer = Mixer()

                def forward(self, x):
                    return self.mixer.scale(self.mixer(x), 2)
            '''})
    found = [(Path(f.path).name, f.line, f.code, f.message.split(":")[0])
             for f in lint([package], Config(root=tmp_path), use_cache=False).findings]
    assert found == [("model.py", 12, "BL447", "call of `Mixer.forward`, which beartype checks")]


JAXTYPED = '''
import torch
from beartype import beartype
from jaxtyping import Float, jaxtyped
from torch import Tensor, nn


@jaxtyped(typechecker=beartype)
def shifted(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
    return x + 1


@jaxtyped(typechecker=None)
def unchecked(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
    return x - 1


class Model(nn.Module):
    def forward(self, x):
        x = x * 2
        x = unchecked(x)
        return shifted(x)


def cases():
    return [(Model(), (torch.randn(2, 4),))]
'''


def test_a_jaxtyping_array_type_that_beartype_checks_is_found() -> None:
    assert reported(JAXTYPED) == [("return shifted(x)", "BL447")]


@pytest.mark.dynamo
def test_dynamo_cannot_trace_the_jaxtyping_check(tmp_path: Path) -> None:
    """torch 2.14 breaks the graph around the checked call; torch 2.13 traces the check on fake tensors,
    which fails, and the compiled call raises jaxtyping's error."""
    import torch
    from jaxtyping import TypeCheckError

    from breaklint.dynamic.calibrate import load_module
    if torch.__version__ >= "2.14":
        assert dynamo_lines(tmp_path, JAXTYPED, "jaxtyped.py") == ["return shifted(x)"]
        return
    path = tmp_path / "jaxtyped_raises.py"
    path.write_text(dedent(JAXTYPED), encoding="utf-8")
    model = load_module(path).Model()
    model(torch.randn(2, 4))  # eagerly, the check passes
    torch._dynamo.reset()
    with pytest.raises(TypeCheckError):
        torch.compile(model)(torch.randn(2, 4))
    torch._dynamo.reset()
