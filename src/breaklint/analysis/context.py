"""Per-file knowledge shared by every rule, in layers that one object composes.

`FileContext` is the first visitor of the batched walk. It runs before the rules on every node, so
when a rule looks at a node the context already knows which function encloses it, whether that
code is skipped under compile, and what each expression holds. It also records the file's part of
the call graph (`ModuleSummary`), from which the engine decides what torch.compile reaches.

What it knows comes from one layer per concern, each a module of its own whose hooks keep it
current during the one batched walk:

- `names` (imports, qualified names, classes), `attributes` (what each class's methods store in
  `self`), `records` (dataclasses and named tuples, class-level attributes), `scopes`
  (functions, their parameters and returns, whether code is traced) and `lambdas` (what a lambda's
  parameters hold): the semantic model;
- `flow` (branches compile skips, snapshots and joins at an `if`, loop bodies), `narrowing`
  (isinstance tests) and `bindings` (assignments, loop and comprehension targets);
- `annotations` and `evaluate`: an expression to its value (`values.Val`);
- `conditions`: the trace-time condition a finding names;
- `calls` and `operators` (what `a @ b` runs on an object of the tree's classes): the call graph.

The layers share this object's state (declared in `__init__` below, grouped by the layer that owns
it), because one visitor of the batched walk must keep them all current in source order. Rules ask
the composed object (`ctx.value(node)`, `ctx.qualify(node)`, `ctx.active()`) and report through
`add_finding`.

No scope or qualified-name metadata is computed: import aliases come from one cheap pass over the
module's top-level import statements, and tensor-ness is tracked in source order, per function.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar, Protocol

import libcst as cst
from libcst.metadata import CodeRange

from ..finding import Finding, Fix
from .annotations import Annotations
from .appends import Appends
from .bindings import Bindings
from .attributes import Attributes
from .calls import Calls
from .conditions import Conditions
from .evaluate import Evaluation
from .flow import Flow
from .lambdas import Lambdas
from .module_walks import ModuleWalks
from .names import Names
from .narrowing import Narrowing
from .operators import Operators
from .positions import Positions
from .records import Records
from .scopes import Scope, Scopes
from .summary import Candidate, ClassInfo, ModuleSummary, MustBe
from .values import Val


class Reporter(Protocol):
    """What `add_finding` needs of the rule that reports (`rules.base.Rule`): the analysis does not
    import the rules, which are built on it."""

    CODE: ClassVar[str]
    KIND: ClassVar[str]
    GB_TYPES: ClassVar[tuple[str, ...]]


class FileContext(Names, Attributes, Records, Scopes, Lambdas, Annotations, Flow, Narrowing, Bindings, Conditions,
                  Evaluation, Calls, Operators, ModuleWalks, Appends, cst.BatchableCSTVisitor):
    """What one file's walk knows, for the rules that walk with it (see the module's docstring)."""

    def __init__(self, path: Path, module: str, source_lines: list[str], positions: Positions) -> None:
        super().__init__()
        # the file, and what the walk hands on: findings, suppression comments, the summary
        self.path = path
        self.module = module
        self.lines = source_lines
        self.positions = positions
        self.indent_unit = "    "
        self.module_node: cst.Module | None = None  # the file's tree (`Names.visit_Module`)
        self.summary = ModuleSummary(module=module)
        self.candidates: list[Candidate] = []
        self.suppressions: list[tuple[int, frozenset[str] | None, str]] = []
        self._stmts: list[cst.CSTNode] = []  # the simple statement lines being walked
        self._file_words: dict[tuple[str, ...], bool] = {}  # `file_mentions`' answers
        self._blocks: list[cst.IndentedBlock] = []  # the indented blocks being walked, innermost last
        # names: imports, module-level names, classes
        self.aliases: dict[str, str] = {}
        self.globals: dict[str, Val] = {}  # module-level names: what they were assigned
        self.loggers: set[str] = set()
        # module-level names bound to a C++ extension torch builds at run time -> the builder called
        self.extensions: dict[str, str] = {}
        # the file switches tensorly's einsum to opt_einsum at import (`tensorly.plugins.use_opt_einsum()`)
        self.opt_einsum_plugin = False
        self._classes: list[ClassInfo] = []
        # class -> method -> the parameters its calls in the class hand a module of `self` (`passing.py`)
        self.handed_modules: dict[str, dict[str, dict[str, str]]] = {}
        # records: the file's dataclasses and named tuples -> their fields (what each declares), and
        # those built by position too
        self.records: dict[str, dict[str, Val]] = {}
        self.positional: set[str] = set()
        self._qualified: tuple[cst.CSTNode | None, str | None] = (None, None)  # the last `qualify` answer
        # while the call rules are asked about one of the functions a local may hold (`wrapper = tqdm if
        # verbose else identity`, then `wrapper(xs)`: `asking_as`): the callee name, that function, and
        # the choice's text
        self._callee_as: tuple[cst.CSTNode, cst.BaseExpression, str] | None = None
        # scopes: the functions being walked, and disabled ones
        self._scopes: list[Scope] = []
        self._disabled_depth = 0
        self._def_disabled: list[bool] = []  # per enclosing def: did it raise _disabled_depth
        # lambdas: a lambda `map` hands the elements of its iterables -> what each of its parameters
        # holds; per lambda being walked, the names its parameters hide (`Lambdas.enter_lambda`)
        self._mapped: dict[cst.Lambda, dict[str, Val]] = {}
        self._lambda_hidden: list[dict[str, Val | None]] = []
        # operators: the subscripts read in traced code that index an object of the tree's classes
        self._tree_indexed: set[cst.Subscript] = set()
        # flow: branches compile skips, `if` snapshots, loops and handlers, the test being walked
        self.compile_helpers: dict[str, bool] = {}  # this file's wrappers of the compile checks -> value
        self._dead: set[cst.CSTNode] = set()
        self._dead_depth = 0
        # `if`s whose body compile always runs and leaves the block by (`if is_compiling(): return ...`); per
        # indented block being walked, how many of them it has passed
        self._exits: set[cst.If] = set()
        self._dead_after: list[int] = []
        self._short_circuits: list[bool] = []  # per `and`/`or` whose right operand is being walked: skipped?
        self._loop_depth = 0
        self._trap_depth = 0  # inside a `with` body, a `try` statement or a lambda (flow)
        # per enclosing loop body, `else` or handler: the names it bound, with what each held before
        self._branch_names: list[dict[str, Val | None]] = []
        self._testing: list[cst.If] = []  # the `if` whose test is being walked, until its body
        # per `if` body being walked: the names its test finds `None` (`if tokenizer is None:`), which a
        # binding there fills in (what an annotation `Tokenizer | None` declared stays declared)
        self._filling: list[frozenset[str]] = []
        self._if_frames: list[list[dict[str, Val]] | None] = []
        self._if_elses: set[cst.Else] = set()
        self.condition_parts: set[cst.CSTNode] = set()  # tests (and their operands) of if/while/ifexp
        # narrowing: per `if` branch, conditional expression or right operand of `and`/`or`: name -> (what it
        # held, what an isinstance test made it)
        self._narrowed: list[dict[str, tuple[Val | None, Val]]] = []
        # bindings
        self._comprehensions: list[dict[str, Val | None]] = []  # per enclosing comprehension: the names it hides
        self.assign_targets: set[cst.CSTNode] = set()
        self.called: set[cst.CSTNode] = set()  # what calls call (`f` of `f(x)`): not read as values
        # calls of a method on something that may be a tensor whose arguments are being walked: (start and
        # end of the arguments, the call's span, its receiver), innermost last
        self._method_args: list[tuple[tuple[int, int], tuple[int, int], tuple[int, int, int, int],
                                      cst.BaseExpression]] = []
        self._decorating = 0  # inside a decorator of the function being walked (flow.py, calls.py)
        # generator expressions a call consumes (`sum`, `any`, `all`, a function of the tree) whose element is
        # being walked: (start and end of the generator, start and end of its outermost iterable, the call's span)
        self._consumers: list[tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int],
                                    tuple[int, int, int, int]]] = []
        self.object_reads: set[tuple[str, str]] = set()  # (function, "kind|target") of its propread edges
        # conditions: per enclosing `if` body, the trace-time conditions it needs; per `if`, its own
        self._guards: list[list[tuple[str, bool]]] = []
        self._if_guards: dict[cst.If, list[tuple[str, bool]]] = {}

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._stmts.append(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._stmts.pop()

    def visit_Comment(self, node: cst.Comment) -> None:
        from ..suppress import parse_comment

        parsed = parse_comment(node.value)
        if parsed is not None:
            line = self.positions.span(node)[0]
            self.suppressions.append((line, parsed[0], parsed[1]))

    def current_statement(self) -> cst.CSTNode | None:
        """The innermost simple statement line being walked."""
        return self._stmts[-1] if self._stmts else None

    def next_statement(self, stmt: cst.BaseStatement) -> cst.BaseStatement | None:
        """The statement after `stmt` in the indented block being walked, if `stmt` is one of its own."""
        body = self._blocks[-1].body if self._blocks else ()
        for i, other in enumerate(body[:-1]):
            if other is stmt:
                return body[i + 1]
        return None

    def statement_lines(self) -> tuple[int, int]:
        if not self._stmts:
            return (0, 0)
        start, _, end, _ = self.positions.span(self._stmts[-1])
        return start, end

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self.positions[node]

    def lines_mention(self, first: int, last: int, words: tuple[str, ...]) -> bool:
        """Whether the source lines `first` to `last` (1-based, both included) hold one of `words` (none
        of which holds a line break): a cheap test before a search of the tree there."""
        text = "\n".join(self.lines[first - 1:last])
        return any(word in text for word in words)

    def file_mentions(self, words: tuple[str, ...]) -> bool:
        """Whether the file's source holds one of `words` anywhere (asked once per file and words): a rule
        about calls of a few named things looks at a file's calls only where it names one."""
        if words not in self._file_words:
            self._file_words[words] = self.lines_mention(1, len(self.lines), words)
        return self._file_words[words]

    def mentions(self, node: cst.CSTNode, words: tuple[str, ...]) -> bool:
        """Whether the source lines of `node` hold one of `words` (see `lines_mention`)."""
        start, _, end, _ = self.positions.span(node)
        return self.lines_mention(start, end, words)

    def add_finding(
        self,
        rule: Reporter,
        node: cst.CSTNode,
        message: str,
        suggestion: str,
        fix: Fix | None = None,
        scope: str | None = None,
        stmt_lines: tuple[int, int] | None = None,
        requires: Val | None = None,
        test: cst.BaseExpression | None = None,
        fix_needs: tuple[Val | None, ...] = (),
        unless: tuple[str, ...] = (),
        only_with: tuple[str, ...] = (),
        must_be: MustBe = "tensor",
    ) -> None:
        if must_be == "sparse" and requires is not None and not requires.symbolic and not requires.is_sparse:
            return  # a requirement decided here (or too deep to carry) that is no sparse tensor
        pos = self.position(node)
        deferred: list[Val] = []
        if fix is not None:
            for need in fix_needs:
                if need is not None and need.symbolic:
                    deferred.append(need)
                elif need is None or not need.known_tensor:
                    fix = None  # a Python value here would make the rewrite raise
                    break
        start, end = stmt_lines or self.statement_lines()
        if self._callee_as is not None and type(node) is cst.Call and node.func is self._callee_as[0]:
            name, held, choice = self._callee_as
            message = f"{message} (where `{self.source(name)}` holds `{self.source(held)}`: `{choice}`)"
        conditions = self.conditions(test, node)
        kind = rule.KIND
        if conditions:
            message = f"{message} (only when `{' and '.join(conditions)}`)"
            if kind == "break" and any(conditions.values()):
                kind = "hazard"  # it breaks only for half-precision inputs
        finding = Finding(
            code=rule.CODE,
            kind=kind,
            condition=" and ".join(conditions),
            message=message,
            suggestion=suggestion,
            path=self.path,
            line=pos.start.line,
            col=pos.start.column,
            end_line=pos.end.line,
            end_col=pos.end.column,
            fix=fix,
            gb_types=rule.GB_TYPES,
        )
        owner = scope if scope is not None else (self.function.qualname if self.function else None)
        self.candidates.append(Candidate(owner, finding, start or pos.start.line, end or pos.end.line,
                                         requires if requires is not None and requires.symbolic else None,
                                         tuple(deferred) if fix is not None else (), unless, only_with,
                                         must_be))

    @contextmanager
    def asking_as(self, name: cst.Name, held: cst.BaseExpression, choice: str) -> Iterator[None]:
        """Within: the callee `name` is `held`, one of the functions the local may hold (`qualify`, `callee`),
        and a finding at its call says so."""
        self._callee_as = (name, held, choice)
        try:
            yield
        finally:
            self._callee_as = None

    def callee(self, func: cst.BaseExpression) -> cst.BaseExpression:
        """The function a call's `func` is asked about as: itself, or what `asking_as` says it holds."""
        return self._callee_as[1] if self._callee_as is not None and func is self._callee_as[0] else func

    def source(self, node: cst.CSTNode, limit: int = 60) -> str:
        """The source text of a node, on one line and shortened, for messages."""
        pos = self.position(node)
        if pos.start.line == pos.end.line:
            text = self.lines[pos.start.line - 1][pos.start.column:pos.end.column]
        else:
            first = self.lines[pos.start.line - 1][pos.start.column:]
            text = first.strip() + " ..."
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."
