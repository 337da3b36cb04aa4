"""Torchhd, a library of hyperdimensional computing the analysis was never shown (in neither half of the harness, not
reserved): its operations (bind, bundle, permute, similarity, multiset, n-grams, hash tables, graphs, cleanup and
the resonator network) on hypervectors of four architectures (MAP, BSC, HRR, FHRR, each a tensor subclass), its
embeddings (random, level, thermometer, circular, projection, sinusoid, density, fractional power) called on inputs,
the centroid model, the sparse distributed and Hopfield memories read back, and the classifiers' forward passes.

Run it where torch and torchhd are installed together (here: `pip install torch==2.14.1 scipy pandas tqdm
requests`, then `pip install --no-deps torch-hd==5.8.4`), from the repository root:

    python bench/unseen_torchhd.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the static pass
reports. Results: bench/results/unseen_torchhd.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch
import torchhd
from torchhd import classifiers, embeddings, memory, models

warnings.filterwarnings("ignore")
ROOT = Path(torchhd.__file__).resolve().parent
ENTRY_POINTS = [f"torchhd.functional.{name}" for name in (
    "bind", "bundle", "permute", "cosine_similarity", "dot_similarity", "hamming_similarity", "multiset", "ngrams",
    "hash_table", "graph", "cleanup", "resonator", "hard_quantize", "bundle_sequence", "bind_sequence")] + [
    "torchhd.memory.SparseDistributed.read", "torchhd.memory.Hopfield.read"]


def _operations(vsa):
    hv = torchhd.random(6, 64, vsa)
    memory_ = torchhd.random(4, 64, vsa)
    return [
        (f"{vsa}.bind", torchhd.bind, (hv[0], hv[1])), (f"{vsa}.bundle", torchhd.bundle, (hv[0], hv[1])),
        (f"{vsa}.permute", lambda a: torchhd.permute(a, shifts=2), (hv,)),
        (f"{vsa}.cosine_similarity", torchhd.cosine_similarity, (hv[0], memory_)),
        (f"{vsa}.dot_similarity", torchhd.dot_similarity, (hv[0], memory_)),
        (f"{vsa}.multiset", torchhd.multiset, (hv,)), (f"{vsa}.ngrams", torchhd.ngrams, (hv,)),
        (f"{vsa}.hash_table", torchhd.hash_table, (hv[:3], hv[3:])),
        (f"{vsa}.graph", torchhd.graph, (torch.stack([hv[:3], hv[3:]], dim=-2),)),
        (f"{vsa}.cleanup", torchhd.cleanup, (hv[0], memory_)),
        (f"{vsa}.bundle_sequence", torchhd.bundle_sequence, (hv,)),
        (f"{vsa}.bind_sequence", torchhd.bind_sequence, (hv,)),
    ]


def cases():
    torch.manual_seed(0)
    out = []
    for vsa in ("MAP", "BSC", "HRR", "FHRR"):
        out += _operations(vsa)
    domains = torchhd.random(8, 64, "MAP").reshape(2, 4, 64)
    estimates = torchhd.multiset(domains)
    out.append(("MAP.resonator", torchhd.resonator, (torchhd.bind(domains[0, 0], domains[1, 1]), estimates, domains)))
    out.append(("hard_quantize", torchhd.hard_quantize, (torch.randn(4, 64),)))
    index, values = torch.randint(0, 10, (4, 3)), torch.rand(4, 3)
    for vsa in ("MAP", "FHRR"):
        for name, arg in (("Random", index), ("Level", values), ("Thermometer", values), ("Circular", values),
                          ("Projection", values), ("Sinusoid", values), ("Density", values)):
            size = 10 if name in ("Random", "Level", "Thermometer", "Circular") else 3
            try:
                embed = getattr(embeddings, name)(size, 64, vsa)
            except ValueError as e:  # an architecture the embedding does not take
                print("left out:", f"{name}.{vsa}", str(e)[:100])
                continue
            out.append((f"{name}.{vsa}", embed, (arg,)))
    out.append(("FractionalPower.FHRR", embeddings.FractionalPower(3, 64, vsa="FHRR"), (values,)))
    centroid = models.Centroid(64, 3)
    out.append(("Centroid", centroid, (torch.randn(4, 64),)))
    out.append(("Centroid.dot", lambda x: centroid(x, dot=True), (torch.randn(4, 64),)))
    sdm = memory.SparseDistributed(32, 64, 64)
    keys = torchhd.random(4, 64, "MAP")
    sdm.write(keys, keys)
    out.append(("SparseDistributed.read", sdm.read, (keys,)))
    hopfield = memory.Hopfield(64)
    hopfield.write(torchhd.random(4, 64, "MAP"))
    out.append(("Hopfield.read", hopfield.read, (torchhd.random(2, 64, "MAP"),)))
    for name in ("Vanilla", "AdaptHD", "OnlineHD", "RefineHD", "NeuralHD", "DistHD", "CompHD", "SparseHD", "QuantHD",
                 "LeHDC", "IntRVFL"):
        cls = getattr(classifiers, name, None)
        if cls is None:
            continue
        try:
            model = cls(3, 64, 2)
        except Exception as e:  # noqa: BLE001 - a classifier this release builds otherwise
            print("left out:", name, type(e).__name__, str(e)[:100])
            continue
        out.append((f"{name}.forward", model, (torch.randn(4, 3),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"torch-hd {version('torch-hd')}")
