"""PyKEEN, a library the analysis was never shown (in neither half of the harness, not reserved):
knowledge-graph embedding models scoring triples (translational, bilinear, complex, rotational,
convolutional, tensor-factorisation, box and message-passing ones), their training losses on
scores of positives and sampled negatives (pairwise, pointwise, setwise, self-adversarial, with
label smoothing and filters), the negative samplers, one step of each training loop (sLCWA and
LCWA), and the rank-based evaluation of a batch (positive filters, ranks from scores), under dynamo
against the static pass on the same tree. Its bundled Nations dataset gives the triples.

Run it where torch and pykeen are installed together (here: `pip install torch==2.14.1
pykeen==1.11.1`), from the repository root:

    python bench/unseen_pykeen.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_pykeen.txt.
"""

import logging
import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import pykeen
import torch
from pykeen import losses, models
from pykeen.datasets import Nations
from pykeen.evaluation import RankBasedEvaluator
from pykeen.evaluation.evaluator import _evaluate_batch, create_sparse_positive_filter_, filter_scores_
from pykeen.evaluation.ranks import Ranks
from pykeen.sampling import BasicNegativeSampler, BernoulliNegativeSampler, PseudoTypedNegativeSampler
from pykeen.training import LCWATrainingLoop, SLCWATrainingLoop

warnings.filterwarnings("ignore")
logging.getLogger("pykeen").setLevel(logging.ERROR)
ROOT = Path(pykeen.__file__).resolve().parent
ENTRY_POINTS = [
    "pykeen.models.base.Model.score_hrt", "pykeen.models.base.Model.score_t", "pykeen.models.base.Model.score_h",
    "pykeen.sampling.negative_sampler.NegativeSampler.sample",
    "pykeen.training.slcwa.SLCWATrainingLoop._process_batch",
    "pykeen.training.lcwa.LCWATrainingLoop._process_batch",
    "pykeen.evaluation.evaluator._evaluate_batch", "pykeen.evaluation.evaluator.create_sparse_positive_filter_",
    "pykeen.evaluation.evaluator.filter_scores_", "pykeen.evaluation.ranks.Ranks.from_scores",
] + [f"pykeen.losses.{name}.{method}" for name in (
    "MarginRankingLoss", "SoftplusLoss", "BCEWithLogitsLoss", "NSSALoss", "CrossEntropyLoss", "InfoNCELoss",
    "FocalLoss", "DoubleMarginLoss", "PointwiseHingeLoss", "MSELoss", "BCEAfterSigmoidLoss", "SoftMarginRankingLoss",
    "PairwiseLogisticLoss", "AdversarialBCEWithLogitsLoss") for method in ("process_slcwa_scores",
                                                                          "process_lcwa_scores")]


def cases():
    torch.manual_seed(0)
    tf = Nations().training
    triples = tf.mapped_triples[:16]
    out = []
    built = [("TransE", models.TransE, {}), ("DistMult", models.DistMult, {}), ("ComplEx", models.ComplEx, {}),
             ("RotatE", models.RotatE, {}), ("TuckER", models.TuckER, {}), ("MuRE", models.MuRE, {}),
             ("BoxE", models.BoxE, {}), ("PairRE", models.PairRE, {}), ("QuatE", models.QuatE, {}),
             ("ERMLP", models.ERMLP, {}), ("ProjE", models.ProjE, {}), ("TransH", models.TransH, {}),
             ("TransR", models.TransR, {"relation_dim": 8}), ("ConvE", models.ConvE, {"embedding_height": 2,
                                                                                       "embedding_width": 4}),
             ("RGCN", models.RGCN, {"num_layers": 1})]
    for name, cls, extra in built:
        try:
            model = cls(triples_factory=tf, embedding_dim=8, random_seed=0, **extra)
        except Exception as e:  # a model this build cannot make says nothing either way
            print(f"{name}: not built ({type(e).__name__})")
            continue
        out.append((f"{name}.score_hrt", model.score_hrt, (triples,)))
        out.append((f"{name}.score_t", model.score_t, (triples[:, :2],)))
    pos, neg = torch.randn(16, 1), torch.randn(16, 4)
    scores, labels = torch.randn(16, tf.num_entities), (torch.rand(16, tf.num_entities) > 0.8).float()
    for name in ("MarginRankingLoss", "SoftplusLoss", "BCEWithLogitsLoss", "NSSALoss", "CrossEntropyLoss",
                 "InfoNCELoss", "FocalLoss", "DoubleMarginLoss", "PointwiseHingeLoss", "MSELoss",
                 "BCEAfterSigmoidLoss", "SoftMarginRankingLoss", "PairwiseLogisticLoss",
                 "AdversarialBCEWithLogitsLoss"):
        loss = getattr(losses, name)()
        smoothing = 0.1 if name in ("SoftplusLoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "InfoNCELoss", "FocalLoss",
                                    "PointwiseHingeLoss", "MSELoss", "BCEAfterSigmoidLoss") else None
        out.append((f"{name}.slcwa", lambda p, n, loss=loss, ls=smoothing: loss.process_slcwa_scores(
            p, n, label_smoothing=ls, num_entities=tf.num_entities), (pos, neg)))
        # a sampler's filter drops negatives: the scores left, and the mask of which were kept
        kept = torch.rand(16, 4) > 0.3
        out.append((f"{name}.slcwa.filter", lambda p, n, f, loss=loss: loss.process_slcwa_scores(
            p, n, batch_filter=f, num_entities=tf.num_entities), (pos, neg[kept], kept)))
        out.append((f"{name}.lcwa", lambda s, y, loss=loss, ls=smoothing: loss.process_lcwa_scores(
            s, y, label_smoothing=ls, num_entities=tf.num_entities), (scores, labels)))
    for name, cls, extra in [("Basic", BasicNegativeSampler, {}), ("Basic.filtered", BasicNegativeSampler,
                                                                   {"filtered": True}),
                             ("Bernoulli", BernoulliNegativeSampler, {}),
                             ("PseudoTyped", PseudoTypedNegativeSampler, {})]:
        sampler = cls(mapped_triples=tf.mapped_triples, num_negs_per_pos=2, **extra)
        out.append((f"{name}NegativeSampler.sample", sampler.sample, (triples,)))
    model = models.TransE(triples_factory=tf, embedding_dim=8, random_seed=0)
    slcwa = SLCWATrainingLoop(model=model, triples_factory=tf, negative_sampler="basic",
                              negative_sampler_kwargs={"filtered": True})
    batch = slcwa._create_training_data_loader(tf, batch_size=8, drop_last=False, sampler=None)
    first = next(iter(batch))
    out.append(("SLCWATrainingLoop._process_batch", lambda b: slcwa._process_batch(b, 0, 8), (first,)))
    lcwa = LCWATrainingLoop(model=model, triples_factory=tf)
    batch = next(iter(lcwa._create_training_data_loader(tf, batch_size=8, drop_last=False, sampler=None)))
    out.append(("LCWATrainingLoop._process_batch", lambda b: lcwa._process_batch(b, 0, 8), (batch,)))
    evaluator = RankBasedEvaluator()
    all_pos = tf.mapped_triples
    out += [
        ("_evaluate_batch.tail", lambda b: _evaluate_batch(b, model, "tail", evaluator, None, all_pos, None, None,
                                                           mode=None), (triples,)),
        ("create_sparse_positive_filter_", lambda b: create_sparse_positive_filter_(b, all_pos, filter_col=2),
         (triples,)),
        ("filter_scores_", filter_scores_, (torch.randn(16, tf.num_entities), torch.randint(0, 14, (20, 2)))),
        ("Ranks.from_scores", lambda t, s: Ranks.from_scores(t, s).items(),
         (torch.randn(16, 1), torch.randn(16, tf.num_entities))),
    ]
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pykeen {pykeen.get_version()}")
