"""Five small libraries the analysis was never shown (in neither half of the harness, not reserved), each
measured on its own: piqa (image quality metrics: SSIM, MS-SSIM, PSNR, TV, GMSD, MS-GMSD, MDSI, HaarPSI,
VSI, FSIM), pytorch-partial-crf (linear-chain CRFs with partial and marginal labels: their losses and Viterbi
decoding), torch-semiring-einsum (einsum over the real, log and Viterbi semirings, computed in blocks),
torch-dct (discrete cosine transforms and their linear-layer form) and torch-pme (Ewald, PME and P3M
electrostatics of a small periodic system), in training and evaluation mode where they are layers. Each is
compiled as a user compiles a loss, a decoding step or a physics layer.

Run it where torch and the five are installed together (here: `pip install torch==2.14.1 pynvml`, then with
`--no-deps` `piqa==1.3.2 pytorch-partial-crf==0.2.1 torch-semiring-einsum==1.2.0 torch-dct==0.1.6
torch-pme==0.5.0`), from the repository root:

    python bench/unseen_small_structured.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each library's cases under dynamo and prints which of the statements dynamo broke
on the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_small_structured.txt.
"""

import warnings

from unseen import entries, measure_each, modes  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def _piqa():
    import piqa
    x, y = torch.rand(2, 3, 64, 64), torch.rand(2, 3, 64, 64)
    out = []
    for name in ("SSIM", "MS_SSIM", "PSNR", "TV", "GMSD", "MS_GMSD", "MDSI", "HaarPSI", "VSI", "FSIM"):
        metric = getattr(piqa, name)()
        args = (x,) if name == "TV" else (x, y)
        out += modes(name, metric, args)
    out.append(("ssim.fn", lambda a, b: piqa.ssim.ssim(a, b, piqa.utils.functional.gaussian_kernel(7))[0], (x, y)))
    out.append(("psnr.fn", lambda a, b: piqa.psnr.psnr(a, b), (x, y)))
    return out


def _crf():
    import pytorch_partial_crf as pc
    emissions = torch.randn(3, 5, 4)
    tags = torch.randint(0, 4, (3, 5))
    partial = tags.clone()
    partial[:, 1] = -1  # an unknown label: the partial CRF sums over every tag there
    mask = torch.ones(3, 5, dtype=torch.uint8)
    mask[0, 3:] = 0
    marginal = torch.softmax(torch.randn(3, 5, 4), -1)
    out = []
    for name, crf, labels in (("CRF", pc.CRF(4), tags), ("PartialCRF", pc.PartialCRF(4), partial),
                              ("MarginalCRF", pc.MarginalCRF(4), marginal)):
        out += modes(name, crf, (emissions, labels, mask))
        out.append((f"{name}.viterbi_decode", lambda e, m, c=crf: c.viterbi_decode(e, m), (emissions, mask)))
        out.append((f"{name}.marginal_probabilities", lambda e, m, c=crf: c.marginal_probabilities(e, m),
                    (emissions, mask)))
    out.append(("CRF.restricted_viterbi_decode",
                lambda e, m, c=pc.CRF(4): c.restricted_viterbi_decode(e, torch.ones(3, 5, 4, dtype=torch.uint8), m),
                (emissions, mask)))
    return out


def _semiring():
    import torch_semiring_einsum as tse
    eq = tse.compile_equation("bik,bkj->bij")
    a, b = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    return [
        ("einsum", lambda p, q: tse.einsum(eq, p, q, block_size=2), (a, b)),
        ("log_einsum", lambda p, q: tse.log_einsum(eq, p, q, block_size=2), (a, b)),
        ("log_einsum.auto", lambda p, q: tse.log_einsum(eq, p, q), (a, b)),
        ("log_viterbi_einsum_forward", lambda p, q: tse.log_viterbi_einsum_forward(eq, p, q, block_size=2)[0],
         (a, b)),
        ("real_einsum_forward", lambda p, q: tse.real_einsum_forward(eq, p, q, block_size=2), (a, b)),
        ("compile_and_einsum", lambda p, q: tse.einsum(tse.compile_equation("ik,kj->ij"), p[0], q[0], block_size=2),
         (a, b)),
    ]


def _dct():
    import torch_dct as dct
    x = torch.randn(4, 16)
    img = torch.randn(2, 8, 8)
    out = [(name, (lambda t, f=getattr(dct, name): f(t)), (x,)) for name in ("dct1", "idct1", "dct", "idct")]
    out += [("dct.ortho", lambda t: dct.dct(t, norm="ortho"), (x,)),
            ("dct_2d", lambda t: dct.dct_2d(t, norm="ortho"), (img,)),
            ("idct_2d", lambda t: dct.idct_2d(t), (img,)),
            ("dct_3d", lambda t: dct.dct_3d(t), (img,)),
            ("idct_3d", lambda t: dct.idct_3d(t, norm="ortho"), (img,))]
    out += modes("LinearDCT", dct.LinearDCT(16, "dct", norm="ortho"), (x,))
    out.append(("apply_linear_2d", lambda t, lin=dct.LinearDCT(8, "idct"): dct.apply_linear_2d(t, lin), (img,)))
    return out


def _pme():
    import torchpme
    n = 8
    torch.manual_seed(0)
    cell = torch.eye(3, dtype=torch.float64) * 6.0
    positions = torch.rand(n, 3, dtype=torch.float64) * 6.0
    charges = torch.randn(n, 1, dtype=torch.float64)
    pairs = torch.tensor([(i, j) for i in range(n) for j in range(i + 1, n)])
    distances = (positions[pairs[:, 1]] - positions[pairs[:, 0]]).norm(dim=1)
    args = (charges, cell, positions, pairs, distances)
    out = []
    bare = torchpme.Calculator(torchpme.CoulombPotential()).to(torch.float64)
    out += modes("Calculator.bare", bare, args)
    for name, make in (("EwaldCalculator", lambda p: torchpme.EwaldCalculator(p, lr_wavelength=1.0)),
                       ("PMECalculator", lambda p: torchpme.PMECalculator(p, mesh_spacing=1.0)),
                       ("P3MCalculator", lambda p: torchpme.P3MCalculator(p, mesh_spacing=1.0))):
        out += modes(name, make(torchpme.CoulombPotential(smearing=1.0)).to(torch.float64), args)
    out += modes("EwaldCalculator.power", torchpme.EwaldCalculator(
        torchpme.InversePowerLawPotential(exponent=2, smearing=1.0), lr_wavelength=1.0).to(torch.float64), args)
    return out


LIBRARIES = {
    "piqa": (_piqa, entries("piqa", ["ssim.ssim", "psnr.psnr"])),
    "pytorch_partial_crf": (_crf, []),
    "torch_semiring_einsum": (_semiring, entries("torch_semiring_einsum", [
        "einsum", "log_einsum", "log_viterbi_einsum_forward", "real_einsum_forward", "compile_equation"])),
    "torch_dct": (_dct, entries("torch_dct", ["dct1", "idct1", "dct", "idct", "dct_2d", "idct_2d", "dct_3d",
                                              "idct_3d", "apply_linear_2d"])),
    "torchpme": (_pme, []),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
