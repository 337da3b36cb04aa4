"""Seven small attention libraries the analysis was never shown (in neither half of the harness, not
reserved), each measured on its own: Mega (moving-average gated attention, bidirectional and causal,
with Laplacian attention), axial attention (over images, with axial positional embeddings, and the
reversible image transformer), the compressive transformer (memories and compressed memories carried
between segments, its reconstruction loss, the autoregressive wrapper's loss), Conformer (blocks and
stacks, causal convolution), the hierarchical H-Transformer-1D (causal and not, reversible, token
shift), memory-efficient attention (chunked, cosine-similarity, the flash form, with masks and
causality) and Nystromformer (its attention with residual and masks, and the stack). Each is compiled as
a user compiles a layer or a model: in training and evaluation mode where it has dropout or a loss.

Run it where torch and the seven are installed together (here: `pip install torch==2.14.1 einops
scipy`, then with `--no-deps` `Mega-pytorch==0.1.0 axial-attention==0.6.1
compressive-transformer-pytorch==0.4.0 mogrifier conformer==0.3.2 h-transformer-1d==0.1.9
rotary-embedding-torch memory-efficient-attention-pytorch==0.1.6 nystrom-attention==0.0.14`), from the
repository root:

    python bench/unseen_attention_variants.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each library's cases under dynamo and prints which of the statements dynamo broke
on the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_attention_variants.txt.
"""

import warnings

from unseen import measure_each, modes  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")
B, N, D = 2, 64, 32


def _mega():
    from mega_pytorch import Mega, MegaLayer, MultiHeadedEMA
    x = torch.randn(B, N, D)
    out = []
    out += modes("MegaLayer", MegaLayer(dim=D, ema_heads=4, attn_dim_qk=16, attn_dim_value=32), (x,))
    out += modes("MegaLayer.laplacian", MegaLayer(dim=D, laplacian_attn_fn=True), (x,))
    out += modes("MultiHeadedEMA.bidirectional", MultiHeadedEMA(dim=D, heads=4, bidirectional=True), (x,))
    out += modes("MultiHeadedEMA", MultiHeadedEMA(dim=D, heads=4), (x,))
    tokens = torch.randint(0, 100, (B, N))
    out += modes("Mega", Mega(num_tokens=100, dim=D, depth=2), (tokens,))
    out += modes("Mega.causal", Mega(num_tokens=100, dim=D, depth=1, causal=True, pre_norm=True), (tokens,))
    return out


def _axial():
    from axial_attention import AxialAttention, AxialImageTransformer, AxialPositionalEmbedding
    image = torch.randn(B, 3, 16, 16)
    out = []
    out += modes("AxialAttention", AxialAttention(dim=3, dim_index=1, heads=1, num_dimensions=2), (image,))
    out += modes("AxialAttention.sum_axial_out_false",
                 AxialAttention(dim=3, dim_index=1, heads=1, num_dimensions=2, sum_axial_out=False), (image,))
    out += modes("AxialPositionalEmbedding", AxialPositionalEmbedding(dim=3, shape=(16, 16), emb_dim_index=1), (image,))
    out += modes("AxialImageTransformer", AxialImageTransformer(dim=4, depth=2, heads=2, dim_index=1,
                                                                axial_pos_emb_shape=(16, 16)),
                 (torch.randn(B, 4, 16, 16),))
    out += modes("AxialImageTransformer.reversible",
                 AxialImageTransformer(dim=4, depth=2, heads=2, dim_index=1, reversible=True),
                 (torch.randn(B, 4, 16, 16),))
    return out


def _compressive():
    from compressive_transformer_pytorch import AutoregressiveWrapper, CompressiveTransformer
    tokens = torch.randint(0, 100, (B, 32))
    model = CompressiveTransformer(num_tokens=100, dim=D, depth=2, seq_len=16, mem_len=16, cmem_len=4,
                                   cmem_ratio=4, heads=2, memory_layers=[1, 2])
    out = []
    out += modes("CompressiveTransformer", model, (tokens[:, :16],), run=lambda m, t: m(t)[0])
    memories = model(tokens[:, :16])[1]
    out += modes("CompressiveTransformer.memories", model, (tokens[:, 16:],),
                 run=lambda m, t, mem=memories: m(t, memories=mem)[0])
    gated = CompressiveTransformer(num_tokens=100, dim=D, depth=1, seq_len=16, heads=2, mogrify_gru=True,
                                   reconstruction_loss_weight=1.0)
    out += modes("CompressiveTransformer.aux_loss", gated, (tokens[:, :16],), run=lambda m, t: m(t)[2])
    wrapper = AutoregressiveWrapper(CompressiveTransformer(num_tokens=100, dim=D, depth=1, seq_len=16, heads=2))
    out += modes("AutoregressiveWrapper.loss", wrapper, (tokens,), run=lambda m, t: m(t, return_loss=True))
    return out


def _conformer():
    from conformer import Conformer, ConformerBlock, ConformerConvModule
    x = torch.randn(B, N, D)
    out = []
    out += modes("ConformerBlock", ConformerBlock(dim=D, dim_head=16, heads=2, conv_kernel_size=7), (x,))
    out += modes("ConformerConvModule.causal", ConformerConvModule(dim=D, causal=True, kernel_size=7), (x,))
    out += modes("Conformer", Conformer(dim=D, depth=2, dim_head=16, heads=2, conv_kernel_size=7), (x,))
    mask = torch.ones(B, N, dtype=torch.bool)
    mask[0, N // 2:] = False
    block = ConformerBlock(dim=D, dim_head=16, heads=2, conv_kernel_size=7)
    out += modes("ConformerBlock.mask", block, (x,), run=lambda m, t, k=mask: m(t, mask=k))
    return out


def _h_transformer():
    from h_transformer_1d import HTransformer1D
    tokens = torch.randint(0, 100, (B, 128))
    out = []
    for name, kwargs in (("", {}), (".causal", {"causal": True}), (".reversible", {"reversible": True}),
                         (".shift_tokens", {"shift_tokens": True})):
        model = HTransformer1D(num_tokens=100, dim=D, depth=2, max_seq_len=128, heads=2, dim_head=16,
                               block_size=16, **kwargs)
        out += modes(f"HTransformer1D{name}", model, (tokens,))
    mask = torch.ones(B, 128, dtype=torch.bool)
    mask[0, 100:] = False
    out += modes("HTransformer1D.mask", model, (tokens,), run=lambda m, t, k=mask: m(t, mask=k))
    return out


def _memory_efficient():
    from memory_efficient_attention_pytorch import Attention, CosineSimAttention, FlashAttention
    x = torch.randn(B, N, D)
    mask = torch.ones(B, N, dtype=torch.bool)
    mask[0, N // 2:] = False
    out = []
    for cls, kwargs in ((Attention, {"memory_efficient": True, "q_bucket_size": 16, "k_bucket_size": 16}),
                        (Attention, {"memory_efficient": False}),
                        (Attention, {"memory_efficient": True, "causal": True, "q_bucket_size": 16,
                                     "k_bucket_size": 16}),
                        (CosineSimAttention, {"memory_efficient": True, "q_bucket_size": 16, "k_bucket_size": 16,
                                              "seq_len": N}),
                        (FlashAttention, {"q_bucket_size": 16, "k_bucket_size": 16}),
                        (FlashAttention, {"causal": True, "q_bucket_size": 16, "k_bucket_size": 16})):
        layer = cls(dim=D, dim_head=16, heads=2, **kwargs)
        name = f"{cls.__name__}{'.causal' if kwargs.get('causal') else ''}{'.plain' if not kwargs.get('memory_efficient', True) else ''}"
        out += modes(name, layer, (x,))
        out += modes(f"{name}.mask", layer, (x,), run=lambda m, t, k=mask: m(t, mask=k))
    return out


def _nystrom():
    from nystrom_attention import NystromAttention, Nystromformer
    x = torch.randn(B, 60, D)  # not a multiple of the landmarks: the sequence is padded
    mask = torch.ones(B, 60, dtype=torch.bool)
    mask[0, 40:] = False
    out = []
    attention = NystromAttention(dim=D, dim_head=16, heads=2, num_landmarks=16, pinv_iterations=6)
    out += modes("NystromAttention", attention, (x,))
    out += modes("NystromAttention.mask", attention, (x,), run=lambda m, t, k=mask: m(t, mask=k))
    out += modes("NystromAttention.return_attn", attention, (x,), run=lambda m, t: m(t, return_attn=True)[0])
    out += modes("Nystromformer", Nystromformer(dim=D, dim_head=16, heads=2, depth=2, num_landmarks=16), (x,))
    return out


LIBRARIES = {
    "mega_pytorch": (_mega, ["mega_pytorch.Mega", "mega_pytorch.MegaLayer", "mega_pytorch.MultiHeadedEMA"]),
    "axial_attention": (_axial, ["axial_attention.AxialAttention", "axial_attention.AxialImageTransformer",
                                 "axial_attention.AxialPositionalEmbedding"]),
    "compressive_transformer_pytorch": (_compressive, ["compressive_transformer_pytorch.CompressiveTransformer",
                                                       "compressive_transformer_pytorch.AutoregressiveWrapper"]),
    "conformer": (_conformer, ["conformer.Conformer", "conformer.ConformerBlock", "conformer.ConformerConvModule"]),
    "h_transformer_1d": (_h_transformer, ["h_transformer_1d.HTransformer1D"]),
    "memory_efficient_attention_pytorch": (_memory_efficient, [
        "memory_efficient_attention_pytorch.Attention", "memory_efficient_attention_pytorch.CosineSimAttention",
        "memory_efficient_attention_pytorch.FlashAttention"]),
    "nystrom_attention": (_nystrom, ["nystrom_attention.NystromAttention", "nystrom_attention.Nystromformer"]),
}

if __name__ == "__main__":
    measure_each(LIBRARIES)
