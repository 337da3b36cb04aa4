"""Schedule-Free, a library the analysis was never shown (in neither half of the harness, not
reserved): its optimizers (AdamW, SGD and RAdam, their closure forms and the wrapper that makes any torch
optimizer schedule-free), each over a small layer with its gradients set, in training mode and after a
first step run eagerly (the compiled step is then the second), their `step` compiled as a user compiles
an optimizer's step, and the switches between training and evaluation weights (`train()`, `eval()`),
under dynamo against the static pass on the same tree.

Run it where torch and Schedule-Free are installed together (here: `pip install torch==2.14.1
schedulefree==1.4.1`), from the repository root:

    python bench/unseen_schedulefree.py [--src OTHER_TREE/src] [--sites FILE]

`unseen.measure` runs each case under dynamo and prints which of the statements dynamo broke on the
static pass reports. Results: bench/results/unseen_schedulefree.txt.
"""

import warnings
from importlib.metadata import version
from pathlib import Path

from unseen import measure, runnable  # first: it puts the static pass of `--src` on the path

import torch

import schedulefree  # noqa: E402

warnings.filterwarnings("ignore")
ROOT = Path(schedulefree.__file__).resolve().parent
OPTIMIZERS = ["AdamWScheduleFree", "SGDScheduleFree", "RAdamScheduleFree", "AdamWScheduleFreeClosure",
              "SGDScheduleFreeClosure", "RAdamScheduleFreeClosure", "AdamWScheduleFreeReference",
              "SGDScheduleFreeReference", "AdamWScheduleFreePaper"]
ENTRY_POINTS = [f"schedulefree.{name}.{method}" for name in OPTIMIZERS for method in ("step", "train", "eval")] + [
    "schedulefree.ScheduleFreeWrapper.step", "schedulefree.ScheduleFreeWrapper.train",
    "schedulefree.ScheduleFreeWrapper.eval"]


def _optimizer(name: str):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    if name == "ScheduleFreeWrapper":
        opt = schedulefree.ScheduleFreeWrapper(torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.0))
    else:
        opt = getattr(schedulefree, name)(model.parameters(), lr=1e-3)
    model(torch.randn(8, 4)).pow(2).sum().backward()
    return model, opt


def _closure(model):
    def closure():
        loss = model(torch.ones(8, 4)).pow(2).sum()
        loss.backward()
        return loss
    return closure


def cases():
    out = []
    for name in [n for n in OPTIMIZERS if hasattr(schedulefree, n)] + ["ScheduleFreeWrapper"]:
        for warm in (False, True):
            try:
                model, opt = _optimizer(name)
                if hasattr(opt, "train"):
                    opt.train()
                closure = _closure(model) if "Closure" in name else None
                if warm:
                    opt.step(closure) if closure else opt.step()
            except Exception as e:  # noqa: BLE001 - an optimizer this build does not take
                print("left out:", name, type(e).__name__, str(e)[:100])
                continue
            step = (lambda x, o=opt, c=closure: (o.step(c), x)[1]) if closure else (lambda x, o=opt: (o.step(), x)[1])
            out.append((f"{name}.step{'@warm' if warm else ''}", step, (torch.randn(2),)))
        if hasattr(opt, "eval"):
            out.append((f"{name}.eval_train", lambda x, o=opt: (o.eval(), o.train(), x)[2], (torch.randn(2),)))
    return runnable(out)


if __name__ == "__main__":
    measure(ROOT, cases, ENTRY_POINTS, f"schedulefree {version('schedulefree')}")
