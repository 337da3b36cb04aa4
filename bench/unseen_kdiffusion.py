"""k-diffusion, a diffusion library the analysis was never shown (in neither half of the harness, not
reserved): its Karras preconditioned denoisers (the plain one, the one with a variance head, the L_simple one)
around its U-Net and its image transformer, compiled where a user compiles them: the denoiser's forward in
training and evaluation mode and its training loss; and its samplers (Euler, Heun, DPM-2, LMS, DPM-Solver++ and
the rest), each a whole sampling loop over a schedule of noise levels, with the schedules that make them.

Run it where torch and k-diffusion are installed together (here: `pip install torch==2.14.1 k-diffusion`), from
the repository root:

    python bench/unseen_kdiffusion.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs the cases under dynamo and prints which of the statements dynamo broke on the static
pass reports; with `--sites FILE` its answers are kept there. Results: bench/results/unseen_kdiffusion.txt.
"""

import logging
import warnings

from unseen import entries, measure_each, modes  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

SAMPLERS = ("sample_euler", "sample_euler_ancestral", "sample_heun", "sample_dpm_2", "sample_dpm_2_ancestral",
            "sample_lms", "sample_dpmpp_2s_ancestral", "sample_dpmpp_sde", "sample_dpmpp_2m", "sample_dpmpp_2m_sde",
            "sample_dpmpp_3m_sde")


def _cases():
    from k_diffusion import layers, sampling
    from k_diffusion.models.image_transformer_v1 import ImageTransformerDenoiserModelV1
    from k_diffusion.models.image_v1 import ImageDenoiserModelV1

    x = torch.randn(2, 3, 16, 16)
    noise = torch.randn(2, 3, 16, 16)
    sigma = torch.tensor([0.5, 2.0])
    unet = ImageDenoiserModelV1(3, 16, [1, 1], [16, 32], [False, True])
    variance = ImageDenoiserModelV1(3, 16, [1, 1], [16, 32], [False, True], has_variance=True)
    transformer = ImageTransformerDenoiserModelV1(n_layers=2, d_model=32, d_ff=64, in_features=3, out_features=3,
                                                  patch_size=(4, 4))
    out = []
    for name, denoiser in (("unet", layers.Denoiser(unet, sigma_data=0.5)),
                           ("unet.snr", layers.Denoiser(unet, sigma_data=0.5, weighting="snr", scales=2)),
                           ("variance", layers.DenoiserWithVariance(variance, sigma_data=0.5)),
                           ("simple", layers.SimpleLossDenoiser(unet, sigma_data=0.5)),
                           ("transformer", layers.Denoiser(transformer, sigma_data=0.5))):
        out += modes(name, denoiser, (x, sigma))
        out.append((f"{name}.loss", lambda i, n, s, d=denoiser: d.loss(i, n, s).mean(), (x, noise, sigma)))
    model = layers.Denoiser(unet, sigma_data=0.5).eval()
    sigmas = sampling.get_sigmas_karras(6, 0.05, 10.0)
    for name in SAMPLERS:
        sample = getattr(sampling, name)
        out.append((name, lambda x, s, sample=sample: sample(model, x, s, disable=True), (x * 10, sigmas)))
    out.append(("sample_euler.churn", lambda x, s: sampling.sample_euler(model, x, s, disable=True, s_churn=1.0),
                (x * 10, sigmas)))
    out.append(("sample_dpm_fast", lambda x: sampling.sample_dpm_fast(model, x, 0.05, 10.0, 4, disable=True), (x,)))
    out.append(("sample_dpm_adaptive", lambda x: sampling.sample_dpm_adaptive(model, x, 0.05, 10.0, disable=True),
                (x * 10,)))
    for name in ("get_sigmas_karras", "get_sigmas_exponential", "get_sigmas_polyexponential"):
        schedule = getattr(sampling, name)
        out.append((name, lambda lo, hi, schedule=schedule: schedule(8, lo, hi),
                    (torch.tensor(0.05), torch.tensor(10.0))))
    out.append(("get_sigmas_vp", lambda b: sampling.get_sigmas_vp(8, beta_d=b), (torch.tensor(19.9),)))
    return out


ENTRIES = (entries("k_diffusion.sampling", list(SAMPLERS) + ["sample_dpm_fast", "sample_dpm_adaptive"])
           + entries("k_diffusion.layers", ["Denoiser.loss", "DenoiserWithVariance.loss", "SimpleLossDenoiser.loss"]))
LIBRARIES = {"k_diffusion": (_cases, ENTRIES)}

if __name__ == "__main__":
    measure_each(LIBRARIES)
