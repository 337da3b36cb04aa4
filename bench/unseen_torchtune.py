"""torchtune, a library the analysis was never shown (in neither half of the harness, not reserved):
small decoders of its model families (with KV caches and LoRA), its losses (chunked cross-entropy,
distillation, DPO, PPO) and its generation loop, under dynamo against the static pass on the same tree.

Run it where torch and torchtune are installed together (here: `pip install torch==2.14.1
torchtune==0.6.1 torchao==0.11.0`), from the repository root:

    python bench/unseen_torchtune.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_torchtune.txt.
"""

from pathlib import Path

from unseen import measure  # first: it puts the static pass of `--src` on the path

import torch
import torchtune
from torchtune import generation
from torchtune.rlhf import loss as rl
from torchtune.models import gemma, llama3_2, mistral, phi3, qwen2
from torchtune.modules import loss as tl

ROOT = Path(torchtune.__file__).resolve().parent
SIZE = {"vocab_size": 128, "num_layers": 2, "num_heads": 4, "num_kv_heads": 2, "embed_dim": 64,
        "max_seq_len": 64}
ENTRY_POINTS = ["torchtune.generation._generation.generate", "torchtune.generation._generation.sample"]


def _decoders():
    yield "llama3_2", llama3_2.llama3_2(**SIZE, intermediate_dim=128)
    yield "lora_llama3_2", llama3_2.lora_llama3_2(["q_proj", "v_proj"], apply_lora_to_mlp=True, **SIZE,
                                                  intermediate_dim=128, lora_rank=4, lora_alpha=8.0)
    yield "dora_llama3_2", llama3_2.lora_llama3_2(["q_proj", "v_proj"], **SIZE, intermediate_dim=128,
                                                  lora_rank=4, lora_alpha=8.0, use_dora=True)
    yield "qwen2", qwen2.qwen2(**SIZE, intermediate_dim=128)
    yield "mistral", mistral.mistral(**SIZE, intermediate_dim=128)
    yield "phi3", phi3.phi3(**SIZE, intermediate_dim=128)
    yield "gemma", gemma.gemma(vocab_size=128, num_layers=2, num_heads=4, head_dim=16, num_kv_heads=2,
                               embed_dim=64, intermediate_dim=128, max_seq_len=64)


def cases():
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 128, (2, 16), generator=g)
    mask = torch.tril(torch.ones(16, 16, dtype=torch.bool)).expand(2, 16, 16)
    labels = tokens.clone()
    labels[:, :3] = -100
    logits = torch.randn(2, 16, 128, generator=g)
    out = []
    for (name, model), (_, chunked) in zip(_decoders(), _decoders()):
        chunked.set_num_output_chunks(4)  # the output layer's logits in chunks, as the chunked losses take them
        out.append((f"{name}@eval", model.eval(), (tokens,)))
        out.append((f"{name}@mask", lambda t, m=model: m.eval()(t, mask=mask), (tokens,)))
        out.append((f"{name}@train", model.train(), (tokens,)))
        out.append((f"{name}@chunked", lambda t, m=chunked: m.train()(t), (tokens,)))
        out.append((f"{name}@generate", lambda t, m=model: generation.generate(
            m.eval(), t, max_generated_tokens=3, temperature=0.7, top_k=5, stop_tokens=[1]), (tokens,)))
    chunks = list(logits.chunk(4, dim=1))
    out.append(("CEWithChunkedOutputLoss", tl.CEWithChunkedOutputLoss(num_output_chunks=4), (chunks, labels)))
    for kd in (tl.ForwardKLLoss(), tl.ReverseKLLoss(), tl.SymmetricKLLoss()):
        out.append((type(kd).__name__, kd, (logits, logits.flip(0), labels)))
    for kd in (tl.ForwardKLWithChunkedOutputLoss(num_output_chunks=4), tl.ReverseKLWithChunkedOutputLoss(num_output_chunks=4),
               tl.SymmetricKLWithChunkedOutputLoss(num_output_chunks=4)):
        out.append((type(kd).__name__, kd, (chunks, [c.flip(0) for c in chunks], labels)))
    logps = [torch.randn(4, generator=g) for _ in range(4)]
    out.append(("DPOLoss", rl.DPOLoss(), tuple(logps)))
    out.append(("RSOLoss", rl.RSOLoss(), tuple(logps)))
    ppo = [torch.randn(2, 8, generator=g) for _ in range(6)]
    out.append(("PPOLoss", rl.PPOLoss(), (*ppo, torch.ones(2, 8, dtype=torch.bool), torch.ones(2, 8, dtype=torch.bool))))
    return out


def main() -> None:
    measure(ROOT, cases, ENTRY_POINTS, f"torchtune {torchtune.__version__}")


if __name__ == "__main__":
    main()
