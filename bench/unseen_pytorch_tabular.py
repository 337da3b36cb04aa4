"""PyTorch Tabular, a library the analysis was never shown (in neither half of the harness, not
reserved): its tabular models (category embedding MLP, GANDALF, GATE, NODE, FT-Transformer,
TabTransformer, AutoInt, DANet and the mixture density network over two backbones), each built by the
library from a small data frame of two continuous and two categorical columns, their forward passes in
training and evaluation mode (as `torch.compile(model)` compiles a Lightning module), `predict`, and the
mixture density network's point predictions and samples, under dynamo against the static pass on the
same tree. Its TabNet model wraps another library's network and is left out.

Run it where torch and PyTorch Tabular are installed together (here: `pip install torch==2.14.1
"pytorch-lightning<2.7" omegaconf scikit-learn scikit-base rich "einops<0.9" pandas`, then `pip install
--no-deps pytorch-tabular==1.2.0`), from the repository root:

    python bench/unseen_pytorch_tabular.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_pytorch_tabular.txt.
"""

import contextlib
import logging
import tempfile
import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import numpy as np
import pandas as pd
import torch

import pytorch_tabular  # noqa: E402
import pytorch_tabular.models as models  # noqa: E402
from pytorch_tabular import TabularModel  # noqa: E402
from pytorch_tabular.config import DataConfig, OptimizerConfig, TrainerConfig  # noqa: E402

warnings.filterwarnings("ignore")
logging.getLogger("pytorch_tabular").setLevel(logging.WARNING)  # its own messages only: dynamo's log stays on
ROOT = Path(pytorch_tabular.__file__).resolve().parent
ENTRY_POINTS = [
    "pytorch_tabular.models.base_model.BaseModel.forward",
    "pytorch_tabular.models.base_model.BaseModel.predict",
    "pytorch_tabular.models.tab_transformer.tab_transformer.TabTransformerModel.forward",
    "pytorch_tabular.models.mixture_density.mdn.MDNModel.forward",
    "pytorch_tabular.models.mixture_density.mdn.MDNModel.predict",
    "pytorch_tabular.models.mixture_density.mdn.MDNModel.sample",
]


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 64
    return pd.DataFrame({"a": rng.standard_normal(n), "b": rng.standard_normal(n),
                         "c": rng.integers(0, 3, n).astype(str), "d": rng.integers(0, 4, n).astype(str),
                         "y": rng.standard_normal(n), "k": rng.integers(0, 2, n)})


def _build(config, frame):
    """The model and one batch of 8 rows, as `TabularModel.fit` prepares them before training."""
    data = DataConfig(target=["y" if config.task == "regression" else "k"], continuous_cols=["a", "b"],
                      categorical_cols=["c", "d"])
    trainer = TrainerConfig(max_epochs=1, accelerator="cpu", batch_size=8, progress_bar="none")
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch):  # (it keeps a file of runs there)
        tabular = TabularModel(data_config=data, model_config=config, optimizer_config=OptimizerConfig(),
                               trainer_config=trainer, verbose=False, suppress_lightning_logger=True)
    datamodule = tabular.prepare_dataloader(train=frame, validation=frame)
    model = tabular.prepare_model(datamodule)
    return model, next(iter(datamodule.train_dataloader()))


def _configs():
    yield "category_embedding", models.CategoryEmbeddingModelConfig(task="regression")
    yield "category_embedding.classification", models.CategoryEmbeddingModelConfig(task="classification")
    yield "gandalf", models.GANDALFConfig(task="classification")
    yield "gate", models.GatedAdditiveTreeEnsembleConfig(task="regression", num_trees=4)
    yield "node", models.NodeConfig(task="regression", num_layers=1, num_trees=8)
    yield "ft_transformer", models.FTTransformerConfig(task="classification")
    yield "tab_transformer", models.TabTransformerConfig(task="regression")
    yield "autoint", models.AutoIntConfig(task="regression")
    yield "danet", models.DANetConfig(task="regression")
    yield "regression_range", models.CategoryEmbeddingModelConfig(task="regression", target_range=[(-2.0, 2.0)])
    for backbone in ("CategoryEmbeddingModelConfig", "TabTransformerConfig"):
        yield f"mdn.{backbone}", models.MDNConfig(task="regression", backbone_config_class=backbone,
                                                  backbone_config_params={"task": "backbone"},
                                                  head_config={"num_gaussian": 2})


def cases():
    torch.manual_seed(0)
    frame = _frame()
    out = []
    for name, config in _configs():
        model, batch = _build(config, frame)
        x = {k: v for k, v in batch.items() if k != "target"}
        for training in (True, False):
            out.append((f"{name}.forward@{'train' if training else 'eval'}",
                        lambda b, m=model, t=training: m.train(t)(b), (x,)))
        out.append((f"{name}.predict", lambda b, m=model: m.eval().predict(b), (x,)))
        if name.startswith("mdn"):
            out.append((f"{name}.sample", lambda b, m=model: m.eval().sample(b, n_samples=4), (x,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pytorch-tabular {version('pytorch_tabular')}")
