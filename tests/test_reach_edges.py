"""Calls reach follows that run code of the tree without naming it:
- an inherited class method called on a subclass, or on a class taken from a table;
- an autograd function's `apply` kept under a module-level name, or returned by a factory that a
  parameter's default calls;
- a loop over a literal of functions or bound methods;
- the methods torch's own module `forward` calls on `self` where a subclass overrides them;
- a method called on an attribute that holds what nothing in the tree tells (a registry's build),
  where one family of the tree's classes alone defines a method of that name;
- an attribute a setter method stores (`self.set_processor(A() if fast else B())`);
- an arithmetic operator on an object of the tree's classes (`op @ x` runs `Op.__matmul__`), a subscript
  or `len()` of one (`boxes[keep]` runs `Boxes.__getitem__`);
- a loop over a list or dict of instances (`self.steps = [Flip(), Crop()]`), and `type(self).count(x)`;
- a forward hook the constructor registers (`self.inner.register_forward_hook(clip)`).
- an attribute built by either branch of a conditional expression, by a `partial` of a class a
  parameter defaults to, from a class kept on `self` first, from a table whose entries are named
  through a module (`coders.BoxPost`), or by `getattr(coders, name)()` with the name a default; the
  instances a comprehension builds over a table of classes (`[c() for c in CRITERIA]`);
- a module list a subclass hands to its base's constructor (`super().__init__(nn.ModuleList([...]))`),
  whose elements' methods a loop over it calls; an entry point naming an inherited method;
- a module of the instance the class's methods hand one another (`self._layer(cell, x)` in a loop over
  `enumerate(zip(self.cells, self.rates))`), of a class picked by the constructor's branches;
- an entry of a literal table handed to a helper that picks one (`get_method(name, methods, method)`), a
  local built in either branch of an `if`, a function a package's star import binds over its own module;
- a walk over a module's parts (`next(module.parameters())`) that reaches a recurrent module, and a
  recurrent module handed over as another module's attribute, read before it is called;
- the `backward` of an autograd function whose `apply` compiled code calls (given the gradients);
- what the tree hands to a function or class of its own that passes its parameter to `torch.compile`
  (`Wrapper(self.compute_step)`, `scaled = maybe_compile(scale)`, `@compiling`), where no compiled code calls it;
- a method of an attribute of an attribute of `self` (`self._parts.clipper.clip(x)`), by the classes a class-level
  annotation and a record's field declare.
`self(x)` gives what the class's `forward` returns; and, of a decorator, only the wrapper it returns
runs in compiled code, not its own statements. Checked against dynamo on the installed torch, which
breaks on exactly the lines the static pass reports."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import libcst as cst
import pytest

from breaklint.analysis.passing import handed_attributes
from breaklint.analysis.summary import ClassInfo
from breaklint.config import Config
from breaklint.dynamic.calibrate import calibrate
from breaklint.engine import lint_source


def dynamo_lines(tmp_path: Path, source: str, name: str) -> list[str]:
    """The stripped lines where dynamo breaks running `source`'s cases (written as `name`), sorted."""
    path = tmp_path / name
    path.write_text(dedent(source), encoding="utf-8")
    lines = dedent(source).splitlines()
    return sorted(lines[n - 1].strip() for n in calibrate(path).sites)


def write_package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package `pkg` under `tmp_path` holding `files` (name -> source, dedented) and an empty `__init__.py`."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name, source in files.items():
        (package / name).write_text(dedent(source), encoding="utf-8")
    return package

SOURCE = '''
import functools

import torch
import torch.nn as nn


class _flag:
    @classmethod
    def on(cls):
        print("on")


class debug(_flag):
    pass


class _Solver:
    @classmethod
    def names(cls):
        print("names")
        return {"a"}


class Euler(_Solver):
    pass


SOLVERS = {"euler": Euler}


class ScanFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum().item() * x

    @staticmethod
    def backward(ctx, g):
        return g


scan = ScanFn.apply


class ClipFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(max=x.max().item())

    @staticmethod
    def backward(ctx, g):
        return g


def clipper():
    return ClipFn.apply


def loud(func):
    print("decorating")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        print("calling")
        return func(*args, **kwargs)
    return wrapper


@loud
def bumped(x):
    return x + 1


def focal(x):
    return x.sum().tolist()


class Conv(nn.Conv1d):
    def _conv_forward(self, x, weight, bias):
        print("conv")
        return super()._conv_forward(x, weight, bias)


class Norm(nn.BatchNorm1d):
    def _check_input_dim(self, input):
        if input.sum() > 1e9:
            raise ValueError("too large")


class Wrapped(nn.Conv1d):
    def forward(self, x):
        return super().forward(x) * 2


class Registry:
    def __init__(self):
        self._items = {}

    def register(self, cls):
        self._items[cls.__name__] = cls
        return cls

    def build(self, name):
        return self._items[name]()


HEADS = Registry()


@HEADS.register
class Head(nn.Module):
    def forward(self, x):
        return x * 2, x + 1

    def predict(self, x):
        scores, boxes = self(x)
        if scores.sum() > 1e9:
            boxes = boxes * 0
        return boxes


class Loud:
    def __call__(self, x):
        print("processing")
        return x


class Quiet:
    def __call__(self, x):
        return x


class Model(nn.Module):
    def __init__(self, clip=clipper(), loud=True):
        super().__init__()
        self.clip = clip
        self.head = HEADS.build("Head")
        self.set_processor(Loud() if loud else Quiet())

    def set_processor(self, processor):
        self.processor = processor
        self.conv = Conv(2, 2, 1)
        self.norm = Norm(2)
        self.wrapped = Wrapped(2, 2, 1)

    def _peek(self, x):
        return x.sum().item()

    def forward(self, x):
        debug.on()
        SOLVERS["euler"].names()
        x = scan(x)
        x = self.conv(x)
        x = self.norm(x)
        x = self.wrapped(x)
        x = self.clip(x)
        x = self.head.predict(x)
        x = self.processor(x)
        return bumped(x)

    def each(self, x):
        for fn in (focal, self._peek):
            fn(x)
        return x


def cases():
    x = torch.randn(2, 2, 3)
    model = Model()
    return [(model, (x,)), (torch.compile(model.each), (x,))]
'''


def expected() -> list[int]:
    """The lines that break: one behind each edge."""
    marks = ('print("on")', "return x.sum().item() * x", "return x.sum().tolist()", 'print("conv")',
             "if input.sum() > 1e9:", "return x.sum().item()", "return x.clamp(max=x.max().item())",
             'print("calling")', 'print("names")', "if scores.sum() > 1e9:", 'print("processing")')
    return sorted(n for n, line in enumerate(dedent(SOURCE).splitlines(), 1) if line.strip() in marks)


def test_the_code_each_edge_runs_is_reached() -> None:
    found = lint_source(dedent(SOURCE), Path("m.py"), Config(entry_points=["m.Model.each"]))
    assert sorted(f.line for f in found) == expected()


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_same_lines(tmp_path: Path) -> None:
    path = tmp_path / "edges.py"
    path.write_text(dedent(SOURCE), encoding="utf-8")
    assert sorted(calibrate(path).sites) == expected()


GUESSED = '''
import torch.nn as nn


def build(cfg):
    return cfg["kind"](**cfg["args"])


class Box:
    def decode(self, x):
        return x.sum().item()

    def shift(self, x):
        return x.sum().item()


class Heatmap:
    def decode(self, x):
        return x.tolist()


class Walker:
    def step(self, x):
        return x.sum().item()


class Grid:
    def widen(self, x):
        return x.tolist()


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.coder = build(cfg)
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        x = self.coder.shift(x)
        x = self.coder.decode(x)
        x = self.coder.grid.widen(x)
        self.coder.step(x)
        return self.fc.reset_bias(x)
'''


def test_a_method_is_guessed_by_name_only_where_one_family_defines_it_and_no_common_object_has_it() -> None:
    """`shift` belongs to `Box` alone, `widen` to `Grid` (called on an attribute of the attribute):
    reached. `decode` belongs to two unrelated classes, `step` to what an optimizer or scheduler also
    has, and `self.fc` holds a torch module: none is guessed."""
    found = lint_source(dedent(GUESSED), Path("m.py"), Config())
    lines = dedent(GUESSED).splitlines()
    assert [f.line for f in found] == [lines.index("    def shift(self, x):") + 2,
                                       lines.index("    def widen(self, x):") + 2]


def test_self_called_gives_what_forward_returns() -> None:
    source = dedent('''
        import torch.nn as nn


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

            def forward(self, x):
                return self.fc(x), self.fc(x).sigmoid()

            def predict(self, x):
                scores, boxes = self(x)
                if scores.sum() > 0:
                    boxes = boxes * 2
                return boxes


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = Head()

            def forward(self, x):
                return self.head.predict(x)
    ''')
    found = lint_source(source, Path("m.py"), Config())
    assert [(f.code, source.splitlines()[f.line - 1].strip()) for f in found] == [("BL201", "if scores.sum() > 0:")]


OPERATORS = '''
import torch
import torch.nn as nn


class Op:
    def __init__(self, m):
        self.m = m

    def __matmul__(self, x):
        print("matmul")
        return self.m @ x

    def __add__(self, other):
        if other.sum() > 1e9:
            other = other * 0
        return Op(self.m + other)


def make(m):
    return Op(m)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 3))

    def forward(self, x):
        op = Op(self.w)
        y = op @ x
        z = (make(self.w) + x).m
        return y + z + x * 2


def cases():
    return [(Model(), (torch.randn(3, 3),))]
'''


def test_an_operator_on_an_object_of_the_tree_runs_its_method() -> None:
    """`op @ x` runs `Op.__matmul__`, `make(w) + x` runs `Op.__add__` with `x` as `other`; `y + z`
    and `x * 2` on tensors run nothing of the tree."""
    found = lint_source(dedent(OPERATORS), Path("m.py"), Config())
    lines = dedent(OPERATORS).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found) == [
        ('if other.sum() > 1e9:', "BL201"), ('print("matmul")', "BL401"), ("y = op @ x", "BL426")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_operators_methods(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, OPERATORS, "operators.py") == [
        'if other.sum() > 1e9:', 'print("matmul")', "y = op @ x"]


CONTAINERS = '''
import torch
import torch.nn as nn


class Flip:
    def __call__(self, x):
        return x[x > 0]


class Keep:
    def __call__(self, x):
        return x.nonzero()


class Scale:
    def __call__(self, x):
        return x * 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = [Flip(), Scale()]
        self.named = {"keep": Keep()}
        self.later = (Scale(), Scale())

    @staticmethod
    def count(x):
        return (x > 0).sum().item()

    def forward(self, x):
        for step in reversed(self.steps):
            x = step(x)
        for name, step in self.named.items():
            x = step(x).float()
        for step in self.later[1:]:
            x = step(x)
        return x * type(self).count(x)


def cases():
    return [(Model(), (torch.randn(8),))]
'''


def test_elements_of_a_list_or_dict_of_instances_and_the_own_class_are_called() -> None:
    """A loop over `self.steps` (a list literal of instances), in reverse, over a dict's `items()`
    or a slice, calls each class's `__call__`; `type(self).count(x)` calls the static method."""
    found = lint_source(dedent(CONTAINERS), Path("m.py"), Config())
    lines = dedent(CONTAINERS).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ("return (x > 0).sum().item()", "BL101"), ("return x.nonzero()", "BL301"),
        ("return x[x > 0]", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_elements_calls(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, CONTAINERS, "containers.py") == [
        "return (x > 0).sum().item()", "return x.nonzero()", "return x[x > 0]"]


SUBSCRIPTS = '''
import torch
import torch.nn as nn


class Boxes:
    def __init__(self, t):
        self.t = t

    def __getitem__(self, item):
        return Boxes(self.t[item])

    def __len__(self):
        print("len")
        return self.t.shape[0]


class Keep(nn.Module):
    def forward(self, x):
        boxes = Boxes(x)
        kept = boxes[x[:, 0] > 0]
        return kept.t * 2


class Count(nn.Module):
    def forward(self, x):
        boxes = Boxes(x)
        return x * len(boxes)


def cases():
    return [(Keep(), (torch.randn(5, 3),)), (Count(), (torch.randn(5, 3),))]
'''


def test_a_subscript_or_len_of_an_object_of_the_tree_runs_its_method() -> None:
    """`boxes[mask]` runs `Boxes.__getitem__` with the mask as `item` (where the mask selects), and no
    tensor is masked at the subscript itself; `len(boxes)` runs `__len__`. Dynamo resumes after a
    break in either: the call sites are not reported."""
    found = lint_source(dedent(SUBSCRIPTS), Path("m.py"), Config())
    lines = dedent(SUBSCRIPTS).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ('print("len")', "BL401"), ("return Boxes(self.t[item])", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_subscript_methods(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, SUBSCRIPTS, "subscripts.py") == [
        'print("len")', "return Boxes(self.t[item])"]


HOOKS = '''
import torch
import torch.nn as nn


def clip(module, inputs, output):
    return output * output.abs().max().item()


def unused(module, inputs, output):
    print("never registered")
    return output


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.handle = self.inner.register_forward_hook(clip)
        self.register_forward_pre_hook(self._check)

    def _check(self, module, args):
        print("checked")
        return args

    def forward(self, x):
        return self.inner(x)


def cases():
    return [(Model(), (torch.randn(2, 4),))]
'''


def test_a_forward_hook_registered_in_the_constructor_runs_with_forward() -> None:
    """`self.inner.register_forward_hook(clip)` and `self.register_forward_pre_hook(self._check)` in
    `__init__`: both run around the module's call, in compiled code; a function never registered
    does not."""
    found = lint_source(dedent(HOOKS), Path("m.py"), Config())
    lines = dedent(HOOKS).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ('print("checked")', "BL401"), ("return output * output.abs().max().item()", "BL101")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_hooks(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, HOOKS, "hooks.py") == [
        'print("checked")', "return output * output.abs().max().item()"]


BUILT = '''
import functools

import torch
from torch import nn


class Hungarian:
    def __call__(self, cost):
        return cost.argmin(1).tolist()


class Greedy:
    def __call__(self, cost):
        return cost.argmin(1)


class BoxPost:
    def __init__(self, thresh=0.5):
        self.thresh = thresh

    def __call__(self, scores):
        return scores[scores > self.thresh]


class Coder:
    def decode(self, deltas):
        return deltas * int(deltas.abs().max())


class Head(nn.Module):
    def __init__(self, optimal=True, make=functools.partial(BoxPost, thresh=0.1), coder=Coder):
        super().__init__()
        self.matcher = Hungarian() if optimal else Greedy()
        self.post = make()
        self.coder_cls = coder
        self.coder = self.coder_cls()

    def forward(self, x):
        matched = self.matcher(x)
        kept = self.post(x)
        return matched, kept, self.coder.decode(x)


def cases():
    return [(Head(), (torch.randn(3, 4),))]
'''


def test_an_attribute_built_by_either_branch_a_partial_or_a_kept_class_runs_its_methods() -> None:
    """`self.matcher = Hungarian() if optimal else Greedy()`, `self.post = make()` with a `partial` of a
    class as `make`'s default, and `self.coder = self.coder_cls()` where `self.coder_cls` keeps a class
    parameter: calling the attribute runs what the class it built defines."""
    found = lint_source(dedent(BUILT), Path("m.py"), Config())
    lines = dedent(BUILT).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ("return cost.argmin(1).tolist()", "BL102"), ("return deltas * int(deltas.abs().max())", "BL103"),
        ("return scores[scores > self.thresh]", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_what_the_attributes_built(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, BUILT, "built.py") == [
        "return cost.argmin(1).tolist()", "return deltas * int(deltas.abs().max())",
        "return scores[scores > self.thresh]"]


def test_a_class_from_a_table_of_another_module_or_named_by_a_default_is_built(tmp_path: Path) -> None:
    """`POSTS = {"box": coders.BoxPost}` (the table's entries named through the module) and
    `getattr(coders, coder)()` with `coder="DeltaCoder"` the parameter's default: the attribute holds an
    instance of that class. (Run under dynamo on the same package: it breaks on the two lines.)"""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "coders.py": '''
        class DeltaCoder:
            def decode(self, deltas):
                return deltas * int(deltas.abs().max())


        class BoxPost:
            def __call__(self, scores):
                return scores[scores > 0.5]
        ''',
        "head.py": '''
        from torch import nn

        from . import coders

        POSTS = {"box": coders.BoxPost}


        class Head(nn.Module):
            def __init__(self, kind="box", coder="DeltaCoder"):
                super().__init__()
                self.post = POSTS[kind]()
                self.coder = getattr(coders, coder)()

            def forward(self, x):
                return self.post(x), self.coder.decode(x)
        ''',
    })
    found = lint([package], Config(root=tmp_path)).all
    assert sorted((f.path.name, f.line, f.code) for f in found if f.kind == "break") == [
        ("coders.py", 4, "BL103"), ("coders.py", 9, "BL302")]


def test_a_table_of_functions_or_classes_named_through_a_module_is_followed(tmp_path: Path) -> None:
    """`LOSSES = {"focal": losses.focal, "mse": F.mse_loss}` returned by a property (`LOSSES[self.loss_type]`),
    and `self.criteria = [c() for c in CRITERIA]` with `CRITERIA = [losses.Ranking]`: calling what the
    property returns runs the tree's function, and a loop over the instances runs `Ranking.__call__`.
    (Run under dynamo on the same package: it breaks on the two lines.)"""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "losses.py": '''
        def focal(pred, target):
            weight = (target > 0).sum().item()
            return (pred - target).abs().sum() / weight


        class Ranking:
            def __call__(self, pred, target):
                return target.flatten()[pred.flatten() > 0].sum()
        ''',
        "model.py": '''
        import torch.nn.functional as F
        from torch import nn

        from . import losses

        LOSSES = {"focal": losses.focal, "mse": F.mse_loss}
        CRITERIA = [losses.Ranking]


        class Model(nn.Module):
            def __init__(self, loss_type="focal"):
                super().__init__()
                self.loss_type = loss_type
                self.criteria = [c() for c in CRITERIA]

            @property
            def loss_function(self):
                return LOSSES[self.loss_type]

            def forward(self, pred, target):
                loss = self.loss_function(pred, target)
                for crit in self.criteria:
                    loss = loss + crit(pred, target)
                return loss
        ''',
    })
    found = lint([package], Config(root=tmp_path)).all
    assert sorted((f.path.name, f.line, f.code) for f in found if f.kind == "break") == [
        ("losses.py", 3, "BL101"), ("losses.py", 9, "BL302")]


HANDED_LAYERS = '''
import torch
import torch.nn as nn


class _Layer(nn.Module):
    def forward(self, x):
        return x

    def infer(self, x, state):
        steps = state[0].item()
        return x * steps


class Cache:
    def infer(self, x, state):  # another `infer`, of another family: no guess by the name alone
        return x


class Stack(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, x, states):
        for i, layer in enumerate(self.layers):
            x = layer.infer(x, states[i])
        return x


class Built(Stack):
    def __init__(self, n):
        super().__init__(nn.ModuleList([_Layer() for _ in range(n)]))


class Local(Stack):
    def __init__(self, n):
        layers = nn.ModuleList([_Layer() for _ in range(n)])
        super().__init__(layers)


def cases():
    states = [torch.tensor([2]), torch.tensor([3])]
    return [(Built(2), (torch.randn(3), states)), (Local(2), (torch.randn(3), states))]
'''


@pytest.mark.parametrize("kept", ["Built", "Local"])
def test_a_container_handed_to_the_constructor_runs_its_elements_methods(kept: str) -> None:
    """`super().__init__(nn.ModuleList([_Layer() ...]))`, or a local bound to it, kept as `self.layers`
    by the base: a loop over it (`enumerate(self.layers)`) calling `layer.infer(...)` runs `_Layer.infer`
    (a class whose name starts with an underscore is a class all the same)."""
    source = dedent(HANDED_LAYERS)
    other = "Local" if kept == "Built" else "Built"
    start = source.index(f"class {other}(Stack)")
    end = source.index("\n\n\n", start) + 3
    source = source[:start] + source[end:]  # only one way of handing the list over
    found = lint_source(source, Path("m.py"), Config())
    lines = source.splitlines()
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break"] == [
        ("steps = state[0].item()", "BL101")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_handed_containers_elements(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, HANDED_LAYERS, "handed.py") == ["steps = state[0].item()"]


def test_an_entry_point_may_name_a_method_a_base_class_defines(tmp_path: Path) -> None:
    """`entry-points = ["pkg.model.Model.infer"]` where `Model` inherits `infer` from its base: the
    base's method is the compiled code (as `torch.compile(Model().infer)` would make it)."""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "model.py": '''
        class _Base:
            def infer(self, x):
                return x * x.sum().item()


        class Model(_Base):
            pass
        ''',
    })
    config = Config(root=tmp_path)
    assert [f.code for f in lint([package], config).all if f.kind == "break"] == []
    config.entry_points = ["pkg.model.Model.infer"]
    assert [(f.line, f.code) for f in lint([package], config).all if f.kind == "break"] == [(4, "BL101")]


PASSED_DOWN = '''
import torch
import torch.nn as nn


class SingleRNN(nn.Module):
    def __init__(self, rnn_type, size):
        super().__init__()
        self.rnn = getattr(nn, rnn_type)(size, size, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out


class Stack(nn.Module):
    def __init__(self, size=4, rnn_type="GRU"):
        super().__init__()
        self.first = SingleRNN(rnn_type, size)
        self.second = SingleRNN(rnn_type=rnn_type, size=size)

    def forward(self, x):
        return self.second(self.first(x))


def cases():
    return [(Stack(), (torch.randn(2, 5, 4),))]
'''


def test_a_module_class_named_by_what_the_constructions_pass_down() -> None:
    """`getattr(nn, rnn_type)(...)` where `rnn_type` has no default: every construction of the class in the
    file passes a parameter of its own with a literal default (`rnn_type="GRU"`), so the attribute is a GRU."""
    lines = dedent(PASSED_DOWN).splitlines()
    found = lint_source(dedent(PASSED_DOWN), Path("m.py"), Config())
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break"] == [
        ("out, _ = self.rnn(x)", "BL413")]
    # one construction that passes what the file cannot fold leaves the class unknown
    unknown = dedent(PASSED_DOWN).replace("SingleRNN(rnn_type=rnn_type, size=size)",
                                          "SingleRNN(rnn_type=pick(), size=size)")
    assert [f.code for f in lint_source(unknown, Path("m.py"), Config()) if f.kind == "break"] == []


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_module_class_passed_down(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, PASSED_DOWN, "passed_down.py") == ["out, _ = self.rnn(x)"]


RECASED = '''
import torch
import torch.nn as nn


class NamedRNN(nn.Module):
    def __init__(self, rnn_type, size):
        super().__init__()
        rnn_type = rnn_type.upper()
        self.rnn = getattr(nn, rnn_type)(size, size, batch_first=True)

    def forward(self, x):
        x = x * 2
        self.rnn.flatten_parameters()
        return self.rnn(x)[0]


class Masker(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = NamedRNN("lstm", 4)

    def forward(self, x):
        return self.rnn(x)


class Stack(nn.Module):
    def __init__(self, rnn_type):
        super().__init__()
        self.layers = nn.ModuleList([NamedRNN(rnn_type, 4) for _ in range(2)])


def cases():
    return [(Masker(), (torch.randn(2, 5, 4),))]
'''


def test_a_module_class_named_by_constructions_and_recased_by_its_constructor() -> None:
    """`NamedRNN("lstm", 4)` upper-cased by `rnn_type = rnn_type.upper()` in the constructor makes an
    LSTM; `Stack` passes its own parameter along with no default (a class nothing in the file builds),
    which says nothing and is left out. Dynamo gives up at the first touch, `flatten_parameters()`."""
    lines = dedent(RECASED).splitlines()
    found = lint_source(dedent(RECASED), Path("m.py"), Config())
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break"] == [
        ("self.rnn.flatten_parameters()", "BL413")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_recased_module_class(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, RECASED, "recased.py") == ["self.rnn.flatten_parameters()"]


LAZY_CRITERION = '''
import torch
from torch import nn


class DetectionLoss:
    def __init__(self, model):
        self.scale = 2.0

    def __call__(self, preds, targets):
        return (preds - targets).abs().sum() * float(targets.max())


class EndToEndLoss:
    def __init__(self, model):
        self.scale = 1.0

    def __call__(self, preds, targets):
        return (preds - targets)[targets > 0].sum()


class UnusedLoss:
    def __call__(self, preds, targets):
        return preds.sum().item()


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.criterion = None

    def forward(self, x, targets=None):
        preds = x * 2
        if targets is None:
            return preds
        if self.criterion is None:
            self.criterion = self.init_criterion()
        return self.criterion(preds, targets)

    def init_criterion(self):
        raise NotImplementedError


class Detector(Base):
    def __init__(self, end2end=False):
        super().__init__()
        self.end2end = end2end

    def init_criterion(self):
        return EndToEndLoss(self) if self.end2end else DetectionLoss(self)


def cases():
    x = torch.randn(4)
    return [(Detector(), (x, x + 1)), (Detector(end2end=True), (x, x + 1))]
'''


def test_an_attribute_a_method_fills_runs_what_each_override_returns() -> None:
    """`self.criterion = self.init_criterion()` in a base class, whose own method raises and whose
    subclass's override returns one of two losses (`A(self) if end2end else B(self)`): calling the
    attribute runs each loss's `__call__`, and not a loss no override returns."""
    lines = dedent(LAZY_CRITERION).splitlines()
    found = lint_source(dedent(LAZY_CRITERION), Path("m.py"), Config())
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ("return (preds - targets).abs().sum() * float(targets.max())", "BL103"),
        ("return (preds - targets)[targets > 0].sum()", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_losses_the_overrides_return(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, LAZY_CRITERION, "lazy_criterion.py") == [
        "return (preds - targets).abs().sum() * float(targets.max())", "return (preds - targets)[targets > 0].sum()"]


HANDED = '''
import torch
import torch.nn as nn


class Noisy(nn.Module):
    def __init__(self, size, scale=1.0):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale

    def step(self, x):
        print("step")
        return x * self.scale


class Quiet(Noisy):
    def step(self, x):
        return x + self.scale


class Dilated(nn.Module):
    def __init__(self, kind="noisy", n=2):
        super().__init__()
        if kind == "noisy":
            block = Noisy
        else:
            block = Quiet
        self.blocks = nn.Sequential(*[block(4, scale=2.0) for _ in range(n)])
        self.rates = [1, 2]

    def forward(self, x):
        for i, (block, rate) in enumerate(zip(self.blocks, self.rates)):
            x = self._layer(block, x * rate)
        return x

    def _layer(self, block, x):
        return self._run(x, block)

    def _run(self, x, block):
        return block.step(x)


def cases():
    return [(Dilated(), (torch.randn(2, 4),))]
'''


def test_a_module_handed_to_the_classs_own_methods_runs_where_they_call_it() -> None:
    """A class picked into a local by the constructor's branches, built in a starred comprehension
    into a `Sequential`; a loop over `enumerate(zip(...))` of it hands each element to a helper method,
    which hands it on: a method called on the parameter there runs the element's."""
    lines = dedent(HANDED).splitlines()
    found = lint_source(dedent(HANDED), Path("m.py"), Config())
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break"] == [
        ('print("step")', "BL401")]


def test_a_parameter_holds_the_module_only_where_every_call_in_the_class_hands_it() -> None:
    """The class's calls of a helper each hand the same attribute (or an element of it, or a parameter
    handed one); one that hands anything else, or `*args`, leaves the parameter unknown."""
    module = cst.parse_module(dedent(HANDED))
    cls = next(c for c in module.body if type(c) is cst.ClassDef and c.name.value == "Dilated")
    info = ClassInfo(qualname="m.Dilated", bases=[], submodules={"blocks": "torch.nn.Sequential"})
    assert handed_attributes(cls, info, {}) == {"_layer": {"block": "blocks"}, "_run": {"block": "blocks"}}
    for other in ("self._layer(nn.Identity(), x)", "self._layer(*args)"):
        source = dedent(HANDED).replace("        return x\n\n    def _layer",
                                        f"        return {other}\n\n    def _layer")
        cls = next(c for c in cst.parse_module(source).body if type(c) is cst.ClassDef and c.name.value == "Dilated")
        assert handed_attributes(cls, info, {}) == {}


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_module_handed_on(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, HANDED, "handed.py") == ['print("step")']


def test_the_codes_own_recurrent_subclass_picked_by_a_function_of_another_file(tmp_path: Path) -> None:
    """`class LSTM(RNN, nn.LSTM)` in one file, `get_rnn(cell_type)` returning it (a local set by the
    branches); in another, `rnn_class = get_rnn(cell_type)` then `self.rnn = rnn_class(...)`, and
    `self.encoder = LSTM(...)`: each call of the attributes runs the recurrent module (BL413, once per
    function), and so does `super().forward(...)` in the subclass. (Dynamo breaks on these lines.)"""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "rnns.py": '''
        from torch import nn


        class RNN(nn.RNNBase):
            def forward(self, x, hx=None):
                return super().forward(x, hx)


        class LSTM(RNN, nn.LSTM):
            pass


        class GRU(RNN, nn.GRU):
            pass


        def get_rnn(cell_type):
            if cell_type == "LSTM":
                rnn = LSTM
            elif cell_type == "GRU":
                rnn = GRU
            else:
                raise ValueError(cell_type)
            return rnn
        ''',
        "model.py": '''
        from torch import nn

        from .rnns import LSTM, get_rnn


        class DeepAR(nn.Module):
            def __init__(self, cell_type="LSTM"):
                super().__init__()
                rnn_class = get_rnn(cell_type)
                self.rnn = rnn_class(4, 4, batch_first=True)
                self.encoder = LSTM(4, 4, batch_first=True)

            def encode(self, x):
                _, hidden = self.rnn(x)
                _, again = self.rnn(x)
                return hidden

            def forward(self, x):
                out, _ = self.encoder(x)
                return out, self.encode(x)
        ''',
    })
    found = lint([package], Config(root=tmp_path)).all
    assert sorted((f.path.name, f.line, f.code) for f in found if f.kind == "break") == [
        ("model.py", 15, "BL413"), ("model.py", 20, "BL413"), ("rnns.py", 7, "BL413")]


def test_names_a_package_re_exports_with_a_star_resolve(tmp_path: Path) -> None:
    """`pkg/utils/__init__.py` doing `from .boxes import *`: the entry point `pkg.utils.postprocess`
    (the name users import) is `pkg.utils.boxes.postprocess`, and a module calling
    `from pkg.utils import iou` runs `boxes.iou`; so too through a star of a star. A name starting
    with `_` is not re-exported, nor is a name the star's module does not have."""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "boxes.py": '''
        import torch

        def postprocess(pred, conf):
            return pred[pred[:, 4] > conf]

        def iou(a, b):
            return (a * b).sum().item()

        def _private(x):
            return x.tolist()
        ''',
        "head.py": '''
        import torch
        from pkg.utils import iou, _private, missing

        class Head(torch.nn.Module):
            def forward(self, x):
                return iou(x, x) + _private(x) + missing(x)
        ''',
    })
    (package / "utils").mkdir()
    (package / "utils" / "__init__.py").write_text("from .inner import *\n", encoding="utf-8")
    (package / "utils" / "inner.py").write_text("from pkg.boxes import *\n", encoding="utf-8")
    config = Config(root=tmp_path, entry_points=["pkg.utils.postprocess"])
    assert sorted((f.path.name, f.line, f.code) for f in lint([package], config, use_cache=False).all
                  if f.kind == "break") == [("boxes.py", 5, "BL302"), ("boxes.py", 8, "BL101")]


def test_a_star_import_shadowing_its_own_module_names_the_function(tmp_path: Path) -> None:
    """`pkg/integrate/__init__.py` doing `from .solve_ivp import *`, where `solve_ivp.py` defines
    `solve_ivp`: the star binds the package's `solve_ivp` to the function (after the import bound it to
    the module), so the entry point `pkg.integrate.solve_ivp` and a call of `solve_ivp` imported from
    `pkg.integrate` run the function; a longer name through the module (`pkg.integrate.solve_ivp.helper`)
    still names the module's function."""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "run.py": '''
        import torch
        from pkg.integrate import solve_ivp
        from pkg.integrate.solve_ivp import helper


        @torch.compile
        def run(y):
            return solve_ivp(y) + helper(y)
        ''',
    })
    (package / "integrate").mkdir()
    (package / "integrate" / "__init__.py").write_text("from pkg.integrate.solve_ivp import *\n", encoding="utf-8")
    (package / "integrate" / "solve_ivp.py").write_text(dedent('''
        __all__ = ["solve_ivp"]


        def solve_ivp(y0):
            return y0 * y0.sum().item()


        def helper(y):
            return y.tolist()
        '''), encoding="utf-8")
    found = lint([package], Config(root=tmp_path), use_cache=False).all
    assert sorted((f.path.name, f.line, f.code) for f in found if f.kind == "break") == [
        ("solve_ivp.py", 6, "BL101"), ("solve_ivp.py", 10, "BL102")]
    config = Config(root=tmp_path, entry_points=["pkg.integrate.solve_ivp"])
    (package / "run.py").unlink()
    found = lint([package], config, use_cache=False)
    assert [(f.line, f.code) for f in found.all if f.kind == "break"] == [(6, "BL101")]


def test_an_entry_point_naming_nothing_in_a_linted_module_is_a_note(tmp_path: Path) -> None:
    """An entry point whose module is linted but that names nothing there (a misspelt function) is
    said once per run, warm or cold; one naming a module that is not linted (another package, or a
    file a pre-commit run left out) says nothing, and neither does a pattern."""
    from breaklint.engine import lint

    package = write_package(tmp_path, {"boxes.py": '''
        def postprocess(pred):
            return pred
        '''})
    config = Config(root=tmp_path, cache_dir=str(tmp_path / "cache"),
                    entry_points=["pkg.boxes.postproces", "pkg.boxes.postprocess", "other.f", "pkg.boxes.post*"])
    expected = ["entry point `pkg.boxes.postproces` names no function, class or method of the linted files; "
                "it is left out"]
    assert lint([package], config).notes == expected
    assert lint([package], config).notes == expected  # from the run cache


def test_calling_an_attribute_declared_a_module_runs_its_forward(tmp_path: Path) -> None:
    """`self.net = net` with `net: Block` (a wrapper handed its model by code outside the tree): calling
    `self.net(x, mems)` runs `Block.forward` (or a subclass's override), so a call beartype checks is found
    where the wrapper makes it; calling an attribute declared a callable class runs its `__call__`. Not one
    declared `nn.Module`, which says nothing of which module."""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "model.py": '''
        from typing import List

        import torch
        from beartype import beartype
        from torch import nn

        @beartype
        class Block(nn.Module):
            def forward(self, x, mems: List[torch.Tensor]):
                return x

        class Scorer:
            def __call__(self, x):
                print(x)
                return x

        class Wrapper(nn.Module):
            def __init__(self, net: Block, scorer: "Scorer", other: nn.Module):
                super().__init__()
                self.net = net
                self.scorer = scorer
                self.other = other

            def forward(self, x):
                return self.other(self.scorer(self.net(x, [x])))
        ''',
    })
    config = Config(root=tmp_path, entry_points=["pkg.model.Wrapper"])
    found = sorted((f.line, f.code) for f in lint([package], config, use_cache=False).all if f.kind == "break")
    assert found == [(15, "BL401"), (26, "BL447")]


def test_walks_over_a_modules_parts_that_reach_a_recurrent_module(tmp_path: Path) -> None:
    """Dynamo wraps each module a walk over a module's parts reaches (`named_modules`), and gives up on a
    recurrent one (GB0014): `next(module.parameters())` in a helper handed `self`, of a class registering
    its LSTM first (after a ReLU, which owns no parameter), breaks in the helper; of a class registering a
    linear layer first (a subclass's constructor that does not run its base's: which parts come first is
    not followed across classes), or owning a parameter itself, it is not reported; a walk over every
    parameter reaches a GRU held one level down. A subclass's forward calling the LSTM its base builds is
    a touch too. (The fixture `BL413.py` checks such lines against dynamo.)"""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "utils.py": '''
        import torch


        def device_of(module):
            try:
                return next(module.parameters()).device
            except StopIteration:
                return torch.device("cpu")
        ''',
        "model.py": '''
        import torch
        from torch import nn

        from .utils import device_of


        class RecurrentFirst(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU()
                self.lstm = nn.LSTM(4, 4)
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                device = device_of(self)
                return self.fc(x.to(device))


        class LinearFirst(RecurrentFirst):
            def __init__(self):
                nn.Module.__init__(self)
                self.fc = nn.Linear(4, 4)
                self.lstm = nn.LSTM(4, 4)

            def forward(self, x):
                return self.fc(x.to(next(self.parameters()).dtype))


        class OwnsAParameter(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(torch.ones(4))
                self.lstm = nn.LSTM(4, 4)

            def forward(self, x):
                return x.to(next(self.parameters()).dtype) * self.scale


        class Holder(nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = nn.GRU(4, 4)


        class Counts(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.inner = Holder()

            def forward(self, x):
                size = sum(p.numel() for p in self.parameters())
                return self.fc(x) * size


        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.lstm = nn.LSTM(4, 4)


        class Sub(Base):
            def forward(self, x):
                x = self.fc(x)
                return self.lstm(x)[0]
        ''',
    })
    config = Config(root=tmp_path)
    config.entry_points = [f"pkg.model.{name}" for name in ("RecurrentFirst", "LinearFirst", "OwnsAParameter",
                                                            "Counts", "Sub")]
    found = lint([package], config).all
    assert sorted((f.path.name, f.line, f.code) for f in found if f.kind == "break") == [
        ("model.py", 53, "BL413"), ("model.py", 67, "BL413"), ("utils.py", 7, "BL413")]
    messages = {(f.path.name, f.line): f.message for f in found}
    assert "of the parameters of `RecurrentFirst` reaches its `nn.LSTM` before any module that owns a parameter" \
        in messages["utils.py", 7]
    assert "the modules of `Counts` reaches the `nn.GRU` it holds" in messages["model.py", 53]
    assert "that the base class `Base` builds" in messages["model.py", 67]


def test_a_handed_recurrent_module_is_reported_where_it_is_first_read(tmp_path: Path) -> None:
    """An encoder handed the LSTM another module builds (`Encoder(self.lstm)`, kept as `self.rnn = rnn`),
    reading it in a type test before calling it: dynamo wraps the module at the read and gives up there,
    so the read is reported, once, and not the calls after it; an encoder that calls it at once is
    reported at the call. (The fixture `BL413.py` checks such a line against dynamo.)"""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "encoders.py": '''
        from torch import nn


        class TypedEncoder(nn.Module):
            def __init__(self, rnn):
                super().__init__()
                self.rnn = rnn

            def forward(self, x):
                if isinstance(self.rnn, nn.LSTM):
                    out, _ = self.rnn(x)
                else:
                    out = self.rnn(x)[0]
                return out


        class PlainEncoder(nn.Module):
            def __init__(self, rnn):
                super().__init__()
                self.rnn = rnn

            def forward(self, x):
                return self.rnn(x)[0]
        ''',
        "model.py": '''
        from torch import nn

        from .encoders import PlainEncoder, TypedEncoder


        class Model(nn.Module):
            def __init__(self, kind="lstm"):
                super().__init__()
                if kind == "lstm":
                    self.rnn = nn.LSTM(4, 4, batch_first=True)
                else:
                    self.rnn = nn.GRU(4, 4, batch_first=True)
                self.typed = TypedEncoder(self.rnn)
                self.plain = PlainEncoder(self.rnn)

            def forward(self, x):
                return self.typed(x) + self.plain(x)
        ''',
    })
    config = Config(root=tmp_path)
    config.entry_points = ["pkg.model.Model"]
    found = [f for f in lint([package], config).all if f.kind == "break"]
    assert sorted((f.path.name, f.line, f.code) for f in found) == [("encoders.py", 11, "BL413"),
                                                                    ("encoders.py", 24, "BL413")]
    assert "read here before it is called" in next(f.message for f in found if f.line == 11)


def test_a_function_handed_a_table_of_functions_may_hand_one_back(tmp_path: Path) -> None:
    """`solver = get_method("ivp", methods, name)` with `methods` a literal dict of the tree's functions
    (or a pick from a dict of this module's tables, `{"minimizer": _OPT, "root": _ROOT}[kind]`), then
    `solver(...)`: the helper returns one of the entries it is handed, so each of them may run; so too a
    class picked so and built into an attribute (`self.obj = method_cls(x)`, then `self.obj(xq)`). A table
    handed to a call whose result is not called adds nothing."""
    from breaklint.engine import lint

    package = write_package(tmp_path, {
        "misc.py": '''
        def get_method(algname, methods, method):
            if isinstance(method, str):
                return methods[method.lower()]
            return method


        def count(methods):
            return len(methods)
        ''',
        "solvers.py": '''
        def euler(fcn, y):
            return y + fcn(y) * y.sum().item()


        def rk4(fcn, y):
            return y + fcn(y) * y.tolist()[0]


        def gd(fcn, y):
            return y - fcn(y) * float(y.norm())


        def unused(fcn, y):
            return y.nonzero()
        ''',
        "api.py": '''
        import torch

        from .misc import count, get_method
        from .solvers import euler, gd, rk4, unused

        _OPT = {"gd": gd}
        _ROOT = {"rk4": rk4}


        @torch.compile
        def solve_ivp(fcn, y, method="euler"):
            methods = {"euler": euler, "rk4": rk4}
            solver = get_method("ivp", methods, method)
            return solver(fcn, y)


        @torch.compile
        def minimize(fcn, y, kind="minimizer", method="gd"):
            methods = {"minimizer": _OPT, "root": _ROOT}[kind]
            table = {"unused": unused}
            n = count(table)
            method_fcn = get_method(kind, methods, method)
            return method_fcn(fcn, y) * n
        ''',
    })
    (package / "interp.py").write_text(dedent('''
        import torch

        from .misc import get_method


        class Linear:
            def __init__(self, x):
                self.x = x

            def __call__(self, xq):
                return xq * self.x.max().item()


        class Interp:
            def __init__(self, x, method="linear"):
                methods = {"linear": Linear}
                method_cls = get_method("interp", methods, method)
                self.obj = method_cls(x)

            def __call__(self, xq):
                return self.obj(xq)


        @torch.compile
        def interpolate(interp, xq):
            return interp(xq)
        '''), encoding="utf-8")
    config = Config(root=tmp_path, entry_points=["pkg.interp.Interp.__call__"])
    found = lint([package], config, use_cache=False).all
    assert sorted((f.path.name, f.line, f.code) for f in found if f.kind == "break") == [
        ("interp.py", 12, "BL101"), ("solvers.py", 3, "BL101"), ("solvers.py", 7, "BL102"), ("solvers.py", 11, "BL103")]


def test_a_local_built_in_branches_holds_each_class(tmp_path: Path) -> None:
    """`jacobian = BroydenFirst(...)` under `if`, `LinearMixing(...)` under `else`, then `jacobian.setup(x)`:
    either class's method may run (each reached); a local built again in straight-line code holds the
    last class only."""
    from breaklint.engine import lint

    package = write_package(tmp_path, {"solver.py": '''
        import torch


        class BroydenFirst:
            def setup(self, x):
                if torch.norm(x):
                    return x
                return -x


        class LinearMixing:
            def setup(self, x):
                return x * x.sum().item()


        class Unused:
            def setup(self, x):
                return x.tolist()


        @torch.compile
        def solve(x, method="broyden"):
            if method == "broyden":
                jacobian = BroydenFirst()
            else:
                jacobian = LinearMixing()
            other = Unused()
            other = LinearMixing()
            return jacobian.setup(x) + other.setup(x)
        '''})
    found = lint([package], Config(root=tmp_path), use_cache=False).all
    # (and the call of each, made on an object built in the compiled function, BL426: dynamo cannot resume)
    assert sorted({(f.line, f.code) for f in found if f.kind == "break"}) == [(7, "BL201"), (14, "BL101"), (30, "BL426")]


BACKWARD = '''
import torch
from torch import nn


def tail_grad(grad, x):
    grad_x = torch.ones_like(grad)
    grad_x[x > 1.0] = 2.0
    return grad * grad_x


class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        ctx.save_for_backward(x)
        ctx.limit = limit
        return x.clamp(max=limit)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        if ctx.needs_input_grad[1]:
            raise ValueError("the limit takes no gradient")
        kept = grad_output[x < ctx.limit]
        return tail_grad(grad_output, x) * kept.numel(), None


class Unused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad[grad > 0]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return Clip.apply(self.lin(x), 0.5)


def cases():
    return [(Model(), (torch.randn(2, 4),))]
'''


def test_an_autograd_function_applied_in_compiled_code_runs_its_backward() -> None:
    """`Clip.apply(...)` on a module's output (which needs its gradient): dynamo traces `Clip.backward`
    with the forward, handing it the outputs' gradients (tensors), and what `ctx.saved_tensors` gives
    are tensors; `ctx` itself is not one. The backward of a function never applied is not reached."""
    found = lint_source(dedent(BACKWARD), Path("m.py"), Config())
    lines = dedent(BACKWARD).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ("kept = grad_output[x < ctx.limit]", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_backward(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, BACKWARD, "backward.py") == ["kept = grad_output[x < ctx.limit]"]


COMPILING_WRAPPERS = '''
import torch
from torch import nn


class Wrapper:
    def __init__(self, func, compile_func: bool = True):
        self._func = torch.compile(func) if compile_func else func

    def __call__(self, x):
        return self._func(x)


def maybe_compile(fn, enabled=True):
    return torch.compile(fn) if enabled else fn


def compiling(fn):
    return torch.compile(fn)


class Impl:
    def __init__(self):
        self.net = nn.Linear(4, 4)
        self._step = Wrapper(self.compute_step)

    def compute_step(self, x):
        return self.net(x).sum().item()

    def eager_step(self, x):
        return self.net(x).sum().item()


def scale(x):
    print("scaling")
    return x * 2


scaled = maybe_compile(scale)


@compiling
def shift(x):
    return x + x.max().item()


def eager(x):
    return x.tolist()


def cases():
    x = torch.randn(2, 4)
    return [(Impl()._step, (x,)), (scaled, (x,)), (shift, (x,))]
'''


def test_what_a_function_compiling_its_parameter_is_handed_is_compiled() -> None:
    """A constructor keeping `torch.compile(func)` of its parameter, handed a bound method; a helper
    returning `torch.compile(fn)`, called at module level; a decorator doing the same: what they are
    handed is compiled, though no compiled code calls them. What nothing hands them is not."""
    found = lint_source(dedent(COMPILING_WRAPPERS), Path("m.py"), Config())
    lines = dedent(COMPILING_WRAPPERS).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ("print(\"scaling\")", "BL401"), ("return self.net(x).sum().item()", "BL101"),
        ("return x + x.max().item()", "BL101")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_what_the_wrappers_compile(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, COMPILING_WRAPPERS, "wrappers.py") == [
        "print(\"scaling\")", "return self.net(x).sum().item()", "return x + x.max().item()"]


CHAINED = '''
import dataclasses
from typing import Optional

import torch
from torch import nn


class Clipper:
    def __init__(self, limit):
        self.limit = limit

    def clip(self, x):
        print("clipping")
        return x.clamp(max=self.limit)


class Unused:
    def clip(self, x):
        return x.sum().item()


@dataclasses.dataclass(frozen=True)
class Parts:
    net: nn.Module
    clipper: Optional[Clipper]


class Learner:
    _parts: Parts

    def __init__(self, parts: Parts):
        self._parts = parts
        self._step = torch.compile(self.step)

    def step(self, x):
        return self._parts.clipper.clip(self._parts.net(x))


def cases():
    learner = Learner(Parts(nn.Linear(4, 4), Clipper(0.5)))
    return [(learner.step, (torch.randn(2, 4),))]
'''


def test_a_method_down_a_chain_of_declared_attributes_is_reached() -> None:
    """`self._parts.clipper.clip(x)`: `_parts` declared `Parts` at class level, `clipper` a field of that
    record declared `Optional[Clipper]`: `Clipper.clip` runs; `Unused.clip`, of the same name, does not."""
    found = lint_source(dedent(CHAINED), Path("m.py"), Config())
    lines = dedent(CHAINED).splitlines()
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break"] == [
        ("print(\"clipping\")", "BL401")]


@pytest.mark.dynamo
def test_dynamo_breaks_down_the_chain(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, CHAINED, "chained.py") == ["print(\"clipping\")"]


FORWARDED = {
    "acts.py": '''
    import torch


    def plain(x):
        return torch.relu(x)


    def counted(x):
        return x * int((x > 0).sum())


    def _private(x):
        print("never chosen by name")
        return x
    ''',
    "layers.py": '''
    from torch import nn

    from . import acts


    class Tree(nn.Module):
        def __init__(self, dim, choice=acts.plain, scale=1.0):
            super().__init__()
            self.lin = nn.Linear(dim, dim)
            self.choice, self.scale = choice, scale

        def forward(self, x):
            return self.choice(self.lin(x)) * self.scale


    class Block(nn.Module):
        def __init__(self, dim, Layer=Tree, **kwargs):
            super().__init__()
            self.tree = Layer(dim, **kwargs)

        def forward(self, x):
            return self.tree(x)


    class Model(nn.Module):
        def __init__(self, dim, choice="counted"):
            super().__init__()
            self.block = Block(dim, choice=getattr(acts, choice))

        def forward(self, x):
            return self.block(x)
    ''',
}


def test_a_function_chosen_by_name_and_handed_on_through_keywords_is_reached(tmp_path: Path) -> None:
    """`getattr(acts, choice)` of a name the code does not show may be any public function of the module;
    handed to `Block(dim, choice=...)`, whose `**kwargs` go on to `Layer(dim, **kwargs)` (a class the
    parameter's default names), it lands in `Tree.__init__`'s `choice`, kept by a tuple assignment
    (`self.choice, self.scale = choice, scale`): calling `self.choice` runs `counted` (and `plain`, the
    default). A private function (`_private`) is not one a name from outside picks. (Run under dynamo
    with `choice="counted"`: it breaks on `counted`'s line.)"""
    from breaklint.engine import lint

    package = write_package(tmp_path, FORWARDED)
    config = Config(root=tmp_path)
    config.entry_points = ["pkg.layers.Model"]
    found = lint([package], config).all
    assert sorted((f.path.name, f.line, f.code) for f in found if f.kind == "break") == [("acts.py", 10, "BL103")]


KEPT_ON_CTX = '''
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)

    def backward_pass(self, y, dy):
        y.requires_grad = True
        return y, dy * 2


class Other(nn.Module):
    def backward_pass(self, y, dy):
        print("never handed to the function")
        return y, dy


class Reversible(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, blocks):
        ctx.blocks = blocks
        for block in blocks:
            x = block(x)
        ctx.y = x.detach()
        return x

    @staticmethod
    def backward(ctx, dy):
        y = ctx.y
        for block in ctx.blocks[::-1]:
            y, dy = block.backward_pass(y, dy)
        return dy, None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = nn.Linear(4, 4)
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        return Reversible.apply(self.pre(x), self.blocks) * 2


def cases():
    return [(Net(), (torch.randn(2, 4),))]
'''


def test_a_method_of_what_forward_keeps_on_ctx_runs_in_backward() -> None:
    """`ctx.blocks = blocks` in an autograd Function's `forward`, then `for block in ctx.blocks[::-1]:
    block.backward_pass(y, dy)` in its `backward`: what `.apply` was handed for `blocks` (the module's
    `ModuleList` of `Block`) runs `Block.backward_pass`, which dynamo traces with the forward where an input
    needs its gradient; `Other`'s method of the same name does not run."""
    found = lint_source(dedent(KEPT_ON_CTX), Path("m.py"), Config())
    lines = dedent(KEPT_ON_CTX).splitlines()
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break"] == [
        ("y.requires_grad = True", "BL424")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_what_backward_runs(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, KEPT_ON_CTX, "kept_on_ctx.py") == ["y.requires_grad = True"]


ELEMENTS_OF_A_PARAMETER = '''
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def step(self, x):
        print("stepping")
        return self.lin(x)


class Unused(nn.Module):
    def step(self, x):
        return x.sum().item()


def run(blocks, x):
    for block in blocks[::-1]:
        x = block.step(x)
    return x


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block()])

    def step(self, x):
        print("the holder's own step")
        return x


def run_held(holder, x):
    for block in holder.blocks:
        x = block.step(x)
    return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.holder = Holder()

    def forward(self, x):
        return run(self.blocks, x) + run_held(self.holder, x)


def cases():
    return [(Net(), (torch.randn(2, 4),))]
'''


def test_a_method_of_an_element_of_a_parameter_runs_on_what_the_callers_hand_over() -> None:
    """`for block in blocks[::-1]: block.step(x)` in a helper handed `self.blocks`: `Block.step` runs (the
    container's elements being what it holds), `Unused.step`, of the same name, does not; nor does the
    `step` of an object whose attribute the loop walks (`for block in holder.blocks`)."""
    found = lint_source(dedent(ELEMENTS_OF_A_PARAMETER), Path("m.py"), Config())
    lines = dedent(ELEMENTS_OF_A_PARAMETER).splitlines()
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break"] == [
        ("print(\"stepping\")", "BL401")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_elements_method(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, ELEMENTS_OF_A_PARAMETER, "elements.py") == ["print(\"stepping\")"]


PROPERTY_SETTER = '''
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self._scale = torch.ones(1)
        self.bias = 0.0  # stored in the constructor, which runs eagerly

    @property
    def scale(self):
        print("reading the scale")
        return self._scale

    @scale.setter
    def scale(self, value):
        print("setting the scale")
        self._scale = value

    @property
    def bias(self):
        return self._bias

    @bias.setter
    def bias(self, value):
        print("setting the bias")
        self._bias = value

    def forward(self, x, s):
        self.scale = s
        return x * self.scale + self.bias


def cases():
    return [(Scaled(), (torch.randn(2, 4), torch.ones(1)))]
'''


def test_a_property_keeps_its_getter_and_a_store_in_compiled_code_runs_its_setter() -> None:
    """A property with a setter: the getter, which `self.scale` reads run, is not lost to the setter of its
    name; `self.scale = s` in forward runs the setter; the constructor's store (eager) runs nothing."""
    found = lint_source(dedent(PROPERTY_SETTER), Path("m.py"), Config())
    lines = dedent(PROPERTY_SETTER).splitlines()
    assert sorted((lines[f.line - 1].strip(), f.code) for f in found if f.kind == "break") == [
        ('print("reading the scale")', "BL401"), ('print("setting the scale")', "BL401")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_getter_and_the_setter(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, PROPERTY_SETTER, "setter.py") == [
        'print("reading the scale")', 'print("setting the scale")']
