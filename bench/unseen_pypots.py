"""PyPOTS, a library the analysis was never shown (in neither half of the harness, not reserved): the
neural models of its five tasks (imputation, classification, forecasting, clustering, anomaly
detection) on partly observed time series, each one's network run as its own training loop runs it:
in training mode with its loss (`calc_criterion=True`), in eval mode with its validation metric, and
in eval mode on a batch to predict, each under dynamo against the static pass on the same tree. The
models built on a language model (Time-LLM, GPT4TS, MOMENT) and the non-neural ones (TRMF, BTTF,
LOCF, mean, median, linear interpolation) are left out.

Run it where torch and PyPOTS are installed together (here: `pip install torch==2.14.1 einops pandas
h5py scikit-learn matplotlib seaborn tensorboard requests tqdm pyarrow`, then `pip install --no-deps
pypots==1.5 tsdb pygrinder benchpots ai4ts`), from the repository root:

    python bench/unseen_pypots.py [--src OTHER_TREE/src] [--sites FILE]

Each model is built with small sizes, and the batch its own `fit` (or `predict`) would hand its network
is taken from the first call (the network's forward is swapped for one that raises with its arguments,
then put back). PyPOTS imports transformers for its language-model backbones and a benchmark package
for its datasets, which no case runs; where they are not installed, a module whose names raise when
used stands in for each. Results: bench/results/unseen_pypots.txt.
"""

import inspect
import os
import tempfile
import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable, stand_in  # first: it puts the static pass of `--src` on the path

import numpy as np
import torch

stand_in(["nonlinear_benchmarks", "transformers", "transformers.models", "transformers.models.gpt2",
          "transformers.models.gpt2.modeling_gpt2"])
os.environ.setdefault("HOME", tempfile.gettempdir())  # PyPOTS writes a config file under ~/.pypots

import pypots  # noqa: E402
from pypots import anomaly_detection, classification, clustering, forecasting, imputation  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(pypots.__file__).resolve().parent
TASKS = {"imputation": imputation, "classification": classification, "forecasting": forecasting,
         "clustering": clustering, "anomaly_detection": anomaly_detection}
LEFT_OUT = {"TimeLLM", "GPT4TS", "MOMENT", "TRMF", "BTTF", "LOCF", "Mean", "Median", "Lerp"}
STEPS, FEATURES, PRED = 24, 4, 4
# a small value for each argument the models' constructors require (the same name means the same thing
# across the library's models)
SIZES = {
    "n_steps": STEPS, "n_features": FEATURES, "n_pred_steps": PRED, "n_pred_features": FEATURES, "n_layers": 1,
    "d_model": 16, "d_ffn": 16, "n_heads": 2, "d_k": 8, "d_v": 8, "top_k": 2, "patch_size": 4, "patch_stride": 4,
    "n_classes": 2, "dropout": 0.1, "attn_dropout": 0.1, "rnn_hidden_size": 8, "moving_avg_window_size": 5,
    "factor": 1, "n_kernels": 2, "d_hidden": 8, "n_decoder_layers": 1, "n_encoder_layers": 1, "anomaly_rate": 0.1,
    "window_size": [2, 2], "multiscale": [1, 2], "term": "short", "seg_len": 4, "n_levels": 1, "n_stacks": 1,
    "n_groups": 1, "win_size": 2, "bucket_size": 4, "n_hashes": 1, "causal": False, "d_projector_hidden": [8, 8],
    "n_projector_hidden_layers": 2, "inner_size": 3, "n_channels": 8, "d_time_embedding": 8,
    "d_feature_embedding": 4, "d_diffusion_embedding": 8, "conv_kernel": [2, 4], "d_input_embed": 8,
    "d_learnable_embed": 8, "d_proj": 8, "n_temporal_heads": 2, "downsampling_ratio": 2, "ffn_ratio": 1,
    "num_blocks": [1], "large_size": [5], "small_size": [3], "dims": [8], "imputation_weight": 0.3,
    "consistency_weight": 0.1, "classification_weight": 1.0, "removal_percent": 10, "increase_factor": 0.1,
    "step_channels": 8, "d_embedding": 8, "n_clusters": 2, "kernel_size": 3, "latent_size": 4, "n_seg_steps": 4,
    "d_dynamic": 8, "n_hidden_layers": 1, "n_blocks": 1, "d_feature_encode": 4, "d_temporal_decoder_hidden": 8,
    "d_block_hidden": 8, "n_residual_layers": 1, "d_residual_hidden": 8, "n_embeddings": 8, "n_output_dims": 8,
    "n_fod": 2, "cut_freq": 4, "n_generator_layers": 1, "d_mu_stddev": 4, "n_levels_tcn": 1,
}


def _first_call(model, run) -> tuple[tuple, dict]:
    """The arguments `run()` (a model's `fit` or `predict`) first hands the model's network: its forward is
    swapped for one that keeps them and raises (the model's loop may catch that and raise its own error)."""
    net, calls = model.model, []

    def caught(*args, **kwargs):
        calls.append((args, kwargs))
        raise KeyboardInterrupt  # not an Exception: a loop catching those lets it through
    net.forward = caught
    try:
        run()
    except (KeyboardInterrupt, Exception):
        if not calls:
            raise
    finally:
        del net.forward
    if not calls:
        raise RuntimeError("the model's loop never called its network")
    return calls[0]


def _series(n: int, steps: int, rng: np.random.Generator) -> np.ndarray:
    x = rng.standard_normal((n, steps, FEATURES)).astype("float32")
    x[rng.random(x.shape) < 0.1] = np.nan
    return x


def _build(task: str, name: str, cls):
    rng = np.random.default_rng(0)
    params = inspect.signature(cls.__init__).parameters
    kwargs = {p: SIZES[p] for p, v in params.items() if v.default is inspect.Parameter.empty and p in SIZES}
    for p in ("epochs", "batch_size"):
        if p in params:
            kwargs[p] = 1 if p == "epochs" else 8
    model = cls(**kwargs, device="cpu") if "device" in params else cls(**kwargs)
    data = {"X": _series(16, STEPS, rng)}
    if task == "classification":
        data["y"] = rng.integers(0, 2, 16)
    if task == "forecasting":
        data["X_pred"] = rng.standard_normal((16, PRED, FEATURES)).astype("float32")
    if task == "imputation":
        val = {"X": _series(16, STEPS, rng), "X_ori": rng.standard_normal((16, STEPS, FEATURES)).astype("float32")}
    else:
        val = None
    train_args, train_kwargs = _first_call(model, lambda: model.fit(data) if val is None else model.fit(data, val))
    test_args, test_kwargs = _first_call(model, lambda: model.predict({"X": data["X"]}))
    net = model.model
    out = []

    def case(mode: str, args, kwargs, training: bool):
        def run(*a, net=net, kwargs=kwargs, training=training):
            net.train(training)
            return net(*a, **kwargs)
        out.append((f"{task}.{name}@{mode}", run, args))
    case("train", train_args, train_kwargs, True)
    if "calc_criterion" in train_kwargs:
        case("val", train_args, train_kwargs, False)
    case("test", test_args, test_kwargs, False)
    return out


def cases():
    torch.manual_seed(0)
    out = []
    for task, module in TASKS.items():
        for name in module.__all__:
            cls = getattr(module, name)
            if name in LEFT_OUT or not inspect.isclass(cls):
                continue
            try:
                out += _build(task, name, cls)
            except Exception as e:  # noqa: BLE001 - a model these sizes or data do not suit is left out
                print("left out:", f"{task}.{name}", type(e).__name__, str(e)[:100])
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, [], f"pypots {version('pypots')}")
