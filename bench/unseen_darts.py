"""Darts, a forecasting library the analysis was never shown (in neither half of the harness, not reserved):
its neural forecasting models (TFT, N-BEATS, N-HiTS, TCN, TiDE, TSMixer, block RNN, RNN, Transformer,
DLinear, NLinear), some with the probabilistic likelihoods that compute their losses (quantile regression,
Gaussian, Laplace), each fitted eagerly for one epoch on a small series, then compiled where a user compiles
them: the module's forward on the input it predicts from, in training and evaluation mode, and its training
loss on a training batch (forward, then the likelihood's or criterion's loss).

Run it where torch and darts are installed together (here: `pip install torch==2.14.1 darts`), from the
repository root:

    python bench/unseen_darts.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs the cases under dynamo and prints which of the statements dynamo broke on the static
pass reports; with `--sites FILE` its answers are kept there. Results: bench/results/unseen_darts.txt.
"""

import dataclasses
import logging
import warnings

from unseen import measure_each, modes  # first: it puts the static pass of `--src` on the path

import numpy as np
import torch

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)


def _fitted(model, series):
    """Fit `model` for its epoch, keeping its first training batch and the input of its first prediction."""
    kept = {}
    model.fit(series)
    module = model.model
    forward = module.forward

    def recording(x, *args, **kwargs):
        kept.setdefault("input", x)
        return forward(x, *args, **kwargs)
    module.forward = recording
    model.predict(n=6, series=series)
    del module.forward
    kept["input"] = dataclasses.replace(kept["input"], **{  # made under inference mode: copied out of it
        f.name: value.clone() for f in dataclasses.fields(kept["input"])
        if isinstance(value := getattr(kept["input"], f.name), torch.Tensor)})
    step = module.training_step

    def recording_step(batch, *rest):
        kept.setdefault("batch", batch)
        return step(batch, *rest)
    module.training_step = recording_step
    model.fit(series, epochs=2)  # one more epoch, to see a batch
    del module.training_step
    return module, kept


def _cases():
    from darts import TimeSeries
    from darts import models
    from darts.models.forecasting.pl_forecasting_module import ModuleStage
    from darts.utils import likelihood_models as lm
    t = np.arange(60, dtype=np.float32)
    series = TimeSeries.from_values(np.stack([np.sin(t / 5), np.cos(t / 7)], 1).astype(np.float32))
    trainer = {"accelerator": "cpu", "enable_progress_bar": False, "logger": False, "enable_checkpointing": False,
               "enable_model_summary": False}
    out = []
    for name, make, extra in (
            ("TFT", models.TFTModel, dict(add_relative_index=True)),
            ("TFT.gaussian", models.TFTModel, dict(add_relative_index=True, likelihood=lm.GaussianLikelihood())),
            ("NBEATS", models.NBEATSModel, {}), ("NBEATS.interpretable", models.NBEATSModel, dict(generic_architecture=False)),
            ("NHiTS", models.NHiTSModel, {}), ("NHiTS.quantile", models.NHiTSModel, dict(likelihood=lm.QuantileRegression())),
            ("TCN", models.TCNModel, {}), ("TiDE", models.TiDEModel, {}),
            ("TiDE.laplace", models.TiDEModel, dict(likelihood=lm.LaplaceLikelihood())),
            ("TSMixer", models.TSMixerModel, {}), ("BlockRNN", models.BlockRNNModel, dict(model="LSTM")),
            ("Transformer", models.TransformerModel, {}), ("DLinear", models.DLinearModel, {}),
            ("NLinear", models.NLinearModel, dict(normalize=True))):
        model = make(input_chunk_length=12, output_chunk_length=6, n_epochs=1, batch_size=8, random_state=0,
                     pl_trainer_kwargs=trainer, **extra)
        module, kept = _fitted(model, series)
        out += modes(name, module, (kept["input"],))

        def loss(batch, module=module):
            output = module(batch.to_module_input(stage=ModuleStage.TRAIN))
            return module._compute_loss(output, batch.future_target, module.train_criterion, batch.sample_weight)
        out.append((f"{name}.loss", loss, (kept["batch"],)))
    model = models.RNNModel(input_chunk_length=12, output_chunk_length=6, n_epochs=1, batch_size=8, random_state=0,
                            pl_trainer_kwargs=trainer, model="GRU", training_length=18)
    module, kept = _fitted(model, series)
    out += modes("RNN", module, (kept["input"],))
    return out


ENTRIES = ["darts.models.forecasting.pl_forecasting_module.PLForecastingModule._compute_loss"]
LIBRARIES = {"darts": (_cases, ENTRIES)}

if __name__ == "__main__":
    measure_each(LIBRARIES)
