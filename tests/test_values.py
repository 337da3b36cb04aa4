"""The value analysis across functions and files, and the reach edges it feeds: cases from real code."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from breaklint.analysis import values as V
from breaklint.config import Config
from breaklint.engine import lint, lint_source


def findings(source: str) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in lint_source(dedent(source), Path("m.py"), Config()))


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")


# ---------------------------------------------------------------------- the lattice
def test_op_is_a_tensor_as_soon_as_one_operand_is() -> None:
    assert V.op(V.TENSOR, V.NUMBER).is_tensor
    assert V.op(V.NUMBER, V.SIZE).kind == "size"
    assert V.op(V.NUMBER, V.NUMBER, comparison=True).kind == "bool"
    assert V.op(V.param("f", "x"), V.NUMBER).kind == "op"
    assert V.op(V.UNKNOWN, V.NUMBER).kind == "unknown"


def test_join_keeps_optional_tensors_and_drops_mixed_ones() -> None:
    assert V.join(V.TENSOR, V.NONE).is_tensor
    assert V.join(V.TENSOR, V.BOOL_TENSOR).is_tensor
    assert not V.join(V.TENSOR, V.STR).is_tensor
    assert not V.join(V.TENSOR, V.OBJECT).is_tensor
    assert V.join(V.BOOL, V.BOOL).kind == "bool"
    assert V.join(V.seq([V.TENSOR, V.NUMBER]), V.seq([V.TENSOR, V.NUMBER])) == V.seq([V.TENSOR, V.NUMBER])


def test_a_tensor_on_one_path_and_a_python_number_on_another_may_be_a_tensor() -> None:
    # `prev = torch.tensor(-1)` in one branch, `prev = t - 1` in the other: a test of it breaks
    # whenever the tensor's path ran; only assumed, so no rewrite that needs a tensor is offered
    for other in (V.NUMBER, V.BOOL):
        joined = V.join(V.TENSOR, other)
        assert joined.is_tensor and not joined.known_tensor
    assert V.join(V.BOOL_TENSOR, V.BOOL).is_bool_tensor
    # a tensor only assumed (a root's bare parameter) is weaker evidence than a Python value:
    # `flag = default(flag, self.training)` is a flag
    assert not V.join(V.ASSUMED_TENSOR, V.BOOL).is_tensor
    assert not V.join(V.ASSUMED_TENSOR, V.NUMBER).is_tensor
    # one assumed from a method only tensors have (`g.std()`) is as strong as a known one here, and
    # stays assumed: no rewrite that needs a tensor
    joined = V.join(V.guessed_tensor(), V.NUMBER)
    assert joined.is_tensor and not joined.known_tensor
    assert V.join(V.guessed_tensor(True), V.BOOL).is_bool_tensor


def test_a_tensor_only_method_on_a_join_that_shows_a_tensor_gives_one_shown() -> None:
    # `kl = kl_divergence(p, q)` on one path, a helper's `(a - b).mean(0)` on the other: `kl.unsqueeze`
    # is a tensor however the tree decides the helper, shown (no rewrite that needs a known tensor)
    either = V.join(V.TENSOR, V.op(V.elem(V.ret("name", "pkg.sample", None), 0, 2)))
    assert either.kind == "join"
    assert V.same_kind(either, guess=True) == V.SHOWN_TENSOR
    assert V.method_result(either, comparison=True, guess=True) == V.SHOWN_BOOL_TENSOR
    assert V.same_kind(either).kind == "op"  # a method any object may have tells nothing more
    # and, joined with a Python bool (`flag = False` on the other path), it may be a tensor, as a
    # known one would
    joined = V.join(V.SHOWN_BOOL_TENSOR, V.BOOL)
    assert joined.is_bool_tensor and not joined.known_tensor


def test_a_compile_check_kept_in_a_local_decides_the_tests_of_it() -> None:
    # torchrl's entropy: `compiling = is_dynamo_compiling()` and `needs_mc = not analytic or compiling`
    assert findings("""
        import torch
        from torch import nn
        from pkg.utils import is_dynamo_compiling

        class Loss(nn.Module):
            def forward(self, dist, x):
                analytic = hasattr(dist, "entropy")
                if analytic:
                    entropy = dist.entropy()
                compiling = is_dynamo_compiling()
                needs_mc = not analytic or compiling
                if analytic and not compiling and not entropy.isfinite().all():
                    needs_mc = True
                if needs_mc:
                    entropy = x.mean()
                else:
                    print("eager")
                if compiling:
                    return entropy
                print("never under compile")
                return entropy
    """) == []
    # held on one path only, the flag says nothing of the other
    assert V.join(V.COMPILING, V.BOOL) == V.BOOL
    assert V.join(V.COMPILING, V.COMPILING) == V.COMPILING
    assert findings("""
        import torch

        @torch.compile
        def f(x, eager_only: bool):
            if eager_only:
                skip = False
            else:
                skip = torch.compiler.is_compiling()
            if not skip:
                print("may run under compile")
            return x * 2
    """) == [(11, "BL401")]


def test_unpacking_a_helper_s_result_takes_the_tuples_it_returns() -> None:
    # `_split_and_pad_sequence(..., return_mask=True)` returns the padded tensor and the mask, else the
    # tensor indexed by the mask: unpacked into two names, the second is the mask
    assert findings("""
        import torch
        from torch import nn

        def split(x, lengths, return_mask=False):
            mask = torch.arange(x.shape[-1]) < lengths.unsqueeze(1)
            if return_mask:
                return x, mask
            return x[mask]

        class Pad(nn.Module):
            def forward(self, x, lengths):
                flat, mask = split(x, lengths, return_mask=True)
                first, second, third = split(x, lengths, return_mask=True), 1, 2
                return flat[mask], first
    """) == [(9, "BL302"), (15, "BL302")]


def test_a_guess_from_a_tensor_only_method_joined_with_zero_is_tested_as_a_tensor() -> None:
    # `sigma` is the gradient's deviation or 0: the test breaks wherever the deviation was taken,
    # though nothing but its methods tells that the gradient is a tensor
    source = dedent("""
        import torch
        from torch.optim import Optimizer

        class Opt(Optimizer):
            def init_group(self, group):
                for p in group["params"]:
                    grad = p.grad
                    sigma = grad.std().nan_to_num_() if grad.ndim > 1 else 0
                    norm = grad.norm()
                    scale = norm / sigma if sigma != 0.0 else norm
                    count = len(grad) if grad.ndim > 1 else 0
                    if count != 0:
                        p.mul_(scale)

            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    self.init_group(group)
    """)
    got = lint_source(source, Path("opt.py"), Config(entry_points=["opt.Opt.step"]))
    # `count` is a number either way: no finding there
    assert [(f.line, f.code) for f in got] == [(11, "BL201")]


def test_elements_of_tuples_tensors_and_dicts() -> None:
    pair = V.seq([V.TENSOR, V.NUMBER])
    assert V.elem(pair, 0).is_tensor and V.elem(pair, 1).kind == "number"
    assert V.elem(V.TENSOR).is_tensor
    assert V.item(V.dict_of(["mean"], [V.TENSOR]), "mean").is_tensor
    assert V.elem(V.param("f", "x"), 2).kind == "elem"


# ---------------------------------------------------------------------- misses that values find
def test_a_helper_returning_a_tensor_expression() -> None:
    assert findings("""
        import torch

        def widths(b):
            return (b[:, 2] - b[:, 0]) * 0.5

        class M(torch.nn.Module):
            def forward(self, boxes):
                w = widths(boxes)
                return int(w.max())
    """) == [(10, "BL103")]


def test_elements_of_a_tensor_iterated_in_python() -> None:
    assert findings("""
        import torch

        def paste(boxes, h):
            for box in boxes:
                n = int(box[2] - box[0])
                m = min(box[3] + 1, h)
            return n

        class M(torch.nn.Module):
            def forward(self, boxes):
                return paste(boxes, 4)
    """) == [(6, "BL103")]


def test_values_carried_in_dicts_and_tuples() -> None:
    assert findings("""
        import torch

        def stats(x):
            return x.mean(), x.shape[0]

        @torch.compile
        def f(x):
            s = {"mean": x.mean(), "n": 3}
            if s["mean"] > 0:
                x = x + 1
            mean, n = stats(x)
            if n > 1:
                x = x * 2
            if mean > 0:
                x = x - 1
            return x
    """) == [(10, "BL201"), (15, "BL201")]


def test_tensor_arguments_flow_into_helper_parameters() -> None:
    assert findings("""
        import torch

        def check(scores, limit: int):
            if scores.max() > limit:
                return scores.clamp(max=limit)
            return scores

        class M(torch.nn.Module):
            def forward(self, x):
                return check(torch.sigmoid(x), 3)
    """) == [(5, "BL201")]


def test_a_mask_a_helper_returns_or_a_caller_passes_indexes_by_booleans() -> None:
    # (the file is `m.py`: a local `m` leaves `valid(x)`, qualified `m.valid`, a call of the module's function)
    assert findings("""
        import torch

        def valid(x):
            return (x > 0) & torch.isfinite(x)

        def keep(x, mask=None):
            if mask is not None:
                x = x[mask]
            return x

        def gather(x, idx):
            return x[idx]

        def either(x, sel):
            return x[sel]

        class M(torch.nn.Module):
            def forward(self, x, i: int):
                m = valid(x)
                a = x[m]
                b = x[valid(x)]
                c = keep(x, x > 0.5)
                d = keep(x)
                e = gather(x, torch.arange(3))
                f = gather(x, i)
                g = either(x, x > 0)
                h = either(x, torch.tensor([0, 1]))
                return a, b, c, d, e, f, g, h
    """) == [(9, "BL302"), (21, "BL302"), (22, "BL302")]


def test_a_mask_kept_by_a_copy_of_itself_stays_a_mask() -> None:
    # `state["mask"] = mask.clone()` of the mask read back: a cycle, whose first round knows nothing of
    # the receiver; `clone`'s guess (a tensor) must not stand in for the answer the next round finds
    assert findings("""
        import torch

        class Opt(torch.optim.Optimizer):
            def add_param_group(self, group):
                super().add_param_group(group)
                for p in group["params"]:
                    self.state[p]["mask"] = p.detach().abs() < group["threshold"]

            def refine(self, group):
                for p in group["params"]:
                    state = self.state[p]
                    mask = state["mask"]
                    state["mask"] = mask.clone()

            @torch.compile
            def step(self):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        state["exp_avg"] = torch.zeros_like(p[state["mask"]])
    """) == [(21, "BL302")]


def test_tensors_of_bools_from_a_dtype_a_fill_value_or_a_move_to_a_device() -> None:
    assert findings("""
        import torch

        def flags(x):
            valid = x > 0
            return valid.to(x.device)

        @torch.compile
        def f(x: torch.Tensor, n: int, device, dtype):
            a = x[torch.zeros(n, dtype=torch.bool)]
            b = x[torch.ones_like(x, dtype=bool)]
            c = x[torch.full((n,), True)]
            d = x[(x > 0).to(x.device)]
            e = x[(x > 0).cuda()]
            g = x[flags(x)]
            h = x[torch.zeros(n, dtype=torch.long)]
            i = x[torch.full((n,), 1)]
            j = x[(x > 0).to(dtype)]
            k = x[(x > 0).to(torch.long)]
            return a, b, c, d, e, g, h, i, j, k
    """) == [(10, "BL302"), (11, "BL302"), (12, "BL302"), (13, "BL302"), (14, "BL302"), (15, "BL302")]


def test_a_mask_stays_a_mask_through_what_keeps_its_dtype() -> None:
    # the upper triangle of a label-equality matrix (a contrastive loss's positive pairs), method or
    # function, its diagonal, a selection of its rows, a tensor converted to bools; not the triangle of
    # a sum of labels, nor a conversion to floats
    assert findings("""
        import torch

        @torch.compile
        def f(x: torch.Tensor, labels: torch.Tensor, idx: torch.Tensor):
            same = labels.unsqueeze(1) == labels.unsqueeze(0)
            a = x[same.triu(diagonal=1).view(-1)]
            b = x[torch.tril(same, diagonal=-1)]
            c = x[same.diagonal()]
            d = x[same.index_select(0, idx)]
            e = x[torch.triu(labels.unsqueeze(1) + labels.unsqueeze(0))]
            g = x[torch.zeros(4, 8).type(torch.bool)]
            h = x[torch.zeros(4, 8).to(x.device, dtype=torch.bool)]
            i = x[torch.zeros(4, 8).to(torch.float32)]
            return a, b, c, d, e, g, h, i
    """) == [(7, "BL302"), (8, "BL302"), (9, "BL302"), (10, "BL302"), (12, "BL302"), (13, "BL302")]


def test_a_mask_beside_an_index_the_tree_decides_is_still_reported() -> None:
    # `x[i, m]`: `i` is symbolic (a parameter) and no mask; `m` is one, reported as before
    assert findings("""
        import torch

        def pick(x, i):
            return x[i, x[0] > 0]

        class M(torch.nn.Module):
            def forward(self, x):
                return pick(x, 2)
    """) == [(5, "BL302")]


def test_a_mask_a_caller_passes_counts_in_any_position_of_the_index() -> None:
    # `x[i, m]` with both parameters: `m` is a mask where a caller passes one, whatever `i` turns out;
    # where every caller passes numbers, it is quiet
    assert findings("""
        import torch

        def pick(x, i, m):
            return x[i, m]

        def take(x, i, j):
            return x[i, j]

        class M(torch.nn.Module):
            def forward(self, x):
                return pick(x, 2, x[0] > 0) + take(x, 0, 1)
    """) == [(5, "BL302")]


def test_what_a_class_stores_under_a_key_is_read_in_its_other_methods() -> None:
    # an optimizer's state: stored in one method, read in `step`, through `state = self.state[p]` or directly
    assert findings("""
        import torch

        class Opt(torch.optim.Optimizer):
            @torch.compile
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        grad = p.grad[state["mask"]]
                        if self.state[p]["scale"].sum() > 0:
                            grad = grad * 2
                        if state["count"] > 3:
                            grad = grad * 3
                        if state["never_stored"] > 0:
                            grad = grad * 4
                        p.add_(grad)

            def init_masks(self):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        state["mask"] = torch.rand_like(p) < 0.5
                        state["count"] = 0
                        self.state[p]["scale"] = torch.ones(())
                for group in self.param_groups:
                    group["d"] = torch.ones(())  # a loop over the attribute: its elements, as `[0]`

            @torch.compile
            def lr(self):
                group = self.param_groups[0]
                return float(group["d"])

        class Cache:
            def __init__(self):
                self.kept = {}

            def fill(self, x):
                self.kept["valid"] = torch.ones(3) > 0
                kept = self.kept
                kept["bound"] = torch.zeros(())
                for kept in [{}]:
                    kept["valid"] = 1  # a loop variable, no longer the attribute: not the class's

            @torch.compile
            def apply(self, x):
                if self.kept["bound"] > 0:
                    return x[self.kept["valid"]]
                return x
    """) == [(10, "BL302"), (11, "BL201"), (32, "BL103"), (47, "BL201"), (48, "BL302")]


def test_an_answer_on_a_cycle_does_not_hang_on_which_question_came_first() -> None:
    # a recursive helper: what its call returns rests on what it returns; each question asked first,
    # of a fresh resolver, gives the answer it gives when asked after the others
    from breaklint.analysis.reach import Reach
    from breaklint.analysis.resolve import Values
    from breaklint.analyze import analyze_source

    result = analyze_source(dedent("""
        import torch

        def candidates(design: torch.Tensor, on_host: bool):
            if on_host:
                cand, valid = candidates(design.cpu(), False)
                return cand.to(design.device), valid.to(design.device)
            cand = design * 2
            return torch.where(cand > 0, cand, 0.0), cand > 0

        class M(torch.nn.Module):
            def forward(self, x):
                c, v = candidates(x, True)
                return c[v], v.cpu(), c.cpu()
    """), Path("m.py"), "m")
    reach = Reach([result.summary], [], [])
    asked = [c.requires for c in result.candidates if c.requires is not None]
    assert len(asked) >= 3
    alone = [Values(reach).resolve(value) for value in asked]
    for first in range(len(asked)):
        values = Values(reach)
        values.resolve(asked[first])
        assert [values.resolve(value) for value in asked] == alone


# ---------------------------------------------------------------------- false alarms that values remove
def test_a_python_flag_passed_down_is_not_a_tensor_test() -> None:
    assert findings("""
        import torch

        class Block(torch.nn.Module):
            def forward(self, x, is_global, scale=None):
                if is_global:
                    x = x * 2
                return x

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def forward(self, x, mask):
                is_global = mask.any().item()
                return self.block(x, is_global)
    """) == [(16, "BL101")]


def test_forward_called_with_ints_by_its_parent() -> None:
    assert findings("""
        import torch

        class RelPos(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.bias = None

            def forward(self, i, j):
                if self.bias is not None and self.bias.shape[-1] >= j:
                    return self.bias[..., -i:, -j:]
                return torch.zeros(i, j)

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.rel = RelPos()

            def forward(self, x):
                n = x.shape[-1]
                return x + self.rel(n, n)
    """) == []


def test_flags_reassigned_only_in_one_branch_stay_python() -> None:
    assert findings("""
        import random
        import torch

        class M(torch.nn.Module):
            def forward(self, x, output_attentions=False, use_cache: bool = False):
                skip = False
                if self.training:
                    skip = random.random() < 0.1
                if skip:
                    return x
                if output_attentions or use_cache:
                    x = x + 1
                if x.size(1) != 3:
                    x = x * 2
                return x
    """) == [(9, "BL405")]


def test_methods_of_plain_objects_are_not_tensors() -> None:
    assert findings("""
        import torch

        class Cache:
            def get_seq_length(self):
                return 0

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.cache = Cache()

            def forward(self, x):
                if self.cache.get_seq_length() != 0:
                    x = x + 1
                return x
    """) == []


# ---------------------------------------------------------------------- reach
def test_helper_objects_held_by_a_module_are_reached() -> None:
    assert findings("""
        import torch

        class BoxCoder:
            def decode(self, codes):
                print("decoding")
                return codes

        class Sampler:
            def __call__(self, labels):
                return labels.nonzero()

        class Head(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.box_coder = BoxCoder()
                self.sampler = Sampler()

            def forward(self, x):
                return self.box_coder.decode(x), self.sampler(x)
    """) == [(6, "BL401"), (11, "BL301")]


def test_functions_held_in_attributes_and_tables_are_reached() -> None:
    assert findings("""
        import torch

        def eager_attention(q, k):
            print("eager")
            return q @ k

        def sdpa_attention(q, k):
            return q.nonzero()

        ATTENTIONS = {"eager": eager_attention, "sdpa": sdpa_attention}

        def never_used(q):
            print("not reached")

        class Attn(torch.nn.Module):
            def __init__(self, impl):
                super().__init__()
                self.attn_fn = ATTENTIONS[impl]

            def forward(self, q, k):
                return self.attn_fn(q, k)
    """) == [(5, "BL401"), (9, "BL301")]


def test_constructors_called_in_compiled_code_run_init() -> None:
    assert findings("""
        import torch

        class Boxes:
            def __init__(self, t):
                print("building boxes")
                self.t = t

        @torch.compile
        def f(x):
            b = Boxes(x)
            return x
    """) == [(6, "BL401")]


def test_a_base_from_outside_the_tree_with_forward_is_a_module() -> None:
    assert findings("""
        from somelib.layers import BaseLayer

        class Block(BaseLayer):
            def forward(self, x):
                print("block")
                return x

        class Config(Exception):
            def forward(self, x):
                print("not a module")
    """) == [(6, "BL401")]


def test_module_aliases_reach_across_files(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops/__init__.py": "",
        "pkg/ops/boxes.py": """
            import torch

            def batched_nms(boxes, scores):
                keep = scores > 0.5
                return boxes[keep]

            def unused(boxes):
                return boxes.nonzero()
        """,
        "pkg/model.py": """
            import torch
            from .ops import boxes as box_ops
            import pkg.ops.boxes as ops

            class Det(torch.nn.Module):
                def forward(self, boxes, scores):
                    a = box_ops.batched_nms(boxes, scores)
                    return ops.batched_nms(a, scores)
        """,
    })
    result = lint([tmp_path / "pkg"], Config(root=tmp_path), jobs=1, use_cache=False)
    assert [(f.path.name, f.line, f.code) for f in result.findings] == [("boxes.py", 6, "BL302")]


def test_a_local_wrapper_of_the_compile_checks_decides_the_branch() -> None:
    assert findings("""
        import torch

        def _tracing():
            return torch.jit.is_scripting() or torch.compiler.is_compiling()

        @torch.compile
        def f(x):
            if not _tracing():
                print("eager only")
            return x
    """) == []


def test_half_precision_checks_make_a_hazard_and_training_a_named_break() -> None:
    found = lint_source(dedent("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x, mask=None):
                if x.dtype == torch.float16 and torch.isinf(x).any():
                    x = x.clamp(-1, 1)
                if self.training:
                    x = x[x > 0]
                if mask is not None and mask.any():
                    x = x + 1
                return x
    """), Path("m.py"), Config())
    got = [(f.line, f.code, f.kind, f.condition) for f in found]
    assert got == [
        (6, "BL201", "hazard", "x.dtype == torch.float16"),
        (9, "BL302", "break", "self.training"),
        (10, "BL201", "break", "mask is not None"),
    ]
    assert "(only when `self.training`)" in found[1].message


def test_entry_points_name_what_is_compiled_from_outside() -> None:
    source = dedent("""
        import torch

        class Scheduler:
            def step(self, out, t, sample):
                if t > 0:
                    sample = sample.nonzero()
                return sample

        def fused(x):
            print("fused")
            return x
    """)
    assert lint_source(source, Path("sched.py"), Config()) == []
    got = lint_source(source, Path("sched.py"), Config(entry_points=["sched.Scheduler.step", "sched.fu*"]))
    assert sorted((f.line, f.code) for f in got) == [(6, "BL201"), (7, "BL301"), (11, "BL401")]


def test_annotations_name_python_values_and_aliases_defer_to_call_sites() -> None:
    assert findings("""
        import torch
        from typing_extensions import Literal
        from mylib.typing import Adj

        def fmt(x, edge_index: Adj, average: Literal["micro", "macro"] | None = None):
            if average == "micro":
                x = x.flatten()
            row, col = edge_index[0], edge_index[1]
            return x[row == col]

        @torch.compile
        def f(x, edge_index, average: Literal["micro", "macro"] | None = None):
            return fmt(x, edge_index, average)
    """) == [(10, "BL302")]


def test_only_half_precision_checks_make_a_hazard() -> None:
    found = lint_source(dedent("""
        import torch

        @torch.compile
        def f(x):
            if x.dtype == torch.float32 and x.any():
                x = x + 1
            if (x.dtype == torch.bfloat16 and x.ndim > 1) and torch.isinf(x).any():
                x = x.clamp(-1, 1)
            return x
    """), Path("m.py"), Config())
    got = [(f.line, f.code, f.kind, f.condition) for f in found]
    assert got == [
        (6, "BL201", "break", "x.dtype == torch.float32"),
        (8, "BL201", "hazard", "x.dtype == torch.bfloat16 and x.ndim > 1"),
    ]


def test_same_kind_methods_of_a_parameter_and_python_results_of_torch_functions() -> None:
    # `t.to(device)` is a tensor when `t` is one: the helper's branch on it is reported once the caller
    # passes a tensor; `torch.equal` and `.equal` read both tensors into a Python bool, not a tensor to
    # branch on
    assert findings("""
        import torch

        class Solver:
            def integrate(self, t):
                if t[0] > 0:
                    return t
                return -t

        @torch.compile
        def run(y0, t):
            t = t.to(y0.device)
            solver = Solver()
            return solver.integrate(t)

        @torch.compile
        def same(a, b):
            a = a * 2
            flag = torch.equal(a, b) or a.equal(b)
            return a if flag else b
    """) == [(6, "BL201"), (14, "BL426"), (19, "BL103"), (19, "BL103")]  # the reads break (BL103); the test of the bool does not


def test_a_local_bound_to_one_of_several_functions_reaches_each() -> None:
    assert findings("""
        import torch
        from torch import nn

        def masked(x, mask):
            out = x.clone()
            return out[x > 0]

        def plain(x, mask):
            return x * 2

        class Flow(nn.Module):
            def __init__(self, tails=None):
                super().__init__()
                self.tails = tails

            def forward(self, x):
                fn = masked if self.tails is None else plain
                return fn(x, None)
    """) == [(7, "BL302")]


def test_tensor_methods_on_the_result_of_a_function_the_code_was_handed() -> None:
    # `norm` is a parameter: `norm(y).abs()` calls a tensor-only method on what it returns, so the
    # result is taken as an (assumed) tensor, and flows back to callers and into helpers; the same
    # method on what a tree function of unknown result returns says nothing. `np.ones(3)` makes an
    # array, a tensor to dynamo: a test of its sum breaks (probed: GB0170)
    assert findings("""
        import torch
        import numpy as np

        def ratio(est, norm):
            return norm(est).abs()

        def step(last, r):
            if r == 0:
                return last
            return last * r

        def unknown(x):
            return x

        @torch.compile
        def solve(y, norm):
            r = ratio(y, norm)
            ok = r <= 1
            if ok:
                y = y * 2
            if norm(y).sum() > 0:
                y = y + 1
            if np.ones(3).sum() > 0:
                y = y - 1
            if unknown(3).abs() > 1:
                y = y - 2
            return step(y, r)
    """) == [(9, "BL201"), (20, "BL201"), (22, "BL201"), (24, "BL201")]


def test_a_flag_set_from_a_tensor_test_on_one_path_and_a_bool_on_another() -> None:
    # `accept = err <= 1` then `accept = False` on one branch: a bool tensor unless that branch
    # runs, so the test of it breaks (dynamo breaks at each `if` of `step`), overruled twice or not; the other way round
    # (`on_step = False`, then a test of tensors on one branch) is a Python flag unless the branch
    # runs, and a number overruled by a tensor (`total = 0`, then a sum) says nothing
    assert findings("""
        import torch

        def ratio(e):
            return e.abs().amax()

        @torch.compile
        def step(err, dt, max_step: float, min_step: float):
            accept = ratio(err) <= 1
            if dt > max_step:
                accept = False
            if dt <= min_step:
                accept = True
            if accept:
                dt = dt * 2
            return dt

        @torch.compile
        def counts(y, flag: bool):
            total = 0
            if flag:
                total = y.sum()
            if total:
                y = y + 1
            on_step = False
            if flag:
                on_step = (y > 0).all()
            if on_step:
                y = y + 1
            return y
    """) == [(10, "BL201"), (12, "BL201"), (14, "BL201")]


def test_a_name_rebound_in_a_loop_holds_the_new_value_for_the_rest_of_the_body() -> None:
    # inside the body, `converged` is the test just computed (a bool tensor), and `scale` the 2 just
    # set; past the loop `converged` is that tensor or the `False` from before it (the body may not
    # run): a Python flag that the loop may set, not reported
    assert findings("""
        import torch

        @torch.compile
        def iterate(y, n: int):
            converged = False
            scale = 1
            for _ in range(n):
                y = y * 0.5
                converged = (y.abs() < 1e-3).all()
                if converged:
                    break
                scale = 2
                if scale > 1:
                    y = y * scale
            if not converged:
                y = y + 1
            return y
    """) == [(11, "BL201")]


def test_arithmetic_on_a_join_s_own_values_adds_nothing_to_it() -> None:
    # `x = x + 1` under an `if`, many times over: the join stays as shallow as the parameter, so a
    # test far down the function still sees the tensor
    p = V.param("f", "x")
    assert V.join(p, V.op(p)) == p
    assert V.join(p, V.op(p, V.param("f", "y"))).kind == "join"  # `x + y` rests on more than the join holds
    tests = "".join(f"        if x.mean() > {i}:\n            x = x + 1\n" for i in range(12))
    source = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n" + tests + (
        "        q = x.new_zeros(3).sum()\n"
        "        if q == 0:\n"
        "            return x\n"
        "        return -x\n")
    assert sorted((f.line, f.code) for f in lint_source(source, Path("m.py"), Config())) == [
        (6 + 2 * i, "BL201") for i in range(12)] + [(31, "BL201")]


def test_getattr_with_a_constant_name_and_attributes_of_another_object() -> None:
    # `getattr(self, "scale")` reads `self.scale`; `self.sched.timesteps` and `s.timesteps` read
    # what the scheduler's methods store there (a tensor, set outside `__init__`); a constant it
    # keeps is no tensor
    assert findings("""
        import torch
        from torch import nn

        class Sched:
            def __init__(self):
                self.timesteps = None
                self.order = 2

            def set_timesteps(self, n):
                self.timesteps = torch.arange(n)

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("scale", torch.ones(3))
                self.sched = Sched()

            def forward(self, x):
                if getattr(self, "scale").sum() > 0:
                    x = x + 1
                if getattr(self, "missing", None) is not None:
                    x = x + 1
                if self.sched.timesteps[0] > 0:
                    x = x + 1
                s = Sched()
                if s.timesteps[-1] > 0:
                    x = x + 1
                if self.sched.order > 1:
                    x = x + 1
                return x
    """) == [(20, "BL201"), (24, "BL201"), (27, "BL201")]


def test_results_of_classmethods_module_functions_and_torch_result_fields(tmp_path: Path) -> None:
    # `Base.smallest(x)` binds `cls` first, so `x` is what forward passes; `ops.halve(x)` of a module
    # imported by name returns what the function returns; `x.topk(k)` gives two tensors, and
    # `.values`/`.indices` of it or of `torch.max(x, dim)` are tensors
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            def halve(x):
                return x / 2
        """,
        "pkg/model.py": """
            import torch
            from torch import nn
            from . import ops

            class Base(nn.Module):
                @classmethod
                def smallest(cls, x):
                    return x.min()

            class M(Base):
                def forward(self, x):
                    if Base.smallest(x) > 0:
                        x = x + 1
                    if ops.halve(x).sum() > 0:
                        x = x + 1
                    scores, idx = x.topk(2)
                    if idx[0, 0] > 0:
                        x = x + 1
                    if x.topk(1).indices[0, 0] > 0:
                        x = x + 1
                    if torch.max(x, dim=0).values.sum() > 0:
                        x = x + 1
                    return x
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert sorted((f.line, f.code) for f in result.findings) == [
        (13, "BL201"), (15, "BL201"), (18, "BL201"), (20, "BL201"), (22, "BL201")]


def test_a_named_tuple_s_fields_hold_what_the_tree_builds_it_with(tmp_path: Path) -> None:
    # `collections.namedtuple` declares no field types: a field holds what the tree's builds of the
    # record pass for it, by keyword or by position, in any file (a module-level table of records)
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/common.py": """
            import collections

            Tableau = collections.namedtuple("Tableau", "alpha, beta, name")

            def step(y, tableau):
                for i, (alpha_i, beta_i) in enumerate(zip(tableau.alpha, tableau.beta)):
                    if alpha_i == 1.0:
                        y = y + beta_i
                if tableau.name == "euler":
                    y = y * 2
                return y
        """,
        "pkg/solvers.py": """
            import torch
            from torch import nn
            from .common import Tableau, step

            HEUN = Tableau(alpha=torch.tensor([1.0]), beta=[torch.tensor([0.5])], name="heun")
            EULER = Tableau(torch.tensor([0.0]), [torch.tensor([1.0])], "euler")

            class Solver(nn.Module):
                tableau = HEUN

                def forward(self, y):
                    return step(y, tableau=self.tableau)
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert sorted((f.path.name, f.line, f.code) for f in result.findings) == [("common.py", 8, "BL201")]


def test_fields_of_a_record_built_in_init_and_read_in_forward() -> None:
    assert findings("""
        import collections
        import torch
        from torch import nn

        Pair = collections.namedtuple("Pair", "lo hi")

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.pair = Pair(torch.zeros(2), 3)

            def forward(self, x):
                if self.pair.lo[0] > 0:
                    x = x + 1
                if self.pair.hi > 2:
                    x = x * 2
                return x
    """) == [(14, "BL201")]


def test_isinstance_of_an_array_names_the_array_even_after_a_tensor_test_returned() -> None:
    # `isinstance(x, np.ndarray)` tells BL422 an array is read; after `if isinstance(x, Tensor):
    # return`, the value is known only not to be a tensor, and the array test refines it. A
    # nested function's parameter (it shares its parent's scope) is narrowed too, and put back after.
    assert findings("""
        import numpy as np
        import torch

        @torch.compile
        def f(x, data):
            def convert(value):
                if isinstance(value, torch.Tensor):
                    return value
                if isinstance(value, np.ndarray) and value.dtype == np.uint16:
                    value = value.astype(np.int32)
                return torch.as_tensor(value)

            if isinstance(data, torch.Tensor):
                return x + data
            if isinstance(data, np.ndarray):
                if data.base is not None:
                    data = data.copy()
            return x + convert(data)
    """) == [(10, "BL422"), (17, "BL422")]


def test_attributes_a_base_class_of_the_tree_sets_are_read_in_a_subclass(tmp_path: Path) -> None:
    # `self.table` and `self.scale` are set by the base's `__init__` (a tensor, a factory's result)
    # or its property, in another file: a subclass's method reads what the tree says they hold
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            import torch
            from torch import nn

            def make_table(n):
                return torch.linspace(0, 1, n)

            class Base(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("weights", torch.ones(3))
                    self.table = make_table(4)
                    self.steps = 3

                @property
                def scale(self):
                    return self.weights.sum()
        """,
        "pkg/model.py": """
            from .base import Base

            class Model(Base):
                def forward(self, x):
                    if self.weights[0] > 0:
                        x = x + 1
                    if self.table[1] > 0.5:
                        x = x + 1
                    if self.scale > 1:
                        x = x + 1
                    if self.steps > 2:
                        x = x + 1
                    return x
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert sorted((f.path.name, f.line, f.code) for f in result.findings) == [
        ("model.py", 6, "BL201"), ("model.py", 8, "BL201"), ("model.py", 10, "BL201")]


# ---------------------------------------------------------------------- bounds passed in as parameters
BOUND_HELPERS = """
    import torch

    def crop(mask, box):
        return mask[box[1]:box[3]]

    def head(x, n):
        return x[:n]

    def repeat(x, n):
        for _ in range(n):
            x = x + 1
        return x
"""


def test_a_slice_or_range_bound_passed_in_counts_where_a_caller_shows_a_tensor() -> None:
    """`mask[box[1]:box[3]]` in a helper, with `box` a row of a tensor the caller computes, and
    `range(n)` with `n` a count the caller reduces: both read as Python ints; an int passed stays quiet."""
    source = BOUND_HELPERS + """
    @torch.compile
    def shown(mask, scores):
        boxes = torch.round(scores * 4).long()
        return [crop(mask, b) for b in boxes], head(mask, 3), repeat(mask, torch.sum(scores > 0))
    """
    assert findings(source) == [(5, "BL103"), (11, "BL103")]


def test_a_bound_passed_in_counts_where_a_caller_shows_a_tensor_on_one_path() -> None:
    """`info` is what `cholesky_ex` gives in one branch and what a function stored on the object gives
    in the other: the code shows a tensor passed, as it does not for a root's bare parameter."""
    source = dedent("""
        import torch

        def lead(a, u, k):
            return u[:k - 1, k - 1].dot(a[k - 1])

        class Solver:
            def __init__(self, factor):
                self.factor = factor
                self.native = factor is None

            @torch.compile
            def solve(self, h):
                if self.native:
                    u, info = torch.linalg.cholesky_ex(h)
                else:
                    u, info = self.factor(h)
                return lead(h, u, info)

            @torch.compile
            def given(self, h, info):
                return lead(h, h, info)
    """)
    found = [(f.line, f.code) for f in lint_source(source, Path("m.py"), Config())]
    assert found == [(5, "BL103")]
    assert V.join(V.TENSOR, V.ASSUMED_TENSOR).shown and not V.join(V.TENSOR, V.ASSUMED_TENSOR).known_tensor
    assert V.op(V.join(V.TENSOR, V.UNKNOWN), V.NUMBER).shown
    assert not V.join(V.ASSUMED_TENSOR, V.UNKNOWN).shown


def test_a_bound_passed_in_from_a_compile_roots_parameter_is_left_alone() -> None:
    """A compile root's parameter is only assumed a tensor, and one used as a bound is usually an int."""
    source = BOUND_HELPERS + """
    @torch.compile
    def assumed(mask, boxes, n):
        return [crop(mask, b) for b in boxes], head(mask, n), repeat(mask, n)
    """
    assert findings(source) == []


def test_an_attribute_a_method_stores_from_its_parameter_is_what_the_callers_pass() -> None:
    """`self.time = time.to(device)` in one method, tested in another: a tensor where the callers
    pass one; `self.net = net.to(device)` with a module passed stays a module."""
    source = """
        import torch

        class Estimator:
            def fit(self, time, net, device):
                self.time = time.to(device)
                self.net = net.to(device)
                return self.check()

            def check(self):
                if self.time.max() > 0:
                    return self.net
                if self.net:
                    return None
                return self.time

        @torch.compile
        def run(time):
            return Estimator().fit(time * 2, torch.nn.Linear(2, 2), time.device)
    """
    assert [found for found in findings(source) if found[1].startswith("BL2")] == [(11, "BL201")]


def test_an_attribute_stored_from_what_a_method_returned_is_that_return() -> None:
    """`times, counts = self._count()` then `self.time = times`: the attribute holds the element the
    method returns (a tensor it builds), read in another method; a local bound twice, or to a number,
    says nothing."""
    source = """
        import torch

        class Estimator:
            def fit(self, time):
                self.time = time.to(time.device)
                times, counts = self._count()
                self.time = times
                size, _ = self._size()
                self.size = size
                other = self._count()[0]
                other = 3
                self.other = other
                return self.check()

            def _count(self):
                return torch.unique(self.time), torch.ones(3)

            def _size(self):
                return 4, None

            def check(self):
                if self.time.max() > 0:
                    return self.time
                if self.size > 2:
                    return None
                if self.other > 2:
                    return None
                return self.time

        @torch.compile
        def run(time):
            return Estimator().fit(time * 2)
    """
    assert [found for found in findings(source) if found[1].startswith("BL2")] == [(23, "BL201")]


def test_an_attribute_stored_from_a_local_bound_once_is_what_that_local_was_bound_to() -> None:
    """`counts = torch.zeros(n)` then `self.counts = counts`: the attribute
    holds what the local was bound to, as if assigned directly; a local bound twice (also inside a
    nested target), or in a loop header, says nothing."""
    source = """
        import torch

        class Tracker:
            def __init__(self, n):
                counts = torch.zeros(n)
                self.counts = counts
                total = torch.zeros(n)
                total = 0
                self.total = total
                for seen in range(n):
                    pass
                self.seen = seen
                pair = torch.zeros(n)
                _, (_, pair) = 0, (0, 3)
                self.pair = pair

            def update(self):
                if self.counts.sum() > 0:
                    return 1
                if self.total > 0:
                    return 2
                if self.seen > 0:
                    return 3
                if self.pair > 0:
                    return 4
                return 0

        @torch.compile
        def run(x):
            return Tracker(3).update() + x
    """
    assert [found for found in findings(source) if found[1].startswith("BL2")] == [(19, "BL201")]


def test_a_helper_that_returns_what_it_was_handed_is_decided_at_each_call() -> None:
    """`default(val, d)` returns one of its arguments: a call that passes a string gives a string,
    one that passes a tensor a tensor, whatever the helper's other callers pass; `double(x)` is a
    tensor where `x` is one."""
    source = """
        import torch

        def default(val, d):
            return d if val is None else val

        def double(x):
            return x * 2

        @torch.compile
        def run(x, scale: float, key: str = ""):
            label = str(default(key, "none"))
            total = default(None, x.sum())
            if total > 0:
                x = x + 1
            if double(scale) > 1:
                x = x * 2
            if double(x.mean()) > 1:
                x = x * 3
            return x, label
    """
    assert findings(source) == [(14, "BL201"), (18, "BL201")]


def test_a_starred_shape_lines_up_with_the_names_it_is_unpacked_into() -> None:
    """`b, n, d, device = *x.shape, x.device`: `n` is a size, not a tensor, and `device` is what
    follows the star; a tensor after the star stays a tensor."""
    source = """
        import torch

        @torch.compile
        def run(x, scale):
            b, n, d, device = *x.shape, x.device
            if n > 4:
                x = x[:, :4]
            rows, cols, total = *x.shape, x.sum()
            if total > 0:
                x = x + 1
            return x.to(device)
    """
    assert findings(source) == [(10, "BL201")]


def test_an_attribute_stored_from_a_helper_call_is_that_call_s_value() -> None:
    """`self.thres = default(thres, size)` in `__init__`: a number, though `forward` calls the same
    helper with a tensor; `self.scale = double(scale)` with a tensor passed in forward's own call
    stays decided by what `__init__` passed."""
    source = """
        import torch
        from torch import nn

        def default(val, d):
            return d if val is None else val

        class Attention(nn.Module):
            def __init__(self, size=64, thres=None):
                super().__init__()
                self.thres = default(thres, size)

            def forward(self, x, keys=None):
                keys = default(keys, torch.zeros(1, 0, 8))
                if keys.shape[1] + x.shape[1] <= self.thres:
                    x = x * 2
                if keys.sum() > 0:
                    x = x + 1
                return x
    """
    assert findings(source) == [(17, "BL201")]


def test_a_helper_of_a_module_imported_by_name_is_decided_at_each_call(tmp_path: Path) -> None:
    """`utils.default(None, x.sum())` is the tensor this call hands over, though another call of the
    helper passes a string."""
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            def default(val, d):
                return d if val is None else val
        """,
        "pkg/model.py": """
            import torch
            from torch import nn
            from . import utils

            class M(nn.Module):
                def forward(self, x, name: str = ""):
                    label = str(utils.default(name, "none"))
                    total = utils.default(None, x.sum())
                    if total > 0:
                        x = x + 1
                    return x, label
        """,
    })
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert [(f.line, f.code) for f in result.findings] == [(10, "BL201")]


def test_an_attribute_stored_from_nested_helper_calls_is_decided_through_both() -> None:
    """`self.k = check(to_param(k))`: `check` hands back what it was handed, `to_param` makes an
    `nn.Parameter` (a tensor, as `t.type(dtype)` is), so `self.k` is a tensor and a size taken from
    it reads its value; `self.d = check(d)` with an int stays a number."""
    source = """
        import torch
        from torch import nn

        def to_param(value, dtype=None):
            if value is None:
                return None
            if isinstance(value, torch.Tensor):
                return value if dtype is None else value.type(dtype)
            return nn.Parameter(torch.tensor(value), requires_grad=False)

        def check(parameter, name):
            if parameter is None:
                return None
            return parameter

        class KMeans(nn.Module):
            def __init__(self, k=2, d=4):
                super().__init__()
                self.k = check(to_param(k), "k")
                self.d = check(d, "d")

            def forward(self, x):
                w = torch.zeros(self.d, 3)
                return x + torch.zeros(self.k, 3).sum() + w.sum()
    """
    assert findings(source) == [(25, "BL303")]


def test_type_with_a_dtype_converts_and_type_alone_names_the_type() -> None:
    """A helper returning `v.type(dtype)` of a tensor returns a tensor; `v.type()` is the type's name."""
    source = """
        import torch

        def cast(v, dtype):
            return v.type(dtype)

        def name(v):
            return v.type()

        @torch.compile
        def f(x):
            if cast(x, torch.long) > 0:
                x = x + 1
            if name(x) == "torch.FloatTensor":
                x = x * 2
            return x
    """
    assert findings(source) == [(12, "BL201")]


def test_isinstance_with_a_tuple_of_types_bound_to_a_local_narrows_as_the_tuple_would() -> None:
    """`vector = (np.ndarray, torch.Tensor)`, then `isinstance(p, vector)`: `p` is a tensor to dynamo
    there (an array is traced as one), and not a tensor in the `else`."""
    source = """
        import numpy
        import torch

        def check(parameter, min_value=None):
            vector = (numpy.ndarray, torch.Tensor)
            if min_value is not None:
                if isinstance(parameter, vector):
                    if (parameter < min_value).sum() > 0:
                        raise ValueError("below")
                else:
                    if parameter < min_value:
                        raise ValueError("below")
            return parameter

        @torch.compile
        def f(x, n: int):
            check(x.mean(), min_value=0)
            check(n, min_value=1)
            return x
    """
    assert findings(source) == [(9, "BL201")]


def test_a_read_of_a_string_key_gives_what_the_function_stored_under_it() -> None:
    """An optimizer's state: `state["exp_avg_sq"]` stored as a tensor is one when read back (its
    test breaks, in a loop here); `state["step"]` stored as an int and `state["name"]` as a string
    are Python values."""
    source = """
        import torch

        class Opt(torch.optim.Optimizer):
            @torch.compile
            def step(self):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        if len(state) == 0:
                            state["step"] = 0
                            state["exp_avg_sq"] = torch.zeros([], device=p.device)
                            state["name"] = "adam"
                        exp_avg_sq = state["exp_avg_sq"]
                        state["step"] += 1
                        if exp_avg_sq == 0:
                            exp_avg_sq.copy_(p.grad.norm())
                        if state["step"] > 10:
                            p.data.add_(-1.0)
                        if state["name"] == "adam":
                            p.data.mul_(0.5)
    """
    assert findings(source) == [(16, "BL201")]


def test_what_a_callable_handed_in_from_outside_the_tree_returns_is_a_tensor() -> None:
    # a compiled function's objective or vector field comes from the user: called (directly, through
    # a helper's parameter, or stored by a constructor and called from a method), it gives what the
    # root's inputs are taken to be, a tensor; a function of the tree handed over gives its own value
    assert findings("""
        import torch

        class Objective:
            def __init__(self, fun):
                self._fun = fun

            def value(self, x):
                return self._fun(x)

        def as_number(x):
            return 2

        def helper(fun, x):
            f = fun(x)
            if f > 0:
                return x
            return x

        def scaled(scale, x):
            return scale(x)

        @torch.compile
        def minimize(fun, x0):
            g = float(Objective(fun).value(x0))
            n = scaled(as_number, x0)
            if n > 1:
                g = g + 1
            return helper(fun, x0) * g
    """) == [(16, "BL201"), (25, "BL103")]


def test_a_method_of_an_object_handed_in_from_outside_and_kept_by_a_constructor_gives_a_tensor() -> None:
    # `self._base.f(t, y)`, with `_base` what the constructor was handed and the constructor called
    # with a compiled function's parameter: the user's object, applied to tensors, gives a tensor;
    # with no tensor among the arguments (`self._base.name()`) it gives nothing
    assert findings("""
        import torch

        class Forward:
            def __init__(self, sde):
                self._base = sde

            def drift(self, t, y):
                return self._base.f(t, y)

            def label(self):
                return self._base.name()

        @torch.compile
        def sdeint(sde, y0, ts):
            fwd = Forward(sde)
            y = y0
            for t in ts:
                d = fwd.drift(t, y)
                if d.max() > 10:
                    break
                if fwd.label() == "ito":
                    y = y * 2
                y = y + d
            return y
    """) == [(20, "BL201")]


def test_an_attribute_kept_from_what_a_constructor_parameter_returns_is_that_value() -> None:
    # `f, g = closure(x)` in `__init__`, then `self._g = g`: the attribute holds what the callable the
    # callers hand over returns (here a bound method of an object built in compiled code, giving
    # tensors), so the test of `-self.jac` in a method reads a tensor
    source = """
        import torch

        class Objective:
            def __init__(self, fun):
                self.fun = fun

            def closure(self, x):
                f = self.fun(x)
                return f, torch.autograd.functional.jacobian(self.fun, x)

        class Subproblem:
            def __init__(self, x, closure):
                f, g = closure(x)
                self._g = g

            @property
            def jac(self):
                return self._g

            def solve(self):
                d = -self.jac
                if d.dot(d) <= 0:
                    return d
                return d * 2

        @torch.compile
        def minimize(fun, x0):
            sf = Objective(fun)
            closure = sf.closure
            return Subproblem(x0, closure).solve()
    """
    assert (23, "BL201") in findings(source)


def test_grad_fn_of_a_tensor_the_function_computes_is_read_but_not_of_its_inputs() -> None:
    source = """
        import torch

        @torch.compile
        def step(x, w, n: int):
            y = x @ w
            g = torch.autograd.functional.jacobian(torch.tanh, y)
            if g.grad_fn is None:
                return y
            leaf = x.grad_fn is None
            count = n.grad_fn if hasattr(n, "grad_fn") else None
            return (y * 2).grad_fn, leaf, count, w.grad_fn
    """
    # a local the function computes, and an expression; not its parameters (leaves, or tensors made
    # before the graph, whose `grad_fn` dynamo reads), nor a Python value's attribute
    assert [line for line, code in findings(source) if code == "BL431"] == [8, 12]


def test_a_tensor_only_method_on_what_the_tree_leaves_undecided_is_an_assumed_tensor(tmp_path: Path) -> None:
    # `self.param_groups` is set by torch's Optimizer, outside the tree, through a base class of the
    # tree: a parameter's gradient read from it is not decided, but `abs()` and `sum()` are methods
    # only tensors have, as they are on a name nothing tells of
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            import torch

            class Base(torch.optim.Optimizer):
                pass

            class Counter:
                def sum(self):
                    return 3
        """,
        "pkg/opt.py": """
            import torch
            from .base import Base, Counter

            class Clipped(Base):
                @torch.no_grad()
                def step(self):
                    for group in self.param_groups:
                        for p in group["params"]:
                            grad = p.grad
                            mask = grad.abs() > group["limit"]
                            if mask.sum() > 0:
                                grad.mul_(0.5)
                    counts = Counter()
                    if counts.sum() > 2:
                        return 1
                    return 0
        """,
    })
    config = Config(root=tmp_path)
    config.entry_points = ["pkg.opt.Clipped.step"]
    result = lint([tmp_path / "pkg"], config, jobs=1, use_cache=False)
    assert [(f.path.name, f.line, f.code) for f in result.findings] == [("opt.py", 12, "BL201")]
    assert result.findings[0].fix is None  # assumed, never known


def test_a_method_of_an_object_a_function_returned_gives_what_the_method_returns(tmp_path: Path) -> None:
    """`mode = get_mode(name)` then `mode.to_corners(boxes)` (the class a registry function returns,
    declared or built), and `get_mode(name).to_corners(boxes)`: the method's result is what the
    returned class's method gives, here the pieces of a tensor; an object whose method returns
    numbers says nothing."""
    write(tmp_path, {"boxes.py": """
        from abc import ABC, abstractmethod
        import torch

        class Mode(ABC):
            @abstractmethod
            def to_corners(self, boxes):
                raise NotImplementedError

        class Corner(Mode):
            def to_corners(self, boxes):
                return boxes.split(1, dim=-1)

        class Counter:
            def to_corners(self, boxes):
                return [1, 2, 3]

        def get_mode(name=None) -> Mode:
            return Corner()

        def get_counter():
            return Counter()

        def convert(boxes: torch.Tensor):
            mode = get_mode("xyxy")
            corners = mode.to_corners(boxes)
            if (corners[2] < corners[0]).sum() > 0:
                boxes = boxes.flip(-1)
            if (get_mode().to_corners(boxes)[1] > 0).all():
                boxes = boxes * 2
            counter = get_counter()
            if counter.to_corners(boxes)[0] > 0:
                boxes = boxes + 1
            return boxes
    """})
    config = Config(root=tmp_path)
    config.entry_points = ["boxes.convert"]
    result = lint([tmp_path], config, use_cache=False)
    assert sorted((f.line, f.code) for f in result.findings) == [(27, "BL201"), (29, "BL201")]


def test_builtin_sum_of_tensors_is_a_tensor_and_of_numbers_a_number() -> None:
    assert findings("""
        import torch

        @torch.compile
        def f(x, parts):
            losses = [x.sum(), x.mean()]
            total = sum(losses)
            weighted = sum(l * 2 for l in losses)
            sizes = sum(p.numel() for p in parts) + sum(x.shape)
            if sizes > 4:
                x = x + 1
            return total.item() + weighted.item() + x
    """) == [(12, "BL101"), (12, "BL101")]


def test_values_and_items_of_a_dict_give_what_it_holds() -> None:
    assert findings("""
        import torch

        @torch.compile
        def f(x):
            losses = {"a": x.sum(), "b": x.mean()}
            for name, loss in losses.items():
                if loss > 0:
                    x = x + 1
            for loss in losses.values():
                if loss < 0:
                    x = x - 1
            counts = {"a": 1, "b": 2}
            for name, n in counts.items():
                if n > 1:
                    x = x * 2
            return x
    """) == [(8, "BL201"), (11, "BL201")]


def test_an_assignment_expression_holds_and_binds_its_value() -> None:
    assert findings("""
        import torch

        @torch.compile
        def f(x):
            if (m := x.max()) > 0:
                x = x - m
            if (k := x.shape[0]) > 2:
                x = x[:k]
            return x, m.item()
    """) == [(6, "BL201"), (10, "BL101")]


def test_an_attribute_set_to_either_of_two_tensors_is_a_tensor() -> None:
    source = dedent("""
        import torch


        class Estimator:
            def __init__(self, n):
                self.n = n
                self.noise = None
                self.scale = None

            def fit(self, x):
                self.noise = torch.mean(x[self.n:]) if self.n < x.shape[0] else torch.tensor(0.0)
                self.scale = torch.tensor(1.0) if self.n else 1.0
                return self

            def precision(self):
                if self.noise == 0.0:
                    return None
                if self.scale == 0.0:
                    return None
                return 1.0 / self.noise
    """)
    got = lint_source(source, Path("m.py"), Config(entry_points=["m.Estimator.precision"]))
    assert [(f.line, f.code) for f in got if f.kind == "break"] == [(17, "BL201")]  # (a number on one side: no claim)


def test_a_parameter_annotated_with_a_class_of_the_tree_reads_that_class_s_members(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/states.py": """
            import torch


            class States:
                def __init__(self, tensor: torch.Tensor, label: str = "grid"):
                    self.tensor = tensor
                    self.label = label

                @property
                def is_sink(self) -> torch.Tensor:
                    raise NotImplementedError

                @property
                def finished(self):
                    return self.tensor < 0


            class Grid(States):
                @property
                def is_sink(self):
                    return self.tensor == -1
        """,
        "pkg/sampler.py": """
            from .states import States


            def rollout(states: States):
                if all(states.finished):
                    return 0
                if any(states.is_sink):
                    return 1
                if states.label == "grid":
                    return 2
                return 3
        """,
    })
    config = Config(root=tmp_path, entry_points=["pkg.sampler.rollout"])
    got = sorted((f.path.name, f.line, f.code) for f in lint([tmp_path / "pkg"], config, use_cache=False).findings)
    assert got == [("sampler.py", 6, "BL202"), ("sampler.py", 8, "BL202")]


def test_an_attribute_kept_from_a_parameter_annotated_with_a_class_of_the_tree_is_an_instance_of_it() -> None:
    source = dedent("""
        import torch


        class Actions:
            def __init__(self, tensor: torch.Tensor):
                self.tensor = tensor

            @property
            def is_exit(self) -> torch.Tensor:
                return self.tensor == 3


        class Batch:
            def __init__(self, env, actions: Actions | None = None, extra: Actions | None = None):
                self.actions = actions if actions is not None else env.default_actions()
                self.extra = extra or env.default_actions()


        def loss(batch: Batch, x: torch.Tensor):
            kept = x[batch.actions.is_exit]
            if all(batch.actions.is_exit):
                return kept
            return x[batch.extra.is_exit]
    """)
    got = lint_source(source, Path("m.py"), Config(entry_points=["m.loss"]))
    assert [(f.line, f.code) for f in got if f.kind == "break"] == [(21, "BL302"), (22, "BL202"), (24, "BL302")]


def test_an_attribute_numpy_reduces_into_is_a_tensor_to_dynamo() -> None:
    found = findings("""
        import math

        import numpy as np
        import torch
        from torch import nn


        class Codec(nn.Module):
            def __init__(self, rates=(2, 2)):
                super().__init__()
                self.hop = np.prod(rates)
                self.window = np.hanning(8)
                self.scale = np.sqrt(4)

            def forward(self, x):
                y = x * torch.from_numpy(self.window).float()
                if self.hop > 2:
                    y = y + 1
                pad = math.ceil(x.shape[-1] / self.hop) * self.hop
                return y, x.new_zeros(int(self.scale)), pad
    """)
    assert found == [(18, "BL201"), (20, "BL103")]


def test_a_generator_parameter_defaulting_to_none_is_what_the_callers_hand() -> None:
    found = findings("""
        import torch
        from torch import nn


        def draw(x, *, generator: torch.Generator = None):
            t = torch.empty_like(x)
            t.bernoulli_(0.5, generator=generator)
            return t


        class Plain(nn.Module):
            def forward(self, x):
                return draw(x)
    """)
    assert found == []


def test_a_parameter_annotated_with_a_tensor_subclass_of_the_tree_stays_a_tensor() -> None:
    source = dedent("""
        import torch
        from torch import Tensor


        class PSDMatrix(Tensor):
            \"\"\"A name for type checkers: never built.\"\"\"


        class Weighting(torch.nn.Module):
            def forward(self, gramian: PSDMatrix) -> Tensor:
                norms = gramian.diagonal()
                if norms[0] > 0.0:
                    return norms / norms[0]
                return norms
    """)
    got = lint_source(source, Path("m.py"), Config())
    assert [(f.line, f.code) for f in got if f.kind == "break"] == [(13, "BL201")]


def test_the_torch_module_s_own_attributes_are_no_tensors() -> None:
    # `torch.__version__` is a string: a context manager testing it (entered in compiled code) has no
    # tensor branch; a method called on a tensor still makes one
    assert findings("""
        import contextlib
        import torch


        @contextlib.contextmanager
        def fuser_off():
            if torch.__version__.startswith("1.9."):
                torch._C._jit_override_can_fuse_on_gpu(False)
            yield


        @torch.compile
        def f(x):
            with fuser_off():
                y = x * 2
            if x.sum().abs() > 1:
                y = y + 1
            return y
    """) == [(17, "BL201")]


def test_a_list_filled_as_the_function_goes_holds_what_was_added() -> None:
    # probed under dynamo (2.13, 2.14.1): `x[0][masks[0]]` breaks (GB0036) after the masks were appended
    assert findings("""
        import torch
        from torch import nn


        class M(nn.Module):
            def forward(self, x, n: int):
                masks = []
                for i in range(3):
                    masks.append(x[i] > 0)
                rows = []
                rows.extend([x[0] > 1])
                args = []
                args.append(n)
                args.append(x)
                y = x[0][masks[0]]
                z = x[0][rows[-1]]
                if args[0] > 1:
                    y = y * 2
                for m in masks:
                    z = z + x[1][m].sum()
                return y, z
    """) == [(16, "BL302"), (17, "BL302"), (21, "BL302")]


def test_a_list_filled_with_tensors_and_numbers_tells_of_no_element() -> None:
    assert findings("""
        import torch
        from torch import nn


        class M(nn.Module):
            def forward(self, x, n: int):
                t = torch.ones(2)
                args = []
                args.append(n)
                args.append(t)
                args.append(t * 2)
                if args[0] > 1:
                    x = x * 2
                return x
    """) == []


def test_an_attribute_a_method_fills_holds_what_was_added_for_every_method() -> None:
    # probed under dynamo (2.13): the mask read in `forward` breaks (GB0036)
    assert findings("""
        import torch
        from torch import nn


        class P(nn.Module):
            def __init__(self):
                super().__init__()
                self.masks = []

            def prepare(self, x):
                self.masks = []
                for i in range(x.shape[0]):
                    self.masks.append(x[i] > 0)

            def forward(self, x):
                self.prepare(x)
                return x[0][self.masks[0]]
    """) == [(18, "BL302")]


# ---------------------------------------------------------------------- what annotations declare
def test_a_method_of_a_parameter_declared_of_a_tree_class_gives_what_that_method_returns() -> None:
    # `states.sink()` of `states: States` with no caller to tell: the declared class's method (or an override)
    # decides, as reach dispatches the call; each `all()` below tests a tensor's elements for truth
    src = """
        import torch

        class States:
            def __init__(self, t: torch.Tensor):
                self.t = t

            def sink(self):
                return self.t == 0

            def count(self):
                return 3

        @torch.compile
        def a(states: States):
            return all(states.sink())

        @torch.compile
        def b(states: States):
            done = states.sink()
            return all(done)

        @torch.compile
        def c(states: States):
            return all([states.count() > 1])
    """
    assert findings(src) == [(16, "BL202"), (21, "BL202")]


def test_a_return_annotation_tells_what_a_function_gives_where_its_body_does_not() -> None:
    # the property's body tells nothing (`self.t` of an unannotated parameter); its annotation says a tensor.
    # `reset` builds through a table of classes the file cannot follow; its annotation names the class.
    # An annotation of no tensor (`-> Any`) says nothing: `other` stays unknown, and `all()` of it is not reported.
    src = """
        from typing import Any, Optional
        import torch

        class States:
            def __init__(self, t):
                self.t = t

            @property
            def is_sink(self) -> torch.Tensor:
                return self.t == 0

            @property
            def other(self) -> Any:
                return self.t == 0

        class Env:
            def reset(self, n) -> States:
                return self.kinds[n].make(n)

        def sample(env: Env, states: Optional[States] = None):
            if states is None:
                states = env.reset(3)
            done = states.is_sink
            while not all(done):
                done = done | True
            return all(states.other)

        @torch.compile
        def run(env: Env):
            return sample(env)
    """
    assert findings(src) == [(25, "BL202")]


def test_an_object_a_caller_hands_outside_the_declared_family_is_one_of_the_declared_class() -> None:
    # `loss` runs for every subclass, so reach hands `score` both what `Flow.samples` returns (a `Pool`, declared)
    # and a `Paths`; `score`'s annotation bounds `paths` to a `Paths`, whose `ends` is a tensor: the mask is one
    src = """
        import torch

        class Container:
            pass

        class Paths(Container):
            def __init__(self, ends: torch.Tensor):
                self.ends = ends

        class Pool(Container):
            def __init__(self, items):
                self.items = items

        class Base:
            def samples(self, x) -> Container:
                return self.table[x]

            def loss(self, x, r: torch.Tensor):
                return self.score(self.samples(x), r)

        class Flow(Base):
            def samples(self, x) -> Pool:
                return self.table[x]

        class Tb(Base):
            def samples(self, x) -> Paths:
                return Paths(x)

            def score(self, paths: Paths, r: torch.Tensor):
                return r[paths.ends >= 1]

        @torch.compile
        def run(model: Base, x, r: torch.Tensor):
            return model.loss(x, r)
    """
    assert findings(src) == [(31, "BL302")]


def test_a_method_of_what_an_annotated_parameter_s_attribute_holds_is_reached() -> None:
    # `traj.states.sink()` of `traj: Traj`: `Traj` keeps a `States` in `states` (its constructor's parameter says
    # so), whose `sink` runs, print and all; so does the getter of `traj.states.count`. On `self`'s attributes,
    # nothing changes; on a parameter declared a torch class, no edge
    src = """
        import torch

        class States:
            def __init__(self, t: torch.Tensor):
                self.t = t

            def sink(self):
                print("sink")
                return self.t

            @property
            def count(self):
                print("count")
                return 1

        class Traj:
            def __init__(self, states: States):
                self.states = states

        @torch.compile
        def a(traj: Traj):
            return traj.states.sink()

        @torch.compile
        def b(traj: Traj):
            return traj.states.count

        @torch.compile
        def c(x: torch.Tensor):
            return x.grad.sum()
    """
    assert findings(src) == [(9, "BL401"), (14, "BL401")]


def test_a_local_bound_to_an_annotated_parameter_s_attribute_stands_for_it() -> None:
    # `states = traj.states`: `states.sink()` runs `States.sink` (its print is reported), and `states[mask]` runs
    # `States.__getitem__` with the mask, a tensor of bools (`~` of the comparison the property returns),
    # where it indexes a tensor (BL302 there; at the subscript too, as on any value the file cannot tell apart
    # from a tensor)
    src = """
        import torch

        class States:
            def __init__(self, t: torch.Tensor):
                self.t = t

            @property
            def is_sink(self) -> torch.Tensor:
                return self.t == 0

            def sink(self):
                print("x")
                return self.t

            def __getitem__(self, index):
                return States(self.t[index])

        class Traj:
            def __init__(self, states: States):
                self.states = states

        @torch.compile
        def b(traj: Traj):
            states = traj.states
            return states.sink()

        @torch.compile
        def c(traj: Traj):
            states = traj.states
            mask = ~states.is_sink
            return states[mask]
    """
    assert findings(src) == [(13, "BL401"), (17, "BL302"), (32, "BL302")]


def test_a_local_the_code_declares_of_a_class_runs_that_class_s_methods() -> None:
    # `s: States = d["states"]` and `s = cast(States, d["states"])`: what the subscript gives the file cannot tell, the
    # annotation and the cast can; each call runs `States`' method, whose print is reported once per method. A local
    # declared a torch class, or one bound again, stands for nothing of the kind
    src = """
        from typing import cast
        import torch

        class States:
            def __init__(self, t: torch.Tensor):
                self.t = t

            def first(self):
                print("first")

            def second(self):
                print("second")

            def third(self):
                print("third")

        @torch.compile
        def f(d):
            s: States = d["states"]
            return s.first()

        @torch.compile
        def g(d):
            s = cast(States, d["states"])
            return s.second()

        @torch.compile
        def h(d):
            s: States = d["states"]
            s = d["other"]
            return s.third()
    """
    assert findings(src) == [(10, "BL401"), (13, "BL401")]
