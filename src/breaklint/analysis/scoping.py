"""The tree level of dynamo settings: which settings are in force where a finding sits.

Three layers, later ones over earlier ones (`dynamo_settings.Settings.merged`):

1. the configuration's `dynamo-config` (settings made outside the tree: a launcher, an environment);
2. every `torch._dynamo.config.NAME = ...` in the tree: dynamo's config is process-wide, so an
   assignment anywhere holds for all compiled code (a flag set both on and off counts as off);
3. `torch._dynamo.config.patch(...)`: a decorated function and everything it reaches; a `with` block's
   lines and everything its calls reach. A `with helper(...):` holds what `helper` provides (it
   returns a patch, or yields under one). What a patched call reaches is taken to run under the
   patch, even where another caller reaches it too: the tree shows how the project compiles it.
"""

from __future__ import annotations

from collections import deque

from ..dynamo_settings import Settings, add_values
from .reach import Reach
from .summary import CallRef, ModuleSummary, PatchBlock


class SettingsScopes:
    def __init__(self, summaries: list[ModuleSummary], reach: Reach, configured: Settings | None = None) -> None:
        tree: dict[str, list[str]] = {}
        for summary in summaries:
            for name, values in summary.dynamo_config.items():
                add_values(tree, name, values)
        self.base = (configured or Settings()).merged(Settings.from_values(tree))
        self.reach = reach
        # function -> settings every line of it holds; (function, block) -> settings of those lines
        self.functions: dict[str, Settings] = {}
        self.blocks: dict[str, list[tuple[int, int, Settings]]] = {}
        for qual, fn in reach.functions.items():
            for block in fn.patches:
                settings = self._block_settings(fn.cls, fn.calls, block)
                if not settings:
                    continue
                if block.start == 0:
                    roots = [qual]
                else:
                    self.blocks.setdefault(qual, []).append((block.start, block.end, settings))
                    roots = [t for call in fn.calls if block.start <= call.line <= block.end
                             for t, _ in reach.targets(fn.cls, call)]
                for reached in self._closure(roots):
                    self.functions[reached] = self.functions.get(reached, Settings()).merged(settings)

    def _block_settings(self, cls: str | None, calls: list[CallRef], block: PatchBlock) -> Settings:
        if not block.via_line:
            return Settings.from_values(block.settings)
        provided: dict[str, list[str]] = {}
        for call in calls:
            if (call.line, call.col) == (block.via_line, block.via_col):
                for target, _ in self.reach.targets(cls, call):
                    fn = self.reach.functions.get(target)
                    for name, values in (fn.provides.items() if fn else ()):
                        add_values(provided, name, values)
        return Settings.from_values(provided)

    def _closure(self, roots: list[str]) -> set[str]:
        seen: set[str] = set()
        queue = deque(r for r in roots if r in self.reach.functions)
        while queue:
            qual = queue.popleft()
            if qual in seen:
                continue
            seen.add(qual)
            fn = self.reach.functions[qual]
            for call in fn.calls:
                queue.extend(t for t, _ in self.reach.targets(fn.cls, call)
                             if t in self.reach.functions and t not in seen)
        return seen

    def at(self, scope: str | None, line: int) -> Settings:
        """The settings in force at `line` of the function `scope`."""
        settings = self.base.merged(self.functions.get(scope)) if scope else self.base
        for start, end, block in self.blocks.get(scope, ()) if scope else ():
            if start <= line <= end:
                settings = settings.merged(block)
        return settings
