"""Six small attention libraries the analysis was never shown (in neither half of the harness, not
reserved), each measured on its own: axial attention over images (`axial_attention`, reversible and
not), hierarchical attention (`h_transformer_1d`, causal and not, with a padding mask), lambda layers
(`lambda_networks`, local and global context), chunked memory-efficient attention
(`memory_efficient_attention_pytorch`: plain, cosine-similarity and flash-style, with masks and causal),
Nyström attention (`nystrom_attention`, with a mask and sequences not a multiple of the landmarks) and the
recurrent memory transformer (`recurrent_memory_transformer_pytorch`: one segment, and the wrapper
over several segments in training, where it computes its own loss). Each model runs forward in eval
mode, and in train mode where it has dropout or a loss.

Run it where torch and the six are installed together (here: `pip install torch==2.14.1 einops beartype
rotary-embedding-torch==0.9.1 hyper-connections==0.4.11 axial-attention==0.6.1 h-transformer-1d==0.1.9
lambda-networks==0.4.0 memory-efficient-attention-pytorch==0.1.6 nystrom-attention==0.0.14
recurrent-memory-transformer-pytorch==0.7.0`, the last six with `--no-deps`), from the repository root:

    python bench/unseen_attention.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each library's cases under dynamo and prints which of the statements dynamo broke
on the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_attention.txt.
"""

import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def _axial():
    from axial_attention import AxialAttention, AxialImageTransformer, AxialPositionalEmbedding
    img = torch.randn(1, 16, 8, 8)
    return [("attention", AxialAttention(dim=16, dim_index=1, heads=4, num_dimensions=2), (img,)),
            ("attention_sum", AxialAttention(dim=16, dim_index=1, heads=4, num_dimensions=2, sum_axial_out=False),
             (img,)),
            ("image_transformer", AxialImageTransformer(dim=16, depth=2, heads=4), (img,)),
            ("image_transformer_reversible", AxialImageTransformer(dim=16, depth=2, heads=4, reversible=True).train(),
             (img,)),
            ("positional", AxialPositionalEmbedding(dim=16, shape=(8, 8), emb_dim_index=1), (img,))]


def _htransformer():
    from h_transformer_1d import HTransformer1D
    tokens, mask = torch.randint(0, 256, (1, 128)), torch.ones(1, 128, dtype=torch.bool)
    mask[:, 100:] = False
    out = []
    for causal in (False, True):
        model = HTransformer1D(num_tokens=256, dim=64, depth=2, max_seq_len=128, heads=4, dim_head=16,
                               block_size=16, causal=causal)
        out.append((f"causal={causal}", model.eval(), (tokens,)))
        out.append((f"causal={causal}_mask", lambda t, m, model=model: model(t, mask=m), (tokens, mask)))
    out.append(("shift_tokens", HTransformer1D(num_tokens=256, dim=64, depth=1, max_seq_len=128, heads=4, dim_head=16,
                                               block_size=16, shift_tokens=True, reversible=True).train(), (tokens,)))
    return out


def _lambda():
    from lambda_networks import LambdaLayer
    x = torch.randn(1, 32, 16, 16)
    return [("local", LambdaLayer(dim=32, dim_out=32, r=5, dim_k=16, heads=4, dim_u=1), (x,)),
            ("global", LambdaLayer(dim=32, dim_out=32, n=16, dim_k=16, heads=4, dim_u=4), (x,))]


def _memory_efficient():
    from memory_efficient_attention_pytorch import Attention, CosineSimAttention, FlashAttention
    x = torch.randn(1, 64, 64)
    mask = torch.ones(1, 64, dtype=torch.bool)
    mask[:, 50:] = False
    out = []
    for causal in (False, True):
        for name, build in (("attention", lambda c: Attention(dim=64, dim_head=16, heads=4, causal=c,
                                                              memory_efficient=True, q_bucket_size=16,
                                                              k_bucket_size=16)),
                            ("cosine", lambda c: CosineSimAttention(dim=64, dim_head=16, heads=4, causal=c, seq_len=64,
                                                                    memory_efficient=True, q_bucket_size=16,
                                                                    k_bucket_size=16)),
                            ("flash", lambda c: FlashAttention(dim=64, dim_head=16, heads=4, causal=c,
                                                               q_bucket_size=16, k_bucket_size=16))):
            model = build(causal)
            out.append((f"{name}_causal={causal}", model, (x,)))
            out.append((f"{name}_causal={causal}_mask", lambda t, m, model=model: model(t, mask=m), (x, mask)))
    return out


def _nystrom():
    from nystrom_attention import NystromAttention, Nystromformer
    x = torch.randn(1, 100, 64)
    mask = torch.ones(1, 100, dtype=torch.bool)
    mask[:, 90:] = False
    attn = NystromAttention(dim=64, dim_head=16, heads=4, num_landmarks=16)
    former = Nystromformer(dim=64, depth=2, dim_head=16, heads=4, num_landmarks=16)
    return [("attention", attn, (x,)), ("attention_mask", lambda t, m: attn(t, mask=m), (x, mask)),
            ("attention_return_attn", lambda t: attn(t, return_attn=True), (x,)),
            ("former", former, (x,)), ("former_mask", lambda t, m: former(t, mask=m), (x, mask))]


def _recurrent_memory():
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformer, RecurrentMemoryTransformerWrapper
    model = RecurrentMemoryTransformer(num_tokens=256, num_memory_tokens=8, dim=64, depth=2, dim_head=16, heads=4,
                                       seq_len=32)
    wrapper = RecurrentMemoryTransformerWrapper(model)
    tokens = torch.randint(0, 256, (1, 32))
    long = torch.randint(0, 256, (1, 100))

    def step(x):
        loss = wrapper.train()(x, return_loss=True)
        loss.backward()
        return loss
    return [("segment", model.eval(), (tokens,)),
            ("segment_labels", lambda t: model.train()(t, labels=t), (tokens,)),
            ("wrapper", wrapper.eval(), (long,)), ("wrapper_loss", step, (long,))]


LIBRARIES = {"axial_attention": (_axial, ["axial_attention.AxialAttention", "axial_attention.AxialImageTransformer",
                                          "axial_attention.AxialPositionalEmbedding"]),
             "h_transformer_1d": (_htransformer, ["h_transformer_1d.HTransformer1D"]),
             "lambda_networks": (_lambda, ["lambda_networks.LambdaLayer"]),
             "memory_efficient_attention_pytorch": (_memory_efficient, [
                 "memory_efficient_attention_pytorch.Attention", "memory_efficient_attention_pytorch.CosineSimAttention",
                 "memory_efficient_attention_pytorch.FlashAttention"]),
             "nystrom_attention": (_nystrom, ["nystrom_attention.NystromAttention", "nystrom_attention.Nystromformer"]),
             "recurrent_memory_transformer_pytorch": (_recurrent_memory, [
                 "recurrent_memory_transformer_pytorch.RecurrentMemoryTransformer",
                 "recurrent_memory_transformer_pytorch.RecurrentMemoryTransformerWrapper"])}


if __name__ == "__main__":
    measure_each(LIBRARIES)
