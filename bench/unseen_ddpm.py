"""denoising-diffusion-pytorch, a library the analysis was never shown (in neither half of the harness,
not reserved): its diffusion models' training losses (`forward`) and sampling loops, in the
discrete-time, learned-variance, weighted-objective, continuous-time, v-parameterized and elucidated
forms, over its U-Nets (2-D, 1-D, Karras), under dynamo against the static pass on the same tree.

Run it where torch and denoising-diffusion-pytorch are installed together (here: `pip install
torch==2.14.1 denoising-diffusion-pytorch==2.3.4`), from the repository root:

    python bench/unseen_ddpm.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_ddpm.txt.
"""

from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import denoising_diffusion_pytorch as ddp
import torch

ROOT = Path(ddp.__file__).resolve().parent
ENTRY_POINTS = [f"denoising_diffusion_pytorch.{module}.{cls}.sample" for module, cls in (
    ("denoising_diffusion_pytorch", "GaussianDiffusion"),
    ("learned_gaussian_diffusion", "LearnedGaussianDiffusion"),
    ("weighted_objective_gaussian_diffusion", "WeightedObjectiveGaussianDiffusion"),
    ("continuous_time_gaussian_diffusion", "ContinuousTimeGaussianDiffusion"),
    ("v_param_continuous_time_gaussian_diffusion", "VParamContinuousTimeGaussianDiffusion"),
    ("elucidated_diffusion", "ElucidatedDiffusion"),
    ("denoising_diffusion_pytorch_1d", "GaussianDiffusion1D"))]


def _unet(**kw):
    return ddp.Unet(dim=16, dim_mults=(1, 2), flash_attn=False, **kw)


def cases():
    g = torch.Generator().manual_seed(0)
    images = torch.rand(2, 3, 16, 16, generator=g)
    seqs = torch.rand(2, 3, 32, generator=g)
    out = []
    models = [
        ("GaussianDiffusion", ddp.GaussianDiffusion(_unet(), image_size=16, timesteps=20, sampling_timesteps=4)),
        ("GaussianDiffusion.pred_x0", ddp.GaussianDiffusion(_unet(self_condition=True), image_size=16, timesteps=20,
                                                            objective="pred_x0")),
        ("LearnedGaussianDiffusion", ddp.LearnedGaussianDiffusion(_unet(learned_variance=True), image_size=16,
                                                                  timesteps=20)),
        ("WeightedObjectiveGaussianDiffusion", ddp.WeightedObjectiveGaussianDiffusion(
            ddp.Unet(dim=16, dim_mults=(1, 2), out_dim=8, flash_attn=False), image_size=16, timesteps=20)),
        ("ContinuousTimeGaussianDiffusion", ddp.ContinuousTimeGaussianDiffusion(
            _unet(learned_sinusoidal_cond=True), image_size=16, num_sample_steps=4)),
        ("VParamContinuousTimeGaussianDiffusion", ddp.VParamContinuousTimeGaussianDiffusion(
            _unet(learned_sinusoidal_cond=True), image_size=16, num_sample_steps=4)),
        ("ElucidatedDiffusion", ddp.ElucidatedDiffusion(_unet(learned_sinusoidal_cond=True), image_size=16,
                                                        num_sample_steps=4)),
    ]
    for name, model in models:
        out.append((f"{name}@train", model.train(), (images,)))
        out.append((f"{name}@sample", lambda n, m=model: m.eval().sample(batch_size=n), (2,)))
    d1 = ddp.GaussianDiffusion1D(ddp.Unet1D(dim=16, dim_mults=(1, 2), channels=3), seq_length=32, timesteps=20,
                                 sampling_timesteps=4)
    out.append(("GaussianDiffusion1D@train", d1.train(), (seqs,)))
    out.append(("GaussianDiffusion1D@sample", lambda n, m=d1: m.eval().sample(batch_size=n), (2,)))
    karras = ddp.KarrasUnet(image_size=16, dim=16, dim_max=32, num_downsamples=2, channels=3, num_blocks_per_stage=1,
                            attn_res=(8,), attn_dim_head=16)
    out.append(("KarrasUnet", karras, (images, torch.rand(2, generator=g))))
    return out


def main() -> None:
    measure(ROOT, cases, ENTRY_POINTS, "denoising-diffusion-pytorch 2.3.4")


if __name__ == "__main__":
    main()
