"""torchaudio, a library the analysis was never shown (in neither half of the harness, not reserved):
its models and functions under dynamo against the static pass on the same tree.

torchaudio pins its torch release, so run it where both are installed (the device machine has
them), from the repository root:

    python bench/unseen_torchaudio.py [--src OTHER_TREE/src]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports (with the entry points below for the functions and `infer` methods a user would
compile). Results: bench/results/unseen_torchaudio.txt.
"""

from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import torchaudio
import torchaudio.functional as AF
import torchaudio.models as M

ROOT = Path(torchaudio.__file__).resolve().parent
dev = "cuda" if torch.cuda.is_available() else "cpu"
ENTRY_POINTS = [
    "torchaudio.models.emformer.Emformer.infer",
    "torchaudio.models.tacotron2.Tacotron2.infer",
    "torchaudio.models.wavernn.WaveRNN.infer",
    "torchaudio.models.wav2vec2.model.Wav2Vec2Model.extract_features",
    "torchaudio.functional.pitch_shift",
    "torchaudio.functional.speed",
    "torchaudio.functional.add_noise",
    "torchaudio.functional.phase_vocoder",
    "torchaudio.functional.frechet_distance",
    "torchaudio.functional.vad",
    "torchaudio.functional.loudness",
    "torchaudio.functional.merge_tokens",
    "torchaudio.functional.spectrogram",
    "torchaudio.functional.griffinlim",
    "torchaudio.functional.filtfilt",
    "torchaudio.functional.deemphasis",
    "torchaudio.functional.convolve",
    "torchaudio.functional.amplitude_to_DB",
    "torchaudio.functional.psd",
    "torchaudio.functional.mvdr_weights_souden",
    "torchaudio.functional.rtf_evd",
    "torchaudio.functional.edit_distance",
]


def cases():
    w = torch.randn(2, 16000, device=dev)
    lens = torch.tensor([16000, 12000], device=dev)
    feats = torch.randn(2, 50, 80, device=dev)
    flens = torch.tensor([50, 40], device=dev)
    out = []
    def mod(name, m, *args, train=False, method="forward"):
        m = m.to(dev)
        m.train(train)
        fn = getattr(m, method) if method != "forward" else m
        out.append((name, fn, args))
    mod("wav2vec2", M.wav2vec2_base(), w, lens)
    mod("wav2vec2@train", M.wav2vec2_base(), w, lens, train=True)
    mod("hubert", M.hubert_base(), w, lens)
    mod("wavlm", M.wavlm_base(), w)
    mod("wavlm@train", M.wavlm_base(), w, train=True)
    mod("wav2vec2.extract", M.wav2vec2_base(), w, lens, method="extract_features")
    mod("hubert_pretrain@train", M.hubert_pretrain_base(), w, torch.randint(0, 100, (2, 49), device=dev), lens, train=True)
    mod("conformer", M.Conformer(80, 4, 128, 2, 31), feats, flens)
    em = M.Emformer(80, 4, 128, 2, 4, right_context_length=2)
    mod("emformer", em, torch.randn(2, 22, 80, device=dev), torch.tensor([22, 20], device=dev))
    mod("emformer.infer", M.Emformer(80, 4, 128, 2, 4, right_context_length=2), torch.randn(2, 6, 80, device=dev), torch.tensor([6, 6], device=dev), None, method="infer")
    rnnt = M.emformer_rnnt_model(input_dim=80, encoding_dim=64, num_symbols=20, segment_length=4, right_context_length=2,
                                 time_reduction_input_dim=80, time_reduction_stride=2, transformer_num_heads=4,
                                 transformer_ffn_dim=64, transformer_num_layers=2, transformer_dropout=0.0,
                                 transformer_activation="relu", transformer_left_context_length=8,
                                 transformer_max_memory_size=0, transformer_weight_init_scale_strategy="depthwise",
                                 transformer_tanh_on_mem=True, symbol_embedding_dim=32, num_lstm_layers=1,
                                 lstm_layer_norm=True, lstm_layer_norm_epsilon=1e-5, lstm_dropout=0.0)
    mod("rnnt", rnnt, torch.randn(2, 24, 80, device=dev), torch.tensor([24, 20], device=dev),
        torch.randint(0, 20, (2, 5), device=dev), torch.tensor([5, 4], device=dev))
    search = M.RNNTBeamSearch(rnnt.to(dev).eval(), blank=19)
    out.append(("rnnt_beam", search, (torch.randn(1, 24, 80, device=dev), torch.tensor([24], device=dev), 3)))
    tac = M.Tacotron2(n_mels=80)
    mod("tacotron2", tac, torch.randint(0, 100, (2, 10), device=dev), torch.tensor([10, 8], device=dev),
        torch.randn(2, 80, 20, device=dev), torch.tensor([20, 18], device=dev))
    tac2 = M.Tacotron2(n_mels=80, decoder_max_step=20)
    mod("tacotron2.infer", tac2, torch.randint(0, 100, (1, 10), device=dev), None, method="infer")
    wr = M.WaveRNN(upsample_scales=[5, 5, 8], n_classes=256, hop_length=200)
    mod("wavernn", wr, torch.randn(2, 1, (20 - 4) * 200, device=dev), torch.randn(2, 1, 128, 20, device=dev))
    mod("wavernn.infer", M.WaveRNN(upsample_scales=[5, 5, 8], n_classes=256, hop_length=200), torch.randn(1, 128, 8, device=dev), method="infer")
    mod("convtasnet", M.ConvTasNet(num_sources=2, enc_num_feats=64, msk_num_feats=32, msk_num_hidden_feats=64, msk_num_layers=2, msk_num_stacks=1), torch.randn(2, 1, 8000, device=dev))
    mod("hdemucs", M.HDemucs(sources=["a", "b"], channels=8, growth=2, depth=2, nfft=512), torch.randn(1, 2, 16384, device=dev))
    mod("deepspeech", M.DeepSpeech(n_feature=40, n_hidden=64), torch.randn(2, 1, 30, 40, device=dev))
    mod("wav2letter", M.Wav2Letter(num_classes=20, input_type="mfcc", num_features=13), torch.randn(2, 13, 100, device=dev))
    try:
        mod("squim_obj", M.squim_objective_base(), torch.randn(2, 16000, device=dev))
        mod("squim_subj", M.squim_subjective_base(), torch.randn(2, 16000, device=dev), torch.randn(2, 16000, device=dev))
    except Exception as e:
        print("no squim", e)
    # functional
    out.append(("griffinlim", lambda s: AF.griffinlim(s, torch.hann_window(126, device=s.device), 126, 63, 126, 2.0, 4, 0.99, None, True), (torch.rand(2, 64, 30, device=dev),)))
    out.append(("filtfilt", lambda x: AF.filtfilt(x, torch.tensor([1.0, -0.5], device=x.device), torch.tensor([0.5, 0.5], device=x.device)), (w[:, :1000],)))
    out.append(("deemphasis", lambda x: AF.deemphasis(x), (w,)))
    out.append(("convolve", lambda x: AF.convolve(x, x[:, :50]), (w,)))
    out.append(("amplitude_to_DB", lambda s: AF.amplitude_to_DB(s, 10.0, 1e-10, 0.0, 80.0), (torch.rand(2, 64, 30, device=dev),)))
    out.append(("psd", lambda s: AF.psd(s, torch.rand(s.shape[-2], s.shape[-1], device=s.device)), (torch.randn(4, 65, 30, dtype=torch.cfloat, device=dev),)))
    out.append(("mvdr_souden", lambda a, b: AF.mvdr_weights_souden(a, b, 0), (torch.randn(65, 4, 4, dtype=torch.cfloat, device=dev) + 4 * torch.eye(4, device=dev), torch.randn(65, 4, 4, dtype=torch.cfloat, device=dev) + 4 * torch.eye(4, device=dev))))
    out.append(("rtf_evd", lambda a: AF.rtf_evd(a), (torch.randn(65, 4, 4, dtype=torch.cfloat, device=dev) + 4 * torch.eye(4, device=dev),)))
    out.append(("edit_distance", lambda a, b: AF.edit_distance(a, b), (torch.tensor([1, 2, 3], device=dev), torch.tensor([1, 3], device=dev))))
    out.append(("pitch_shift", lambda x: AF.pitch_shift(x, 16000, 2), (w,)))
    out.append(("speed", lambda x, l: AF.speed(x, 16000, 1.1, l), (w, lens)))
    out.append(("add_noise", lambda x, n: AF.add_noise(x, n, torch.tensor([10.0, 5.0], device=x.device)), (w, torch.randn_like(w))))
    out.append(("phase_vocoder", lambda s: AF.phase_vocoder(s, 1.2, torch.linspace(0, 3.14, 201, device=s.device)[..., None]),
                (torch.randn(2, 201, 50, dtype=torch.cfloat, device=dev),)))
    out.append(("frechet", lambda a, b: AF.frechet_distance(a.mean(0), torch.cov(a.T), b.mean(0), torch.cov(b.T)), (torch.randn(50, 4, device=dev), torch.randn(50, 4, device=dev))))
    out.append(("vad", lambda x: AF.vad(x, 16000), (w,)))
    out.append(("loudness", lambda x: AF.loudness(x, 16000), (w,)))
    out.append(("merge_tokens", lambda t, s: AF.merge_tokens(t, s), (torch.tensor([0, 1, 1, 0, 2], device=dev), torch.rand(5, device=dev))))
    out.append(("spectrogram_var", lambda x: AF.spectrogram(x, 0, torch.hann_window(400, device=x.device), 400, 200, 400, None, False), (w,)))
    return out


def main() -> None:
    measure(ROOT, cases, ENTRY_POINTS, f"torchaudio {torchaudio.__version__}")


if __name__ == "__main__":
    main()
