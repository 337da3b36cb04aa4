"""SpeechBrain, a library the analysis was never shown (in neither half of the harness, not reserved):
speaker embedders, acoustic encoders, source separators, text-to-speech models in training and
inference, vocoders, diffusion models' losses and sampling, sequence decoders (greedy and beam
search over a transformer and an attentional RNN), CTC decoding, its losses (permutation-invariant,
length-masked, margin, guided attention) and its augmentations, under dynamo against the static
pass on the same tree.

Run it where torch and speechbrain are installed together (here: `pip install torch==2.14.1
torchaudio==2.11.1 speechbrain==1.1.2`), from the repository root:

    python bench/unseen_speechbrain.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_speechbrain.txt.
"""

import warnings
from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import speechbrain as sb
import torch
from speechbrain.augment import freq_domain, time_domain
from speechbrain.decoders import ctc, seq2seq
from speechbrain.lobes import features
from speechbrain.lobes.models import (ECAPA_TDNN, CRDNN, DiffWave, FastSpeech2, HifiGAN, Tacotron2, Xvector, conv_tasnet,
                                      dual_path)
from speechbrain.lobes.models.transformer import TransformerASR
from speechbrain.nnet import diffusion, losses, quantisers, unet
from speechbrain.nnet.loss import guidedattn_loss, si_snr_loss

warnings.filterwarnings("ignore")
ROOT = Path(sb.__file__).resolve().parent
ENTRY_POINTS = [
    "speechbrain.lobes.models.Tacotron2.Tacotron2.infer",
    "speechbrain.lobes.models.DiffWave.DiffWaveDiffusion.inference",
    "speechbrain.nnet.diffusion.DenoisingDiffusion.train_sample",
    "speechbrain.nnet.diffusion.DenoisingDiffusion.sample",
    "speechbrain.nnet.losses.nll_loss", "speechbrain.nnet.losses.ctc_loss", "speechbrain.nnet.losses.bce_loss",
    "speechbrain.nnet.losses.mse_loss", "speechbrain.nnet.losses.kldiv_loss",
    "speechbrain.nnet.losses.distance_diff_loss", "speechbrain.nnet.losses.get_si_snr_with_pitwrapper",
    "speechbrain.nnet.loss.si_snr_loss.si_snr_loss", "speechbrain.decoders.ctc.ctc_greedy_decode",
]


def _tts():
    return FastSpeech2.FastSpeech2(
        enc_num_layers=1, enc_num_head=2, enc_d_model=32, enc_ffn_dim=64, enc_k_dim=32, enc_v_dim=32,
        enc_dropout=0.1, dec_num_layers=1, dec_num_head=2, dec_d_model=32, dec_ffn_dim=64, dec_k_dim=32,
        dec_v_dim=32, dec_dropout=0.1, normalize_before=False, ffn_type="1dcnn", ffn_cnn_kernel_size_list=[9, 1],
        n_char=40, n_mels=16, postnet_embedding_dim=32, postnet_kernel_size=5, postnet_n_convolutions=2,
        postnet_dropout=0.5, padding_idx=0, dur_pred_kernel_size=3, pitch_pred_kernel_size=3,
        energy_pred_kernel_size=3, variance_predictor_dropout=0.5)


def _tacotron():
    return Tacotron2.Tacotron2(
        n_mel_channels=16, n_symbols=40, symbols_embedding_dim=32, encoder_embedding_dim=32, encoder_n_convolutions=1,
        attention_rnn_dim=32, attention_dim=16, attention_location_n_filters=4, attention_location_kernel_size=5,
        decoder_rnn_dim=32, prenet_dim=16, max_decoder_steps=6, postnet_embedding_dim=16, postnet_n_convolutions=2,
        decoder_no_early_stopping=False)


def _asr():
    return TransformerASR.TransformerASR(20, 16, 32, 4, 1, 1, 64, activation=torch.nn.GELU, causal=False)


def cases():
    g = torch.Generator().manual_seed(0)
    feats = torch.rand(2, 30, 16, generator=g)
    lens = torch.tensor([1.0, 0.8])
    wav = torch.rand(2, 1600, generator=g)
    tokens = torch.tensor([[13, 12, 31, 14, 19], [31, 16, 30, 31, 0]])
    token_lens = torch.tensor([5, 4])
    out = [
        ("ECAPA_TDNN", ECAPA_TDNN.ECAPA_TDNN(16, channels=[32, 32, 32, 32, 96], lin_neurons=8, attention_channels=8,
                                             se_channels=8, res2net_scale=4).eval(), (feats, lens)),
        ("Xvector", Xvector.Xvector(in_channels=16, tdnn_channels=[32] * 4 + [64], lin_neurons=8).eval(), (feats, lens)),
        ("CRDNN", CRDNN.CRDNN(input_shape=(2, 30, 16), cnn_channels=[8, 8], rnn_neurons=16, rnn_layers=1,
                              dnn_neurons=16, rnn_class=sb.nnet.RNN.LSTM).eval(), (feats,)),
        ("Fbank", features.Fbank(n_mels=16), (wav,)),
        ("MFCC", features.MFCC(n_mels=16, n_mfcc=12), (wav,)),
        ("InputNormalization@train", sb.processing.features.InputNormalization().train(), (feats, lens)),
        ("conv_tasnet.MaskNet", conv_tasnet.MaskNet(16, 8, 16, 3, 2, 1, 2).eval(), (torch.rand(2, 16, 40, generator=g),)),
        ("Dual_Path_Model", dual_path.Dual_Path_Model(
            16, 16, dual_path.SBTransformerBlock(1, 16, 4, d_ffn=32), dual_path.SBTransformerBlock(1, 16, 4, d_ffn=32),
            K=10, num_spks=2).eval(), (torch.randn(2, 16, 50, generator=g),)),
        ("HifiganGenerator", HifiGAN.HifiganGenerator(16, 1, "1", [[1, 3, 5]], [3], [4, 4], 32, [2, 2]).eval(),
         (torch.rand(2, 16, 10, generator=g),)),
        ("UnitHifiganGenerator", HifiGAN.UnitHifiganGenerator(
            16, 1, "1", [[1, 3, 5]], [3], [4, 4], 32, [2, 2], vocab_size=20, embedding_dim=16, duration_predictor=True,
            var_pred_hidden_dim=16).eval(), (torch.randint(0, 20, (2, 10, 1), generator=g),)),
        ("TransformerASR@train", _asr().train(), (feats, torch.randint(0, 20, (2, 6), generator=g), lens)),
    ]
    tts = _tts()
    out.append(("FastSpeech2", lambda t, m=tts: m.eval()(t, pace=20.0), (tokens,)))
    out.append(("FastSpeech2@train", tts.train(), (tokens, torch.tensor([[2, 4, 1, 5, 3], [1, 2, 4, 3, 0]]))))
    taco = _tacotron()
    out.append(("Tacotron2@train", taco.train(), ((tokens, token_lens, torch.rand(2, 16, 8, generator=g),
                                                    8, torch.tensor([8, 7])),)))
    out.append(("Tacotron2.infer", lambda t, n, m=taco: m.eval().infer(t, n), (tokens, token_lens)))
    asr = _asr().eval()
    enc = asr.encode(feats, lens)
    lin = sb.nnet.linear.Linear(input_size=32, n_neurons=20)
    out.append(("S2STransformerGreedySearcher", seq2seq.S2STransformerGreedySearcher(
        modules=[asr, lin], bos_index=1, eos_index=2, min_decode_ratio=0.0, max_decode_ratio=0.2), (enc, lens)))
    out.append(("S2STransformerBeamSearcher", seq2seq.S2STransformerBeamSearcher(
        modules=[asr, lin], bos_index=1, eos_index=2, min_decode_ratio=0.0, max_decode_ratio=0.2,
        using_eos_threshold=False, beam_size=3), (enc, lens)))
    emb = torch.nn.Embedding(5, 3)
    dec = sb.nnet.RNN.AttentionalRNNDecoder("gru", "content", 3, 3, 1, enc_dim=7, input_size=3)
    rlin = sb.nnet.linear.Linear(n_neurons=5, input_size=3)
    renc = torch.rand(2, 6, 7, generator=g)
    out.append(("S2SRNNGreedySearcher", seq2seq.S2SRNNGreedySearcher(
        emb, dec, rlin, bos_index=4, eos_index=4, min_decode_ratio=0, max_decode_ratio=1), (renc, torch.ones(2))))
    scorer = sb.decoders.scorer.ScorerBuilder(full_scorers=[sb.decoders.scorer.CoverageScorer(5)], partial_scorers=[],
                                              weights=dict(coverage=1.5))
    out.append(("S2SRNNBeamSearcher", seq2seq.S2SRNNBeamSearcher(
        emb, dec, rlin, bos_index=4, eos_index=4, min_decode_ratio=0, max_decode_ratio=1, beam_size=2, scorer=scorer),
        (renc, torch.ones(2))))
    log_probs = torch.randn(2, 12, 6, generator=g).log_softmax(-1)
    out.append(("ctc_greedy_decode", ctc.ctc_greedy_decode, (log_probs, lens, 0)))
    targets = torch.randint(1, 6, (2, 4), generator=g)
    out.append(("ctc_loss", losses.ctc_loss, (log_probs, targets, lens, torch.tensor([1.0, 0.75]), 0)))
    out.append(("nll_loss", losses.nll_loss, (log_probs, torch.randint(0, 6, (2, 12), generator=g), lens)))
    out.append(("bce_loss", losses.bce_loss, (torch.randn(2, 12, generator=g), torch.rand(2, 12, generator=g), lens)))
    out.append(("mse_loss", losses.mse_loss, (feats, torch.rand(2, 30, 16, generator=g), lens)))
    out.append(("kldiv_loss", losses.kldiv_loss, (log_probs, torch.randint(0, 6, (2, 12), generator=g), lens, 0.1)))
    out.append(("distance_diff_loss", losses.distance_diff_loss, (torch.rand(2, 12, generator=g),
                                                                   torch.tensor([3, 5]), lens)))
    sources = torch.rand(2, 400, 2, generator=g)
    out.append(("PitWrapper", losses.PitWrapper(torch.nn.MSELoss(reduction="none")),
                (sources[..., [1, 0]], sources)))
    out.append(("get_si_snr_with_pitwrapper", losses.get_si_snr_with_pitwrapper, (sources, sources.flip(-1))))
    out.append(("si_snr_loss", si_snr_loss.si_snr_loss, (wav, wav.flip(-1), lens)))
    out.append(("AdditiveAngularMargin", losses.AdditiveAngularMargin(margin=0.2, scale=30),
                (torch.rand(4, 5, generator=g) * 2 - 1, torch.tensor([[1], [0], [3], [2]]))))
    out.append(("LogSoftmaxWrapper", losses.LogSoftmaxWrapper(losses.AdditiveAngularMargin(margin=0.2, scale=30)),
                (torch.rand(4, 1, 5, generator=g) * 2 - 1, torch.tensor([[1], [0], [3], [2]]))))
    out.append(("GuidedAttentionLoss", guidedattn_loss.GuidedAttentionLoss(sigma=0.2),
                (torch.rand(2, 8, 5, generator=g), token_lens, torch.tensor([8, 7]))))
    out.append(("GumbelVectorQuantizer", quantisers.GumbelVectorQuantizer(16, 8, (2.0, 0.25, 0.999995), 2, 16).train(),
                (feats,)))
    out.append(("RandomProjectionQuantizer", quantisers.RandomProjectionQuantizer(16, 8, 32), (feats,)))
    net = unet.UNetModel(in_channels=1, model_channels=8, norm_num_groups=4, out_channels=1, num_res_blocks=1,
                         attention_resolutions=[])
    diff = diffusion.DenoisingDiffusion(model=net, timesteps=5)
    out.append(("DenoisingDiffusion.train_sample", lambda x, d=diff: d.train_sample(x),
                (torch.randn(2, 1, 16, 16, generator=g),)))
    out.append(("DenoisingDiffusion.sample", lambda n, d=diff: d.sample((n, 1, 16, 16)), (2,)))
    wave = DiffWave.DiffWave(input_channels=16, residual_layers=2, residual_channels=8, dilation_cycle_length=2,
                             total_steps=6)
    dw = DiffWave.DiffWaveDiffusion(model=wave, beta_start=0.0001, beta_end=0.05, timesteps=6,
                                    noise=diffusion.GaussianNoise)
    out.append(("DiffWaveDiffusion.inference", lambda c, d=dw: d.inference(
        unconditional=False, scale=256, condition=c, fast_sampling=True,
        fast_sampling_noise_schedule=[0.0001, 0.01, 0.05]), (torch.rand(1, 16, 10, generator=g),)))
    out.append(("DiffWave@train", wave.train(), (torch.rand(2, 1, 2560, generator=g), torch.tensor([1, 3]),
                                                 torch.rand(2, 16, 10, generator=g))))
    for name, aug in (("SpeedPerturb", time_domain.SpeedPerturb(16000, speeds=[90, 110])),
                      ("DropFreq", time_domain.DropFreq()), ("DoClip", time_domain.DoClip()),
                      ("DropBitResolution", time_domain.DropBitResolution()),
                      ("FastDropChunk", time_domain.FastDropChunk(drop_length_low=10, drop_length_high=40,
                                                                  n_masks=20))):
        out.append((name, aug, (wav,)))
    out.append(("DropChunk", time_domain.DropChunk(drop_length_low=10, drop_length_high=40), (wav, lens)))
    out.append(("RandomShift", freq_domain.RandomShift(min_shift=-5, max_shift=5), (wav, lens)))
    for name, aug in (("SpectrogramDrop", freq_domain.SpectrogramDrop()), ("Warping", freq_domain.Warping())):
        out.append((name, aug, (feats,)))
    return out


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"speechbrain {sb.__version__}")
