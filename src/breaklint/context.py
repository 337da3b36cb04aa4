"""Per-file knowledge shared by every rule: imports, scopes, what holds a tensor.

`FileContext` is the first visitor of the batched walk. It runs before the
rules on every node, so when a rule looks at a node the context already knows
which function encloses it, whether that code is skipped under compile, and
which names hold tensors. It also records the file's part of the call graph
(`ModuleSummary`), from which the engine decides what torch.compile reaches.

No scope or qualified-name metadata is computed: import aliases come from one
cheap pass over the module's top-level import statements, and tensor-ness is
tracked in source order, per function.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import libcst as cst
import libcst.matchers as m
from libcst.metadata import CodeRange, PositionProvider

from .finding import Finding, Fix

if TYPE_CHECKING:
    from .registry import Rule

COMPILE = {"torch.compile"}
DISABLE = {
    "torch.compiler.disable",
    "torch._dynamo.disable",
    "torch._disable_dynamo",
}
# Calls whose value under torch.compile is known: these decide which branch
# of an `if` dynamo traces.
TRUE_UNDER_COMPILE = {
    "torch.compiler.is_compiling",
    "torch.compiler.is_dynamo_compiling",
    "torch._dynamo.is_compiling",
    "torch._utils.is_compiling",
}
COMPILING_HELPERS = {"is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling"}
FALSE_UNDER_COMPILE = {
    "torch.jit.is_scripting",
    "torch.jit.is_tracing",
    "torch.onnx.is_in_onnx_export",
}
# torch functions that return something other than a tensor.
TORCH_NON_TENSOR = {
    "torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel",
    "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.get_default_dtype",
    "torch.device", "torch.dtype", "torch.Size", "torch.no_grad", "torch.enable_grad",
    "torch.inference_mode", "torch.set_grad_enabled", "torch.compile", "torch.finfo", "torch.iinfo",
    "torch.promote_types", "torch.result_type", "torch.can_cast", "torch.is_nonzero",
    "torch.split", "torch.chunk", "torch.unbind", "torch.tensor_split", "torch.meshgrid",
    "torch.broadcast_tensors", "torch.autocast", "torch.get_autocast_gpu_dtype",
}
TORCH_SEQUENCE = {
    "torch.split", "torch.chunk", "torch.unbind", "torch.tensor_split", "torch.meshgrid",
    "torch.broadcast_tensors",
}
TORCH_NON_TENSOR_PREFIXES = (
    "torch.cuda.", "torch.backends.", "torch.jit.", "torch.compiler.", "torch._dynamo.",
    "torch.distributed.", "torch.utils.data.", "torch.autograd.profiler.", "torch.profiler.",
    "torch.testing.", "torch.onnx.", "torch.hub.", "torch.version.", "torch.amp.", "torch._C.",
    "torch.overrides.", "torch.fx.", "torch.export.", "torch.library.",
)
# `torch.is_autocast_enabled()`, `torch.are_deterministic_algorithms_enabled()`, ...
PREDICATE_PREFIXES = ("is_", "are_", "has_", "get_")
# Tensor methods and attributes whose value is not a tensor.
NON_TENSOR_METHODS = {
    "item", "tolist", "size", "dim", "ndimension", "numel", "nelement", "data_ptr",
    "element_size", "stride", "storage_offset", "is_contiguous", "is_floating_point",
    "is_complex", "numpy", "get_device", "__len__", "untyped_storage", "storage",
    "is_pinned", "is_set_to", "has_names", "type", "register_hook", "backward",
    "split", "chunk", "unbind", "tensor_split",
}
SEQUENCE_METHODS = {"split", "chunk", "unbind", "tensor_split"}
NON_TENSOR_ATTRS = {
    "shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "is_leaf", "layout",
    "is_sparse", "is_quantized", "is_meta", "names", "training", "grad_fn", "itemsize", "nbytes",
}
TENSOR_ATTRS = {"T", "mT", "H", "mH", "data", "grad", "real", "imag"}
# Methods that exist on tensors and rarely on anything else that reaches
# compiled code: a receiver of unknown type calling one is taken as a tensor.
TENSOR_ONLY_METHODS = {
    "sum", "mean", "any", "all", "abs", "norm", "std", "var", "amax", "amin", "argmax",
    "argmin", "prod", "isnan", "isinf", "isfinite", "sigmoid", "softmax", "log_softmax",
    "exp", "sqrt", "rsqrt", "float", "half", "long", "int", "bool", "double", "bfloat16",
    "detach", "clone", "contiguous", "view", "reshape", "permute", "transpose",
    "unsqueeze", "squeeze", "flatten", "matmul", "bmm", "masked_fill", "clamp",
    "logical_not", "logical_and", "logical_or", "eq", "ne", "gt", "ge", "lt", "le",
    "cumsum", "cumprod", "gather", "scatter", "expand", "expand_as", "type_as", "sign",
    "relu", "tanh", "max", "min",
}
BOOL_FUNCS = {
    "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isposinf", "torch.isneginf",
    "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.logical_xor",
    "torch.eq", "torch.ne", "torch.gt", "torch.ge", "torch.lt", "torch.le", "torch.isin",
    "torch.isclose", "torch.signbit",
}
BOOL_METHODS = {
    "bool", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_and",
    "logical_or", "logical_not", "logical_xor", "eq", "ne", "gt", "ge", "lt", "le",
    "isclose", "signbit",
}
TENSOR_ANNOTATIONS = {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor"}
SEQUENCE_ANNOTATIONS = {
    "typing.List", "typing.Tuple", "typing.Sequence", "list", "tuple", "collections.abc.Sequence",
}
SCALAR_ANNOTATIONS = {"int", "float", "bool", "str", "bytes", "complex"}
MODULE_CONTAINERS = {"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Sequential"}
NOT_MODULES = {"torch.nn.Parameter", "torch.nn.ParameterList", "torch.nn.ParameterDict",
               "torch.nn.Buffer", "torch.nn.functional", "torch.nn.init", "torch.nn.utils"}


@dataclass
class CallRef:
    """A call (or reference) from one function to another, resolved at tree level."""

    kind: str  # "name" (dotted name), "self" (method of own class), "selfattr" (submodule), "super"
    target: str
    line: int
    col: int
    end_line: int
    end_col: int


@dataclass
class FunctionInfo:
    qualname: str
    cls: str | None
    compiled: bool = False
    disabled: bool = False
    calls: list[CallRef] = field(default_factory=list)


@dataclass
class ClassInfo:
    qualname: str
    bases: list[str]
    methods: set[str] = field(default_factory=set)
    submodules: dict[str, str] = field(default_factory=dict)  # attr -> class dotted name
    tensor_attrs: set[str] = field(default_factory=set)


@dataclass
class ModuleSummary:
    """What the engine needs of one file to decide what torch.compile reaches."""

    module: str
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    entries: list[str] = field(default_factory=list)  # names passed to torch.compile(...)
    instances: dict[str, str] = field(default_factory=dict)  # module-level var -> class


@dataclass(frozen=True)
class Candidate:
    """A finding before the engine knows whether compile reaches its function."""

    scope: str | None  # qualname of the enclosing top-level function or method
    finding: Finding
    stmt_start: int  # lines of the statement, for suppression comments
    stmt_end: int


@dataclass
class _Scope:
    info: FunctionInfo
    tensors: dict[str, bool] = field(default_factory=dict)
    bools: set[str] = field(default_factory=set)
    sequences: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    loggers: set[str] = field(default_factory=set)


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None for anything that is not a plain name chain."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


_LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """A file's lines as Python's tokenizer (and libcst's positions) count them.

    Not `str.splitlines`, which also ends lines at form feeds and other separators.
    """
    lines = _LINE_END.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def line_starts(text: str) -> list[int]:
    """The offset in `text` at which each line (as `source_lines` counts them) starts."""
    return [0] + [m.end() for m in _LINE_END.finditer(text)]


def span_text(lines: list[str], line: int, col: int, end_line: int, end_col: int) -> str:
    """The text from (line, col) to (end_line, end_col): 1-based lines, 0-based columns, end exclusive."""
    if not 0 < line <= end_line <= len(lines):
        return ""
    if line == end_line:
        return lines[line - 1][col:end_col]
    return "\n".join([lines[line - 1][col:], *lines[line:end_line - 1], lines[end_line - 1][:end_col]])


def iter_statements(body: cst.BaseSuite | list) -> Iterator[cst.CSTNode]:
    """Small statements and compound statements of a block, into nested blocks but not defs."""
    stmts = body.body if isinstance(body, (cst.BaseSuite, cst.Module)) else body
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt
        elif isinstance(stmt, cst.BaseCompoundStatement):
            yield stmt
            for attr in ("body", "orelse", "finalbody"):
                child = getattr(stmt, attr, None)
                if isinstance(child, cst.If):
                    yield from iter_statements([child])
                elif isinstance(child, (cst.Else, cst.Finally)):
                    yield from iter_statements(child.body)
                elif isinstance(child, cst.BaseSuite):
                    yield from iter_statements(child)
            for handler in getattr(stmt, "handlers", ()):
                yield from iter_statements(handler.body)


def module_name_for(path: Path) -> str:
    """Dotted module name of a file, climbing packages marked by __init__.py."""
    path = path.resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or path.stem


class FileContext(cst.BatchableCSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, path: Path, module: str, source_lines: list[str]) -> None:
        super().__init__()
        self.path = path
        self.indent_unit = "    "
        self.summary = ModuleSummary(module=module)
        self.module = module
        self.lines = source_lines
        self.aliases: dict[str, str] = {}
        self.loggers: set[str] = set()
        self.candidates: list[Candidate] = []
        self.suppressions: list[tuple[int, frozenset[str] | None, str]] = []
        self._scopes: list[_Scope] = []
        self._classes: list[ClassInfo] = []
        self._dead: set[cst.CSTNode] = set()
        self._dead_depth = 0
        self._disabled_depth = 0
        self._def_disabled: list[bool] = []  # per enclosing def: did it raise _disabled_depth
        self._loop_depth = 0
        self._stmts: list[cst.CSTNode] = []
        self.condition_parts: set[cst.CSTNode] = set()
        self.assign_targets: set[cst.CSTNode] = set()

    # ------------------------------------------------------------------ names
    def visit_Module(self, node: cst.Module) -> None:
        self.indent_unit = node.default_indent
        for stmt in iter_statements(node):
            if isinstance(stmt, cst.Import):
                for alias in stmt.names:
                    full = dotted(alias.name)
                    if alias.asname is not None:
                        self.aliases[alias.asname.name.value] = full
                    else:
                        top = full.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(stmt, cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar):
                base = self._import_base(stmt)
                for alias in stmt.names:
                    name = alias.name.value
                    local = alias.asname.name.value if alias.asname else name
                    self.aliases[local] = f"{base}.{name}" if base else name
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.aliases.setdefault(stmt.name.value, f"{self.module}.{stmt.name.value}")
        for stmt in iter_statements(node):
            if isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Call):
                callee = self.qualify(stmt.value.func)
                for target in stmt.targets:
                    if not isinstance(target.target, cst.Name):
                        continue
                    name = target.target.value
                    if callee == "logging.getLogger":
                        self.loggers.add(name)
                    elif callee and callee.startswith(self.module + ".") and callee.split(".")[-1][:1].isupper():
                        self.summary.instances[name] = callee

    def _import_base(self, node: cst.ImportFrom) -> str:
        base = dotted(node.module) if node.module is not None else ""
        if not node.relative:
            return base or ""
        package = self.module.split(".")
        if self.path.stem != "__init__":
            package = package[:-1]
        depth = len(node.relative) - 1
        if depth:
            package = package[:-depth] if depth <= len(package) else []
        return ".".join([*package, base] if base else package)

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Resolve a name chain through the module's imports: `nn.Module` -> `torch.nn.Module`."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if self._scopes and head in self._scopes[-1].tensors:
            return None  # a local variable, not the imported name
        full = self.aliases.get(head, head)
        return f"{full}.{rest}" if rest else full

    # ------------------------------------------------------------------ scopes
    @property
    def function(self) -> FunctionInfo | None:
        return self._scopes[0].info if self._scopes else None

    @property
    def in_loop(self) -> bool:
        return self._loop_depth > 0

    def active(self) -> bool:
        """Inside a function body that compile would trace, were the function reached."""
        return bool(self._scopes) and self._dead_depth == 0 and self._disabled_depth == 0

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        qual = f"{self._prefix()}{node.name.value}"
        bases = [self.qualify(arg.value) or "" for arg in node.bases if arg.keyword is None]
        info = ClassInfo(qualname=qual, bases=[b for b in bases if b])
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                info.methods.add(stmt.name.value)
                self._scan_self_attrs(stmt, info)
        self.summary.classes[qual] = info
        self._classes.append(info)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes.pop()

    def _prefix(self) -> str:
        return ".".join([self.module, *[c.qualname.rsplit(".", 1)[-1] for c in self._classes[-1:]]]) + "." \
            if self._classes else f"{self.module}."

    def _scan_self_attrs(self, fn: cst.FunctionDef, info: ClassInfo) -> None:
        for stmt in iter_statements(fn.body):
            if isinstance(stmt, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
                value = stmt.value
                for target in targets:
                    if (
                        isinstance(target, cst.Attribute)
                        and isinstance(target.value, cst.Name)
                        and target.value.value == "self"
                        and isinstance(value, cst.Call)
                    ):
                        self._classify_attr(target.attr.value, value, info)
            elif isinstance(stmt, cst.Expr) and m.matches(
                stmt.value,
                m.Call(func=m.Attribute(value=m.Name("self"),
                                        attr=m.Name("register_buffer") | m.Name("register_parameter"))),
            ):
                args = stmt.value.args
                if args and isinstance(args[0].value, cst.SimpleString):
                    info.tensor_attrs.add(args[0].value.evaluated_value)

    def _classify_attr(self, attr: str, value: cst.Call, info: ClassInfo) -> None:
        callee = self.qualify(value.func)
        if callee is None:
            return
        if callee in ("torch.nn.Parameter", "torch.nn.Buffer") or (
            callee.startswith("torch.") and not callee.startswith("torch.nn.")
            and callee not in TORCH_NON_TENSOR and not callee.startswith(TORCH_NON_TENSOR_PREFIXES)
        ):
            info.tensor_attrs.add(attr)
        elif callee not in NOT_MODULES and callee.split(".")[-1][:1].isupper():
            info.submodules[attr] = callee

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = [self.qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                      for d in node.decorators]
        disabled = any(d in DISABLE for d in decorators)
        self._def_disabled.append(disabled)
        self._disabled_depth += disabled
        if self._scopes:
            # A nested function is traced with its parent: share the parent's scope.
            self._scopes.append(self._scopes[-1])
            return
        cls = self._classes[-1] if self._classes else None
        qual = f"{self._prefix()}{node.name.value}"
        info = FunctionInfo(
            qualname=qual,
            cls=cls.qualname if cls else None,
            compiled=any(d in COMPILE for d in decorators),
            disabled=disabled,
        )
        self.summary.functions[qual] = info
        scope = _Scope(info)
        scope.loggers = set(self.loggers)
        entry_like = info.compiled or node.name.value == "forward"
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            name = param.name.value
            if name in ("self", "cls"):
                continue
            scope.tensors[name] = self._param_is_tensor(param, entry_like)
            if param.annotation is not None and self._is_sequence_annotation(param.annotation.annotation):
                scope.sequences.add(name)
        self._scopes.append(scope)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()
        self._disabled_depth -= self._def_disabled.pop()

    def _param_is_tensor(self, param: cst.Param, entry_like: bool) -> bool:
        if param.annotation is not None:
            ann = param.annotation.annotation
            return self._is_tensor_annotation(ann)
        if not entry_like:
            return False
        default = param.default
        return default is None or (isinstance(default, cst.Name) and default.value == "None")

    def _is_tensor_annotation(self, ann: cst.BaseExpression) -> bool:
        if isinstance(ann, cst.SimpleString):
            text = ann.evaluated_value
            return text.replace("Optional[", "").rstrip("]").split(" |")[0] in ("Tensor", "torch.Tensor")
        if isinstance(ann, cst.BinaryOperation):  # Tensor | None is a tensor; float | Tensor may not be
            parts = [p for p in (ann.left, ann.right) if not (isinstance(p, cst.Name) and p.value == "None")]
            return bool(parts) and all(self._is_tensor_annotation(p) for p in parts)
        if isinstance(ann, cst.Subscript) and self.qualify(ann.value) in ("typing.Optional", "Optional"):
            return any(
                isinstance(el.slice, cst.Index) and self._is_tensor_annotation(el.slice.value)
                for el in ann.slice
            )
        return self.qualify(ann) in TENSOR_ANNOTATIONS

    def _is_sequence_annotation(self, ann: cst.BaseExpression) -> bool:
        if isinstance(ann, cst.Subscript) and (self.qualify(ann.value) or "").split(".")[-1].lower() in (
            "list", "tuple", "sequence"
        ):
            return any(isinstance(el.slice, cst.Index) and self._is_tensor_annotation(el.slice.value)
                       for el in ann.slice)
        return False

    # ------------------------------------------------------------------ branches dead under compile
    def compile_value(self, test: cst.BaseExpression) -> bool | None:
        """The value of a condition under torch.compile, when it is known statically."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self.compile_value(test.expression)
            return None if inner is None else not inner
        if isinstance(test, cst.Call) and not test.args:
            name = self.qualify(test.func)
            # Libraries wrap the check in helpers of the same name (`kornia.core.utils.is_compiling`).
            if name in TRUE_UNDER_COMPILE or (name or "").rsplit(".", 1)[-1] in COMPILING_HELPERS:
                return True
            if name in FALSE_UNDER_COMPILE:
                return False
        if isinstance(test, cst.BooleanOperation):
            left, right = self.compile_value(test.left), self.compile_value(test.right)
            if isinstance(test.operator, cst.And):
                if left is False or right is False:
                    return False
                return True if left and right else None
            if left is True or right is True:
                return True
            return False if left is False and right is False else None
        return None

    def visit_If(self, node: cst.If) -> None:
        value = self.compile_value(node.test)
        if value is True and node.orelse is not None:
            self._dead.add(node.orelse)
        elif value is False:
            self._dead.add(node.body)
        self._mark_condition(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._mark_condition(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._mark_condition(node.test)

    def visit_While_body(self, node: cst.While) -> None:
        self._loop_depth += 1

    def leave_While_body(self, node: cst.While) -> None:
        self._loop_depth -= 1

    def visit_For_body(self, node: cst.For) -> None:
        self._loop_depth += 1

    def leave_For_body(self, node: cst.For) -> None:
        self._loop_depth -= 1

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._mark_condition(node.test)

    def _mark_condition(self, test: cst.BaseExpression) -> None:
        self.condition_parts.add(test)
        if isinstance(test, cst.BooleanOperation):
            self._mark_condition(test.left)
            self._mark_condition(test.right)
        elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self._mark_condition(test.expression)

    def _enter_maybe_dead(self, node: cst.CSTNode) -> None:
        if node in self._dead:
            self._dead_depth += 1

    def _leave_maybe_dead(self, node: cst.CSTNode) -> None:
        if node in self._dead:
            self._dead_depth -= 1

    # libcst collects visitor methods by their __name__, so aliases would be missed.
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_maybe_dead(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._leave_maybe_dead(original_node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_maybe_dead(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._leave_maybe_dead(original_node)

    def visit_Else(self, node: cst.Else) -> None:
        self._enter_maybe_dead(node)

    def leave_Else(self, original_node: cst.Else) -> None:
        self._leave_maybe_dead(original_node)

    def visit_If_orelse(self, node: cst.If) -> None:
        if node.orelse is not None and isinstance(node.orelse, cst.If):
            self._enter_maybe_dead(node.orelse)

    def leave_If_orelse(self, node: cst.If) -> None:
        if node.orelse is not None and isinstance(node.orelse, cst.If):
            self._leave_maybe_dead(node.orelse)

    # ------------------------------------------------------------------ loops and statements
    def visit_For(self, node: cst.For) -> None:
        if not self._scopes:
            return
        scope = self._scopes[-1]
        if isinstance(node.target, cst.Name):
            name = node.target.value
            it = node.iter
            scope.tensors[name] = self.is_tensor(it) or (isinstance(it, cst.Name) and it.value in scope.sequences)
            attr = self._self_attr(it)
            cls = self._classes[-1] if self._classes else None
            if attr and cls and attr in cls.submodules:
                scope.modules.add(name)
        elif isinstance(node.target, cst.Tuple):
            for el in node.target.elements:
                if isinstance(el.value, cst.Name):
                    scope.tensors[el.value.value] = False

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._stmts.append(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._stmts.pop()

    def visit_Comment(self, node: cst.Comment) -> None:
        from .suppress import parse_comment

        parsed = parse_comment(node.value)
        if parsed is not None:
            line = self.get_metadata(PositionProvider, node).start.line
            self.suppressions.append((line, parsed[0], parsed[1]))

    # ------------------------------------------------------------------ assignments
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.assign_targets.add(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.assign_targets.add(node.target)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._scopes:
            return
        for target in original_node.targets:
            self._bind(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if not self._scopes or not isinstance(original_node.target, cst.Name):
            return
        if self._is_tensor_annotation(original_node.annotation.annotation):
            self._scopes[-1].tensors[original_node.target.value] = True
        elif original_node.value is not None:
            self._bind(original_node.target, original_node.value)

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        if self._scopes and isinstance(original_node.target, cst.Name):
            scope = self._scopes[-1]
            name = original_node.target.value
            scope.tensors[name] = scope.tensors.get(name, False) or self.is_tensor(original_node.value)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        scope = self._scopes[-1]
        if isinstance(target, cst.Name):
            name = target.value
            scope.tensors[name] = self.is_tensor(value)
            if self.is_bool_tensor(value):
                scope.bools.add(name)
            else:
                scope.bools.discard(name)
            if self._is_sequence(value):
                scope.sequences.add(name)
            else:
                scope.sequences.discard(name)
            if isinstance(value, cst.Call) and self.qualify(value.func) == "logging.getLogger":
                scope.loggers.add(name)
        elif isinstance(target, (cst.Tuple, cst.List)):
            names = [el.value for el in target.elements]
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(names):
                for sub, el in zip(names, value.elements):
                    self._bind(sub, el.value)
                return
            each = self._is_sequence(value) or self.is_tensor(value)
            for sub in names:
                if isinstance(sub, cst.Name):
                    scope.tensors[sub.value] = each
                    scope.bools.discard(sub.value)

    def _is_sequence(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Call):
            name = self.qualify(value.func)
            if name in TORCH_SEQUENCE:
                return True
            if name == "torch.where" and len(value.args) == 1:
                return True
            if isinstance(value.func, cst.Attribute) and value.func.attr.value in SEQUENCE_METHODS:
                return self.is_tensor(value.func.value)
        if isinstance(value, (cst.List, cst.Tuple)):
            return bool(value.elements) and all(self.is_tensor(el.value) for el in value.elements)
        return False

    # ------------------------------------------------------------------ tensors
    def _self_attr(self, node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            return node.attr.value
        return None

    def is_logger(self, name: str) -> bool:
        """A name bound to `logging.getLogger(...)`, at module level or in the current function."""
        return name in self.loggers or bool(self._scopes and name in self._scopes[-1].loggers)

    def class_info(self) -> ClassInfo | None:
        return self._classes[-1] if self._classes else None

    def is_module_ref(self, node: cst.BaseExpression) -> bool:
        """`self.encoder`, `self.blocks[i]`, a loop variable over `self.blocks`."""
        cls = self.class_info()
        attr = self._self_attr(node)
        if attr is not None:
            return bool(cls and attr in cls.submodules)
        if isinstance(node, cst.Subscript):
            return self.is_module_ref(node.value)
        if isinstance(node, cst.Name) and self._scopes:
            return node.value in self._scopes[-1].modules
        return False

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        """Whether the expression certainly or very probably holds a tensor."""
        scope = self._scopes[-1] if self._scopes else None
        if isinstance(node, cst.Name):
            return bool(scope and scope.tensors.get(node.value))
        if isinstance(node, cst.Attribute):
            attr = node.attr.value
            if attr in NON_TENSOR_ATTRS:
                return False
            if attr in TENSOR_ATTRS:
                return self.is_tensor(node.value)
            self_attr = self._self_attr(node)
            cls = self.class_info()
            return bool(self_attr and cls and self_attr in cls.tensor_attrs)
        if isinstance(node, cst.Call):
            return self._call_is_tensor(node)
        if isinstance(node, cst.Subscript):
            if isinstance(node.value, cst.Name) and scope and node.value.value in scope.sequences:
                return True
            return self.is_tensor(node.value)
        if isinstance(node, cst.BinaryOperation):
            return self.is_tensor(node.left) or self.is_tensor(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self.is_tensor(node.expression)
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return False
            return self.is_tensor(node.left) or any(self.is_tensor(c.comparator) for c in node.comparisons)
        if isinstance(node, cst.BooleanOperation):
            return self.is_tensor(node.left) or self.is_tensor(node.right)
        if isinstance(node, cst.IfExp):
            return self.is_tensor(node.body) and self.is_tensor(node.orelse)
        return False

    def _call_is_tensor(self, node: cst.Call) -> bool:
        func = node.func
        name = self.qualify(func)
        if name is not None and name.startswith("torch."):
            if name.startswith("torch.nn.functional."):
                return True
            if (name.startswith("torch.nn.") or name in TORCH_NON_TENSOR
                    or name.startswith(TORCH_NON_TENSOR_PREFIXES)
                    or name.rsplit(".", 1)[-1].lstrip("_").startswith(PREDICATE_PREFIXES)):
                return False
            return True
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = func.value
            if method in NON_TENSOR_METHODS:
                return False
            if self.is_tensor(receiver):
                return True
            if self.is_module_ref(func):  # self.blocks[0].forward(x)? rare
                return True
            if isinstance(receiver, cst.Name) and method in TENSOR_ONLY_METHODS:
                head = self.aliases.get(receiver.value, "")
                return head == "" and receiver.value not in ("self", "cls")
            return False
        return self.is_module_ref(func)

    def is_bool_tensor(self, node: cst.BaseExpression) -> bool:
        scope = self._scopes[-1] if self._scopes else None
        if isinstance(node, cst.Name):
            return bool(scope and node.value in scope.bools)
        if isinstance(node, cst.Comparison):
            return self.is_tensor(node)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
            return self.is_bool_tensor(node.expression)
        if isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)
        ):
            return self.is_bool_tensor(node.left) or self.is_bool_tensor(node.right)
        if isinstance(node, cst.Call):
            name = self.qualify(node.func)
            if name in BOOL_FUNCS:
                return True
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in BOOL_METHODS:
                return self.is_tensor(node.func.value)
        return False

    # ------------------------------------------------------------------ call graph
    def visit_Call(self, node: cst.Call) -> None:
        name = self.qualify(node.func)
        if name in COMPILE and node.args:
            target = node.args[0].value
            ref = self.qualify(target)
            if ref:
                self.summary.entries.append(self.summary.instances.get(dotted(target) or "", ref))
            elif isinstance(target, cst.Call):
                ctor = self.qualify(target.func)
                if ctor:
                    self.summary.entries.append(ctor)
        if not self.active():
            return
        fn = self.function
        pos = self.get_metadata(PositionProvider, node)
        refs: list[tuple[str, str]] = []
        func = node.func
        attr = self._self_attr(func)
        if attr is not None:
            cls = self.class_info()
            refs.append(("selfattr" if cls and attr in cls.submodules else "self", attr))
        elif isinstance(func, cst.Attribute) and m.matches(func.value, m.Call(func=m.Name("super"))):
            refs.append(("super", func.attr.value))
        elif isinstance(func, cst.Subscript) and self.is_module_ref(func):
            inner = self._self_attr(func.value)
            if inner:
                refs.append(("selfattr", inner))
        elif name is not None:
            refs.append(("name", name))
        # Functions and bound methods handed to other calls (checkpoint, map, ...) are reached too.
        for arg in node.args:
            arg_attr = self._self_attr(arg.value)
            if arg_attr is not None:
                refs.append(("self", arg_attr))
            elif isinstance(arg.value, cst.Name) and arg.value.value in self.aliases:
                refs.append(("name", self.aliases[arg.value.value]))
        for kind, target in refs:
            fn.calls.append(CallRef(kind, target, pos.start.line, pos.start.column, pos.end.line, pos.end.column))

    # ------------------------------------------------------------------ findings
    def current_statement(self) -> cst.CSTNode | None:
        """The innermost simple statement line being walked."""
        return self._stmts[-1] if self._stmts else None

    def statement_lines(self) -> tuple[int, int]:
        if not self._stmts:
            return (0, 0)
        pos = self.get_metadata(PositionProvider, self._stmts[-1])
        return pos.start.line, pos.end.line

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self.get_metadata(PositionProvider, node)

    def add_finding(
        self,
        rule: "Rule",
        node: cst.CSTNode,
        message: str,
        suggestion: str,
        fix: Fix | None = None,
        scope: str | None = None,
        stmt_lines: tuple[int, int] | None = None,
    ) -> None:
        pos = self.position(node)
        start, end = stmt_lines or self.statement_lines()
        finding = Finding(
            code=rule.CODE,
            kind=rule.KIND,
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
        self.candidates.append(Candidate(owner, finding, start or pos.start.line, end or pos.end.line))

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
