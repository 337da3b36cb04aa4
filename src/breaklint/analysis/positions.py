"""Line and column of every node, as libcst's `PositionProvider` gives them, for less than half its cost.

`PositionProvider` regenerates the module's code and, for each of its nodes, builds two
`CodePosition`s and a `CodeRange`, splits every token with a regular expression and enters a
generator-based context manager per syntactic position. On a model library that is about 40 % of
the whole static pass. Here the same code generation records plain tuples (a `CodeRange` is built
only for the nodes asked about, a few in a hundred), tokens are split only when they hold a line
break, and the syntactic-position context is a small object. The rules for which node owns which
position are libcst's own (the nodes call the same `record_syntactic_position` hooks); a test checks
that every node of a corpus gets the range `PositionProvider` gives it.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst._nodes.internal import CodegenState  # the state every node's code generation writes to
from libcst.metadata import CodePosition, CodeRange

from .walk import trivia_types

_NEWLINE = re.compile(r"\r\n?|\n")

# Whitespace and punctuation get no position of their own (nothing is reported at a comma); comments
# (suppressions) and `import *` (which ends its statement) do.
_UNPLACED = trivia_types() - {cst.Comment, cst.ImportStar}  # `import *` ends its statement

Span = tuple[int, int, int, int]  # start line (1-based), start column (0-based), end line, end column


class _Syntactic:
    """The context of `with state.record_syntactic_position(node, start_node=..., end_node=...)`: the
    node's span without the whitespace and parentheses it owns, or hoisted from the first and last
    child given. One object per walk; the contexts, which nest, are kept on a stack."""

    __slots__ = ("state", "pending", "open")

    def __init__(self, state: "_PositionState") -> None:
        self.state = state
        self.pending: tuple = ()
        self.open: list[tuple] = []

    def __enter__(self) -> None:
        state = self.state
        self.open.append((*self.pending, state.line, state.column))

    def __exit__(self, *exc: object) -> None:
        node, start_node, end_node, line, column = self.open.pop()
        state = self.state
        spans = state.spans
        sl, sc = spans[id(start_node)][:2] if start_node is not None else (line, column)
        el, ec = spans[id(end_node)][2:] if end_node is not None else (state.line, state.column)
        spans[id(node)] = (sl, sc, el, ec)


class _PositionState(CodegenState):
    __slots__ = ("line", "column", "spans", "_starts", "_syntactic")

    def __init__(self, module: cst.Module, first_line: int) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = first_line
        self.column = 0
        # keyed by id(): libcst's nodes hash in Python, and the tree outlives this table
        self.spans: dict[int, Span] = {}
        self._starts: list[tuple[int, int]] = []
        self._syntactic = _Syntactic(self)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            parts = _NEWLINE.split(value)
            self.line += len(parts) - 1
            self.column = len(parts[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        line, column = self._starts.pop()
        if node.__class__ in _UNPLACED:
            return
        key = id(node)
        if key not in self.spans:  # a syntactic position recorded inside the node wins
            self.spans[key] = (line, column, self.line, self.column)

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
                                  end_node: cst.CSTNode | None = None) -> _Syntactic:
        syntactic = self._syntactic
        syntactic.pending = (node, start_node, end_node)
        return syntactic


class Positions:
    """Every node's syntactic range in one module, as `PositionProvider` would give it. A module parsed
    from part of a file (`first_line`: the file's line it starts at) gets the file's lines."""

    def __init__(self, module: cst.Module, first_line: int = 1) -> None:
        state = _PositionState(module, first_line)
        try:
            module._codegen(state)
        finally:
            # The state and its syntactic context refer to each other: break the cycle, so that the
            # state (every token of the file) goes now, and the spans with this object, not at the
            # collector's next pass (a third of the collector's time in a one-process run over a large
            # tree)
            state._syntactic = None
        self._spans = state.spans

    def span(self, node: cst.CSTNode) -> Span:
        return self._spans[id(node)]

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        sl, sc, el, ec = self._spans[id(node)]
        return CodeRange(CodePosition(sl, sc), CodePosition(el, ec))
