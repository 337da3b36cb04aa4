"""Mechanical rewrites, built by the rules as text edits while they walk, grouped by technique:

- `edit`: the source text a rewrite is written from, and the `Fix` it becomes;
- `guards`: code behind `if not torch.compiler.is_compiling():` (print, logging, warnings, clocks);
- `conditions`: a test written as a bool tensor, and the tensors it hands to torch;
- `where`: branches as `torch.where` selections, `and`/`or`/`not` as `torch.logical_*`;
- `checks`: an `if` that only raises, as `torch._assert_async`;
- `masks`: boolean-mask reductions and writes, `torch.unique`, first and last positions;
- `numbers`: numbers that can stay tensors or come from torch's generator;
- `apply`: the edit applier, on its own (the `--fix` loop that drives it is `breaklint.autofix`).

A rule imports the builder it offers. `--fix`, `--diff` and SARIF `fixes` all use the same edits.
"""
