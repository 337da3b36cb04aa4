"""Two small libraries the analysis was never shown (in neither half of the harness, not reserved), each measured
on its own: TorchCRF (a linear-chain CRF's log-likelihood with masks and padding, and its Viterbi decoding) and
torch-pca (scikit-learn's PCA in torch: `fit`, `fit_transform`, `transform`, `inverse_transform`, scores and
covariance, with each SVD solver, whitening, and the number of components given, as a fraction of variance, or
guessed by Minka's MLE).

Run it where torch and the two are installed together (here: `pip install torch==2.14.1`, then `pip install
--no-deps TorchCRF==1.1.0 torch-pca==1.1.0`), from the repository root:

    python bench/unseen_small_estimators.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure_each` runs each library's cases under dynamo and prints which of the statements dynamo broke on
the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_small_estimators.txt.
"""

import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def crf_cases():
    from TorchCRF import CRF

    h = torch.randn(3, 7, 5)
    labels = torch.randint(0, 5, (3, 7))
    mask = torch.ones(3, 7, dtype=torch.bool)
    mask[1, 5:] = False
    mask[2, 3:] = False
    out = []
    for pad in (None,):  # a padding index: its constructor writes in place into a parameter, which torch refuses
        crf = CRF(5, pad_idx=pad)
        tag = f"pad{pad}"
        out.append((f"CRF.{tag}", crf, (h, labels, mask)))
        out.append((f"CRF.viterbi_decode.{tag}", crf.viterbi_decode, (h, mask)))
    return out


def pca_cases():
    from torch_pca import PCA

    x = torch.randn(60, 12)
    out = []
    for solver, n in (("full", 4), ("covariance_eigh", 4), ("randomized", 4), ("full", 0.9), ("full", "mle"),
                      ("auto", None)):
        for whiten in (False, True):
            tag = f"{solver}.{n}{'.whiten' if whiten else ''}"
            out.append((f"PCA.fit_transform.{tag}", lambda a, s=solver, n=n, w=whiten: PCA(
                n, svd_solver=s, whiten=w, random_state=0).fit_transform(a), (x,)))
    fitted = PCA(4, svd_solver="full").fit(x)
    out.append(("PCA.transform", fitted.transform, (x,)))
    out.append(("PCA.inverse_transform", fitted.inverse_transform, (fitted.transform(x),)))
    out.append(("PCA.score_samples", fitted.score_samples, (x,)))
    out.append(("PCA.score", fitted.score, (x,)))
    out.append(("PCA.get_covariance", lambda _: fitted.get_covariance(), (x,)))
    out.append(("PCA.get_precision", lambda _: fitted.get_precision(), (x,)))
    return out


LIBRARIES = {
    "TorchCRF": (crf_cases, ["TorchCRF.CRF.viterbi_decode"]),
    "torch_pca": (pca_cases, ["torch_pca.pca_main.PCA.fit", "torch_pca.pca_main.PCA.fit_transform",
                              "torch_pca.pca_main.PCA.transform", "torch_pca.pca_main.PCA.inverse_transform",
                              "torch_pca.pca_main.PCA.score_samples", "torch_pca.pca_main.PCA.score",
                              "torch_pca.pca_main.PCA.get_covariance", "torch_pca.pca_main.PCA.get_precision"]),
}


if __name__ == "__main__":
    measure_each(LIBRARIES)
