"""pytorch-forecasting, a library the analysis was never shown (in neither half of the harness, not
reserved): its models (N-BEATS, N-HiTS, DeepAR, the Temporal Fusion Transformer, the recurrent network,
the decoder MLP, TiDE, TimeXer, N-BEATS-KAN), each built from a small synthetic dataset and run forward
in eval mode over a batch, and in training mode with the loss of the batch (`model.loss(prediction, y)`,
as its training step computes it, without the trainer's logging) for its default loss and the library's
others (point, quantile, and the distribution losses for DeepAR); and each point or quantile metric's
own `loss`, `to_prediction` and `to_quantiles` on a prediction of the right shape.

Run it where torch and pytorch-forecasting are installed together (here: `pip install torch==2.14.1
pytorch-forecasting==1.8.0`), from the repository root:

    python bench/unseen_forecasting.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_forecasting.txt.
"""

import logging
import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import numpy as np
import pandas as pd
import pytorch_forecasting
import torch
from pytorch_forecasting import TimeSeriesDataSet
from pytorch_forecasting import metrics
from pytorch_forecasting import models

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
ROOT = Path(pytorch_forecasting.__file__).resolve().parent
MODELS = ["NBeats", "NHiTS", "DeepAR", "TemporalFusionTransformer", "RecurrentNetwork", "DecoderMLP", "TiDEModel",
          "TimeXer", "NBeatsKAN"]
POINT = ["MAE", "RMSE", "SMAPE", "MAPE", "PoissonLoss", "TweedieLoss", "QuantileLoss"]
DISTRIBUTIONS = ["NormalDistributionLoss", "NegativeBinomialDistributionLoss", "LogNormalDistributionLoss"]
ENTRY_POINTS = [f"pytorch_forecasting.models.{name}" for name in MODELS] + [
    f"pytorch_forecasting.metrics.{name}.{method}" for name in POINT + DISTRIBUTIONS
    for method in ("loss", "update", "compute", "to_prediction", "to_quantiles")]
BATCH, ENCODER, HORIZON = 4, 24, 6


def _datasets():
    rng = np.random.default_rng(0)
    series, steps = 4, 60
    frame = pd.DataFrame({"series": np.repeat(np.arange(series), steps).astype(str),
                          "time_idx": np.tile(np.arange(steps), series),
                          "value": rng.random(series * steps).astype("float32") + 1.0,
                          "cov": rng.random(series * steps).astype("float32")})

    def dataset(**kw):
        return TimeSeriesDataSet(frame, time_idx="time_idx", target="value", group_ids=["series"],
                                 max_encoder_length=ENCODER, max_prediction_length=HORIZON, **kw)
    plain = dataset(time_varying_unknown_reals=["value"])
    covariates = dataset(time_varying_unknown_reals=["value"], time_varying_known_reals=["cov"],
                         static_categoricals=["series"])
    return plain, covariates


def _loss(model, x, y):
    """The loss of a batch as the model's training step computes it."""
    return model.loss(model(x)["prediction"], y)


def cases():
    torch.manual_seed(0)
    plain, covariates = _datasets()
    out = []
    for name in MODELS:
        data = plain if name in ("NBeats", "NBeatsKAN") else covariates
        x, y = next(iter(data.to_dataloader(batch_size=BATCH, train=False)))
        losses = ["default"] + (DISTRIBUTIONS if name == "DeepAR" else [] if name.startswith("NBeats") else POINT)
        for loss in losses:
            kw = {} if loss == "default" else {"loss": getattr(metrics, loss)()}
            try:
                model = getattr(models, name).from_dataset(data, **kw)
            except Exception as e:  # a pairing the library refuses says nothing of breaks
                print(f"{name} with {loss}: not built ({type(e).__name__})")
                continue
            if loss == "default":
                out.append((name, model.eval(), (x,)))
                model = getattr(models, name).from_dataset(data, **kw)
            out.append((f"{name}.{loss}@train", lambda x, y, model=model.train(): _loss(model, x, y), (x, y)))
    target = torch.rand(BATCH, HORIZON) + 1.0
    for name in POINT:
        metric = getattr(metrics, name)()
        pred = torch.rand(BATCH, HORIZON, len(metric.quantiles)) + 0.5 if name == "QuantileLoss" \
            else torch.rand(BATCH, HORIZON) + 0.5
        out.append((f"{name}.loss", metric.loss, (pred, target)))
        out.append((f"{name}.to_prediction", metric.to_prediction, (pred,)))
        out.append((f"{name}.to_quantiles", metric.to_quantiles, (pred,)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pytorch-forecasting {pytorch_forecasting.__version__}")
