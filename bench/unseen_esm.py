"""ESM (fair-esm), a library the analysis was never shown (in neither half of the harness, not reserved):
its protein language models (ESM-1, ESM-1b, ESM-2, the MSA Transformer), built small with random
weights, each run on a batch of tokens in eval and in training mode, with the representations of a
layer, the attention maps and the contact head asked for or not, under dynamo against the static pass on
the same tree. ESMFold and inverse folding (which need OpenFold and biotite) are left out.

Run it where torch and fair-esm are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps fair-esm==2.0.0`), from the repository root:

    python bench/unseen_esm.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_esm.txt.
"""

import warnings
from argparse import Namespace
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch

import esm  # noqa: E402
from esm.model.esm1 import ProteinBertModel  # noqa: E402
from esm.model.esm2 import ESM2  # noqa: E402
from esm.model.msa_transformer import MSATransformer  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(esm.__file__).resolve().parent
SIZES = {"layers": 2, "embed_dim": 32, "ffn_embed_dim": 64, "attention_heads": 4, "max_positions": 64}


def cases():
    torch.manual_seed(0)
    models = []
    esm1b = esm.data.Alphabet.from_architecture("ESM-1b")
    esm1 = esm.data.Alphabet.from_architecture("ESM-1")
    msa = esm.data.Alphabet.from_architecture("msa_transformer")
    models.append(("esm2", ESM2(num_layers=2, embed_dim=32, attention_heads=4, alphabet=esm1b), esm1b, 2))
    models.append(("esm1b", ProteinBertModel(Namespace(arch="roberta_large", final_bias=True, logit_bias=True,
                                                       emb_layer_norm_before=True, **SIZES), esm1b), esm1b, 2))
    models.append(("esm1", ProteinBertModel(Namespace(arch="protein_bert_base", final_bias=True, **SIZES), esm1),
                   esm1, 2))
    models.append(("msa_transformer", MSATransformer(Namespace(dropout=0.1, attention_dropout=0.1,
                                                                activation_dropout=0.1, max_tokens_per_msa=2 ** 14, max_tokens=2 ** 14,
                                                                embed_positions_msa=True, **SIZES), msa), msa, 3))
    out = []
    for name, model, alphabet, ndim in models:
        converter = alphabet.get_batch_converter()
        if ndim == 3:  # a batch of alignments, each of rows of one length
            _, _, tokens = converter([[("a", "MKTAYIAKQR"), ("b", "MKSAYIAKQK")], [("c", "KALTAR"), ("d", "KVLTAR")]])
        else:
            _, _, tokens = converter([("a", "MKTAYIAKQR"), ("b", "KALTARQQEVFD")])
        for training in (False, True):
            mode = "train" if training else "eval"
            for kwargs in ({}, {"repr_layers": [1]}, {"return_contacts": True}, {"need_head_weights": True}):
                def run(t, model=model, kwargs=kwargs, training=training):
                    model.train(training)
                    return model(t, **kwargs)
                out.append((f"{name}@{mode}" + "".join(f"_{k}" for k in kwargs), run, (tokens,)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, [], f"fair-esm {version('fair-esm')}")
