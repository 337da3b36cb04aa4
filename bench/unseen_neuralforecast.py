"""neuralforecast, a library the analysis was never shown (in neither half of the harness, not reserved):
its forecasting models (MLPs, N-BEATS and N-HiTS, the recurrent and convolutional ones, the transformers,
the multivariate mixers), each run forward in eval mode over a batch of windows, and a training step of
each of a few models with each of the library's losses (point, quantile and multi-quantile, Huber and
Tukey, the distribution losses and the mixtures): the model's output, the loss's `domain_map` and
`scale_decouple`, then the loss, as the library's own training step computes it. TimeLLM and xLSTM
need packages that are not installed; HINT wraps another model and is left out.

Run it where torch and neuralforecast are installed together (here: `pip install torch==2.14.1
neuralforecast==3.3.0`), from the repository root:

    python bench/unseen_neuralforecast.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_neuralforecast.txt.
"""

import logging
import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import neuralforecast
import neuralforecast.losses.pytorch as losses
import neuralforecast.models as models
import torch

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
ROOT = Path(neuralforecast.__file__).resolve().parent
MODELS = ["RNN", "GRU", "LSTM", "TCN", "DeepAR", "DilatedRNN", "MLP", "NHITS", "NBEATS", "NBEATSx", "DLinear",
          "NLinear", "TFT", "VanillaTransformer", "Informer", "Autoformer", "PatchTST", "FEDformer", "StemGNN",
          "TimesNet", "TSMixer", "TSMixerx", "MLPMultivariate", "iTransformer", "BiTCN", "TiDE", "DeepNPTS", "SOFTS",
          "SOFTSSharp", "TimeMixer", "KAN", "RMoK", "XLinear"]
LOSSES = {"MAE": {}, "MSE": {}, "RMSE": {}, "MAPE": {}, "SMAPE": {}, "MASE": {"seasonality": 2},
          "QuantileLoss": {"q": 0.3}, "MQLoss": {}, "IQLoss": {}, "HuberLoss": {}, "TukeyLoss": {},
          "HuberQLoss": {"q": 0.3}, "HuberMQLoss": {}, "DistributionLoss": {"distribution": "Normal"},
          "DistributionLoss.StudentT": {"distribution": "StudentT"},
          "DistributionLoss.Poisson": {"distribution": "Poisson"},
          "DistributionLoss.NegativeBinomial": {"distribution": "NegativeBinomial"},
          "DistributionLoss.Tweedie": {"distribution": "Tweedie"}, "DistributionLoss.ISQF": {"distribution": "ISQF"},
          "PMM": {}, "GMM": {}, "NBMM": {}}
TRAINED = ["MLP", "NHITS", "LSTM", "TSMixer"]
ENTRY_POINTS = [f"neuralforecast.models.{name}" for name in MODELS] + [
    f"neuralforecast.losses.pytorch.{name.split('.')[0]}.{method}" for name in LOSSES
    for method in ("__call__", "domain_map", "scale_decouple")]
BATCH, HORIZON, WINDOW, SERIES = 4, 6, 12, 3


def _windows(model) -> dict:
    series = SERIES if getattr(model, "MULTIVARIATE", False) else 1
    return {"insample_y": torch.rand(BATCH, WINDOW, series) + 0.5, "insample_mask": torch.ones(BATCH, WINDOW, series),
            "futr_exog": None, "hist_exog": None, "stat_exog": None}


def _step(model, windows, y, mask):
    """The loss of one batch as the library's training step computes it (without the scaler)."""
    output = model.loss.domain_map(model(windows))
    if model.loss.is_distribution_output:
        distr_args = model.loss.scale_decouple(output=output, loc=None, scale=None)
        return model.loss(y=y, distr_args=distr_args, mask=mask)
    return model.loss(y=y, y_hat=output, y_insample=windows["insample_y"], mask=mask)


def _build(name, **kw):
    cls = getattr(models, name)
    kw = {"h": HORIZON, "input_size": WINDOW, "max_steps": 1, **kw}
    if getattr(cls, "MULTIVARIATE", False):
        kw["n_series"] = SERIES
    return cls(**kw)


def cases():
    torch.manual_seed(0)
    out = []
    for name in MODELS:
        model = _build(name).eval()
        out.append((name, model, (_windows(model),)))
    for name in TRAINED:
        for loss_name, kw in LOSSES.items():
            try:
                model = _build(name, loss=getattr(losses, loss_name.split(".")[0])(**kw)).train()
            except Exception as e:  # a pairing the library refuses says nothing of breaks
                print(f"{name} with {loss_name}: not built ({type(e).__name__})")
                continue
            windows = _windows(model)
            y = torch.rand(BATCH, HORIZON, windows["insample_y"].shape[-1]) + 0.5
            out.append((f"{name}.{loss_name}@train", lambda w, t, m, model=model: _step(model, w, t, m),
                        (windows, y, torch.ones_like(y))))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"neuralforecast {neuralforecast.__version__}")
