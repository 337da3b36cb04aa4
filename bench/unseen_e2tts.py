"""E2-TTS (e2-tts-pytorch), a text-to-speech library the analysis was never shown (in neither half of the harness,
not reserved): the flow-matching model's training loss from mel frames and from raw audio (its mel spectrogram
module), with character and token text, and its sampler (torchdiffeq's ODE solver over the transformer, with
classifier-free guidance), and the duration predictor's loss and prediction; random weights, no vocoder.

Run it where torch and e2-tts-pytorch are installed together (here: `pip install torch==2.14.1 e2-tts-pytorch`;
`g2p_en` and `adam-atan2-pytorch`, which no case uses, may be left out), from the repository root:

    python bench/unseen_e2tts.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_e2tts.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable, stand_in  # first: it puts the static pass of `--src` on the path

stand_in(["g2p_en", "adam_atan2_pytorch", "adam_atan2_pytorch.adopt"])

import e2_tts_pytorch  # noqa: E402
import torch  # noqa: E402
from e2_tts_pytorch import DurationPredictor, E2TTS  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(e2_tts_pytorch.__file__).resolve().parent
ENTRY_POINTS = ["e2_tts_pytorch.e2_tts.E2TTS.sample"]
MEL = dict(filter_length=256, hop_length=64, win_length=256, n_mel_channels=24, sampling_rate=16000)


def _model(cond_drop_prob: float = 0.0, **kwargs) -> E2TTS:
    torch.manual_seed(0)
    return E2TTS(cond_drop_prob=cond_drop_prob, transformer=dict(dim=32, depth=2, heads=2, dim_head=16), use_vocos=False,
                 mel_spec_kwargs=MEL, frac_lengths_mask=(0.7, 0.9), num_channels=24, **kwargs)


def cases():
    torch.manual_seed(0)
    mel, audio = torch.randn(2, 64, 24), torch.randn(2, 4096)
    text, tokens = ["hello", "bye"], torch.randint(0, 20, (2, 6))
    model = _model().train()
    tokenized = _model(text_num_embeds=32).train()
    guided = _model(cond_drop_prob=0.2)
    out = [("E2TTS.loss", lambda m, t: model(m, text=t).loss, (mel, text)),
           ("E2TTS.loss.audio", lambda a, t: model(a, text=t).loss, (audio, text)),
           ("E2TTS.loss.tokens", lambda m, t: tokenized(m, text=t).loss, (mel, tokens)),
           ("E2TTS.sample", lambda m, t: model.sample(m, text=t, steps=2, duration=16), (mel[:, :5], text)),
           ("E2TTS.sample.guided", lambda m, t: guided.sample(m, text=t, steps=2, duration=16, cfg_strength=1.0),
            (mel[:, :5], text)),
           ("E2TTS.sample.lens", lambda m, t, n: model.sample(m, text=t, lens=n, steps=2, duration=16),
            (mel[:, :5], text, torch.tensor([5, 3])))]
    torch.manual_seed(0)
    predictor = DurationPredictor(transformer=dict(dim=32, depth=2, heads=2, dim_head=16), num_channels=24,
                                  mel_spec_kwargs=MEL, hl_gauss_loss=dict(min_value=0.0, max_value=2.0, num_bins=8))
    out += [("DurationPredictor.loss", lambda m, t, n: predictor.train()(m, text=t, lens=n, return_loss=True),
             (mel, text, torch.tensor([64, 40]))),
            ("DurationPredictor.predict", lambda m, t: predictor.eval()(m, text=t, return_loss=False), (mel, text))]
    return runnable(out)


if __name__ == "__main__":
    # its mel spectrogram is torchaudio's, its sampler torchdiffeq's: a user would have both followed
    measure(ROOT, cases, ENTRY_POINTS, f"e2-tts-pytorch {version('e2-tts-pytorch')}",
            follow=["torchaudio", "torchdiffeq"])
