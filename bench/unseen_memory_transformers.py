"""Three transformer libraries with memories and recurrences that the analysis was never shown (in
neither half of the harness, not reserved), each measured on its own: the compressive transformer
(`compressive_transformer_pytorch`: memories and compressed memories carried from one call to the
next, its autoregressive wrapper computing its loss over a long sequence in segments), the block-
recurrent transformer (`block_recurrent_transformer_pytorch`: recurrent states and XL memories, its
training wrapper over segments) and Mega (`mega_pytorch`: multi-headed exponential moving average with
gated attention, causal and not, Laplacian attention). Each model runs forward in eval mode, and in
train mode where it computes a loss.

Run it where torch and the three are installed together (here: `pip install torch==2.14.1 einops
beartype scipy`, then with `--no-deps` `compressive-transformer-pytorch==0.4.0 mogrifier
block-recurrent-transformer-pytorch==0.4.4 mega-pytorch==0.1.0`), from the repository root:

    python bench/unseen_memory_transformers.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each library's cases under dynamo and prints which of the statements dynamo broke
on the static pass reports; with `--sites FILE` each library's answers are kept in `FILE.<library>.json`.
Results: bench/results/unseen_memory_transformers.txt.
"""

import warnings

from unseen import measure_each  # first: it puts the static pass of `--src` on the path

import torch

warnings.filterwarnings("ignore")


def _compressive():
    from compressive_transformer_pytorch import AutoregressiveWrapper, CompressiveTransformer
    model = CompressiveTransformer(num_tokens=256, dim=64, depth=2, seq_len=32, mem_len=32, cmem_len=8,
                                   cmem_ratio=4, heads=4, memory_layers=[2])
    tokens = torch.randint(0, 256, (1, 32))
    _, memories, _ = model(tokens)
    wrapper = AutoregressiveWrapper(CompressiveTransformer(num_tokens=256, dim=64, depth=2, seq_len=32, mem_len=32,
                                                           cmem_len=8, heads=4, memory_layers=[2]))

    def step(x):
        total = 0
        for loss, _ in wrapper.train()(x, max_batch_size=1, return_loss=True):
            loss.backward()
            total = total + loss.detach()
        return total
    return [("segment", model.eval(), (tokens,)),
            ("segment_memories", lambda t: model.eval()(t, memories=memories), (tokens,)),
            ("segment@train", model.train(), (tokens,)),
            ("wrapper_loss", step, (torch.randint(0, 256, (1, 97)),))]


def _block_recurrent():
    from block_recurrent_transformer_pytorch import BlockRecurrentTransformer, RecurrentTrainerWrapper
    model = BlockRecurrentTransformer(num_tokens=256, dim=64, depth=2, dim_head=16, heads=4, max_seq_len=64,
                                      block_width=16, num_state_vectors=16, recurrent_layers=(2,))
    trainer = RecurrentTrainerWrapper(model, xl_memories_dropout=0.1, state_dropout=0.1)
    tokens = torch.randint(0, 256, (1, 64))

    def step(x):
        loss = model.train()(x, return_loss=True)
        loss.backward()
        return loss
    return [("forward", model.eval(), (tokens,)),
            ("forward_memories", lambda t: model.eval()(t, return_memories_and_states=True), (tokens,)),
            ("loss@train", step, (tokens,)),
            ("trainer", trainer.train(), (torch.randint(0, 256, (1, 129)),))]


def _mega():
    from mega_pytorch import Mega, MegaLayer, MultiHeadedEMA
    x, tokens = torch.randn(1, 32, 64), torch.randint(0, 256, (1, 32))
    return [("ema", MultiHeadedEMA(dim=64, heads=4), (x,)),
            ("ema_bidirectional", MultiHeadedEMA(dim=64, heads=4, bidirectional=True), (x,)),
            ("layer_causal", MegaLayer(dim=64, ema_heads=4, attn_dim_qk=16, attn_dim_value=32), (x,)),
            ("layer_laplacian", MegaLayer(dim=64, ema_heads=4, attn_dim_qk=16, attn_dim_value=32,
                                          laplacian_attn_fn=True, causal=False), (x,)),
            ("model", Mega(dim=64, num_tokens=256, depth=2, ema_heads=4, attn_dim_qk=16, attn_dim_value=32).eval(),
             (tokens,))]


LIBRARIES = {"compressive_transformer_pytorch": (_compressive, [
                 "compressive_transformer_pytorch.CompressiveTransformer",
                 "compressive_transformer_pytorch.AutoregressiveWrapper"]),
             "block_recurrent_transformer_pytorch": (_block_recurrent, [
                 "block_recurrent_transformer_pytorch.BlockRecurrentTransformer",
                 "block_recurrent_transformer_pytorch.RecurrentTrainerWrapper"]),
             "mega_pytorch": (_mega, ["mega_pytorch.Mega", "mega_pytorch.MegaLayer", "mega_pytorch.MultiHeadedEMA"])}


if __name__ == "__main__":
    measure_each(LIBRARIES)
