"""GluonTS's torch models, a library the analysis was never shown (in neither half of the harness, not
reserved): forecasting models (DeepAR, the simple feed-forward network, DLinear, PatchTST) on a batch
of series with their observed-value masks, each forward (sampling the forecast) and each training
loss (the distribution's negative log-likelihood, scaled and masked), and the distribution outputs
on their own (Student's t, normal, negative binomial, ISQF, piecewise linear, quantiles, implicit
quantile networks), under dynamo against the static pass on the same tree.

Run it where torch and gluonts are installed together (here: `pip install torch==2.14.1
gluonts==0.17.0`, then `pip install --no-deps lightning`, which its models import), from the
repository root:

    python bench/unseen_gluonts.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_gluonts.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import gluonts
import torch
from gluonts.torch import distributions as D
from gluonts.torch.model.d_linear.module import DLinearModel
from gluonts.torch.model.deepar.module import DeepARModel
from gluonts.torch.model.patch_tst.module import PatchTSTModel
from gluonts.torch.model.simple_feedforward.module import SimpleFeedForwardModel

warnings.filterwarnings("ignore")
ROOT = Path(gluonts.__file__).resolve().parent / "torch"
ENTRY_POINTS = [f"gluonts.torch.model.{module}.module.{cls}.loss" for module, cls in (
    ("deepar", "DeepARModel"), ("simple_feedforward", "SimpleFeedForwardModel"), ("d_linear", "DLinearModel"),
    ("patch_tst", "PatchTSTModel"))] + ["gluonts.torch.distributions.distribution_output.DistributionOutput.loss"]
CONTEXT, HORIZON = 24, 12


def _inputs(model, batch=4):
    """A batch for the model's forward and loss: random values in place of the zeros it describes, all
    observed but a few past steps."""
    out = {}
    for name, value in model.describe_inputs(batch_size=batch).zeros().items():
        if value.dtype == torch.long:
            value = torch.zeros_like(value)
        elif "observed" in name:
            value = torch.ones_like(value)
            if value.dim() >= 2:
                value[:, :2] = 0
        else:
            value = torch.rand_like(value) + 0.5
        out[name] = value
    return out


def _future(model, batch=4):
    target = torch.rand(batch, HORIZON) + 0.5
    return {"future_target": target, "future_observed_values": torch.ones_like(target)}


def cases():
    torch.manual_seed(0)
    models = [
        ("DeepAR", DeepARModel(freq="H", context_length=CONTEXT, prediction_length=HORIZON, num_feat_dynamic_real=1,
                               num_feat_static_real=1, num_feat_static_cat=1, cardinality=[3], num_parallel_samples=4)),
        ("SimpleFeedForward", SimpleFeedForwardModel(prediction_length=HORIZON, context_length=CONTEXT)),
        ("DLinear", DLinearModel(prediction_length=HORIZON, context_length=CONTEXT, hidden_dimension=16)),
        ("PatchTST", PatchTSTModel(prediction_length=HORIZON, context_length=CONTEXT, patch_len=4, stride=4,
                                   padding_patch="end", d_model=16, nhead=2, dim_feedforward=32,
                                   num_feat_dynamic_real=0, dropout=0.1, activation="relu", norm_first=False,
                                   num_encoder_layers=1, scaling="mean")),
    ]
    out = []
    for name, model in models:
        model.eval()
        batch = _inputs(model)
        out.append((name, lambda kw, m=model: m(**kw), (batch,)))
        future = _future(model)
        if name == "DeepAR":
            future["future_feat_dynamic_real"] = torch.rand(4, HORIZON, 1)

        def train(kw, fut, m=model):
            m.train()
            loss = m.loss(**kw, **fut).mean()
            loss.backward()
            return loss
        out.append((f"{name}@train", train, (batch, future)))
    target = torch.rand(8, 5) + 0.5
    for name, output in (("StudentT", D.StudentTOutput()), ("Normal", D.NormalOutput()),
                         ("NegativeBinomial", D.NegativeBinomialOutput()),
                         ("PiecewiseLinear", D.PiecewiseLinearOutput(num_pieces=4)),
                         ("ISQF", D.ISQFOutput(num_pieces=3, qk_x=[0.1, 0.5, 0.9])),
                         ("Quantile", D.QuantileOutput(quantiles=[0.1, 0.5, 0.9]))):
        proj = output.get_args_proj(16)

        def nll(h, y, o=output, p=proj):
            args = p(h)
            return o.loss(y, args).mean()
        out.append((name, nll, (torch.randn(8, 5, 16), target.round() if name == "NegativeBinomial" else target)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"gluonts {gluonts.__version__}")
