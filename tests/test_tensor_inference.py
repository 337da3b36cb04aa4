"""What holds a tensor: cases taken from false alarms on real library code."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from breaklint.config import Config
from breaklint.engine import lint, lint_source

from test_reach_edges import dynamo_lines, write_package


def findings(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(dedent(source), Path("m.py"), Config())]


def reported(source: str) -> list[tuple[str, str]]:
    """The findings of `source`, each as (its line's text, stripped; its code)."""
    lines = dedent(source).splitlines()
    return [(lines[line - 1].strip(), code) for line, code in findings(source)]


def test_torch_predicates_and_internals_are_not_tensors() -> None:
    assert findings("""
        import torch

        @torch.compile
        def f(x):
            if x.device.type == "cuda" and torch.is_autocast_enabled("cuda"):
                x = x.half()
            ok = x.dtype == torch.float32 and not torch._C._are_functorch_transforms_active()
            return x + ok

        @torch.compile
        def g(x: torch.Tensor):
            y = x.clone() if x.is_inference() else x.detach()
            if x.is_signed() and y.is_same_size(x):
                y = y.abs()
            return y
    """) == [(13, "BL434"), (14, "BL434"), (14, "BL434")]  # no test of a tensor's value (BL201); but dynamo
    # refuses `is_inference()` itself, and runs `is_signed()` and `is_same_size()` as ops whose Python bool it
    # cannot put in a graph (GB0208)


def test_library_is_compiling_helpers_decide_the_branch() -> None:
    assert findings("""
        import torch
        from mylib.utils import is_compiling

        @torch.compile
        def f(x):
            if not is_compiling():
                assert bool((x > 0).all())
            return x + 1
    """) == []


def test_unions_with_python_numbers_are_not_tensors() -> None:
    assert findings("""
        import torch
        from torch import Tensor

        @torch.compile
        def f(x: Tensor, sigma: float | Tensor, mask: Tensor | None = None):
            s = float(sigma)
            return x * s + float(x.sum())
    """) == [(8, "BL103")]


def test_bool_op_chain_reports_each_tested_operand_once() -> None:
    assert findings("""
        import torch

        @torch.compile
        def f(x, flag: bool = True):
            y = x.any() and flag and x.all() or x.mean()
            z = (flag or x.any())
            w = (x.any() or flag) and flag
            return x + y + z + w
    """) == [(6, "BL202"), (6, "BL202"), (8, "BL202")]


def test_an_element_of_a_tensor_or_tuple_of_tensors_is_a_tensor() -> None:
    assert findings("""
        from typing import Optional, Union
        import torch
        from torch import Tensor

        @torch.compile
        def f(state: Union[Tensor, tuple[Tensor, Tensor]], other: Tensor | list[Tensor] | None, n: Union[int, Tensor]):
            if (state[1] == 0).all():
                n = n + 1
            if other[0].sum() > 0:
                n = n + 2
            if n > 0:
                n = n + 3
            return n
    """) == [(8, "BL201"), (10, "BL201")]


def test_a_value_of_a_dict_of_tensors_is_a_tensor_and_its_keys_are_not() -> None:
    assert findings("""
        from typing import Dict
        import torch

        @torch.compile
        def f(x, params: Dict[str, torch.Tensor], extra: dict[str, torch.Tensor], names: dict[str, int]):
            if params["batch_prob"].sum() > 0:
                x = x + 1
            for key in params:
                if key == "order":
                    x = x * 2
            k = "scale"
            if extra[k].max() > 1 or names["a"] > 0:
                x = x / 2
            return x
    """) == [(7, "BL201"), (13, "BL201")]


def test_a_comprehension_of_tensors_holds_tensors() -> None:
    assert findings("""
        from typing import Dict
        import torch

        KEYS = ("a", "b")

        @torch.compile
        def f(x: torch.Tensor, params: Dict[str, torch.Tensor], names: list):
            factors = tuple(params[key] for key in KEYS)
            if (factors[0] != 0).any():
                x = x + 1
            parts = [x * k for k in range(3)]
            if parts[0].sum() > 0:
                x = x - 1
            same = [x for x in names]
            if same[0]:
                x = x * 3
            return x
    """) == [(10, "BL201"), (13, "BL201")]


def test_a_comprehension_target_does_not_rebind_the_name_outside_it() -> None:
    assert findings("""
        import torch

        @torch.compile
        def f(x: torch.Tensor, xs: list[torch.Tensor], n: int):
            scaled = [n * 2 for n in xs]
            if n > 2:
                x = x + 1
            total = sum(t.sum() for t in xs)
            t = 3
            sizes = {t: t.item() for t in xs}
            if t > 1:
                x = x * 2
            return x, scaled, total, sizes
    """) == [(11, "BL101")]


def test_a_flag_the_tree_passes_to_a_forward_is_not_taken_for_a_tensor() -> None:
    # `forward(x, mask=None, flag=None)` is a compile root; its own callers pass `flag` something
    # that is not known to be a tensor, so `if flag:` is not flagged; `mask` left out stays a tensor
    source = """
        import torch
        from torch import nn

        class Encoder(nn.Module):
            def forward(self, x, mask=None, flag=None):
                if flag:
                    x = x * 2
                if mask.any():
                    x = x + 1
                return x

        class Model(nn.Module):
            def __init__(self, flag: bool = False, scale=None, depth=2):
                super().__init__()
                self.flag = flag
                self.scale = scale
                self.depth = depth
                self.encoder = Encoder()

            def forward(self, x):
                if self.depth > 1:
                    x = self.encoder(x, flag=self.flag)
                return self.encoder(x, flag=self.scale)
    """
    assert findings(source) == [(9, "BL201")]


def test_a_forward_parameter_tested_by_its_truth_value_is_a_flag() -> None:
    # a tensor of more than one element has no truth value: `if word:` and `not kv_caches` say
    # these parameters are flags or lists, while `mask`, compared, stays a tensor
    assert findings("""
        import torch
        from torch import nn

        class Block(nn.Module):
            def forward(self, x, mask, word=None, kv_caches=None):
                if not kv_caches:
                    kv_caches = []
                y = self.embed(x) if word else x
                if mask.sum() > 0:
                    y = y + 1
                return y, kv_caches
    """) == [(10, "BL201")]


def test_isinstance_tests_narrow_a_value_in_their_branch() -> None:
    assert findings("""
        import numpy as np
        import torch

        @torch.compile
        def f(x, c, s, xs: list[torch.Tensor]):
            a = c.tolist() if isinstance(c, np.ndarray) else c
            if not isinstance(x, torch.Tensor):
                x = torch.tensor(x.tolist())
            elif x.sum() > 0:
                x = x - 1
            factor = 1.0 + 1.0 * (x.size(0) > 1)
            if isinstance(factor, torch.Tensor):
                factor = factor.item()
            if isinstance(xs, (list, tuple)) and isinstance(s, (int, float)):
                if xs[0].sum() > s:
                    x = x + 1
            v = s.item() if torch.is_tensor(s) else s
            return x, a, v, factor
    """) == [(10, "BL201"), (16, "BL201"), (18, "BL101")]


def test_what_a_compile_check_short_circuits_is_not_traced() -> None:
    assert findings("""
        import torch
        from torch.compiler import is_compiling

        @torch.compile
        def f(x: torch.Tensor, t: torch.Tensor):
            if not is_compiling() and not bool((t > 0).all()):
                raise ValueError("t must be positive")
            if is_compiling() or bool(t.any()):
                x = x + 1
            return x
    """) == []


def test_a_forward_parameter_used_as_an_integer_is_not_taken_for_a_tensor() -> None:
    # `z[..., pad : pad + length]` and `range(steps)` say these are integers; `x` stays a tensor
    assert findings("""
        import torch
        from torch import nn

        class Decoder(nn.Module):
            def forward(self, x, length, steps, scale, tail):
                z = x[..., 2 : 2 + length] + x[..., -tail:].mean()
                if z.shape[-1] != length:
                    raise ValueError("length")
                for _ in range(steps):
                    z = z * 2
                if steps > 3 or scale > 1:
                    z = z + 1
                if x.sum() > 0:
                    z = z - 1
                if tail > 2:
                    z = z * 3
                return z
    """) == [(12, "BL201"), (14, "BL201")]


def test_an_isinstance_test_whose_branch_leaves_narrows_what_follows() -> None:
    assert findings("""
        import torch
        from mylib import load

        @torch.compile
        def f(x: torch.Tensor, scale):
            s = load(scale)
            if isinstance(s, torch.Tensor):
                return x * s
            if s > 1:
                x = x * 2
            t = load(x)
            if not torch.is_tensor(t):
                raise TypeError("t")
            if t.sum() > 0:
                x = x + 1
            return x
    """) == [(15, "BL201")]


def test_a_flag_handed_down_from_a_forward_stays_a_flag() -> None:
    # `use_cache` is only assumed a tensor in `Model.forward`; `Layers.forward` tests it for truth,
    # so it is a flag there. A tensor the caller computes (`done`) stays a tensor.
    assert findings("""
        import torch
        from torch import nn

        class Layers(nn.Module):
            def forward(self, x, use_cache=None, done=None):
                cache = () if use_cache else None
                if done:
                    x = x + 1
                return x, cache

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = Layers()

            def forward(self, x, use_cache=None):
                return self.layers(x, use_cache=use_cache, done=(x > 0).all())
    """) == [(8, "BL201")]


def test_the_right_operand_of_and_or_runs_where_the_left_one_says() -> None:
    # `t != 1` runs only where `t` is an int or a float, even though `self.t` looks like a tensor;
    # `p.sum() > 0` runs only where `p` is a tensor
    assert findings("""
        import torch
        from torch import nn

        class Pow(nn.Module):
            def __init__(self, t, learn):
                super().__init__()
                if learn:
                    self.t = nn.Parameter(torch.tensor(t))
                else:
                    self.t = t

            def forward(self, x, p=None):
                t = self.t
                if not isinstance(t, (int, float)) or t != 1:
                    x = x.pow(t)
                if isinstance(p, torch.Tensor) and p.sum() > 0:
                    x = x + p
                return x
    """) == [(17, "BL201")]


def test_tensor_methods_of_a_value_the_tree_decides_give_tensors() -> None:
    # `x.round().long()` on a root's parameter: every tensor method keeps the receiver's kind, not
    # only the short list that is a guess on its own; the same method on an unknown local (`obj`,
    # from a call of nothing the tree knows) is no evidence of a tensor
    assert findings("""
        import torch
        from torch import nn

        class Crop(nn.Module):
            def forward(self, x, masks, make):
                boxes = x.round().long()
                obj = make()
                n = obj.round()
                out = [masks[:n]]
                for box in boxes:
                    out.append(masks[box[1]:box[3]])
                return out
    """) == [(12, "BL103")]


def test_a_method_of_an_object_built_here_is_its_class_s_not_a_tensor_s_of_that_name() -> None:
    # `solver.t(sigma)` of a `Solver` built here runs `Solver.t`, not a tensor's transpose: what it returns
    # decides the test; a parameter called the same way (`norm(y).abs()`) may hold a function giving a tensor
    assert reported("""
        import torch

        class Solver:
            def t(self, sigma):
                return -sigma.log()

        @torch.compile
        def sample(x, sigma_max, norm):
            solver = Solver()
            t_end = solver.t(torch.tensor(sigma_max))
            if t_end > 0:
                x = x * 2
            if Solver().t(x).sum() > 0:
                x = x + 1
            if norm(x).abs() > 1:
                x = x / 2
            return x
    """) == [("if t_end > 0:", "BL201"), ("if Solver().t(x).sum() > 0:", "BL201"), ("if norm(x).abs() > 1:", "BL201")]


def test_the_tensor_method_vocabulary_is_torchs() -> None:
    import pytest

    torch = pytest.importorskip("torch")
    from breaklint.analysis.vocabulary import TENSOR_METHODS

    builtin = {name for kind in (list, dict, set, str, bytes, int, float, tuple, complex) for name in dir(kind)}
    assert not {m for m in TENSOR_METHODS if not callable(getattr(torch.Tensor, m, None))}
    assert not TENSOR_METHODS & builtin
    assert {"round", "floor", "log1p", "where", "new_zeros"} <= TENSOR_METHODS
    assert not {"topk", "split", "item", "tolist", "index", "values"} & TENSOR_METHODS  # several tensors, or not one


def test_the_untraced_numpy_functions_are_those_torch_numpy_lacks() -> None:
    """Every NumPy function and class of the main namespace, `linalg` and `fft` that `torch._numpy`
    lacks (and is not an alias of one it has) is listed, and none listed is there."""
    import inspect

    import numpy as np
    import pytest

    pytest.importorskip("torch")
    import torch._numpy as tnp
    from breaklint.analysis.vocabulary import NUMPY_FILE_FUNCTIONS, NUMPY_UNTRACED

    # classes no code makes (abstract bases, types NumPy makes itself); integer types trace whatever
    # `torch._numpy` names them, but `timedelta64` (an integer to NumPy) breaks where it is made
    unmade = {"numpy.character", "numpy.flexible", "numpy.flatiter", "numpy.ufunc"}

    def integer(value: object) -> bool:
        return inspect.isclass(value) and issubclass(value, np.integer) and not issubclass(value, np.timedelta64)

    def lacking(module: object, counterpart: object, prefix: str) -> set[str]:
        traced = {id(getattr(module, name)) for name in dir(module) if hasattr(counterpart, name)}
        return {f"numpy.{prefix}{name}" for name in dir(module)
                if not name.startswith("_") and callable(getattr(module, name))
                and not integer(getattr(module, name))
                and not hasattr(counterpart, name) and id(getattr(module, name)) not in traced} - unmade

    lacks = lacking(np, tnp, "") | lacking(np.linalg, tnp.linalg, "linalg.") | lacking(np.fft, tnp.fft, "fft.")
    assert lacks - NUMPY_FILE_FUNCTIONS <= NUMPY_UNTRACED
    listed = {name for name in NUMPY_UNTRACED | NUMPY_FILE_FUNCTIONS
              if not name.startswith(("numpy.linalg.", "numpy.fft.")) and hasattr(np, name.split(".")[1])}
    assert listed <= lacks
    assert not {name.split(".")[-1] for name in NUMPY_UNTRACED if name.count(".") == 1} & set(dir(tnp))


def test_numpy_functions_torch_numpy_lacks_break_in_compiled_code_only() -> None:
    assert findings("""
        import numpy as np
        import torch

        GRID = np.interp(0.5, [0.0, 1.0], [0.0, 10.0])

        @torch.compile
        def f(x):
            i, j = np.unravel_index(5, (2, 3))
            keep = np.isin([1, 2], [2])
            return x * GRID + np.acos(0.5) + np.linalg.norm([3.0, 4.0]) + i + keep.sum()
    """) == [(9, "BL411"), (10, "BL411")]


def test_masks_stay_masks_through_einx_padding_helpers_and_logical_updates() -> None:
    # an einx comparison gives a mask; `F.pad` of a helper's parameter keeps what the caller hands it; `&=` and
    # `&` of two helpers' masks give a mask: indexing with each selects by it (GB0036). `n & 1` of Python ints,
    # and a mask combined with an index tensor (`idx & 1` of a long tensor), index no mask
    assert findings("""
        import einx
        import torch
        import torch.nn.functional as F

        def between(lens, start, end):
            seq = torch.arange(16, device=start.device)
            return einx.greater_equal("n, b -> b n", seq, start) & einx.less("n, b -> b n", seq, end)

        def pad_to(t, length):
            return F.pad(t, (0, length - t.shape[-1]))[..., :length]

        def valid(lens):
            return einx.less("n, b -> b n", torch.arange(16), lens)

        @torch.compile
        def f(x, lens, n: int):
            start = torch.zeros_like(lens)
            span = pad_to(between(lens, start, lens), 16)
            a = x[span].sum()
            span &= valid(lens)
            b = x[span].sum()
            both = between(lens, start, lens) | valid(lens)
            idx = torch.arange(16)
            return a + b + x[both].sum() + x[:, n & 1].sum() + x[:, idx & 1].sum()
    """) == [(20, "BL302"), (22, "BL302"), (25, "BL302")]


def test_numpy_index_tricks_break_at_the_subscript_and_make_arrays() -> None:
    # indexing `np.ogrid`, `np.r_` or `np.s_` runs NumPy's own `__getitem__`, which dynamo skips; what the grids
    # make is a NumPy array, whose `dtype` dynamo cannot read (BL422); a list's `[...]` or a local named `r_` is
    # no such object
    assert findings("""
        import numpy as np
        import torch

        WINDOW = np.mgrid[0:3, 0:3]

        @torch.compile
        def f(x, r_):
            y, z = np.ogrid[-2:3, -2:3]
            h = np.exp(-(y * y + z * z))
            h[h < np.finfo(h.dtype).eps] = 0
            picked = x[np.s_[1:]] + r_[0]
            return picked.sum() + torch.from_numpy(h).sum() + torch.from_numpy(np.r_[0:3, 5]).sum()
    """) == [(9, "BL411"), (11, "BL422"), (12, "BL411"), (13, "BL411")]


def test_numpy_draws_given_a_size_are_arrays_read_where_the_code_takes_a_number() -> None:
    # `torch._numpy` makes a sized draw an array (a tensor to dynamo: no break at the draw), and a draw
    # without a size a Python number, read at the call (BL405); an element of the array read as a number
    # breaks where it is read (probed on torch 2.13 and 2.14.1)
    assert reported("""
        import numpy as np
        import torch

        @torch.compile
        def f(x):
            scale = np.random.uniform(0.5, 1.5)
            noise = np.random.normal(0, 1, size=(3,))
            low, high = np.random.uniform(0, 1, 2)
            drawn = np.random.rand(4)
            once = np.random.uniform(0, 1, None)
            return x * scale + torch.from_numpy(noise) + int(high * 4) + drawn.sum() + once
    """) == [("scale = np.random.uniform(0.5, 1.5)", "BL405"), ("once = np.random.uniform(0, 1, None)", "BL405"),
             ("return x * scale + torch.from_numpy(noise) + int(high * 4) + drawn.sum() + once", "BL103")]


def test_the_sized_numpy_draws_are_torch_numpys() -> None:
    pytest.importorskip("torch")
    import torch._numpy as tnp
    from breaklint.analysis.vocabulary import NUMPY_SIZED_DRAWS

    assert {name.removeprefix("numpy.random.") for name in NUMPY_SIZED_DRAWS} <= set(dir(tnp.random))


def test_a_function_numba_compiles_breaks_at_each_call_and_its_code_is_not_walked() -> None:
    # a numba dispatcher, whose `__call__` dynamo cannot trace (probed on torch 2.11, 2.13 and 2.14.1); its
    # body runs in numba, never under dynamo: the `if` on an array there is no break
    assert reported("""
        import numba
        import numpy as np
        import torch
        from numba import njit

        @njit
        def harmonic(n):
            a = np.arange(1, n + 1)
            if a.sum() > 3:
                return (1.0 / a).sum()
            return 0.0

        @numba.jit(nopython=True)
        def twice(v):
            return v * 2

        @torch.compile
        def f(x):
            return x * harmonic(4) + twice(3)
    """) == [("return x * harmonic(4) + twice(3)", "BL411"), ("return x * harmonic(4) + twice(3)", "BL411")]


def test_audio_libraries_built_on_numba_break_in_compiled_code() -> None:
    # librosa and resampy (NumPy code jitted with numba, cached with joblib): every call breaks, even
    # `librosa.hz_to_mel(440.0)` on a float (probed on torch 2.14.1: GB0294, GB0007, GB0157)
    assert reported("""
        import librosa
        import resampy
        import torch

        MELS = librosa.filters.mel(sr=16000, n_fft=512, n_mels=40)

        @torch.compile
        def f(x, probs, transition, wave):
            bins = librosa.sequence.viterbi(probs, transition)
            slow = resampy.resample(wave, 22050, 16000)
            return x + librosa.hz_to_mel(440.0) + torch.tensor(bins) + torch.tensor(slow) + torch.tensor(MELS).sum()
    """) == [("bins = librosa.sequence.viterbi(probs, transition)", "BL411"),
             ("slow = resampy.resample(wave, 22050, 16000)", "BL411"),
             ("return x + librosa.hz_to_mel(440.0) + torch.tensor(bins) + torch.tensor(slow) + torch.tensor(MELS).sum()",
              "BL411")]


def test_torchaudio_spectrograms_break_called_or_kept_and_its_other_transforms_do_not(tmp_path) -> None:
    # torchaudio's spectrogram asks `torch.jit.isinstance` of `normalized`, which dynamo skips: a spectrogram
    # function called, or a transform running one kept by the module, breaks (probed with torchaudio 2.11 on torch
    # 2.11 and 2.14.1: GB0007 at each of the three calls); `AmplitudeToDB` and `Resample` trace
    source = """
        import torch
        import torchaudio
        import torchaudio.functional as AF
        from torch import nn
        from torchaudio.transforms import AmplitudeToDB, MelSpectrogram

        class Features(nn.Module):
            def __init__(self):
                super().__init__()
                self.mel = MelSpectrogram(sample_rate=16000, n_fft=256, hop_length=64, n_mels=24)
                self.spec = torchaudio.transforms.Spectrogram(n_fft=256)
                self.db = AmplitudeToDB()
                self.resample = torchaudio.transforms.Resample(16000, 8000)

            def forward(self, audio):
                mel = self.db(self.mel(audio))
                spec = AF.spectrogram(audio, 0, torch.hann_window(256), 256, 64, 256, 2.0, False)
                return mel.sum() + spec.sum() + self.spec(audio).sum() + self.resample(audio).sum()
    """
    assert [code for _, code in reported(source)] == ["BL411"] * 3
    assert [line.split(" = ")[0].strip() for line, _ in reported(source)] == [
        "mel", "spec", "return mel.sum() + spec.sum() + self.spec(audio).sum() + self.resample(audio).sum()"]
    # torchaudio's own code: where it breaks is the `torch.jit.isinstance` (BL417), not each caller of it
    package = tmp_path / "torchaudio"
    (package / "transforms").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "transforms" / "__init__.py").write_text("", encoding="utf-8")
    (package / "transforms" / "_transforms.py").write_text(dedent("""
        import torch

        class Spectrogram(torch.nn.Module):
            def forward(self, x):
                return x

        class MelSpectrogram(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.spectrogram = Spectrogram()

            def forward(self, waveform):
                return self.spectrogram(waveform)
    """), encoding="utf-8")
    result = lint([tmp_path], Config(root=tmp_path), use_cache=False)
    assert not [f for f in result.findings if f.code == "BL411"]


def test_tensorly_einsum_breaks_where_the_module_turns_on_its_opt_einsum_plugin() -> None:
    # `use_opt_einsum()` at import makes `tl.einsum` run opt_einsum's cached expressions (probed on
    # torch 2.14.1: GB0007); without it, tensorly's einsum is torch's and traces
    source = """
        import tensorly as tl
        import torch
        from tensorly.plugins import use_opt_einsum

        tl.set_backend("pytorch")
        {switch}

        @torch.compile
        def contract(x, weight):
            return tl.einsum("bi,io->bo", x, weight) + tl.ndim(x)
    """
    assert reported(source.format(switch='use_opt_einsum("optimal")')) == [
        ('return tl.einsum("bi,io->bo", x, weight) + tl.ndim(x)', "BL411")]
    assert reported(source.format(switch="")) == []


def test_numpy_under_compile_is_a_tensor_where_dynamo_runs_it_as_one() -> None:
    # dynamo folds a NumPy call on Python numbers into a constant (`np.ceil(h / 7)`, `np.sqrt(c)`) and
    # runs one given a shape or a sequence as torch ops (`np.prod(x.shape[1:])`): only the second is
    # a tensor whose value `int()`, `range` or a size reads. A tuple built by concatenation is a
    # shape however its parts were computed.
    assert findings("""
        import numpy as np
        import torch

        @torch.compile
        def f(x):
            b, c, h, w = x.size()
            hp = int(np.ceil(h / 7)) * 7
            scale = float(np.sqrt(c))
            width = int(np.prod(x.shape[1:]))
            for _ in range(np.prod([h, w])):
                x = x + 1
            lead = torch.broadcast_shapes(x.shape, x.shape)
            y = x.reshape(lead[:1] + (c, -1))
            return x.new_zeros(hp) * scale, width, y
    """) == [(10, "BL103"), (11, "BL103")]


NUMPY_COUNTS = """
import numpy as np
import torch


def pick(x):
    return torch if isinstance(x, torch.Tensor) else np


def squeezed(x, axis):
    return x.sum(axis)


def spread(x, nx=None):
    nx = pick(x) if nx is None else nx
    return nx.sum(nx.abs(x[:, None] - x[None, :]), 2)


def as_numpy_counts(x):
    x = (x * 2).view(2, 2, 2)
    order = list(np.arange(x.dim()))
    moved = x.permute(*([0, order[-1]] + order[1:-1]))
    grid = np.linspace(0.0, 1.0, 5)
    for k in np.arange(2):
        moved = moved + k
    return moved * float(grid[1])


def as_tensor_counts(x):
    x = (x * 2).view(2, 4)
    axis = torch.tensor(x.shape).argmax()
    lib = pick(x)
    return x.sum(dim=axis) + lib.sum(x) + squeezed(x, 1).sum() + spread(x).sum()


def as_numpy_products(x, shapes=((2, 3), (4,)), scale=2.5):
    first = shapes[0]
    return x * int(np.prod(first)) * float(np.mean(scale)) * float(np.sqrt(4.0))


def padded_mask(scores, target):
    threshold, order = scores.sort(descending=True)
    last = torch.nn.functional.pad(threshold.diff() != 0, [0, 1], value=1.0)
    return target[order].cumsum(0)[last]


def cases():
    x = torch.randn(8)
    return [(as_numpy_counts, (x,)), (as_tensor_counts, (x,)), (as_numpy_products, (x,)), (padded_mask, (x, x.round()))]
"""


def test_numpy_counts_dimensions_and_padded_masks(tmp_path: Path) -> None:
    """An array NumPy makes from Python numbers (`np.arange`, `np.linspace`) is a tensor to dynamo: an
    element read back as a number, or a list of them passed as dimensions (concatenated, sliced,
    unpacked), reads its value; so does a tensor the code computes passed as `dim=`. Arithmetic with an
    element traces; a parameter passed as a dimension, and `lib.sum(x)` or `nx.sum(d, 2)` of a module a
    helper picks (the data is no dimension of a tensor's method there), are not reported. A NumPy reduction
    of a tuple of sizes is an array too (`int(np.prod(first))`); of a Python float, or a NumPy function of
    numbers, dynamo folds a constant. A mask padded with `F.pad` is still one of bools. Dynamo agrees line
    for line."""
    source = NUMPY_COUNTS.replace("def as_", "@torch.compile\ndef as_").replace(
        "def padded_mask", "@torch.compile\ndef padded_mask")
    assert reported(source) == [
        ("moved = x.permute(*([0, order[-1]] + order[1:-1]))", "BL103"),
        ("return moved * float(grid[1])", "BL103"),
        ("return x.sum(dim=axis) + lib.sum(x) + squeezed(x, 1).sum() + spread(x).sum()", "BL103"),
        ("return x * int(np.prod(first)) * float(np.mean(scale)) * float(np.sqrt(4.0))", "BL103"),
        ("return target[order].cumsum(0)[last]", "BL302"),
    ]
    pytest.importorskip("torch")
    assert dynamo_lines(tmp_path, NUMPY_COUNTS, "numpy_counts.py") == sorted(
        line for line, _ in reported(source))


def test_a_property_holds_what_its_getter_returns() -> None:
    # `self.lengthscale` is a property returning a tensor: a test of it is a tensor test; an attribute
    # that no class of the tree makes a property (`self.other`) stays unknown
    assert findings("""
        import torch
        from torch import nn

        class Kernel(nn.Module):
            def __init__(self):
                super().__init__()
                self.raw = nn.Parameter(torch.zeros(3))

            @property
            def lengthscale(self):
                return self.raw.exp()

            def forward(self, x):
                if self.lengthscale.max() > 1:
                    return x
                if self.other > 2:
                    return x * 2
                return x
    """) == [(15, "BL201")]


def test_post_processing_values_through_lists_of_dicts_and_zip() -> None:
    # forward hands its helpers a list of dicts built by a comprehension over `zip`, and a list of
    # `zip`'s tuples: the helpers' `out["scores"]`, `sc` and the rows of a masked `boxes` are tensors;
    # a key the dicts do not have (`out["label"]`) is not
    assert findings("""
        import torch
        from torch import nn

        class D(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(4, 5)

            def forward(self, feats):
                logits = self.head(feats)
                boxes = logits[..., :4].sigmoid()
                scores = logits[..., 4].sigmoid()
                self.pairs(list(zip(boxes, scores)))
                return self.post([{"boxes": b, "scores": s, "label": 1} for b, s in zip(boxes, scores)])

            def pairs(self, pairs):
                for bx, sc in pairs:
                    if sc.sum() > 0:
                        pass

            def post(self, outputs):
                sizes = []
                for out in outputs:
                    boxes = out["boxes"]
                    keep = out["scores"] > 0.5
                    if out["label"] > 0:
                        sizes.append(0)
                    for box in boxes[keep]:
                        sizes.append(int(box[2] - box[0]))
                return sizes
    """) == [(19, "BL201"), (29, "BL302"), (30, "BL103")]


def test_fields_of_dataclasses_and_named_tuples_hold_what_they_were_built_with() -> None:
    # a named tuple (both forms) and a dataclass built in forward, by position or keyword, give back
    # their tensors as attributes (and a named tuple by position, or unpacked); a field holding a
    # Python value (`Out.n`, `Det.label`) is none, and a dataclass deriving from another is only built
    # by keyword (its base's fields come first)
    assert findings("""
        import collections
        from dataclasses import dataclass
        from typing import NamedTuple
        import torch
        from torch import nn

        Pair = collections.namedtuple("Pair", "lo, hi")

        class Out(NamedTuple):
            boxes: torch.Tensor
            n: int

        @dataclass
        class Det:
            scores: torch.Tensor
            label: str = ""

        @dataclass
        class Sub(Det):
            extra: int = 0

        class M(nn.Module):
            def forward(self, x):
                p = Pair(x.sum(), 2)
                if p.lo > 0:
                    pass
                if p.hi > 1 or p[1] > 1:
                    pass
                lo, hi = p
                if lo > 0:
                    pass
                o = Out(n=3, boxes=x)
                if o.boxes.any() or o.n > 2:
                    pass
                d = Det(x.max())
                if d.scores > 0 or d.label:
                    pass
                s = Sub(1)
                if s.extra > 0:
                    pass
                return p
    """) == [(26, "BL201"), (31, "BL201"), (34, "BL201"), (37, "BL201")]


def test_a_record_returned_by_a_helper_of_another_file_holds_its_declared_fields(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "out.py").write_text(dedent("""
        from dataclasses import dataclass
        from typing import Optional
        import torch

        @dataclass
        class Det:
            scores: Optional[torch.Tensor] = None
            label: str = ""
    """))
    (tmp_path / "pkg" / "m.py").write_text(dedent("""
        import torch
        from torch import nn
        from .out import Det

        def make(x):
            return Det(scores=x * 2)

        class M(nn.Module):
            def forward(self, x):
                d = make(x)
                if d.scores.mean() > 0:
                    return x
                if d.label:
                    return x
                return Det(x).scores
    """))
    found = [(f.path.name, f.line, f.code) for f in lint([tmp_path], Config()).findings]
    assert found == [("m.py", 12, "BL201")]


def test_class_level_attributes_and_annotations_are_what_self_reads() -> None:
    # `table` is a tensor made in the class body, `total` is declared a tensor (a metric's state),
    # `count` a Python int; a type test on `self.value` narrows it where it holds, as for a name
    assert findings("""
        import torch
        from torch import Tensor, nn

        class M(nn.Module):
            table = torch.tensor([1.0, 2.0])
            total: Tensor
            value: Tensor
            count: int = 0

            def forward(self, x):
                if self.table[0] > 1:
                    pass
                if self.total > 0:
                    pass
                if self.count > 0:
                    pass
                if isinstance(self.value, list) and self.value:
                    pass
                if isinstance(self.value, list):
                    return x
                return x if self.value.any() else x + 1
    """) == [(12, "BL201"), (14, "BL201"), (22, "BL201")]


def test_builtins_and_lookups_that_test_each_element_of_a_tensor() -> None:
    # `any()` of a comparison, `sorted()` of a list of tensors and `in` among tensors test each element
    # for truth (BL202); a lookup among strings, a bare parameter handed to `any()` (usually a list of
    # flags) and a dtype looked up among dtypes do not
    assert findings("""
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x, mode, flags):
                if any(x.sum(0) > 0):
                    x = x + 1
                low = sorted([x.sum(), x.mean()])[0]
                seen = [x.sum(), x.mean()]
                hit = x.max() in seen
                if mode in ("train", "eval"):
                    x = x + 1
                if any(flags) or x.dtype in (torch.float16, torch.bfloat16):
                    x = x.float()
                return x + low + hit
    """) == [(7, "BL202"), (9, "BL202"), (11, "BL202")]


def test_einops_gives_tensors_when_handed_tensors() -> None:
    # rearrange, reduce, pack and unpack of a tensor give tensors; the pattern and the packed shapes
    # are not (`ps` holds Python shapes), nor what einops gives for a value that is no tensor
    assert findings("""
        import torch
        from torch import nn
        from einops import pack, rearrange, unpack
        import einops

        class M(nn.Module):
            def forward(self, x):
                y = rearrange(x, "b n d -> b d n")
                if y.sum() > 0:
                    x = x + 1
                n = int(einops.reduce(x, "b n d -> b d", "mean").max())
                packed, ps = pack([x, x], "b * d")
                if ps:
                    x = x + 1
                a, b = unpack(packed, ps, "b * d")
                if a.all():
                    x = x + 1
                if rearrange([1, 2], "n -> n"):
                    x = x + 1
                return x + n
    """) == [(10, "BL201"), (12, "BL103"), (17, "BL201")]


def test_counts_read_from_tensors_and_not_from_strings_or_shapes() -> None:
    # `split` and `chunk` by a count computed from data read it as a Python int (BL303); a string's
    # `split`, a shape's, and a parameter's (only a guess at a tensor) are left alone
    assert findings("""
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x, name, parts):
                n = (x > 0).long().sum()
                a = x.split(n)
                b = torch.chunk(x, n)
                head = name.split(".")[0]
                c = x.split(x.shape[0] // 2)
                d = x.chunk(parts)
                return a, b, c, d, head
    """) == [(8, "BL303"), (9, "BL303")]


def test_a_helper_returning_a_tensor_on_one_path_and_an_int_on_another() -> None:
    # the scheduler idiom: the previous step is a tensor read from a table, or the int arithmetic
    # of the fallback; comparing it breaks whenever the table's path ran. A root's bare parameter
    # defaulted to a flag stays a flag.
    assert findings("""
        import torch

        class Scheduler(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("steps", torch.arange(10))
                self.custom = True

            def previous(self, t: int):
                if self.custom:
                    prev = self.steps[t] - 1
                else:
                    prev = t - 1
                return prev

            def forward(self, x, t: int, flag=None):
                flag = flag if flag is not None else self.training
                prev = self.previous(t)
                scale = 0.5 if prev >= 0 else 1.0
                if flag:
                    x = x * 2
                return x * scale
    """) == [(20, "BL201")]


def test_a_root_parameter_handed_to_a_helper_that_takes_it_for_a_string_is_no_tensor() -> None:
    # a compiled function's bare parameter is assumed a tensor, unless it, or a helper it hands the
    # parameter on to, uses it as a Python value: compared with a string, or set to one
    assert findings("""
        import torch

        def _check(method, options):
            if method is None:
                method = "dopri5"
            return method, options

        def _select(kind):
            return 2 if kind in ("euler", "rk4") else 1

        def _scale(size):
            return size.sum()

        @torch.compile
        def solve(x, method, kind, size):
            _check(method, None)
            _select(kind=kind)
            _scale(size)
            a = method * 2
            b = kind * 2
            c = size * 2
            if a:
                x = x + 1
            if b:
                x = x + 1
            if c:
                x = x + 1
            return x
    """) == [(27, "BL201")]

def test_a_root_parameter_compared_with_one_that_holds_a_string_is_no_tensor() -> None:
    # `adjoint_method != method`: `method` is a string (a helper sets it to one), so the parameter
    # compared with it for equality is one too, also when a name holds either of the two; a
    # parameter compared with a tensor, or with a parameter nothing tells about, stays assumed
    assert findings("""
        import torch

        def _check(method):
            if method is None:
                method = "dopri5"
            return method

        @torch.compile
        def solve(y, method=None, adjoint_method=None, other=None, unknown=None):
            if adjoint_method is None:
                adjoint_method = method
            if adjoint_method != method:
                y = y * 2
            if other != y:
                y = y + 1
            if other == unknown:
                y = y + 1
            return y * len(_check(method))
    """) == [(15, "BL201"), (17, "BL201")]



def test_shape_typed_annotations_are_tensors() -> None:
    """torchtyping's `TensorType[...]` and jaxtyping's `Float[Tensor, ...]` annotate tensors; a
    `Bool[...]` one, or a `TensorType` of `torch.bool`, is a mask."""
    assert findings("""
        import torch
        from torch import Tensor, nn
        from jaxtyping import Bool, Float, Int
        from torchtyping import TensorType


        def pick(mask: Bool[Tensor, "b"], x: Float[Tensor, "b c"]):
            return x[mask]


        def pick_typed(mask: TensorType["b", torch.bool], x: TensorType["b", "c"]):
            return x[mask]


        def gate(flag: TensorType["b"], count: Int[torch.Tensor, ""], x):
            if flag.any():
                return x[:count]
            return -x


        def shapes(size: Float[list, "2"], x):
            if size[0] > 1:
                return x
            return -x


        class M(nn.Module):
            def forward(self, x):
                stats = external(x)
                return pick(stats[0], x) + pick_typed(stats[0], x) + gate(stats[1], stats[2], x) + shapes(stats, x)
    """) == [(9, "BL302"), (13, "BL302"), (17, "BL201"), (18, "BL103")]


def test_torch_equal_and_allclose_take_tensors_whatever_the_analysis_knows() -> None:
    # `torch.equal(a, b)` raises on anything but tensors: its operands need no evidence (an
    # attribute of unknown value, a parameter no call gives a tensor); the method form `a.equal(b)`
    # still does, since `a` may be another kind of object with such a method
    assert findings("""
        import torch

        class Memo(torch.nn.Module):
            def forward(self, make):
                return self.check(make.indices(), make.values())

            def check(self, indices, values):
                if hasattr(self, "_memo") and torch.equal(self._indices, indices):
                    return self._memo
                if not torch.allclose(self._values, values, atol=1e-6):
                    self._values = values
                if self.config.equal(indices):
                    return values
                return values
    """) == [(9, "BL103"), (11, "BL201"), (11, "BL103")]


def test_what_follows_a_compile_check_that_returns_is_not_traced() -> None:
    # `if is_compiling(): return ...` leaves the block under compile; an `elif` of it does not
    assert findings("""
        import torch

        @torch.compile
        def counts(x: torch.Tensor, flag: bool):
            if torch.compiler.is_compiling() or flag:
                return torch.unique(x, return_counts=True)
            return torch.unique_consecutive(x, return_counts=True)

        @torch.compile
        def counts2(x: torch.Tensor, flag: bool):
            if flag:
                x = x + 1
            elif torch.compiler.is_compiling():
                return x
            return x.item()
    """) == [(7, "BL301"), (16, "BL101")]


def test_a_test_that_a_compile_check_decides_is_not_a_tensor_test() -> None:
    # the `if` itself, not only what its right operand calls: under compile `not is_compiling() and
    # m.any()` is False, and `is_compiling() and m.any()` tests `m.any()` with no condition to name
    source = """
        import torch

        @torch.compile
        def f(x: torch.Tensor):
            m = x > 0
            if not torch.compiler.is_compiling() and m.any():
                raise ValueError("positive")
            if torch.compiler.is_compiling() and m.any():
                x = x + 1
            return x
    """
    found = lint_source(dedent(source), Path("m.py"), Config())
    assert [(f.line, f.code) for f in found] == [(9, "BL201")]
    assert "only when" not in found[0].message


def test_a_forward_parameter_compared_with_a_size_or_given_to_math_is_a_number() -> None:
    assert findings("""
        import math
        import torch
        from torch import nn

        class Router(nn.Module):
            def forward(self, x, num_tokens, blocks, t):
                n = x.shape[-2]
                if n <= num_tokens:
                    return x
                if math.ceil(blocks / 2) > 1:
                    x = x * 2
                if blocks > 1 or x.sum() > t:
                    x = x - 1
                return x
    """) == [(13, "BL201")]


def test_a_field_of_what_a_module_returned_is_a_tensor_by_the_method_called_on_it() -> None:
    # `out = self.encoder(x)` is taken for a tensor, but a module may return a record; its field
    # `out.logits` tested through a tensor method (`.mean()`) is one, as a name would be
    source = """
        import torch
        from torch import nn

        class Model(nn.Module):
            def __init__(self, encoder):
                super().__init__()
                self.encoder = nn.Linear(4, 4)

            def forward(self, x):
                out = self.encoder(x)
                if out.logits.mean() > 0:
                    x = x + 1
                if out.hidden_states:
                    x = x - 1
                if out.config.values() and out.items.count(3):
                    x = x * 2
                return x
    """
    assert findings(source) == [(12, "BL201")]
    found = lint_source(dedent(source), Path("m.py"), Config())
    assert found[0].fix is None  # assumed, never known: no rewrite to `torch.where`


def test_functions_of_an_extension_built_at_run_time_break() -> None:
    # built at module level, or on first use in a function that declares the name global (the builder
    # imported there); a local of the same name, a module-level name bound otherwise, and the extension's
    # functions called outside compiled code are not reported
    assert findings("""
        import torch
        from torch.utils.cpp_extension import load

        _ext = load(name="fused", sources=["fused.cpp"])
        _C = None
        _other = object()


        def _build():
            global _C
            from torch.utils.cpp_extension import load_inline as build
            _C = build(name="ops", cpp_sources="...", functions=["scale"])


        def build_once():
            return _ext.prepare()


        @torch.compile
        def f(x):
            y = _ext.fused_act(x)
            z = _C.scale(x, 2.0)
            return x + y + z + _other.run(x)


        @torch.compile
        def g(x):
            _ext = x
            return _ext.add(1)
    """) == [(22, "BL411"), (23, "BL411")]


def test_zero_d_indices_of_stores_and_positions_and_what_gathers() -> None:
    """A 0-d index reads as a Python int in a store too, and one coordinate of one `nonzero` position
    is 0-d (fixtures/BL103.py calibrates both under dynamo); a row of the positions, a coordinate of
    a matrix whose rank the code does not show, and a store through a vector gather and stay quiet."""
    assert findings("""
        import torch

        @torch.compile
        def f(x, m, given):
            found = torch.nonzero(m)
            row = found[0]
            x[0, row] = 1.0
            other = given[0, 1]
            x[0, other] = 2.0
            order = torch.arange(4)
            x[order] = 3.0
            j = found[0, 1]
            x[0, j] = 4.0
            i = x.flatten().argmax()
            x.view(-1)[i] = 5.0
            for k, v in enumerate(order):
                x[v] = float(k)
            return x
        """) == [(6, "BL301"), (14, "BL103"), (16, "BL103"), (18, "BL103")]


def test_a_cast_holds_what_it_declares_and_a_factory_called_at_once_what_its_function_returns() -> None:
    """`typing.cast(torch.Tensor, v)` is a tensor whatever `v` is told to be; `cast(dict, v)` and a
    string annotation say nothing of a tensor; `pick()(n)` runs the function `pick` returns."""
    assert findings("""
        from typing import cast

        import torch


        def scale(n):
            return torch.tensor(n)


        def pick():
            return scale


        @torch.compile
        def f(group: dict, n: int):
            p = cast(torch.Tensor, group["prob"])
            q = cast("torch.Tensor", group["prob"])
            r = cast(dict, group)
            s = pick()(n)
            return bool(p > 0), bool(q > 0), bool(r), bool(s > 0)
    """) == [(21, "BL103"), (21, "BL103")]  # `p` and `s`


NESTED = '''
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Model(nn.Module):
    def forward(self, x):
        t = 3

        def body(t):
            return t[t > 0]
        y = body(x * 2)

        def inner(z, n):
            return z * int(n)
        out = checkpoint(inner, y, y.sum(), use_reentrant=False)

        def label(k):
            return k + 1 if k > 0 else k

        def count(r):
            return r[r > 0].sum()
        counts = list(map(count, torch.stack([x, x])))
        kept = list(map(lambda r: r[r > 1].sum(), [x, x]))
        return out * label(t), counts, kept


def cases():
    return [(Model(), (torch.randn(5),))]
'''


def test_a_nested_function_s_parameters_hold_what_its_calls_pass() -> None:
    """`body(x * 2)` hands a tensor to `t` (which hides the outer `t = 3` only inside `body`);
    `checkpoint(inner, y, y.sum())` hands `z` and `n`; `map(count, rows)` each row, and so does `map`
    to a lambda's parameter; `label(t)` hands a Python int."""
    assert sorted(reported(NESTED)) == [
        ("kept = list(map(lambda r: r[r > 1].sum(), [x, x]))", "BL302"), ("return r[r > 0].sum()", "BL302"),
        ("return t[t > 0]", "BL302"), ("return z * int(n)", "BL103")]


@pytest.mark.dynamo
def test_dynamo_breaks_in_the_nested_functions(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, NESTED, "nested.py") == [
        "kept = list(map(lambda r: r[r > 1].sum(), [x, x]))", "return r[r > 0].sum()", "return t[t > 0]",
        "return z * int(n)"]


ANNOTATED_MASK = '''
import torch
import torch.nn as nn
from torch import Tensor


def select(x: Tensor, mask: Tensor) -> Tensor:
    return x[mask]


def pick(x: Tensor, index: Tensor) -> Tensor:
    return x[index]


class Head(nn.Module):
    def forward(self, x: Tensor, keep: Tensor) -> Tensor:
        return x[keep] * 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head()

    def forward(self, x):
        a = select(x, torch.logical_and(x > 0, x < 1))
        b = pick(x, torch.arange(2))
        return a.sum() + b.sum() + self.head(x, x > 0).sum()


def cases():
    return [(Model(), (torch.randn(6),))]
'''


def test_a_parameter_annotated_as_a_tensor_is_a_mask_where_its_callers_pass_one() -> None:
    """`mask: Tensor` says a tensor, not which dtype: where every call of the tree passes a tensor of
    bools (`torch.logical_and(...)`, `x > 0`), indexing with it is a boolean mask; a parameter the
    callers hand positions (`torch.arange(2)`) gathers."""
    assert sorted(reported(ANNOTATED_MASK)) == [
        ("return x[keep] * 2", "BL302"), ("return x[mask]", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_annotated_masks(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, ANNOTATED_MASK, "masks.py") == ["return x[keep] * 2", "return x[mask]"]


INVERTED_MASK = '''
import torch
import torch.nn as nn


def split(x, keep):
    return x[keep].sum(), x[~keep].sum()


def shift(x, steps):
    return x[~steps]


class Model(nn.Module):
    def forward(self, x):
        kept, dropped = split(x, x > 0)
        return kept + dropped + shift(x, torch.arange(2)).sum()


def cases():
    return [(Model(), (torch.randn(6),))]
'''


def test_the_inverse_of_a_mask_the_tree_decides_is_a_mask() -> None:
    """`~keep` of a parameter every caller hands a tensor of bools is one too (`~` of integers is their
    bitwise complement, a gather: `~steps` of `torch.arange(2)` is not reported)."""
    assert sorted(reported(INVERTED_MASK)) == [
        ("return x[keep].sum(), x[~keep].sum()", "BL302")] * 2  # `x[keep]` and `x[~keep]`, on one line


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_inverted_mask(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, INVERTED_MASK, "inverted.py") == ["return x[keep].sum(), x[~keep].sum()"]


MASK_ROWS = '''
import torch


@torch.compile
def candidates(prediction, conf_thres=0.25):
    if isinstance(prediction, (list, tuple)):
        prediction = prediction[0]
    keep = prediction[:, 4:].amax(1) > conf_thres
    out = []
    for i, boxes in enumerate(prediction.transpose(-1, -2)):
        out.append(boxes[keep[i]])
    return out


@torch.compile
def gathered(prediction):
    order = prediction[:, 4:].argmax(1)
    return [rows[order[i]] for i, rows in enumerate(prediction)]


def cases():
    return [(candidates, (torch.rand(2, 7, 5),)), (gathered, (torch.rand(2, 7, 5),))]
'''


def test_a_row_of_a_mask_is_a_mask_and_a_sliced_array_a_tensor() -> None:
    """`keep[i]` of a comparison's result is a row of bools; `prediction[:, 4:]` of what the code
    cannot tell (a root's parameter, or its first element where a tuple is handed) is an array, taken
    for a tensor as a tensor method on it would be. A row of integers (`order[i]`) gathers."""
    assert reported(MASK_ROWS) == [
        ("out.append(boxes[keep[i]])", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_mask_rows(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, MASK_ROWS, "mask_rows.py") == ["out.append(boxes[keep[i]])"]


SUBMODULE_RESULTS = '''
import torch
from torch import nn


class Assigner(nn.Module):
    def forward(self, scores):
        if scores.shape[1] == 0:
            return torch.zeros_like(scores), torch.zeros_like(scores[..., 0], dtype=torch.bool)
        return scores * 2, scores.amax(-1) > 0.5


class Matcher(nn.Module):
    def forward(self, scores):
        best = scores.argmax(-1)
        return {"matches": torch.where(scores.amax(-1) > 0.2, best, -1), "lengths": [scores.shape[1]] * len(scores)}


class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.assigner = Assigner()
        self.matcher = Matcher()
        self.proj = nn.Linear(4, 4)

    def forward(self, scores, pred):
        targets, fg = self.assigner(scores)
        loss = (pred[fg] - targets[fg]).abs().sum()
        out = self.matcher(self.proj(scores))
        valid = out["matches"] > -1
        kept = [row[:n] for row, n in zip(pred, out["lengths"])]
        return loss + pred[valid].sum(), kept


def cases():
    return [(torch.compile(Loss()), (torch.rand(2, 3, 4), torch.rand(2, 3, 4)))]
'''


def test_what_a_submodule_returns_is_what_its_forward_returns() -> None:
    """`targets, fg = self.assigner(scores)`: the second of what the submodule's forward returns is a mask
    on each path, so indexing with it selects; a piece of its result (`out["matches"]`) is what the
    forward put there; a list of sizes it returns bounds slices without breaking (where a submodule's
    result was taken for a tensor, its elements too)."""
    assert reported(SUBMODULE_RESULTS) == [
        ("loss = (pred[fg] - targets[fg]).abs().sum()", "BL302"),
        ("loss = (pred[fg] - targets[fg]).abs().sum()", "BL302"),
        ("return loss + pred[valid].sum(), kept", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_submodule_results(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, SUBMODULE_RESULTS, "submodule_results.py") == sorted([
        "loss = (pred[fg] - targets[fg]).abs().sum()",
        "return loss + pred[valid].sum(), kept"])


LOOP_BUILT_RESULTS = '''
import torch
from torch import nn


class Assigner(nn.Module):
    def forward(self, scores, chunks: int = 1):
        if chunks == 1:
            return scores * 2, scores.amax(-1) > 0.5
        results = None
        for i in range(chunks):
            part = (scores[i:i + 1] * 2, scores[i:i + 1].amax(-1) > 0.5)
            if results is None:
                results = tuple(x.new_empty((len(scores), *x.shape[1:])) for x in part)
            for out, x in zip(results, part):
                out[i] = x[0]
        return results


class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.assigner = Assigner()

    def forward(self, scores, pred):
        targets, fg = self.assigner(scores)
        loss = (pred[fg] - targets[fg]).abs().sum()
        return loss + self.best(pred)

    def best(self, pred):
        best = None
        for row in pred:
            if best is None or row.sum() > best:
                best = row.sum()
        return best


def cases():
    return [(torch.compile(Loss()), (torch.rand(2, 3, 4), torch.rand(2, 3, 4)))]
'''


def test_a_none_a_loop_rebinds_is_none_the_first_time_round_only() -> None:
    """`best = None`, then `if best is None or row.sum() > best` in a loop: from the second time round
    the test compares tensors. Past the loop the name holds what the body bound, as before: a result
    built in a loop from `results = None` keeps the kind of its elements, and the mask the submodule
    returns still selects."""
    assert reported(LOOP_BUILT_RESULTS) == [
        ("loss = (pred[fg] - targets[fg]).abs().sum()", "BL302"),
        ("loss = (pred[fg] - targets[fg]).abs().sum()", "BL302"),
        ("if best is None or row.sum() > best:", "BL201")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_loop_sentinel_and_the_mask(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, LOOP_BUILT_RESULTS, "loop_built_results.py") == sorted([
        "if best is None or row.sum() > best:",
        "loss = (pred[fg] - targets[fg]).abs().sum()"])


def test_a_union_of_a_tensor_and_no_python_number_is_what_the_callers_pass() -> None:
    """`t_span: Union[List, Tensor]` holds what the callers pass (a tensor here, so its comparison is
    a data-dependent branch); `sigma: float | Tensor` stays unknown. An isinstance test against a
    class of the standard library (`pathlib.Path`) tells that the value is no tensor."""
    assert reported("""
        from pathlib import Path
        from typing import List, Union

        import torch

        def solve(x, t_span: Union[List, torch.Tensor], sigma: float | torch.Tensor):
            if t_span[1] < t_span[0]:
                x = -x
            return x * float(sigma)

        def describe(source: str | Path | torch.Tensor):
            if isinstance(source, (str, Path)):
                return str(source)
            return source

        @torch.compile
        def f(x, t: torch.Tensor, source):
            return solve(x, t, 0.5), describe(source)
    """) == [("if t_span[1] < t_span[0]:", "BL201")]


def test_a_function_nested_in_the_compiled_one_returns_what_its_returns_give() -> None:
    """`def pulse_positions(p): return torch.ge(p, 0.5)` nested in the function, then `mask =
    pulse_positions(phase)`: a tensor of bools, so `pitch[mask]` selects by a boolean mask; a nested
    function returning a Python number gives no tensor."""
    assert reported("""
        import torch

        @torch.compile
        def excite(pitch, phase):
            def pulse_positions(p):
                return torch.ge(torch.diff(torch.ceil(p)), 1)

            def scale():
                return 2.0

            e = torch.zeros_like(pitch)
            mask = pulse_positions(phase)
            e[mask] = torch.sqrt(pitch[mask])
            if scale() > 1:
                e = e * 2
            return e
    """) == [("e[mask] = torch.sqrt(pitch[mask])", "BL302")]


UNWRAPPED_INPUTS = '''
import torch
import torch.nn.functional as F


@torch.compile
def candidates(prediction, conf_thres: float = 0.25):
    if isinstance(prediction, (list, tuple)):
        prediction = prediction[0]
    xc = prediction[..., 4] > conf_thres
    prediction = prediction.transpose(-1, -2)
    kept = []
    for xi, x in enumerate(prediction):
        x = x.T * xc[xi, :, None]
        box, cls = x.split((4, 2), 1)
        conf, j = cls.max(1, keepdim=True)
        kept.append(torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres])
    return kept


@torch.compile
def main_output(out):
    if isinstance(out, dict):
        out = out["out"]
    return out[out > 0]


@torch.compile
def paste(protos, shape):
    c, mh, mw = protos.shape
    gain = min(mh / shape[0], mw / shape[1])
    pad = (mw - shape[1] * gain) / 2, (mh - shape[0] * gain) / 2
    top, left = int(pad[1]), int(pad[0])
    return F.interpolate(protos[None, :, top:, left:], shape, mode="bilinear")[0]


def cases():
    return [(candidates, (torch.rand(2, 8, 6),)), (main_output, (torch.randn(5),)),
            (paste, (torch.rand(3, 8, 8), (16, 16)))]
'''


def test_an_input_unwrapped_from_a_container_holds_what_the_callers_pass() -> None:
    """`if isinstance(prediction, (list, tuple)): prediction = prediction[0]` (or `out = out["out"]`
    of a dict) in a compiled function: past the test the name holds what the callers pass or an
    element of it, a tensor for a compile root's input, so the masks it gives select by a boolean
    mask, down a chain of steps (a split, a maximum, a concatenation). A root's parameter passed where torch reads sizes (`F.interpolate(x, shape)`) is a tuple of
    ints, not a tensor: the padding computed from it is a Python number and `int()` of it reads none."""
    assert reported(UNWRAPPED_INPUTS) == [
        ("kept.append(torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres])", "BL302"),
        ("return out[out > 0]", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_unwrapped_inputs_masks_only(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, UNWRAPPED_INPUTS, "unwrapped_inputs.py") == sorted([
        "kept.append(torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres])",
        "return out[out > 0]"])


DIMENSION_PARAMETERS = '''
import torch


@torch.compile
def total(x, dim):
    if dim < 0:
        dim = dim + x.dim()
    return x.sum(dim)


@torch.compile
def joined(x, axis):
    if axis < 0:
        axis += x.ndim
    return torch.cat([x, x], dim=axis)


@torch.compile
def width(x, d):
    if d > 0:
        x = x * 2
    return x * x.shape[d]


@torch.compile
def scaled(x, scale):
    if scale > 0:
        x = x * 2
    return x * scale


def cases():
    return [(total, (torch.rand(2, 3), -1)), (joined, (torch.rand(2, 3), -1)), (width, (torch.rand(2, 3), 1)),
            (scaled, (torch.rand(2, 3), torch.tensor(0.5)))]
'''


def test_a_parameter_naming_a_dimension_is_a_python_int() -> None:
    """A compile root's parameter passed as a dimension (`x.sum(dim)`, `torch.cat(xs, dim=axis)`) or
    indexing a shape (`x.shape[d]`) is an int: testing it is no data-dependent branch. One used only
    in arithmetic with tensors is still taken for a tensor."""
    assert reported(DIMENSION_PARAMETERS) == [("if scale > 0:", "BL201")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_tensor_parameter_only(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, DIMENSION_PARAMETERS, "dimension_parameters.py") == ["if scale > 0:"]


FILLED_BOUNDS = '''
import torch


@torch.compile
def pool(output, valid_mics=None):
    batch_size, nmics = output.shape[0], output.shape[3]
    if valid_mics is None:
        valid_mics = torch.LongTensor([nmics] * batch_size)
    means = [output[b, :, :, : valid_mics[b]].mean(2) for b in range(batch_size)]
    return torch.stack(means)


@torch.compile
def crop(x, n):
    return x[:, :n]


def cases():
    return [(pool, (torch.rand(2, 3, 4, 5),)), (crop, (torch.rand(2, 8), 3))]
'''


def test_a_slice_bound_from_a_parameter_the_code_fills_with_a_tensor_is_one() -> None:
    """`if valid_mics is None: valid_mics = torch.LongTensor(...)`, then `x[..., :valid_mics[b]]`: on the
    path where the caller passed nothing the bound is a tensor's element, read as a Python int. A
    bound that is a compile root's parameter alone (`x[:, :n]`) is usually an int and stays unreported."""
    assert reported(FILLED_BOUNDS) == [
        ("means = [output[b, :, :, : valid_mics[b]].mean(2) for b in range(batch_size)]", "BL103")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_filled_slice_bound(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, FILLED_BOUNDS, "filled_bounds.py") == [
        "means = [output[b, :, :, : valid_mics[b]].mean(2) for b in range(batch_size)]"]


STARRED_TUPLES = '''
import torch
from torch import nn


def drop_unknown(target, *tensors):
    known = target >= 0
    return (target[known], *(t[known] for t in tensors))


def with_extras(x, *extras):
    return (x.sum(), *extras)


class Loss(nn.Module):
    def forward(self, distances: torch.Tensor, target: torch.Tensor):
        target, distances = drop_unknown(target, distances)
        last = target == 3
        picked = target[last]
        total, flag = with_extras(distances, True)
        if flag:
            return picked.sum() + total
        return total


def cases():
    return [(Loss(), (torch.rand(6, 4), torch.tensor([0, 3, -1, 3, 2, 1])))]
'''


def test_a_tuple_with_a_starred_element_keeps_the_elements_before_it() -> None:
    """`return (target[known], *rest)`: the element before the star is known by position, so
    `target, distances = drop_unknown(...)` keeps a tensor in `target`; an element past the star is not
    known (`flag` holds what the caller passed after the tensor, here a Python bool), so `if flag:` is
    not a test of a tensor."""
    assert reported(STARRED_TUPLES) == [
        ("return (target[known], *(t[known] for t in tensors))", "BL302"),
        ("return (target[known], *(t[known] for t in tensors))", "BL302"),
        ("picked = target[last]", "BL302")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_mask_read_after_the_starred_tuple(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, STARRED_TUPLES, "starred_tuples.py") == [
        "picked = target[last]", "return (target[known], *(t[known] for t in tensors))"]


GENERATORS = """
import torch
from torch import nn

SQRT2 = (2 * torch.ones(1)).sqrt()


class Transform(nn.Module):
    def __init__(self, rng: torch.Generator = None):
        super().__init__()
        self.rng = torch.Generator() if rng is None else rng

    def forward(self, x):
        return self.shift(x)


class Shift(Transform):
    def shift(self, x):
        order = torch.randperm(x.shape[0], generator=self.rng)
        return x[order]


class Quiet(nn.Module):
    def __init__(self):
        super().__init__()
        self.rng = None

    def forward(self, x):
        return x + torch.randn(x.shape, generator=self.rng)


class Pad(nn.Module):
    def forward(self, x):
        w = x.shape[-1]
        pad = int((SQRT2 * w - w).ceil())
        return torch.nn.functional.pad(x, (pad, pad))


def cases():
    x = torch.randn(4, 4)
    return [(Shift(), (x,)), (Quiet(), (x,)), (Pad(), (x,))]
"""


def test_a_generator_kept_by_a_base_and_a_tensor_made_at_module_level() -> None:
    """`self.rng = torch.Generator() if rng is None else rng` holds a generator either way, and a subclass
    drawing with it (`generator=self.rng`, an attribute its base sets) breaks; one that holds `None` traces. A
    module-level tensor (`SQRT2 = (2 * torch.ones(1)).sqrt()`) read back as an int breaks. Dynamo agrees."""
    assert reported(GENERATORS) == [
        ("order = torch.randperm(x.shape[0], generator=self.rng)", "BL421"),
        ("pad = int((SQRT2 * w - w).ceil())", "BL103"),
    ]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_generator_and_the_module_tensor(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, GENERATORS, "generators.py") == sorted(line for line, _ in reported(GENERATORS))


NAMED_BUFFERS = """
import torch
from torch import nn


class Fields(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.sizes = sorted(sizes)
        for s in self.sizes:
            self.register_buffer("indices_{}".format(s), torch.tensor([0, s]))
            self.register_buffer(f"{s}_scale", torch.ones(s))

    def forward(self, x):
        out = []
        for s in self.sizes:
            scale = getattr(self, f"{s}_scale")
            indices = getattr(self, f"indices_{s}")
            out.append(x[:, indices[0]:indices[1]] * scale)
        return torch.cat(out, 1)


class Mixed(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.sizes = sorted(sizes)
        for s in self.sizes:
            if s > 2:
                self.register_buffer(f"bounds_{s}", torch.tensor([0, s]))
            else:
                setattr(self, f"bounds_{s}", [0, s])

    def forward(self, x):
        bounds = getattr(self, f"bounds_{self.sizes[0]}")
        return x[:, bounds[0]:bounds[1]]


def cases():
    x = torch.randn(4, 5)
    return [(Fields([2, 3]), (x,)), (Mixed([2, 3]), (x,))]
"""


def test_a_buffer_registered_under_a_formatted_name_is_a_tensor_read_back() -> None:
    """`self.register_buffer("indices_{}".format(s), ...)` then `getattr(self, f"indices_{s}")`: a tensor,
    so its elements as slice bounds break; names of a pattern also `setattr` to something else (a list
    here) are left alone. Dynamo agrees."""
    assert reported(NAMED_BUFFERS) == [("out.append(x[:, indices[0]:indices[1]] * scale)", "BL103")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_named_buffer_slice_only(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, NAMED_BUFFERS, "named_buffers.py") == sorted(line for line, _ in reported(NAMED_BUFFERS))


PACKED = """
import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence


class Steps(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(4, 4)

    def forward(self, input):
        is_packed = isinstance(input, PackedSequence)
        if is_packed:
            data, batch_sizes, _, _ = input
            steps = data.split(tuple(batch_sizes))
            return torch.cat([self.cell(step) for step in steps])
        sizes = [2, 1]
        return self.cell(input).split(list(sizes))[0]


class Rebound(nn.Module):
    def forward(self, input, sizes: list[int]):
        packed = isinstance(input, PackedSequence)
        input = self.parts(input, sizes)
        if packed:
            data, batch_sizes, _, _ = input
            return data.split(tuple(batch_sizes))[0]
        return input[0]

    def parts(self, input, sizes):
        return (input.data, sizes, None, None)


def cases():
    x = torch.randn(5, 3, 4)
    packed = pack_padded_sequence(x, torch.tensor([5, 4, 2]))
    return [(Steps(), (packed,)), (Steps(), (torch.randn(3, 4),)),
            (Rebound(), (packed, [5, 4, 2]))]
"""


def test_a_packed_sequence_unpacked_where_a_kept_type_test_holds() -> None:
    """`is_packed = isinstance(input, PackedSequence)` then `if is_packed:` narrows `input` as the test
    itself would; a packed sequence's batch sizes are a tensor, and `tuple(batch_sizes)` as `split`'s
    sizes breaks. A test kept in a local no longer narrows once the name it tested is bound again (to what a
    method returns: a tuple holding a list of Python ints here), and a list of Python ints (`list(sizes)`) is no tensor. Dynamo agrees."""
    assert reported(PACKED) == [("steps = data.split(tuple(batch_sizes))", "BL303")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_packed_batch_sizes_only(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, PACKED, "packed.py") == sorted(line for line, _ in reported(PACKED))


SLICE_DIFFERENCES = """
import torch


class Graphs:
    def __init__(self, ptr, weight):
        self.ptr = ptr
        self.weight = weight


@torch.compile
def per_atom(ref: Graphs, forces):
    counts = ref.ptr[1:] - ref.ptr[:-1]
    w = torch.repeat_interleave(ref.weight, counts)
    return (w.unsqueeze(-1) * forces).mean()


@torch.compile
def widths(dims: list, x):
    steps = [b - a for a, b in zip(dims[:-1], dims[1:])]
    joined = dims[:1] + dims[1:]
    return x.split(steps), len(joined)


def cases():
    return [(per_atom, (Graphs(torch.tensor([0, 3, 5]), torch.rand(2)), torch.rand(5, 3))),
            (widths, ([0, 2, 5], torch.rand(5)))]
"""


def test_arithmetic_of_two_slices_is_an_array() -> None:
    """`ref.ptr[1:] - ref.ptr[:-1]`: lists and tuples have no `-`, so two slices subtracted are an array or a
    tensor, whatever the object holds (its class tells nothing here); as `repeat_interleave`'s repeats they
    break. Their elements subtracted
    (`b - a` over `zip(dims[:-1], dims[1:])`) and slices joined with `+` are no such thing. Dynamo agrees."""
    assert reported(SLICE_DIFFERENCES) == [("w = torch.repeat_interleave(ref.weight, counts)", "BL301")]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_repeats_of_a_slice_difference(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, SLICE_DIFFERENCES, "slices.py") == sorted(
        line for line, _ in reported(SLICE_DIFFERENCES))


KEYWORD_ONLY = """
import torch


def gate(*args, record=False, scale=1.0):
    if record:
        return args[0] * 2
    return args[0] * scale


@torch.compile
def f(x):
    return gate(x * 2)


def cases():
    return [(f, (torch.rand(3),))]
"""


def test_a_positional_argument_never_lands_in_a_keyword_only_parameter() -> None:
    """`gate(x * 2)` of `def gate(*args, record=False, ...)`: the tensor goes to `*args`, and `record`, which
    only a keyword can give, keeps its default: `if record:` is no branch on a tensor. Dynamo agrees."""
    assert reported(KEYWORD_ONLY) == []


@pytest.mark.dynamo
def test_dynamo_does_not_break_on_the_keyword_only_flag(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, KEYWORD_ONLY, "keyword_only.py") == []


NUMPY_OF_PARAMETERS = """
import functools
import operator

import numpy as np
import torch


def any_missing(row_mask, col_mask):
    need = np.any(~row_mask) or np.any(~col_mask)
    return need


def rounded_up(h, w):
    return int(np.ceil(h / w)) * w


@torch.compile
def keep(x):
    m = x.numpy() > 0
    return x * 2, any_missing(m, m), rounded_up(x.shape[0], 3)


@torch.compile
def symmetric(x):
    a = x.numpy()
    same = np.allclose(a, a.T, atol=1e-6)
    if same:
        return x * 2
    return x + float(np.allclose(1.0, 1.0))


@torch.compile
def summed(x):
    p = functools.reduce(operator.add, [x.numpy(), x.numpy()])
    if np.any(p > 0):
        return x + 1
    return x - 1


def cases():
    return [(keep, (torch.randn(4),)), (symmetric, (torch.randn(3, 3),)), (summed, (torch.randn(4),))]
"""


def test_numpy_of_a_parameter_is_what_the_callers_hand_it() -> None:
    """`np.any(~row_mask)` of a parameter: an array where the callers pass one (`x.numpy() > 0`), whose truth
    `or` takes; `np.ceil(h / w)` of sizes is a number dynamo folds. `np.allclose` reads a Python bool where
    it is made (BL103), of arrays or of Python numbers alike, and the `if` on that bool is no branch on a
    tensor. `np.any` of what the tree knows nothing of (`functools.reduce`'s result) makes an array, as a
    NumPy function that takes arrays does of anything but a Python number. Dynamo agrees."""
    assert _breaks(NUMPY_OF_PARAMETERS) == [
        ("need = np.any(~row_mask) or np.any(~col_mask)", "BL202"),
        ("same = np.allclose(a, a.T, atol=1e-6)", "BL103"),
        ("return x + float(np.allclose(1.0, 1.0))", "BL103"),
        ("if np.any(p > 0):", "BL201")]


def _breaks(source: str) -> list[tuple[str, str]]:
    """`reported`, less the host copies (`x.numpy()`, BL501), which are hazards."""
    return [(line, code) for line, code in reported(source) if code != "BL501"]


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_numpy_truth_and_the_allclose(tmp_path: Path) -> None:
    assert dynamo_lines(tmp_path, NUMPY_OF_PARAMETERS, "numpy_params.py") == sorted(
        line for line, _ in _breaks(NUMPY_OF_PARAMETERS))


COMPILED_CALLER = """
import torch

from pkg._bisect import bisect_left
from pkg.plain import bisect_right


@torch.compile
def bucket(x, edges: list):
    i = bisect_left(edges, 0.5)
    j = bisect_right(edges, 0.5)
    return x * i + j


def cases():
    return [(bucket, (torch.ones(3), [0.1, 0.4, 0.9]))]
"""
PLAIN_MODULE = """
def bisect_right(a, x):
    return sum(1 for v in a if v <= x)
"""


def _compiled_findings(package: Path) -> list[tuple[str, str]]:
    config = Config(root=package.parent)
    lines = (package / "caller.py").read_text(encoding="utf-8").splitlines()
    return [(lines[f.line - 1].strip(), f.code) for f in lint([package], config, use_cache=False).findings]


def test_a_function_of_a_compiled_module_beside_the_code_breaks(tmp_path: Path) -> None:
    """`from pkg._bisect import bisect_left` where the package holds `_bisect.pyx` (or a built `.so`) and no
    `_bisect.py`: a compiled extension, which dynamo cannot trace (BL411); `plain.py`'s function beside
    it is Python, and traced. A `.pyx` with a `.py` of the same name is no extension of the code's."""
    package = write_package(tmp_path, {"caller.py": COMPILED_CALLER, "plain.py": PLAIN_MODULE})
    (package / "_bisect.pyx").write_text("def bisect_left(a, x):\n    return 0\n", encoding="utf-8")
    (package / "plain.pyx").write_text("", encoding="utf-8")
    assert _compiled_findings(package) == [("i = bisect_left(edges, 0.5)", "BL411")]
    (package / "_bisect.pyx").unlink()
    assert _compiled_findings(package) == []


@pytest.mark.dynamo
def test_dynamo_breaks_on_the_compiled_module_function(tmp_path: Path) -> None:
    """The same package with a real compiled module beside the code: Python's own `_bisect` extension,
    copied in (its init function is found by the file's name)."""
    import _bisect
    import shutil
    import sys

    built = getattr(_bisect, "__file__", None)
    if built is None:  # an interpreter that builds `_bisect` in has no file to copy
        pytest.skip("this Python has no shared `_bisect` extension to copy")
    package = write_package(tmp_path, {"caller.py": COMPILED_CALLER, "plain.py": PLAIN_MODULE})
    shutil.copy(built, package / Path(built).name)
    sys.path.insert(0, str(tmp_path))
    try:
        from breaklint.dynamic.calibrate import calibrate

        lines = (package / "caller.py").read_text(encoding="utf-8").splitlines()
        broke = sorted(lines[n - 1].strip() for n in calibrate(package / "caller.py").sites)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[name]
    assert broke == [line for line, _ in _compiled_findings(package)] == ["i = bisect_left(edges, 0.5)"]


def test_an_optimizer_of_the_project_built_in_compiled_code_breaks_whichever_file_defines_it(tmp_path: Path) -> None:
    """`Lion([w])` in compiled code, of a class another file derives from `torch.optim.Optimizer` (through a base of
    its own): torch's optimizer constructor runs, and breaks (BL451, at the call); built outside, or a class that
    derives from nothing of torch's, nothing is reported."""
    package = write_package(tmp_path, {
        "optim.py": """
            import torch

            class Base(torch.optim.Optimizer):
                pass

            class Lion(Base):
                def __init__(self, params, lr=1e-4):
                    super().__init__(params, {"lr": lr})

            class Tracker:
                def __init__(self, params):
                    self.params = list(params)
        """,
        "caller.py": """
            import torch
            from .optim import Lion, Tracker

            @torch.compile
            def fit(x, w):
                opt = Lion([w])
                tracker = Tracker([w])
                return x * w, opt, tracker

            def setup(w):
                return Lion([w])
        """})
    lines = (package / "caller.py").read_text(encoding="utf-8").splitlines()
    found = lint([package], Config(root=package.parent), use_cache=False).findings
    assert [(lines[f.line - 1].strip(), f.code) for f in found if f.path.name == "caller.py"] == [
        ("opt = Lion([w])", "BL451")]


def test_the_optimizer_names_are_torch_optims_classes_and_not_its_schedules() -> None:
    pytest.importorskip("torch")
    import inspect

    import torch.optim
    from breaklint.analysis.optimizer_classes import torch_optimizer

    def names(module: object) -> set[str]:
        return {f"{module.__name__}.{n}" for n in dir(module) if inspect.isclass(getattr(module, n))
                and getattr(module, n).__module__.startswith("torch.optim")}

    assert all(torch_optimizer(name) for name in names(torch.optim))
    assert not any(torch_optimizer(name) for name in names(torch.optim.lr_scheduler) | names(torch.optim.swa_utils))
