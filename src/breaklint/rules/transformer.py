"""BL450: torch's transformer stacks (`nn.TransformerEncoder`, `nn.TransformerDecoder`, `nn.Transformer`) handed an
attention mask without saying whether it is causal, which they then find out by reading the mask's values."""

from __future__ import annotations

import libcst as cst

from .base import Rule, register

# Per stack: each mask it checks for causality where its `*_is_causal` argument is left `None`, as (the mask's
# keyword, its position among the call's arguments, the flag's keyword, the flag's position). A layer
# (`nn.TransformerEncoderLayer`) takes the flag as given and reads no mask.
MASKS: dict[str, tuple[tuple[str, int, str, int], ...]] = {
    "TransformerEncoder": (("mask", 1, "is_causal", 3),),
    "TransformerDecoder": (("tgt_mask", 2, "tgt_is_causal", 6),),
    "Transformer": (("src_mask", 2, "src_is_causal", 8), ("tgt_mask", 3, "tgt_is_causal", 9)),
}
# the stacks an `nn.Transformer` keeps, called on their own (`self.transformer.decoder(...)`)
PARTS = {"encoder": "TransformerEncoder", "decoder": "TransformerDecoder"}


def _stack(qualified: str) -> str | None:
    """The transformer stack a qualified class name is (`torch.nn.TransformerEncoder`,
    `torch.nn.modules.transformer.TransformerEncoder`), else None."""
    package, _, name = qualified.rpartition(".")
    return name if name in MASKS and package in ("torch.nn", "torch.nn.modules.transformer") else None


@register
class TransformerMaskDetection(Rule):
    CODE = "BL450"
    NAME = "transformer-mask-detection"
    KIND = "break"
    MESSAGE = ("`nn.TransformerEncoder`, `nn.TransformerDecoder` or `nn.Transformer` called with an attention mask "
               "and no `is_causal` flag: it reads the mask's values to find out whether it is causal")
    SUGGESTION = ("say what the mask is: `is_causal=True` with a causal mask (`tgt_is_causal=True` for a decoder's "
                  "`tgt_mask`), `is_causal=False` otherwise; the stack then reads no value of the mask")
    GB_TYPES = ("GB0124",)

    def _stacks(self, func: cst.BaseExpression) -> list[str]:
        """The transformer stacks a call of `func` may run: the module's class where the code knows it
        (`self.encoder` built as one), or a stack an `nn.Transformer` keeps (`self.transformer.decoder`)."""
        found = [stack for made in self.ctx.module_classes(func) if (stack := _stack(made))]
        if not found and type(func) is cst.Attribute and func.attr.value in PARTS \
                and any(_stack(made) == "Transformer" for made in self.ctx.module_classes(func.value)):
            found = [PARTS[func.attr.value]]
        return found

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.active() or not node.args or type(node.func) not in (cst.Attribute, cst.Name):
            return
        if not self.ctx.file_mentions(("Transformer",)):
            return  # (a cheap test first: no file calls a stack without naming it)
        stacks = self._stacks(node.func)
        if not stacks:
            return
        positional = [arg.value for arg in node.args if arg.keyword is None and arg.star == ""]
        keywords = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        for mask_word, mask_at, flag_word, flag_at in MASKS[stacks[0]]:
            mask = keywords.get(mask_word, positional[mask_at] if mask_at < len(positional) else None)
            flag = keywords.get(flag_word, positional[flag_at] if flag_at < len(positional) else None)
            if mask is None or _is_none(mask) or self.ctx.value(mask).kind == "none" \
                    or (flag is not None and not _is_none(flag)):
                continue
            self.report(node, f"`{self.ctx.source(node)}` hands `nn.{stacks[0]}` `{mask_word}` without "
                              f"`{flag_word}`: it compares the mask with a causal one and reads the answer as a "
                              "Python bool, which breaks the graph at the call")
            return


def _is_none(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "None"
