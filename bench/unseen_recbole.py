"""RecBole, a recommendation library the analysis was never shown (in neither half of the harness, not
reserved): its general recommenders (matrix factorization, neural CF, autoencoders, graph models, diffusion)
and sequential recommenders (RNN, CNN, attention and graph models of item sequences), each built on a small
interaction file written here, compiled where a user compiles them: the training loss on a training batch
(`calculate_loss`, in training mode) and the scores a recommender ranks with (`predict` of the training
batch's pairs and `full_sort_predict` of a test batch's users, in evaluation mode).

Run it where torch and RecBole are installed together (here: `pip install torch==2.14.1 colorlog texttable
thop`, then `pip install --no-deps recbole==1.2.1`), from the repository root:

    python bench/unseen_recbole.py [--src OTHER_TREE/src] [--sites FILE]

RecBole 1.2.1 still names NumPy 1's aliases (`np.float_`, ...), which NumPy 2 removed: the script puts them back
before importing it. `unseen.measure` runs the cases under dynamo and prints which of the statements dynamo
broke on the static pass reports; with `--sites FILE` its answers are kept there. Results:
bench/results/unseen_recbole.txt.
"""

import logging
import random
import tempfile
import warnings
from pathlib import Path

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import numpy as np
import torch

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
for alias, kept in (("float_", np.float64), ("complex_", np.complex128), ("unicode_", np.str_), ("Inf", np.inf)):
    if not hasattr(np, alias):
        setattr(np, alias, kept)

GENERAL = ["BPR", "NeuMF", "DMF", "NNCF", "FISM", "NAIS", "ConvNCF", "ENMF", "MultiVAE", "MultiDAE", "MacridVAE",
           "CDAE", "RecVAE", "RaCT", "SimpleX", "NGCF", "DGCF", "GCMC", "LINE", "SpectralCF", "DiffRec", "LDiffRec"]
SEQUENTIAL = ["GRU4Rec", "NARM", "STAMP", "Caser", "NextItNet", "TransRec", "SASRec", "BERT4Rec", "SRGNN", "GCSAN",
              "SHAN", "RepeatNet", "HGN", "HRM", "NPE", "FPMC", "LightSANs", "CORE", "SINE", "FEARec"]


def _interactions(folder: Path) -> None:
    """A small interaction file: 40 users, 12 interactions each among 60 items, in time order."""
    random.seed(0)
    (folder / "mini").mkdir(parents=True, exist_ok=True)
    rows = ["user_id:token\titem_id:token\trating:float\ttimestamp:float"]
    for user in range(40):
        for step in range(12):
            rows.append(f"{user}\t{random.randrange(60)}\t{random.randint(1, 5)}\t{user * 12 + step}")
    (folder / "mini" / "mini.inter").write_text("\n".join(rows) + "\n")


def _cases():
    from recbole.config import Config
    from recbole.data import create_dataset, data_preparation
    from recbole.utils import get_model, init_seed
    folder = Path(tempfile.mkdtemp())
    _interactions(folder)
    out = []
    for name in GENERAL + SEQUENTIAL:
        settings = {"data_path": str(folder), "epochs": 1, "train_batch_size": 16, "eval_batch_size": 16,
                    "show_progress": False, "state": "CRITICAL", "device": "cpu", "use_gpu": False,
                    "MAX_ITEM_LIST_LENGTH": 8, "save_dataset": False, "save_dataloaders": False,
                    "checkpoint_dir": str(folder / "saved"), "log_wandb": False,
                    "load_col": {"inter": ["user_id", "item_id", "rating", "timestamp"]}}
        if name in SEQUENTIAL:
            settings["train_neg_sample_args"] = None
        try:
            config = Config(model=name, dataset="mini", config_dict=settings)
            init_seed(0, True)
            train, _, test = data_preparation(config, create_dataset(config))
            model = get_model(name)(config, train.dataset)
            batch = next(iter(train))
            scored = next(iter(test))[0]
        except Exception as e:  # a model this small file or these releases cannot build
            print(f"left out: {name} {type(e).__name__} {str(e)[:80]}")
            continue

        def loss(b, model=model):
            model.train()
            return model.calculate_loss(b)

        def predict(b, model=model):
            model.eval()
            return model.predict(b)

        def ranked(b, model=model):
            model.eval()
            return model.full_sort_predict(b)
        out += [(f"{name}.calculate_loss", loss, (batch,)), (f"{name}.predict", predict, (batch,)),
                (f"{name}.full_sort_predict", ranked, (scored,))]
    return out


ENTRIES = [f"recbole.model.*.{method}" for method in ("calculate_loss", "predict", "full_sort_predict")]
LIBRARIES = {"recbole": (_cases, ENTRIES)}

if __name__ == "__main__":
    measure_each(LIBRARIES)
