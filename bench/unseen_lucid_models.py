"""Seven small model libraries of one author's style the analysis was never shown (in neither half of the
harness, not reserved): X-UNet, speculative decoding (the decoder and its two decoding loops),
SE(3)-Transformer, E(n)-Transformer, the hourglass transformer (with its autoregressive wrapper's loss and
sampling), Titans (the neural memory and the memory-as-context transformer) and Equiformer, each compiled
where a user compiles it: the model's forward in training and evaluation mode, its loss where it computes
one, and its decoding loop where it has one.

Run it where torch and the seven are installed together (here: `pip install torch==2.14.1 x-unet
speculative-decoding se3-transformer-pytorch En-transformer hourglass-transformer-pytorch titans-pytorch
equiformer-pytorch`), from the repository root:

    python bench/unseen_lucid_models.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure_each` runs each library's cases under dynamo and prints which of the statements dynamo broke on
the static pass reports; with `--sites FILE` its answers are kept beside FILE. Results:
bench/results/unseen_lucid_models.txt.
"""

import logging
import warnings

from unseen import entries, measure_each, modes  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

TOKENS = 64


def _tokens(n: int = 16) -> torch.Tensor:
    return torch.randint(1, TOKENS, (2, n))


def _x_unet():
    from x_unet import XUnet

    unet = XUnet(dim=16, channels=3, dim_mults=(1, 2), num_blocks_per_stage=(1, 1), num_self_attn_per_stage=(0, 1),
                 nested_unet_depths=(0, 0), attn_heads=2, attn_dim_head=8)
    nested = XUnet(dim=16, channels=3, dim_mults=(1, 2), num_blocks_per_stage=(1, 1),
                   num_self_attn_per_stage=(0, 1), nested_unet_depths=(2, 1), attn_heads=2, attn_dim_head=8)
    video = XUnet(dim=16, frame_kernel_size=3, channels=3, dim_mults=(1, 2), num_blocks_per_stage=(1, 1),
                  num_self_attn_per_stage=(0, 1), nested_unet_depths=(0, 0), attn_heads=2, attn_dim_head=8)
    return (modes("XUnet", unet, (torch.randn(1, 3, 32, 32),)) + modes("XUnet.nested", nested, (torch.randn(1, 3, 32, 32),))
            + modes("XUnet.video", video, (torch.randn(1, 3, 4, 32, 32),)))


def _speculative():
    from speculative_decoding import Decoder, base_decoding, speculative_decoding

    net = Decoder(num_tokens=TOKENS, dim=32, depth=2, heads=2, dim_head=8).eval()
    small = Decoder(num_tokens=TOKENS, dim=16, depth=1, heads=2, dim_head=8).eval()
    prompt = _tokens(4)
    out = modes("Decoder", net, (_tokens(),))
    out.append(("Decoder.loss", lambda x: net(x, return_loss=True), (_tokens(),)))
    out.append(("base_decoding", lambda p: base_decoding(net, p, 8), (prompt,)))
    out.append(("speculative_decoding", lambda p: speculative_decoding(net, small, p, 8, gamma=3), (prompt,)))
    return out


def _se3():
    from se3_transformer_pytorch import SE3Transformer

    model = SE3Transformer(dim=16, heads=2, depth=1, dim_head=8, num_degrees=2, valid_radius=10)
    edges = SE3Transformer(dim=16, heads=2, depth=1, dim_head=8, num_degrees=2, num_neighbors=3,
                           num_edge_tokens=4, edge_dim=4)
    feats, coors, mask = torch.randn(1, 8, 16), torch.randn(1, 8, 3), torch.ones(1, 8).bool()
    return (modes("SE3Transformer", model, (feats, coors, mask))
            + modes("SE3Transformer.edges", edges, (feats, coors, mask, None, torch.randint(0, 4, (1, 8, 8)))))


def _en():
    from en_transformer import EnTransformer

    model = EnTransformer(dim=16, depth=2, dim_head=32, heads=2, neighbors=4)
    sparse = EnTransformer(dim=16, depth=1, dim_head=32, heads=2, neighbors=3, only_sparse_neighbors=True)
    feats, coors, mask = torch.randn(1, 8, 16), torch.randn(1, 8, 3), torch.ones(1, 8).bool()
    adjacency = torch.rand(1, 8, 8) > 0.5
    return (modes("EnTransformer", model, (feats, coors, mask))
            + modes("EnTransformer.sparse", sparse, (feats, coors, mask),
                    run=lambda m, f, c, k: m(f, c, mask=k, adj_mat=adjacency)))


def _hourglass():
    from hourglass_transformer_pytorch import HourglassTransformerLM
    from hourglass_transformer_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    model = HourglassTransformerLM(num_tokens=TOKENS, dim=32, max_seq_len=32, depth=(1, 1, 1), shorten_factor=2,
                                   heads=2, dim_head=8)
    causal = HourglassTransformerLM(num_tokens=TOKENS, dim=32, max_seq_len=32, depth=(1, 1, 1), shorten_factor=2,
                                    heads=2, dim_head=8, causal=False, updown_sample_type="linear")
    wrapper = AutoregressiveWrapper(model)
    return (modes("HourglassTransformerLM", model, (_tokens(),)) + modes("HourglassTransformerLM.linear", causal, (_tokens(),))
            + [("AutoregressiveWrapper.loss", lambda x: wrapper(x), (_tokens(17),)),
               ("AutoregressiveWrapper.generate", lambda p: wrapper.generate(p, 6), (_tokens(4),))])


def _titans():
    from titans_pytorch import MemoryAsContextTransformer, NeuralMemory

    memory = NeuralMemory(dim=32, chunk_size=4)
    model = MemoryAsContextTransformer(num_tokens=TOKENS, dim=32, depth=2, segment_len=8, num_persist_mem_tokens=2,
                                       num_longterm_mem_tokens=2, dim_head=8, heads=2)
    seq = torch.randn(2, 16, 32)
    return (modes("NeuralMemory", memory, (seq,), run=lambda m, s: m(s)[0])
            + modes("MemoryAsContextTransformer", model, (_tokens(),))
            + [("MemoryAsContextTransformer.loss", lambda x: model(x, return_loss=True), (_tokens(17),))])


def _equiformer():
    from equiformer_pytorch import Equiformer

    model = Equiformer(num_tokens=24, dim=(4, 4, 2), dim_head=(4, 4, 4), heads=(2, 2, 2), num_degrees=3, depth=2,
                       attend_self=True, reduce_dim_out=True, num_linear_attn_heads=0)
    neighbors = Equiformer(num_tokens=24, dim=(4, 4), dim_head=(4, 4), heads=(2, 2), num_degrees=2, depth=1,
                           num_neighbors=3, reduce_dim_out=True)
    atoms, coors, mask = torch.randint(0, 24, (1, 8)), torch.randn(1, 8, 3), torch.ones(1, 8).bool()
    return (modes("Equiformer", model, (atoms, coors, mask), run=lambda m, *a: m(*a).type0)
            + modes("Equiformer.neighbors", neighbors, (atoms, coors, mask), run=lambda m, *a: m(*a).type0))


LIBRARIES = {
    "x_unet": (_x_unet, []),
    "speculative_decoding": (_speculative, entries("speculative_decoding.speculative_decoding", [
        "base_decoding", "speculative_decoding"])),
    "se3_transformer_pytorch": (_se3, []),
    "en_transformer": (_en, []),
    "hourglass_transformer_pytorch": (_hourglass, entries("hourglass_transformer_pytorch.autoregressive_wrapper", [
        "AutoregressiveWrapper.generate"])),
    "titans_pytorch": (_titans, []),
    "equiformer_pytorch": (_equiformer, []),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
