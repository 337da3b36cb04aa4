"""PyTorch Frame, a library the analysis was never shown (in neither half of the harness, not reserved):
deep learning on tables. Its models (MLP, ResNet, FT-Transformer, TabTransformer, Trompt, ExcelFormer, in
training and evaluation, ExcelFormer with mixup) on a `TensorFrame` of categorical, numerical,
multi-categorical, timestamp and embedding columns with missing values, and its encoders of each column
type (embeddings, linear, bucketed and periodic numerical encoders, stacked and ExcelFormer encoders,
with and without filling missing values), each under dynamo against the static pass on the same tree.
Its TabNet is left out.

Run it where torch and PyTorch Frame are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps pytorch-frame==0.3.0`), from the repository root:

    python bench/unseen_torch_frame.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torch_frame.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import torch_frame
from torch_frame import NAStrategy, stype
from torch_frame.datasets import FakeDataset
from torch_frame.nn import (EmbeddingEncoder, ExcelFormerEncoder, LinearBucketEncoder, LinearEmbeddingEncoder,
                            LinearEncoder, LinearPeriodicEncoder, MultiCategoricalEmbeddingEncoder, StackEncoder,
                            StypeWiseFeatureEncoder, TimestampEncoder)
from torch_frame.nn.models import MLP, ExcelFormer, FTTransformer, ResNet, TabTransformer, Trompt

warnings.filterwarnings("ignore")
ROOT = Path(torch_frame.__file__).resolve().parent
ENTRY_POINTS = [f"torch_frame.nn.models.{m}" for m in ("MLP", "ResNet", "FTTransformer", "TabTransformer", "Trompt",
                                                      "ExcelFormer")] + [
    f"torch_frame.nn.{e}" for e in ("StypeWiseFeatureEncoder", "EmbeddingEncoder", "LinearEncoder", "LinearBucketEncoder",
                                    "LinearPeriodicEncoder", "StackEncoder", "ExcelFormerEncoder",
                                    "MultiCategoricalEmbeddingEncoder", "TimestampEncoder", "LinearEmbeddingEncoder")]


def _encoders(numerical):
    return {stype.categorical: EmbeddingEncoder(na_strategy=NAStrategy.MOST_FREQUENT),
            stype.numerical: numerical,
            stype.multicategorical: MultiCategoricalEmbeddingEncoder(),
            stype.timestamp: TimestampEncoder(na_strategy=NAStrategy.MEDIAN_TIMESTAMP),
            stype.embedding: LinearEmbeddingEncoder()}


def cases():
    torch.manual_seed(0)
    data = FakeDataset(num_rows=24, with_nan=True, stypes=[stype.categorical, stype.numerical, stype.multicategorical,
                                                          stype.timestamp, stype.embedding])
    data.materialize()
    frame, stats = data.tensor_frame, data.col_stats
    names = frame.col_names_dict
    plain = FakeDataset(num_rows=24, with_nan=False, stypes=[stype.categorical, stype.numerical])
    plain.materialize()
    out = []
    for name, numerical in (("linear", LinearEncoder(na_strategy=NAStrategy.MEAN)),
                            ("bucket", LinearBucketEncoder(na_strategy=NAStrategy.MEAN)),
                            ("periodic", LinearPeriodicEncoder(n_bins=4, na_strategy=NAStrategy.ZEROS)),
                            ("stack", StackEncoder(na_strategy=NAStrategy.MEAN))):
        encoder = StypeWiseFeatureEncoder(out_channels=8, col_stats=stats, col_names_dict=names,
                                          stype_encoder_dict=_encoders(numerical))
        out.append((f"encoder_{name}", encoder, (frame,)))
    excel = StypeWiseFeatureEncoder(out_channels=8, col_stats=plain.col_stats, col_names_dict=plain.tensor_frame.col_names_dict,
                                    stype_encoder_dict={stype.numerical: ExcelFormerEncoder(8),
                                                        stype.categorical: EmbeddingEncoder()})
    out.append(("encoder_excelformer", excel, (plain.tensor_frame,)))
    models = [("mlp", lambda d: MLP(channels=8, out_channels=2, num_layers=2, col_stats=d.col_stats,
                                    col_names_dict=d.tensor_frame.col_names_dict)),
              ("resnet", lambda d: ResNet(channels=8, out_channels=2, num_layers=2, col_stats=d.col_stats,
                                          col_names_dict=d.tensor_frame.col_names_dict)),
              ("ft_transformer", lambda d: FTTransformer(channels=8, out_channels=2, num_layers=1, col_stats=d.col_stats,
                                                         col_names_dict=d.tensor_frame.col_names_dict)),
              ("tab_transformer", lambda d: TabTransformer(channels=8, out_channels=2, num_layers=1, num_heads=2,
                                                           encoder_pad_size=2, attn_dropout=0.1, ffn_dropout=0.1,
                                                           col_stats=d.col_stats,
                                                           col_names_dict=d.tensor_frame.col_names_dict)),
              ("trompt", lambda d: Trompt(channels=8, out_channels=2, num_prompts=4, num_layers=2, col_stats=d.col_stats,
                                          col_names_dict=d.tensor_frame.col_names_dict)),
              ("excelformer", lambda d: ExcelFormer(in_channels=8, out_channels=2, num_cols=d.tensor_frame.num_cols,
                                                    num_layers=2, num_heads=2, col_stats=d.col_stats,
                                                    col_names_dict=d.tensor_frame.col_names_dict)),
              ("excelformer_mixup", lambda d: ExcelFormer(in_channels=8, out_channels=2, num_cols=d.tensor_frame.num_cols,
                                                          num_layers=2, num_heads=2, col_stats=d.col_stats,
                                                          col_names_dict=d.tensor_frame.col_names_dict,
                                                          mixup="feature"))]
    numeric = FakeDataset(num_rows=24, with_nan=False, stypes=[stype.numerical])
    numeric.materialize()
    for name, make in models:
        dataset = numeric if name.startswith("excelformer") else plain
        try:
            model = make(dataset)
        except Exception as e:  # noqa: BLE001 - a model that does not take these columns
            print("left out:", name, type(e).__name__, str(e)[:100])
            continue
        out.append((f"{name}_eval", model.eval(), (dataset.tensor_frame,)))
        trained = make(dataset).train()
        out.append((f"{name}_train", trained, (dataset.tensor_frame,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pytorch-frame {version('pytorch-frame')}")
