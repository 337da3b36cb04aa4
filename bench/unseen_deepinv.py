"""DeepInverse, a library the analysis was never shown (in neither half of the harness, not reserved): its
denoisers and reconstruction networks (DRUNet, DnCNN, SCUNet, SwinIR, Restormer, UNet, FFDNet, TV, TGV,
wavelet, median and bilateral filters, noise estimators, ...) called on a noisy image with its noise
level, its physics operators (inpainting, blur, downsampling, compressed sensing, MRI, tomography,
demosaicing, single-pixel camera, phase retrieval, ...) applied forward, adjoint and with their noise,
and its losses and metrics (supervised, measurement consistency, SURE, TV, PSNR, SSIM, ...), each
compiled as a user compiles a model, an operator or a training loss, in training and eval mode, under
dynamo against the static pass on the same tree.

Run it where torch and DeepInverse are installed together (here: `pip install torch==2.14.1
torchvision==0.29.1 einops matplotlib h5py tqdm requests`, then `pip install --no-deps deepinv==0.5.0
natsort torchmetrics ptwt pywavelets`), from the repository root:

    python bench/unseen_deepinv.py [--src OTHER_TREE/src] [--sites FILE]

Every network is built without pretrained weights. A constructor or a call that raises eagerly (an
option a model lacks, a package not installed) leaves its case out. `unseen.measure` runs each case
under dynamo and prints which of the statements dynamo broke on the static pass reports. Results:
bench/results/unseen_deepinv.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch

import deepinv as dinv  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(dinv.__file__).resolve().parent
N, H = 1, 32

DENOISERS = {
    "DRUNet": lambda: dinv.models.DRUNet(pretrained=None), "DnCNN": lambda: dinv.models.DnCNN(pretrained=None),
    "SCUNet": lambda: dinv.models.SCUNet(pretrained=None), "SwinIR": lambda: dinv.models.SwinIR(pretrained=None),
    "Restormer": lambda: dinv.models.Restormer(pretrained=None), "UNet": lambda: dinv.models.UNet(3, 3),
    "FFDNet": lambda: dinv.models.FFDNet(pretrained=None), "TVDenoiser": lambda: dinv.models.TVDenoiser(n_it_max=5),
    "TGVDenoiser": lambda: dinv.models.TGVDenoiser(n_it_max=5),
    "WaveletDenoiser": lambda: dinv.models.WaveletDenoiser(), "MedianFilter": lambda: dinv.models.MedianFilter(),
    "BilateralFilter": lambda: dinv.models.BilateralFilter(), "DScCP": lambda: dinv.models.DScCP(pretrained=None),
    "ConvLista": lambda: dinv.models.ConvLista(),
    "EquivariantDenoiser": lambda: dinv.models.EquivariantDenoiser(dinv.models.DnCNN(pretrained=None)),
    "AutoEncoder": lambda: dinv.models.AutoEncoder(dim_input=3 * 8 * 8, dim_mid=32, dim_hid=16),
    "WaveletDictDenoiser": lambda: dinv.models.WaveletDictDenoiser(max_iter=3),
    "SRResNet": lambda: dinv.models.SRResNet(), "PromptIR": lambda: dinv.models.PromptIR(),
    "MPRNet": lambda: dinv.models.MPRNet(pretrained=None), "SCUNet_small": lambda: dinv.models.SCUNet(pretrained=None, config=[1] * 7),
}
ESTIMATORS = {"WaveletNoiseEstimator": lambda: dinv.models.WaveletNoiseEstimator(),
              "PatchCovarianceNoiseEstimator": lambda: dinv.models.PatchCovarianceNoiseEstimator()}
PHYSICS = {
    "Denoising": lambda: dinv.physics.Denoising(dinv.physics.GaussianNoise(0.1)),
    "Inpainting": lambda: dinv.physics.Inpainting((3, H, H), mask=0.5, noise_model=dinv.physics.GaussianNoise(0.1)),
    "Blur": lambda: dinv.physics.Blur(dinv.physics.blur.gaussian_blur(1.0)),
    "BlurFFT": lambda: dinv.physics.BlurFFT((3, H, H), dinv.physics.blur.gaussian_blur(1.0)),
    "Downsampling": lambda: dinv.physics.Downsampling((3, H, H), factor=2),
    "CompressedSensing": lambda: dinv.physics.CompressedSensing(m=64, img_size=(1, 8, 8)),
    "MRI": lambda: dinv.physics.MRI(img_size=(2, H, H)),
    "Tomography": lambda: dinv.physics.Tomography(angles=8, img_width=H),
    "Decolorize": lambda: dinv.physics.Decolorize(),
    "Demosaicing": lambda: dinv.physics.Demosaicing((3, H, H)),
    "SinglePixelCamera": lambda: dinv.physics.SinglePixelCamera(m=16, img_size=(1, 8, 8)),
    "RandomPhaseRetrieval": lambda: dinv.physics.RandomPhaseRetrieval(m=64, img_size=(1, 8, 8)),
    "PoissonDenoising": lambda: dinv.physics.Denoising(dinv.physics.PoissonNoise(0.1)),
    "SaltPepperDenoising": lambda: dinv.physics.Denoising(dinv.physics.SaltPepperNoise()),
}
INPUT_SIZES = {"CompressedSensing": (1, 8, 8), "SinglePixelCamera": (1, 8, 8), "RandomPhaseRetrieval": (1, 8, 8),
               "MRI": (2, H, H), "Tomography": (1, H, H)}


def cases():
    torch.manual_seed(0)
    out = []
    x = torch.rand(N, 3, H, H)
    sigma = 0.1
    for name, build in {**DENOISERS, **ESTIMATORS}.items():
        try:
            model = build()
        except Exception as e:  # noqa: BLE001 - a model this install cannot build
            print("left out:", name, type(e).__name__, str(e)[:80])
            continue
        args = (x,) if name in ESTIMATORS else (x, sigma)
        if name == "AutoEncoder":
            args = (torch.rand(N, 3, 8, 8), sigma)
        for training in (True, False):
            def run(*args, model=model, training=training):
                model.train(training)
                return model(*args)
            out.append((f"{name}@{'train' if training else 'eval'}", run, args))
    for name, build in PHYSICS.items():
        try:
            physics = build()
        except Exception as e:  # noqa: BLE001
            print("left out:", name, type(e).__name__, str(e)[:80])
            continue
        image = torch.rand(N, *INPUT_SIZES.get(name, (3, H, H)))
        out.append((f"{name}.forward", physics, (image,)))
        out.append((f"{name}.A_adjoint", lambda x, p=physics: p.A_adjoint(p.A(x)), (image,)))
    denoiser = dinv.models.DnCNN(pretrained=None, depth=3)
    blur = dinv.physics.Blur(dinv.physics.blur.gaussian_blur(1.0), noise_model=dinv.physics.GaussianNoise(0.1))
    y = blur(x)
    x_net = denoiser(blur.A_adjoint(y), sigma)
    losses = {"SupLoss": dinv.loss.SupLoss(), "MCLoss": dinv.loss.MCLoss(), "TVLoss": dinv.loss.TVLoss(),
              "SureGaussianLoss": dinv.loss.SureGaussianLoss(sigma=0.1), "R2RLoss": dinv.loss.R2RLoss(),
              "SplittingLoss": dinv.loss.SplittingLoss(), "Neighbor2Neighbor": dinv.loss.Neighbor2Neighbor(),
              "EILoss": dinv.loss.EILoss(dinv.transform.Shift())}
    for name, loss in losses.items():
        def train(x, y, x_net, loss=loss):
            return loss(x_net=x_net, x=x, y=y, physics=blur, model=lambda y, physics: denoiser(physics.A_adjoint(y), sigma))
        out.append((name, train, (x, y, x_net)))
    for name in ("MSE", "NMSE", "PSNR", "SSIM", "MAE", "LpNorm", "CosineSimilarity"):
        try:
            metric = getattr(dinv.loss.metric, name)()
        except Exception as e:  # noqa: BLE001
            print("left out:", name, type(e).__name__, str(e)[:80])
            continue
        out.append((name, lambda a, b, m=metric: m(a, b), (x_net, x)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, [], f"deepinv {version('deepinv')}")
