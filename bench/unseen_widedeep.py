"""pytorch-widedeep, a library the analysis was never shown (in neither half of the harness, not
reserved): its tabular models (MLP with each way of embedding continuous columns, ResNet, the
attention MLPs, TabTransformer, SAINT, FT-Transformer, FastFormer, Perceiver), its recommendation models
(deep and cross networks, factorization machines, AutoInt), its text RNNs (basic, attentive, stacked),
the `WideDeep` model joining a wide and a deep part, and its losses (regression, focal, Tweedie, ZILN,
quantile, Bayesian, the label-distribution-smoothing ones, the contrastive and denoising losses), each
under dynamo against the static pass on the same tree. Its TabNet is left out, as are the image and
Hugging Face models.

Run it where torch and pytorch-widedeep are installed together (here: `pip install torch==2.14.1` then
`pip install --no-deps pytorch-widedeep==1.7.0 gensim`), from the repository root:

    python bench/unseen_widedeep.py [--src OTHER_TREE/src] [--sites FILE]

pytorch-widedeep imports spaCy, sentence-transformers and transformers for its text preprocessing and
Hugging Face models, which no case runs; where they are not installed, a module whose names raise when
used stands in for each. `unseen.measure` runs each case under dynamo and prints which of the
statements dynamo broke on the static pass reports. Results: bench/results/unseen_widedeep.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable, stand_in  # first: it puts the static pass of `--src` on the path

import torch

stand_in(["spacy", "spacy.symbols", "spacy.lang", "spacy.lang.en", "sentence_transformers", "transformers"])

import pytorch_widedeep  # noqa: E402
from pytorch_widedeep import losses  # noqa: E402
from pytorch_widedeep.models import (SAINT, AttentiveRNN, BasicRNN, ContextAttentionMLP, FTTransformer,  # noqa: E402
                                     SelfAttentionMLP, StackedAttentiveRNN, TabFastFormer, TabMlp, TabPerceiver,
                                     TabResnet, TabTransformer, Wide, WideDeep)
from pytorch_widedeep.models.rec import (AutoInt, AutoIntPlus, DeepCrossNetwork, DeepCrossNetworkV2,  # noqa: E402
                                         DeepFactorizationMachine, DeepFieldAwareFactorizationMachine,
                                         ExtremeDeepFactorizationMachine, GatedDeepCrossNetwork)

warnings.filterwarnings("ignore")
ROOT = Path(pytorch_widedeep.__file__).resolve().parent
_TABULAR = ("TabMlp", "TabResnet", "ContextAttentionMLP", "SelfAttentionMLP", "TabTransformer", "SAINT",
            "FTTransformer", "TabFastFormer", "TabPerceiver", "BasicRNN", "AttentiveRNN", "StackedAttentiveRNN",
            "Wide", "WideDeep")
_REC = ("AutoInt", "AutoIntPlus", "DeepCrossNetwork", "DeepCrossNetworkV2", "DeepFactorizationMachine",
        "DeepFieldAwareFactorizationMachine", "ExtremeDeepFactorizationMachine", "GatedDeepCrossNetwork")
_LOSSES = ("MSELoss", "MSLELoss", "RMSELoss", "RMSLELoss", "QuantileLoss", "FocalLoss", "BayesianRegressionLoss",
           "BayesianSELoss", "TweedieLoss", "ZILNLoss", "L1Loss", "FocalR_L1Loss", "FocalR_MSELoss",
           "FocalR_RMSELoss", "HuberLoss", "InfoNCELoss", "DenoisingLoss", "EncoderDecoderLoss")
ENTRY_POINTS = ([f"pytorch_widedeep.models.{m}" for m in _TABULAR] + [f"pytorch_widedeep.models.rec.{m}" for m in _REC]
                + [f"pytorch_widedeep.losses.{m}" for m in _LOSSES])


def cases():
    torch.manual_seed(0)
    column_idx = {"a": 0, "b": 1, "c": 2, "x": 3, "y": 4}
    cats = [("a", 5, 8), ("b", 4, 8), ("c", 3, 8)]
    x = torch.cat([torch.stack([torch.randint(1, 5, (6,)), torch.randint(1, 4, (6,)), torch.randint(1, 3, (6,))], 1).float(),
                   torch.randn(6, 2)], 1)
    common = {"column_idx": column_idx, "cat_embed_input": cats, "continuous_cols": ["x", "y"]}
    out = []

    def add(name, make, args):  # a constructor that does not take these arguments leaves its case out
        try:
            out.append((name, make(), args))
        except Exception as e:  # noqa: BLE001 - whatever the library raises
            print("left out:", name, type(e).__name__, str(e)[:100])
    for method in ("standard", "piecewise", "periodic"):
        extra = {"quantization_setup": {"x": [-1.0, 0.0, 1.0], "y": [-1.0, 0.0, 1.0]}} if method == "piecewise" else \
            {"n_frequencies": 4, "sigma": 0.1, "share_last_layer": False} if method == "periodic" else {}
        add(f"tab_mlp_{method}", lambda: TabMlp(**common, embed_continuous=True, embed_continuous_method=method,
                                                 cont_embed_dim=8, mlp_hidden_dims=[16, 8], **extra), (x,))
    add("tab_mlp", lambda: TabMlp(**common, mlp_hidden_dims=[16, 8]), (x,))
    add("tab_resnet", lambda: TabResnet(**common, blocks_dims=[16, 16, 8]), (x,))
    attention = {**common, "input_dim": 8}
    add("context_attention_mlp", lambda: ContextAttentionMLP(**attention), (x,))
    add("self_attention_mlp", lambda: SelfAttentionMLP(**attention), (x,))
    add("tab_transformer", lambda: TabTransformer(**{**attention, "cat_embed_input": [(c, n) for c, n, _ in cats]},
                                                   n_heads=2, n_blocks=1), (x,))
    for cls in (SAINT, FTTransformer, TabFastFormer, TabPerceiver):
        kwargs = {"n_heads": 2, "n_blocks": 1} if cls is not TabPerceiver else {
            "n_cross_attns": 1, "n_latents": 4, "latent_dim": 8, "n_latent_heads": 2, "n_latent_blocks": 1,
            "n_perceiver_blocks": 1}
        if cls is FTTransformer:
            kwargs = {"n_heads": 2, "n_blocks": 1}
        add(cls.__name__, lambda: cls(**{**attention, "cat_embed_input": [(c, n) for c, n, _ in cats]}, **kwargs), (x,))
    for cls in (DeepCrossNetwork, DeepCrossNetworkV2, GatedDeepCrossNetwork):
        layers = {"n_cross_layers": 2} if cls is DeepCrossNetwork else {"num_cross_layers": 2}
        add(cls.__name__, lambda: cls(**common, **layers, mlp_hidden_dims=[16, 8]), (x,))
    fm = {"column_idx": column_idx, "cat_embed_input": [(c, n) for c, n, _ in cats], "continuous_cols": ["x", "y"]}
    for cls, kwargs in ((DeepFactorizationMachine, {"num_factors": 4, "mlp_hidden_dims": [16, 8]}),
                        (DeepFieldAwareFactorizationMachine, {"num_factors": 4, "mlp_hidden_dims": [16, 8],
                                                              "continuous_cols": None}),
                        (ExtremeDeepFactorizationMachine, {"input_dim": 8, "cin_layer_dims": [4, 4],
                                                           "mlp_hidden_dims": [16, 8]}),
                        (AutoInt, {"input_dim": 8, "num_heads": 2, "num_layers": 1,
                                   "embed_continuous_method": "standard"}),
                        (AutoIntPlus, {"input_dim": 8, "num_heads": 2, "num_layers": 1, "mlp_hidden_dims": [16, 8],
                                       "embed_continuous_method": "standard"})):
        add(cls.__name__, lambda: cls(**{k: v for k, v in {**fm, **kwargs}.items() if v is not None}), (x,))
    tokens = torch.randint(2, 20, (6, 7))
    for cls in (BasicRNN, AttentiveRNN, StackedAttentiveRNN):
        for rnn in ("lstm", "gru"):
            kwargs = {"n_blocks": 2} if cls is StackedAttentiveRNN else {"n_layers": 2}
            add(f"{cls.__name__}_{rnn}", lambda: cls(vocab_size=20, embed_dim=8, rnn_type=rnn, hidden_dim=8, **kwargs),
                (tokens,))
    wide = Wide(input_dim=12, pred_dim=1)
    out.append(("wide", wide, (torch.randint(0, 12, (6, 3)),)))
    model = WideDeep(wide=wide, deeptabular=TabMlp(**common, mlp_hidden_dims=[16, 8]))
    out.append(("wide_deep", model, ({"wide": torch.randint(0, 12, (6, 3)), "deeptabular": x},)))
    text_model = WideDeep(deeptabular=TabMlp(**common, mlp_hidden_dims=[16, 8]),
                          deeptext=BasicRNN(vocab_size=20, embed_dim=8, hidden_dim=8, n_layers=1), head_hidden_dims=[8])
    out.append(("wide_deep_text", text_model, ({"deeptabular": x, "deeptext": tokens},)))
    pred, target = torch.rand(8, 1) + 0.1, torch.rand(8, 1) + 0.1
    for name in ("MSELoss", "MSLELoss", "RMSELoss", "RMSLELoss", "L1Loss", "HuberLoss", "TweedieLoss",
                 "BayesianSELoss"):
        out.append((name, getattr(losses, name)(), (pred, target)))
    for name in ("FocalR_L1Loss", "FocalR_MSELoss", "FocalR_RMSELoss"):
        out.append((name, getattr(losses, name)(), (pred, target)))
    out.append(("QuantileLoss", losses.QuantileLoss([0.1, 0.5, 0.9]), (torch.rand(8, 3), target)))
    out.append(("FocalLoss", losses.FocalLoss(), (torch.randn(8, 3), torch.randint(0, 3, (8,)))))
    out.append(("FocalLoss_binary", losses.FocalLoss(), (torch.randn(8, 1), torch.randint(0, 2, (8, 1)).float())))
    out.append(("BayesianRegressionLoss", losses.BayesianRegressionLoss(0.1), (pred, target)))
    out.append(("ZILNLoss", losses.ZILNLoss(), (torch.randn(8, 3), torch.rand(8, 1))))
    out.append(("InfoNCELoss", losses.InfoNCELoss(), ((torch.randn(8, 3, 4), torch.randn(8, 3, 4)),)))
    out.append(("EncoderDecoderLoss", losses.EncoderDecoderLoss(),
                (torch.randn(8, 4), torch.randn(8, 4), torch.randint(0, 2, (8, 4)).float())))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"pytorch-widedeep {version('pytorch-widedeep')}")
