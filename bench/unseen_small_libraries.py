"""Three small libraries the analysis was never shown (in neither half of the harness, not reserved), each
measured on its own: the STOI loss (`torch_stoi`: short-time objective intelligibility as a training
loss, with and without voice-activity detection, extended, resampled or not), pitch shifting
(`torch_pitch_shift`: a batch of waveforms shifted by semitones and by ratios) and tabular transformers
(`tab_transformer_pytorch`: TabTransformer and FT-Transformer, in eval mode and trained one step).

Run it where torch and the three are installed together (here: `pip install torch==2.14.1 torchaudio
einops einx`, then with `--no-deps` `torch-stoi==0.2.3 torch-pitch-shift==1.2.5 primePy
tab-transformer-pytorch==0.6.1 x-mlps-pytorch hyper-connections discrete-continuous-embed-readout
torch-einops-utils frozendict`), from the repository root:

    python bench/unseen_small_libraries.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each library's cases under dynamo and prints which of the statements dynamo broke
on the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_small_libraries.txt.
"""

import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def _stoi():
    from torch_stoi import NegSTOILoss
    clean = torch.randn(2, 16000)
    noisy = clean + 0.3 * torch.randn(2, 16000)
    clean[:, 4000:6000] = 0  # a silent stretch for the voice-activity detection to drop
    out = []
    for vad in (True, False):
        for extended in (False, True):
            loss = NegSTOILoss(sample_rate=16000, use_vad=vad, extended=extended)
            out.append((f"stoi_vad={vad}_extended={extended}", loss, (noisy, clean)))
    out.append(("stoi_10k", NegSTOILoss(sample_rate=10000, do_resample=False), (noisy[:, :10000], clean[:, :10000])))
    return out


def _pitch():
    from torch_pitch_shift import get_fast_shifts, pitch_shift, semitones_to_ratio
    audio = torch.randn(2, 1, 8000)
    ratio = get_fast_shifts(16000)[0]
    return [("semitones", lambda x: pitch_shift(x, 3, 16000), (audio,)),
            ("ratio", lambda x: pitch_shift(x, ratio, 16000), (audio,)),
            ("down", lambda x: pitch_shift(x, semitones_to_ratio(-2), 16000), (audio,))]


def _tabular():
    from tab_transformer_pytorch import FTTransformer, TabTransformer
    categ, cont = torch.randint(0, 5, (4, 3)), torch.randn(4, 6)
    tab = TabTransformer(categories=(5, 5, 5), num_continuous=6, dim=16, depth=2, heads=4, dim_out=1,
                         mlp_act=torch.nn.ReLU())  # (its default, None, is one this x-mlps-pytorch does not take)
    ft = FTTransformer(categories=(5, 5, 5), num_continuous=6, dim=16, depth=2, heads=4, dim_out=1)

    def step(model):
        def run(c, x):
            loss = model.train()(c, x).pow(2).mean()
            loss.backward()
            return loss
        return run
    return [("tab@eval", tab.eval(), (categ, cont)), ("tab_attn", lambda c, x: tab.eval()(c, x, return_attn=True),
                                                     (categ, cont)),
            ("tab@train", step(TabTransformer(categories=(5, 5, 5), num_continuous=6, dim=16, depth=2, heads=4,
                                              dim_out=1, attn_dropout=0.1, ff_dropout=0.1, mlp_act=torch.nn.ReLU())),
             (categ, cont)),
            ("ft@eval", ft.eval(), (categ, cont)),
            ("ft@train", step(FTTransformer(categories=(5, 5, 5), num_continuous=6, dim=16, depth=2, heads=4,
                                            dim_out=1, attn_dropout=0.1, ff_dropout=0.1)), (categ, cont))]


LIBRARIES = {"torch_stoi": (_stoi, ["torch_stoi.NegSTOILoss"]),
             "torch_pitch_shift": (_pitch, ["torch_pitch_shift.pitch_shift"]),
             "tab_transformer_pytorch": (_tabular, ["tab_transformer_pytorch.TabTransformer",
                                                    "tab_transformer_pytorch.FTTransformer"])}


if __name__ == "__main__":
    measure_each(LIBRARIES)
