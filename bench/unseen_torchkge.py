"""TorchKGE, a library the analysis was never shown (in neither half of the harness, not reserved):
knowledge-graph embedding models (TransE, TransH, TransR, TransD, TorusE, RESCAL, DistMult, HolE,
ComplEx, ANALOGY, ConvKB) on a batch of true and corrupted triples, one training step of each with
its margin, logistic or binary cross-entropy loss, the negative samplers (uniform, Bernoulli,
positional) on a small graph, and the scoring of every candidate entity at evaluation, under dynamo
against the static pass on the same tree.

Run it where torch and torchkge are installed together (here: `pip install torch==2.14.1
torchkge==0.17.7`), from the repository root:

    python bench/unseen_torchkge.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torchkge.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import pandas as pd
import torch
import torchkge
from torchkge import models as M
from torchkge.sampling import BernoulliNegativeSampler, PositionalNegativeSampler, UniformNegativeSampler
from torchkge.utils.losses import BinaryCrossEntropyLoss, LogisticLoss, MarginLoss

warnings.filterwarnings("ignore")
ROOT = Path(torchkge.__file__).resolve().parent
ENTRY_POINTS = [f"torchkge.sampling.{cls}.corrupt_batch" for cls in (
    "UniformNegativeSampler", "BernoulliNegativeSampler", "PositionalNegativeSampler")] + [
    "torchkge.models.interfaces.Model.inference_scoring_function",
    "torchkge.models.interfaces.TranslationModel.inference_scoring_function",
    "torchkge.models.interfaces.BilinearModel.inference_scoring_function",
    "torchkge.models.interfaces.Model.inference_prepare_candidates",
]
ENTITIES, RELATIONS = 30, 5


def _graph():
    g = torch.Generator().manual_seed(0)
    heads = torch.randint(0, ENTITIES, (120,), generator=g)
    tails = torch.randint(0, ENTITIES, (120,), generator=g)
    rels = torch.randint(0, RELATIONS, (120,), generator=g)
    frame = pd.DataFrame({"from": [f"e{i}" for i in heads.tolist()], "to": [f"e{i}" for i in tails.tolist()],
                          "rel": [f"r{i}" for i in rels.tolist()]})
    return torchkge.KnowledgeGraph(df=frame)


def _step(model, loss):
    def step(h, t, r, nh, nt):
        model.train()
        pos, neg = model(h, t, r, nh, nt)
        value = loss(pos, neg)
        value.backward()
        return value
    return step


def cases():
    torch.manual_seed(0)
    kg = _graph()
    n_ent, n_rel = kg.n_ent, kg.n_rel
    models = [
        ("TransE", M.TransEModel(16, n_ent, n_rel)), ("TransH", M.TransHModel(16, n_ent, n_rel)),
        ("TransR", M.TransRModel(16, 8, n_ent, n_rel)), ("TransD", M.TransDModel(16, 8, n_ent, n_rel)),
        ("TorusE", M.TorusEModel(16, n_ent, n_rel, "torus_L2")), ("RESCAL", M.RESCALModel(16, n_ent, n_rel)),
        ("DistMult", M.DistMultModel(16, n_ent, n_rel)), ("HolE", M.HolEModel(16, n_ent, n_rel)),
        ("ComplEx", M.ComplExModel(16, n_ent, n_rel)), ("ANALOGY", M.AnalogyModel(16, n_ent, n_rel)),
        ("ConvKB", M.ConvKBModel(16, 4, n_ent, n_rel)),
    ]
    h, t, r = kg.head_idx[:16], kg.tail_idx[:16], kg.relations[:16]
    nh, nt = torch.randint(0, n_ent, (16,)), torch.randint(0, n_ent, (16,))
    out = []
    for (name, model), loss in zip(models, [MarginLoss(1.0), LogisticLoss(), BinaryCrossEntropyLoss()] * 4):
        model.eval()
        out.append((name, model, (h, t, r, nh, nt)))
        out.append((f"{name}@train", _step(model, loss), (h, t, r, nh, nt)))
        out.append((f"{name}.candidates", lambda hh, tt, rr, m=model: m.inference_scoring_function(
            *m.inference_prepare_candidates(hh, tt, rr, entities=True)), (h, t, r)))
    for name, sampler in (("Uniform", UniformNegativeSampler(kg)), ("Bernoulli", BernoulliNegativeSampler(kg)),
                          ("Positional", PositionalNegativeSampler(kg))):
        out.append((f"{name}Sampler", sampler.corrupt_batch, (h, t, r)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torchkge {torchkge.__version__}")
