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

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import libcst as cst
from libcst.metadata import CodeRange

from . import values as V
from ..finding import Finding, Fix
from .literals import integer
from .positions import Positions
from .walk import find
from .summary import CallRef, Candidate, ClassInfo, FunctionInfo, ModuleSummary
from .values import Val

if TYPE_CHECKING:
    from ..rules.base import Rule

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
# Builtins that inspect what they are handed without calling it.
TYPE_TESTS = {"isinstance", "issubclass", "hasattr", "getattr", "setattr", "type", "id", "callable"}
# Tensor methods and attributes whose value is not a tensor.
NON_TENSOR_METHODS = {
    "item", "tolist", "size", "dim", "ndimension", "numel", "nelement", "data_ptr",
    "element_size", "stride", "storage_offset", "is_contiguous", "is_floating_point",
    "is_complex", "numpy", "get_device", "__len__", "untyped_storage", "storage",
    "is_pinned", "is_set_to", "has_names", "type", "register_hook", "backward",
    "is_inference", "is_shared", "is_signed", "is_coalesced", "is_same_size", "is_conj", "is_neg",
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
# Methods that keep a tensor's dtype (a bool mask stays a bool mask).
SHAPE_METHODS = {
    "unsqueeze", "squeeze", "view", "reshape", "permute", "transpose", "flatten", "expand", "expand_as",
    "repeat", "contiguous", "clone", "detach", "flip", "roll", "t", "narrow", "view_as", "reshape_as",
    "unflatten", "movedim", "repeat_interleave", "tile",
}
_LITERAL_KINDS = {
    cst.Integer: V.NUMBER, cst.Float: V.NUMBER, cst.Imaginary: V.NUMBER,
    cst.SimpleString: V.STR, cst.ConcatenatedString: V.STR, cst.FormattedString: V.STR,
}
_NAME_CONSTANTS = {"True": V.BOOL, "False": V.BOOL, "None": V.NONE}
BOOL_FUNCS = {
    "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isposinf", "torch.isneginf",
    "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.logical_xor",
    "torch.eq", "torch.ne", "torch.gt", "torch.ge", "torch.lt", "torch.le", "torch.isin",
    "torch.isclose", "torch.signbit", "torch.all", "torch.any",
}
BOOL_METHODS = {
    "bool", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_and",
    "logical_or", "logical_not", "logical_xor", "eq", "ne", "gt", "ge", "lt", "le",
    "isclose", "signbit", "all", "any",
}
TENSOR_ANNOTATIONS = {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor"}
SEQUENCE_ANNOTATIONS = {
    "typing.List", "typing.Tuple", "typing.Sequence", "list", "tuple", "collections.abc.Sequence",
}
SCALAR_ANNOTATIONS = {"int", "float", "bool", "str", "bytes", "complex"}
MODULE_CONTAINERS = {"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Sequential"}
NOT_MODULES = {"torch.nn.Parameter", "torch.nn.ParameterList", "torch.nn.ParameterDict",
               "torch.nn.Buffer", "torch.nn.functional", "torch.nn.init", "torch.nn.utils"}


UNREADABLE = V.Val("unknown", name="unreadable annotation")


@dataclass
class _Scope:
    info: FunctionInfo
    values: dict[str, Val] = field(default_factory=dict)  # local name -> what it holds
    modules: set[str] = field(default_factory=set)
    loggers: set[str] = field(default_factory=set)
    returns: list[Val] = field(default_factory=list)
    generator: bool = False
    held: dict[str, str] = field(default_factory=dict)  # local name -> the `self.<attr>` module it holds


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None for anything that is not a plain name chain."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _narrows(old: Val, new: Val) -> bool:
    """Whether a type test's answer `new` replaces what a name holds, `old`, in the code it guards.

    That code runs only where the test holds. A test that it is not a tensor (`isinstance(t, float)`)
    always wins: where `t` is a tensor, the code never runs. A test that it is one wins only over
    what is not known: code testing a float for a tensor never runs either, and judged on a tensor
    it would report breaks that cannot happen. What is known not to be a tensor stays (a sequence
    keeps its elements)."""
    if new.is_tensor:
        return not (old.known_tensor or old.not_tensor)
    return not old.not_tensor


def _leaves_block(body: cst.BaseSuite) -> bool:
    """A suite whose last statement returns or raises (or leaves the loop): what follows it in the
    enclosing block runs only when the suite did not."""
    statements = body.body
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break))
    return False


def _is_super_call(node: cst.BaseExpression) -> bool:
    """`super()` (with or without arguments)."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


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


class FileContext(cst.BatchableCSTVisitor):
    def __init__(self, path: Path, module: str, source_lines: list[str], positions: Positions) -> None:
        super().__init__()
        self.path = path
        self.positions = positions
        self.indent_unit = "    "
        self.summary = ModuleSummary(module=module)
        self.module = module
        self.lines = source_lines
        self.aliases: dict[str, str] = {}
        self.globals: dict[str, Val] = {}  # module-level names: what they were assigned
        self.compile_helpers: dict[str, bool] = {}  # this file's wrappers of the compile checks -> value
        self.loggers: set[str] = set()
        self.candidates: list[Candidate] = []
        self.suppressions: list[tuple[int, frozenset[str] | None, str]] = []
        self._scopes: list[_Scope] = []
        self._classes: list[ClassInfo] = []
        self._dead: set[cst.CSTNode] = set()
        self._dead_depth = 0
        self._short_circuits: list[bool] = []  # per `and`/`or` whose right operand is being walked: skipped?
        self._disabled_depth = 0
        self._def_disabled: list[bool] = []  # per enclosing def: did it raise _disabled_depth
        self._loop_depth = 0
        self._branch_names: list[set[str]] = []  # per enclosing loop body, `else` or handler: names it bound
        self._guards: list[list[tuple[str, bool]]] = []  # per enclosing `if` body: the conditions it needs
        self._if_guards: dict[cst.If, list[tuple[str, bool]]] = {}
        self._testing: list[cst.If] = []  # the `if` whose test is being walked, until its body
        self._if_frames: list[list[dict[str, Val]] | None] = []
        # per `if` branch, conditional expression or right operand of `and`/`or`: name -> (what it held,
        # what an isinstance test made it)
        self._narrowed: list[dict[str, tuple[Val, Val]]] = []
        self._if_elses: set[cst.Else] = set()
        self._stmts: list[cst.CSTNode] = []
        self._comprehensions: list[dict[str, Val | None]] = []  # per enclosing comprehension: the names it hides
        self._blocks: list[cst.IndentedBlock] = []  # the indented blocks being walked, innermost last
        self._qualified: tuple[cst.CSTNode | None, str | None] = (None, None)
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
        # Module-level helpers that only wrap the compile checks (`def _tracing(): return
        # torch.compiler.is_compiling() or torch.jit.is_tracing()`) decide branches as they do.
        for stmt in node.body:
            if isinstance(stmt, cst.FunctionDef) and len(stmt.body.body) == 1:
                only = stmt.body.body[0]
                if isinstance(only, cst.SimpleStatementLine) and len(only.body) == 1 \
                        and isinstance(only.body[0], cst.Return) and only.body[0].value is not None:
                    value = self.compile_value(only.body[0].value)
                    if value is not None:
                        self.compile_helpers[f"{self.module}.{stmt.name.value}"] = value
        self.summary.imports = {k: v for k, v in self.aliases.items()
                                if v and v != f"{self.module}.{k}" and "." in v and not v.startswith("torch.")}
        for stmt in iter_statements(node):
            if isinstance(stmt, cst.Assign) and isinstance(stmt.value, (cst.Dict, cst.List, cst.Tuple)):
                elements = [el.value for el in stmt.value.elements if isinstance(el, (cst.DictElement, cst.Element))]
                held = [self.aliases[e.value] for e in elements if isinstance(e, cst.Name) and e.value in self.aliases]
                if held:
                    for target in stmt.targets:
                        if isinstance(target.target, cst.Name):
                            self.summary.function_tables[target.target.value] = held
            if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
                name = stmt.targets[0].target.value
                if isinstance(stmt.value, cst.Call):
                    made = self.qualify(stmt.value.func)
                    value = V.Val("object", ref=made) if made and not made.startswith("torch.") else V.UNKNOWN
                else:
                    value = self.literal_value(stmt.value) or V.UNKNOWN
                old = self.globals.get(name)
                self.globals[name] = value if old is None else V.join(old, value)
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
        # Every rule that looks at a call asks about its callee in turn, at the same point of the
        # walk: the last answer is kept for the next question about the same node.
        if node is self._qualified[0]:
            return self._qualified[1]
        name = dotted(node)
        if name is None:
            full = None
        else:
            head, _, rest = name.partition(".")
            if self._scopes and head in self._scopes[-1].values:
                full = None  # a local variable, not the imported name
            else:
                full = self.aliases.get(head, head)
                full = f"{full}.{rest}" if rest else full
        self._qualified = (node, full)
        return full

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
        # `self.flag = flag`, with `flag: bool = False` a parameter of the method: what it declares
        params = {p.name.value: p for p in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]}
        for stmt in iter_statements(fn.body):
            if isinstance(stmt, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
                value = stmt.value
                for target in targets:
                    attr = self._self_attr(target)
                    if attr is None or value is None:
                        continue
                    if isinstance(value, cst.Call):
                        self._classify_attr(attr, value, info)
                    elif held := self._held_functions(value):
                        info.callables.setdefault(attr, []).extend(held)
                    if attr not in info.tensor_attrs and attr not in info.submodules and attr not in info.callables:
                        literal = self.literal_value(value)
                        if literal is None and isinstance(value, cst.Name) and value.value in params:
                            literal = self._declared_value(params[value.value])
                        literal = literal or V.UNKNOWN
                        old = info.attr_values.get(attr)
                        info.attr_values[attr] = literal if old is None else V.join(old, literal)
            elif isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) \
                    and self._self_attr(stmt.value.func) in ("register_buffer", "register_parameter"):
                args = stmt.value.args
                if args and isinstance(args[0].value, cst.SimpleString):
                    info.tensor_attrs.add(args[0].value.evaluated_value)

    def _held_functions(self, value: cst.BaseExpression) -> list[str]:
        """Functions an attribute may hold: `fn`, `TABLE[key]` (a module-level table of functions),
        `a if c else b`."""
        if isinstance(value, cst.IfExp):
            return self._held_functions(value.body) + self._held_functions(value.orelse)
        if isinstance(value, cst.Subscript):
            name = dotted(value.value)
            if name in self.summary.function_tables:
                return [f"{self.module}.{name}"]
            qual = self.qualify(value.value) if name else None
            return [qual] if qual and qual != name else []
        if isinstance(value, (cst.Name, cst.Attribute)):
            name = dotted(value)
            head = (name or "").split(".")[0]
            if name and head in self.aliases and head != "self":
                qual = self.qualify(value)
                if qual and not qual.startswith(("torch.", "math.", "numpy.", "operator.")):
                    return [qual]
        return []

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
            held = info.submodules.setdefault(attr, callee)
            if held != callee:  # assigned different classes on different paths: calls reach each
                info.callables.setdefault(attr, []).append(callee)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        decorators = [self.qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
                      for d in node.decorators]
        disabled = any(d in DISABLE for d in decorators)
        self._def_disabled.append(disabled)
        self._disabled_depth += disabled
        if self._scopes:
            # A nested function is traced with its parent: share the parent's scope.
            self._scopes.append(self._scopes[-1])
            self._qualified = (None, None)  # names changed meaning
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
        info.is_static = "staticmethod" in decorators
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            name = param.name.value
            info.params.append(name)
            if name in ("self", "cls") and cls is not None and not info.is_static:
                scope.values[name] = V.OBJECT
                continue
            declared = self._declared_value(param)
            if declared is not None:
                info.declared[name] = declared
                scope.values[name] = declared
                continue
            default = self._default_value(param)
            if default is not None:
                info.fallback[name] = default
            elif param.default is not None:
                info.optional.add(name)
            scope.values[name] = V.param(qual, name)
        for star in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.values[star.name.value] = V.OBJECT
        self._scopes.append(scope)
        self._qualified = (None, None)  # names changed meaning

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        scope = self._scopes.pop()
        self._qualified = (None, None)  # names changed meaning
        self._disabled_depth -= self._def_disabled.pop()
        if not self._scopes or self._scopes[-1] is not scope:  # the end of a top-level function
            if scope.generator:
                scope.info.returns = V.OBJECT
            else:
                scope.info.returns = V.join(*scope.returns) if scope.returns else V.NONE

    def visit_Return(self, node: cst.Return) -> None:
        if self._scopes and self._nested_depth() == 0:
            self._scopes[-1].returns.append(self.value(node.value) if node.value is not None else V.NONE)

    def visit_Yield(self, node: cst.Yield) -> None:
        if self._scopes and self._nested_depth() == 0:
            self._scopes[-1].generator = True

    def _nested_depth(self) -> int:
        """How many function definitions deep inside the top-level function the walk is."""
        return len(self._def_disabled) - 1

    def _declared_value(self, param: cst.Param) -> Val | None:
        """What a parameter's annotation says it holds, or None without one (or with one that
        says nothing this file can read, such as a type alias from elsewhere)."""
        if param.annotation is None:
            return None
        value = self.annotation_value(param.annotation.annotation)
        return None if value is UNREADABLE else value

    def annotation_value(self, ann: cst.BaseExpression) -> Val:
        if isinstance(ann, cst.Subscript) and (self.qualify(ann.value) or "").endswith("Optional"):
            inner = [el.slice.value for el in ann.slice if isinstance(el.slice, cst.Index)]
            if len(inner) == 1:
                return self.annotation_value(inner[0])  # Optional[X] is what X is
        if self._is_tensor_annotation(ann):
            return V.TENSOR
        if self._is_sequence_annotation(ann) or self._tensor_elements(ann):
            return V.seq([V.TENSOR])
        if self._is_tensor_mapping(ann):
            return V.mapping_of(V.TENSOR)
        scalar = self._scalar_annotation(ann)
        if scalar is not None:
            return scalar
        if isinstance(ann, cst.BinaryOperation) or (
                isinstance(ann, cst.Subscript) and (self.qualify(ann.value) or "").endswith("Union")):
            return V.UNKNOWN  # float | Tensor: either
        if isinstance(ann, cst.SimpleString) and "Tensor" in ann.value:
            return V.UNKNOWN
        name = self.qualify(ann.value if isinstance(ann, cst.Subscript) else ann) or ""
        if isinstance(ann, cst.Subscript) and name.split(".")[-1] == "Literal":
            values = [self.literal_value(el.slice.value) for el in ann.slice if isinstance(el.slice, cst.Index)]
            return V.join(*[v or V.UNKNOWN for v in values]) if values else V.OBJECT
        if name.split(".")[-1].lower() in ("dict", "list", "tuple", "set", "str", "callable", "mapping",
                                           "sequence", "iterable", "any") or name.startswith(
                                               ("typing.", "typing_extensions.", "collections.abc.")):
            return V.OBJECT
        # a name this file cannot see into (`Adj`, `OptTensor`, a class): let the call sites tell
        return UNREADABLE

    def _scalar_annotation(self, ann: cst.BaseExpression) -> Val | None:
        if isinstance(ann, cst.BinaryOperation):
            parts = [p for p in (ann.left, ann.right) if not (isinstance(p, cst.Name) and p.value == "None")]
            if len(parts) == 1:
                return self._scalar_annotation(parts[0])
            vals = [self._scalar_annotation(p) for p in parts]
            return V.NUMBER if all(v is not None and v.kind == "number" for v in vals) else None
        name = dotted(ann) if not isinstance(ann, cst.SimpleString) else ann.evaluated_value
        return {"int": V.NUMBER, "float": V.NUMBER, "complex": V.NUMBER, "bool": V.BOOL, "str": V.STR,
                "bytes": V.STR}.get(name or "")

    def _default_value(self, param: cst.Param) -> Val | None:
        """What a parameter's default holds, for a default other than `None`."""
        default = param.default
        if default is None or (isinstance(default, cst.Name) and default.value == "None"):
            return None
        value = self.literal_value(default)
        return value if value is not None else V.UNKNOWN

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

    def _is_tensor_mapping(self, ann: cst.BaseExpression) -> bool:
        """`Dict[str, Tensor]`, `dict[str, Tensor]`, `Mapping[str, Tensor]`: every value a tensor."""
        if not (isinstance(ann, cst.Subscript) and (self.qualify(ann.value) or "").split(".")[-1].lower() in (
                "dict", "mapping", "mutablemapping", "ordereddict") and len(ann.slice) == 2):
            return False
        value = ann.slice[1].slice
        return isinstance(value, cst.Index) and self._is_tensor_annotation(value.value)

    def _tensor_elements(self, ann: cst.BaseExpression) -> bool:
        """`Union[Tensor, tuple[Tensor, Tensor]]`, `Tensor | list[Tensor]`: either way, its elements are
        tensors (a value the `isinstance` tests of the body tell apart)."""
        if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
            members = [ann.left, ann.right]
        elif isinstance(ann, cst.Subscript) and (self.qualify(ann.value) or "").endswith("Union"):
            members = [el.slice.value for el in ann.slice if isinstance(el.slice, cst.Index)]
        else:
            return False
        members = [m for m in members if not (isinstance(m, cst.Name) and m.value == "None")]
        return (any(self._is_sequence_annotation(m) or self._tensor_elements(m) for m in members)
                and all(self._is_tensor_annotation(m) or self._is_sequence_annotation(m) or self._tensor_elements(m)
                        for m in members))

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
            if name in self.compile_helpers:
                return self.compile_helpers[name]
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

    # `not is_compiling() and bool(t)`: under compile the right operand is never evaluated.
    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        left = self.compile_value(node.left)
        skipped = left is not None and left == isinstance(node.operator, cst.Or)
        self._short_circuits.append(skipped)
        self._dead_depth += skipped
        self._narrow(node.left, isinstance(node.operator, cst.And))

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self._unnarrow()
        self._dead_depth -= self._short_circuits.pop()

    def visit_If(self, node: cst.If) -> None:
        self._if_guards[node] = self.guard_conditions(node.test)
        self._testing.append(node)
        # [values before the `if`, then the values its body left]
        self._if_frames.append([dict(self._scopes[-1].values)] if self._scopes else None)
        if isinstance(node.orelse, cst.Else):
            self._if_elses.add(node.orelse)
        value = self.compile_value(node.test)
        if value is True and node.orelse is not None:
            self._dead.add(node.orelse)
        elif value is False:
            self._dead.add(node.body)
        self._mark_condition(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._mark_condition(node.test)
        self._narrow(node.test, True)  # libcst walks `body` first, then `test`, then `orelse`

    def visit_IfExp_test(self, node: cst.IfExp) -> None:
        self._unnarrow()
        self._narrowed.append({})

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        self._unnarrow()
        self._narrow(node.test, False)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._unnarrow()

    # `isinstance(x, np.ndarray)` tells what `x` holds where the test is true, `not isinstance(x,
    # torch.Tensor)` where it is false: narrowed while that branch is walked, then back to what it
    # held unless the branch rebound it.
    def _narrow(self, test: cst.BaseExpression, holds: bool) -> None:
        self._narrowed.append(self._apply_type_facts(test, holds))

    def _apply_type_facts(self, test: cst.BaseExpression, holds: bool) -> dict[str, tuple[Val, Val]]:
        """Give the names `test` tells of, where it is `holds`, what it says they hold; the names
        changed, each with (what it held, what it holds now)."""
        narrowed: dict[str, tuple[Val, Val]] = {}
        if not self._scopes:
            return narrowed
        values = self._scopes[-1].values
        for name, value in self._type_facts(test, holds).items():
            old = values.get(name)
            if old is not None and _narrows(old, value):
                narrowed[name] = (old, value)
                values[name] = value
        if narrowed:
            self._qualified = (None, None)  # names changed meaning
        return narrowed

    def _unnarrow(self) -> None:
        narrowed = self._narrowed.pop()
        if not narrowed or not self._scopes:
            return
        values = self._scopes[-1].values
        for name, (old, new) in narrowed.items():
            if values.get(name) is new:  # not rebound in the branch
                values[name] = old
        self._qualified = (None, None)

    def _type_facts(self, test: cst.BaseExpression, holds: bool) -> dict[str, Val]:
        """What names hold where `test` is `holds`, from its isinstance tests."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._type_facts(test.expression, not holds)
        if isinstance(test, cst.BooleanOperation):
            # `a and b` true: both hold; `a or b` false: neither holds
            if isinstance(test.operator, cst.And) == holds:
                return {**self._type_facts(test.left, holds), **self._type_facts(test.right, holds)}
            return {}
        if not (isinstance(test, cst.Call) and test.args and isinstance(test.args[0].value, cst.Name)):
            return {}
        name = test.args[0].value.value
        callee = self.qualify(test.func)
        if callee == "torch.is_tensor" and len(test.args) == 1:
            return {name: V.TENSOR if holds else V.OBJECT}
        if callee != "isinstance" or len(test.args) != 2:
            return {}
        kinds = test.args[1].value
        types = [el.value for el in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
        held = [self._type_value(t) for t in types]
        if holds:
            if all(v is not None for v in held):
                return {name: V.join(*held) if len(held) > 1 else held[0]}
            return {}
        # false: not a tensor, where a tensor type was tested for
        if any(v is not None and v.is_tensor for v in held):
            return {name: V.OBJECT}
        return {}

    def _type_value(self, node: cst.BaseExpression) -> Val | None:
        """What an instance of the type `node` names holds; None for a type this cannot tell."""
        qual = self.qualify(node) or ""
        if self._is_tensor_annotation(node) or qual in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return V.TENSOR
        if qual in ("int", "float", "complex", "numbers.Number", "numbers.Real", "numbers.Integral"):
            return V.NUMBER
        if qual == "bool":
            return V.BOOL
        if qual in ("str", "bytes", "dict", "set", "frozenset", "numpy.ndarray", "numpy.generic",
                    "numpy.number", "numpy.integer", "numpy.floating"):
            return V.OBJECT
        if qual in ("list", "tuple"):
            return V.Val("seq")
        return None

    def visit_While(self, node: cst.While) -> None:
        self._mark_condition(node.test)

    def visit_While_body(self, node: cst.While) -> None:
        self._loop_depth += 1
        self._enter_branch()

    def leave_While_body(self, node: cst.While) -> None:
        self._loop_depth -= 1
        self._leave_branch()

    def visit_For_body(self, node: cst.For) -> None:
        self._loop_depth += 1
        self._enter_branch()

    def leave_For_body(self, node: cst.For) -> None:
        self._loop_depth -= 1
        self._leave_branch()

    # A name bound inside a loop body, the `else` of a loop or `try`, or a handler may keep the
    # value it had before: see `_assign_value`. (An `if` keeps a snapshot instead: `leave_If`.)
    def _enter_branch(self) -> None:
        self._branch_names.append(set())

    def _leave_branch(self) -> None:
        self._branch_names.pop()

    def tested_if(self) -> cst.If | None:
        """The `if` whose test is being walked (before its body)."""
        return self._testing[-1] if self._testing else None

    def visit_If_body(self, node: cst.If) -> None:
        self._guards.append(self._if_guards.get(node, []))
        if self._testing and self._testing[-1] is node:
            self._testing.pop()
        self._narrow(node.test, True)

    def leave_If_body(self, node: cst.If) -> None:
        self._guards.pop()
        self._unnarrow()
        # The `else` (or `elif`) starts again from the values before the `if`.
        frame = self._if_frames[-1]
        if self._scopes and frame is not None:
            frame.append(dict(self._scopes[-1].values))
            self._scopes[-1].values = dict(frame[0])
        self._narrow(node.test, False)

    def leave_If(self, original_node: cst.If) -> None:
        self._unnarrow()
        frame = self._if_frames.pop()
        if not self._scopes or frame is None or len(frame) < 2:
            return
        if original_node.orelse is None and _leaves_block(original_node.body):
            # `if not isinstance(x, torch.Tensor): raise TypeError(...)`: past it, the test was false
            # and the body's values never get here.
            self._apply_type_facts(original_node.test, False)
            self._qualified = (None, None)
            return
        # After the `if`: what either branch left (joined where both bound a name).
        body, rest = frame[1], self._scopes[-1].values
        merged = dict(rest)
        for name, value in body.items():
            other = rest.get(name)
            merged[name] = value if other is None or other == value else V.join(value, other)
        self._scopes[-1].values = merged

    # ------------------------------------------------------------------ trace-time conditions
    # A condition is (its text, whether it is a half-precision dtype check).
    def guard_conditions(self, test: cst.BaseExpression) -> list[tuple[str, bool]]:
        """The conjuncts of a test that dynamo decides while tracing and that must hold for the code
        under it to run: `self.training`, a half-precision dtype check."""
        parts, is_and = self._chain(test)
        if not is_and:
            return []
        out = []
        for part in parts:
            if self._self_attr(part) == "training":
                out.append(("self.training", False))
            elif self._is_half_dtype_check(part):
                out.append((self.source(part, limit=80), True))
        return out

    def test_conditions(self, test: cst.BaseExpression) -> list[tuple[str, bool]]:
        """In `a and b and t`, where `t` tests a tensor: the Python-valued conjuncts before it
        (`mask is not None`, `zero_division == "warn"`), which must hold for `t` to be evaluated."""
        parts, is_and = self._chain(test)
        out = []
        for part in parts:
            value = self.value(part)
            if value.is_tensor or value.symbolic:
                break
            out.append(self._operand_condition(part, is_and))
        return out if len(out) < len(parts) else []

    def _operand_condition(self, part: cst.BaseExpression, is_and: bool) -> tuple[str, bool]:
        """What must have come out of an operand before the next one of its chain runs."""
        text = "self.training" if self._self_attr(part) == "training" else self.source(part, limit=80)
        return (text, self._is_half_dtype_check(part)) if is_and else (f"not ({text})", False)

    @staticmethod
    def _chain(test: cst.BaseExpression) -> tuple[list[cst.BaseExpression], bool]:
        """The operands of a top-level `and` (or `or`) chain, in order; and whether it is `and`."""
        if not isinstance(test, cst.BooleanOperation):
            return [test], True
        is_and = isinstance(test.operator, cst.And)
        parts: list[cst.BaseExpression] = []
        stack = [test]
        while stack:
            cur = stack.pop()
            if isinstance(cur, cst.BooleanOperation) and isinstance(cur.operator, cst.And) == is_and:
                stack.extend([cur.right, cur.left])  # `and` and `or` are associative: parentheses change nothing
            else:
                parts.append(cur)
        return parts, is_and

    def _operand_conditions(self, node: cst.CSTNode) -> list[tuple[str, bool]]:
        """For a node inside the test of the `if` being entered: the operands before the one that
        holds it, which must have come out right for it to run (`self.training and random() < p`)."""
        if not self._testing:
            return []
        parts, is_and = self._chain(self._testing[-1].test)
        try:
            where = self.position(node)
        except KeyError:
            return []
        out = []
        for part in parts:
            pos = self.position(part)
            if (pos.start.line, pos.start.column) <= (where.start.line, where.start.column) and \
                    (where.end.line, where.end.column) <= (pos.end.line, pos.end.column):
                return out
            out.append(self._operand_condition(part, is_and))
        return []

    def _is_half_dtype_check(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
            return False
        left, comp = node.left, node.comparisons[0]
        if not (isinstance(left, cst.Attribute) and left.attr.value == "dtype"):
            return False
        right = comp.comparator
        options = [el.value for el in right.elements] if isinstance(right, (cst.Tuple, cst.List, cst.Set)) else [right]
        names = {self.qualify(o) for o in options}
        half = {"torch.float16", "torch.half", "torch.bfloat16"}
        if isinstance(comp.operator, (cst.Equal, cst.In, cst.Is)):
            return bool(names) and names <= half
        return False

    def conditions(self, test: cst.BaseExpression | None = None,
                   node: cst.CSTNode | None = None) -> dict[str, bool]:
        """The trace-time conditions a finding needs, text -> whether it is a half-precision check:
        those of the enclosing `if` bodies, and those of the test reported (`test`) or of the
        operands before `node` in the test being walked."""
        found = [c for level in self._guards for c in level]
        if test is not None:
            found += self.guard_conditions(test) + self.test_conditions(test)
        elif node is not None:
            found += self._operand_conditions(node)
        out: dict[str, bool] = {}
        for text, half in found:
            out[text] = out.get(text, False) or half
        return out

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._enter_branch()

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._leave_branch()

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._mark_condition(node.test)

    def _note_scalar_use(self, node: cst.BaseExpression | None) -> None:
        """`node` is used as a flag or an integer: if it is one of the function's own parameters
        (or one negated, or plus or minus something), the function takes that parameter for a Python
        scalar."""
        while True:
            if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
                self._note_scalar_use(node.left)
                node = node.right
            elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
                node = node.expression
            else:
                break
        if isinstance(node, cst.Name) and self._scopes:
            value = self._scopes[-1].values.get(node.value)
            info = self._scopes[-1].info
            if value is not None and value.kind == "param" and value.ref == info.qualname:
                info.scalar_uses.add(node.value)

    def visit_Slice(self, node: cst.Slice) -> None:
        for bound in (node.lower, node.upper, node.step):
            self._note_scalar_use(bound)

    def _mark_condition(self, test: cst.BaseExpression) -> None:
        self.condition_parts.add(test)
        if isinstance(test, cst.Name):
            self._note_scalar_use(test)
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
        self._blocks.append(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._leave_maybe_dead(original_node)
        self._blocks.pop()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_maybe_dead(node)

    def leave_SimpleStatementSuite(self, original_node: cst.SimpleStatementSuite) -> None:
        self._leave_maybe_dead(original_node)

    def visit_Else(self, node: cst.Else) -> None:
        self._enter_maybe_dead(node)
        if node not in self._if_elses:  # the `else` of a loop or `try` (an `if`'s is handled there)
            self._enter_branch()

    def leave_Else(self, original_node: cst.Else) -> None:
        self._leave_maybe_dead(original_node)
        if original_node not in self._if_elses:
            self._leave_branch()

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
        self._bind_loop_target(node.target, node.iter)
        attr = self._self_attr(node.iter)
        cls = self._classes[-1] if self._classes else None
        if isinstance(node.target, cst.Name) and attr and cls and attr in cls.submodules:
            self._scopes[-1].modules.add(node.target.value)

    # A comprehension has a scope of its own (Python 3). libcst walks its element before its `for`
    # clauses, so all its targets are bound on entering it; the names they hide hold their earlier
    # values again on leaving it.
    def _enter_comprehension(self, node: cst.BaseComp | cst.DictComp) -> None:
        hidden: dict[str, Val | None] = {}
        self._comprehensions.append(hidden)
        if not self._scopes:
            return
        values = self._scopes[-1].values
        branches, self._branch_names = self._branch_names, []  # bound for good, not joined with a loop's
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            for name in find(comp.target, cst.Name):
                hidden.setdefault(name.value, values.get(name.value))
            self._bind_loop_target(comp.target, comp.iter)
            comp = comp.inner_for_in
        self._branch_names = branches

    def _leave_comprehension(self) -> None:
        hidden = self._comprehensions.pop()
        if not self._scopes:
            return
        values = self._scopes[-1].values
        for name, old in hidden.items():
            if old is None:
                values.pop(name, None)
            else:
                values[name] = old
        self._qualified = (None, None)  # names changed meaning

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._enter_comprehension(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._leave_comprehension()

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._enter_comprehension(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._leave_comprehension()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._enter_comprehension(node)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._leave_comprehension()

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._enter_comprehension(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._leave_comprehension()

    def _bind_loop_target(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """`for t in it`: t holds an element of `it`; `zip` and `enumerate` are taken apart."""
        scope = self._scopes[-1]
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value in ("zip", "enumerate") \
                and it.func.value not in self.aliases and isinstance(target, (cst.Tuple, cst.List)):
            names = [el.value for el in target.elements]
            args = [a.value for a in it.args if a.keyword is None and not a.star]
            if it.func.value == "enumerate" and len(names) == 2 and args:
                self._assign_value(names[0], V.NUMBER)
                self._assign_value(names[1], V.elem(self.value(args[0])))
                return
            if it.func.value == "zip" and len(names) == len(args):
                for sub, arg in zip(names, args):
                    self._assign_value(sub, V.elem(self.value(arg)))
                return
            for sub in names:
                self._assign_value(sub, V.UNKNOWN)
            return
        self._assign_value(target, V.elem(self.value(it)))
        if isinstance(target, cst.Name):
            scope.values.setdefault(target.value, V.UNKNOWN)
            self._qualified = (None, None)  # names changed meaning

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

    # ------------------------------------------------------------------ assignments
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.assign_targets.add(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Subscript):  # `x[i] += v` reads `x[i]` too
            self.assign_targets.add(node.target)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if not self._scopes:
            return
        value = self.value(original_node.value)
        attr = self._self_attr(original_node.value)
        cls = self.class_info()
        for target in original_node.targets:
            self._assign_value(target.target, value)
            if isinstance(target.target, cst.Name):
                scope = self._scopes[-1]
                if attr is not None and cls is not None and (attr in cls.submodules or attr in cls.callables):
                    scope.held[target.target.value] = attr
                else:
                    scope.held.pop(target.target.value, None)
            if isinstance(target.target, cst.Name) and isinstance(original_node.value, cst.Call) \
                    and self.qualify(original_node.value.func) == "logging.getLogger":
                self._scopes[-1].loggers.add(target.target.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if not self._scopes or not isinstance(original_node.target, cst.Name):
            return
        declared = self.annotation_value(original_node.annotation.annotation)
        if declared is UNREADABLE:
            declared = V.UNKNOWN
        if declared.is_tensor or original_node.value is None:
            self._assign_value(original_node.target, declared)
        else:
            self._assign_value(original_node.target, self.value(original_node.value))

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        if self._scopes and isinstance(original_node.target, cst.Name):
            scope = self._scopes[-1]
            name = original_node.target.value
            before = scope.values.get(name, V.UNKNOWN)
            scope.values[name] = V.op(before, self.value(original_node.value))
            self._qualified = (None, None)  # names changed meaning

    def _assign_value(self, target: cst.BaseExpression, value: Val) -> None:
        """Bind a target (a name, or a tuple or list of targets) to a value. Inside a loop body or
        handler, a name first rebound there is joined with what it held before (the body may not
        run); branches of an `if` are joined when it ends (`leave_If`), so a flag set to `False`
        and reassigned only in training stays a Python bool."""
        scope = self._scopes[-1]
        if isinstance(target, cst.Name):
            name = target.value
            old = scope.values.get(name)
            if old is not None and self._branch_names and name not in self._branch_names[-1]:
                value = V.join(old, value)
            scope.values[name] = value
            self._qualified = (None, None)  # names changed meaning
            if self._branch_names:
                self._branch_names[-1].add(name)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = list(target.elements)
            starred = any(isinstance(el, cst.StarredElement) for el in elements)
            for index, el in enumerate(elements):
                if isinstance(el, cst.StarredElement):
                    self._assign_value(el.value, V.OBJECT)
                else:
                    self._assign_value(el.value, V.elem(value, None if starred else index))

    # ------------------------------------------------------------------ values
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
        """Whether the expression is known, in this file alone, to hold a tensor."""
        return self.value(node).is_tensor

    def tensor_requirement(self, node: cst.BaseExpression) -> Val | None:
        """None when the expression is not known to hold a tensor; else its value: concrete
        (a tensor) or symbolic (a tensor if the tree level resolves it to one)."""
        value = self.value(node)
        if value.is_tensor or value.symbolic:
            return value
        return None

    def literal_value(self, node: cst.BaseExpression) -> Val | None:
        # Dispatch on the exact node type: libcst's node classes are final, and isinstance against
        # their abstract bases goes through ABCMeta, a hot spot of the walk.
        kind = type(node)
        literal = _LITERAL_KINDS.get(kind)
        if literal is not None:
            return literal
        if kind is cst.Name:
            return _NAME_CONSTANTS.get(node.value)
        if kind is cst.UnaryOperation and type(node.operator) is cst.Minus:
            return self.literal_value(node.expression)
        if kind is cst.Tuple or kind is cst.List:
            parts = [self.literal_value(el.value) for el in node.elements]
            return V.seq([p or V.UNKNOWN for p in parts])
        return None

    def value(self, node: cst.BaseExpression) -> Val:
        """What an expression holds, in terms of this file's facts (symbolic where the tree decides)."""
        try:
            return self._value(node)
        except RecursionError:
            return V.UNKNOWN

    def _value(self, node: cst.BaseExpression) -> Val:
        kind = type(node)
        if kind is cst.Name:
            literal = _NAME_CONSTANTS.get(node.value)
            if literal is not None:
                return literal
            scope = self._scopes[-1] if self._scopes else None
            if scope is not None and node.value in scope.values:
                return scope.values[node.value]
            return self.globals.get(node.value, V.UNKNOWN)
        if kind is cst.Attribute:
            return self._attribute_value(node)
        if kind is cst.Call:
            return self._call_value(node)
        literal = self.literal_value(node) if kind is not cst.Tuple and kind is not cst.List else None
        if literal is not None:
            return literal
        if kind is cst.Subscript:
            base = self.value(node.value)
            if base.is_tensor:
                return V.TENSOR
            if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                index = node.slice[0].slice.value
                if isinstance(index, cst.SimpleString) and base.kind in ("dict", "elem", "param", "ret", "join"):
                    return V.item(base, index.evaluated_value) if base.kind == "dict" else V.elem(base)
                if base.kind == "dict":
                    return V.item(base, None)
                number = integer(index)
                if number is not None:
                    return V.elem(base, number)
                return V.elem(base)
            if base.kind == "size":
                return V.SIZE  # a slice of a shape
            return V.elem(base) if base.symbolic else V.UNKNOWN
        if isinstance(node, cst.BinaryOperation):
            left, right = self.value(node.left), self.value(node.right)
            logical = isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor))
            if logical and (left.bool_shaped or right.bool_shaped) and not (left.is_tensor and not left.bool_shaped) \
                    and not (right.is_tensor and not right.bool_shaped):
                return V.op(left, right, comparison=True)
            return V.op(left, right)
        if isinstance(node, cst.UnaryOperation):
            inner = self.value(node.expression)
            if isinstance(node.operator, cst.Not):
                return V.op(inner, comparison=True)
            if isinstance(node.operator, cst.BitInvert) and inner.bool_shaped:
                return V.op(inner, comparison=True)
            return V.op(inner)
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return V.BOOL
            operands = [self.value(node.left), *(self.value(c.comparator) for c in node.comparisons)]
            if any(v.kind in ("str", "none") for v in operands):  # a tensor never equals a str or None
                return V.BOOL
            return V.op(*operands, comparison=True)
        if isinstance(node, cst.BooleanOperation):
            # Every operand but the last is tested for truth, and the result is one of them:
            # for a test, it holds a tensor as soon as one operand does. The right operand runs
            # only where the left one is true (`and`) or false (`or`).
            self._narrow(node.left, isinstance(node.operator, cst.And))
            try:
                right = self.value(node.right)
            finally:
                self._unnarrow()
            return V.op(self.value(node.left), right, comparison=True)
        if isinstance(node, cst.IfExp):
            return V.join(self.value(node.body), self.value(node.orelse))
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(isinstance(el, cst.StarredElement) for el in node.elements):
                return V.Val("seq")
            return V.seq([self.value(el.value) for el in node.elements])
        if isinstance(node, cst.Dict):
            keys, vals = [], []
            for el in node.elements:
                if not isinstance(el, cst.DictElement) or not isinstance(el.key, cst.SimpleString):
                    return V.Val("dict")
                keys.append(el.key.evaluated_value)
                vals.append(self.value(el.value))
            return V.dict_of(keys, vals)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            element = self._comprehension_element(node)
            if element.is_tensor:
                return V.seq([element])  # (a generator: what iterating it gives)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp, cst.Set, cst.Lambda)):
            return V.Val("seq") if isinstance(node, cst.ListComp) else V.OBJECT
        return V.UNKNOWN

    def _comprehension_element(self, node: cst.ListComp | cst.GeneratorExp) -> Val:
        """What each element of `[e for t in it]` holds: `e` with `t` bound to an element of `it`, for
        the moment, as the walk binds it inside the comprehension (plain-name targets only)."""
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            if not isinstance(comp.target, cst.Name):
                return V.UNKNOWN
            comp = comp.inner_for_in
        if not self._scopes:
            return V.UNKNOWN
        self._enter_comprehension(node)
        try:
            return self.value(node.elt)
        finally:
            self._leave_comprehension()

    def _attribute_value(self, node: cst.Attribute) -> Val:
        attr = node.attr.value
        if attr == "shape":
            return V.SIZE
        if attr in NON_TENSOR_ATTRS:
            return V.BOOL if attr in ("is_cuda", "requires_grad", "is_leaf", "training") else V.OBJECT
        self_attr = self._self_attr(node)
        cls = self.class_info()
        if self_attr is not None and cls is not None:
            if self_attr in cls.tensor_attrs:
                return V.TENSOR
            if self_attr in cls.submodules:
                return V.Val("object", ref=cls.submodules[self_attr])
            if self_attr in cls.callables:
                return V.OBJECT
            if self_attr in cls.attr_values:
                return cls.attr_values[self_attr]
            return V.UNKNOWN
        if attr in TENSOR_ATTRS:
            base = self.value(node.value)
            return V.TENSOR if base.is_tensor else (V.op(base) if base.symbolic else V.UNKNOWN)
        qual = self.qualify(node)
        if qual is not None and qual.startswith("torch.") and not qual.startswith("torch.nn."):
            return V.OBJECT  # torch.float16, torch.device, ...
        return V.UNKNOWN

    def _call_value(self, node: cst.Call) -> Val:
        func = node.func
        name = self.qualify(func)
        if name is not None and name.startswith("torch."):
            if name.startswith("torch.nn.functional."):
                return V.TENSOR
            if name in TORCH_SEQUENCE or (name == "torch.where" and len(node.args) == 1):
                return V.seq([V.TENSOR])
            if (name.startswith("torch.nn.") or name in TORCH_NON_TENSOR
                    or name.startswith(TORCH_NON_TENSOR_PREFIXES)
                    or name.rsplit(".", 1)[-1].lstrip("_").startswith(PREDICATE_PREFIXES)):
                return V.OBJECT
            return V.BOOL_TENSOR if name in BOOL_FUNCS else V.TENSOR
        if isinstance(func, cst.Name) and func.value not in self.aliases:
            builtin = self._builtin_value(func.value, node)
            if builtin is not None:
                return builtin
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = func.value
            base = self.value(receiver)
            if method in ("size", "dim", "ndimension", "numel", "nelement", "stride", "element_size",
                          "storage_offset", "__len__", "get_device"):
                if base.is_tensor or base.symbolic or base.kind == "unknown":
                    return V.SIZE if method in ("size", "stride") else V.NUMBER
            if method in ("item",):
                return V.NUMBER
            if method in SEQUENCE_METHODS and (base.is_tensor or base.symbolic):
                return V.seq([V.TENSOR]) if base.is_tensor else V.UNKNOWN
            if method in NON_TENSOR_METHODS:
                return V.OBJECT if base.is_tensor else V.UNKNOWN
            keeps_dtype = method in SHAPE_METHODS and base.bool_shaped
            if base.is_tensor:
                return V.BOOL_TENSOR if method in BOOL_METHODS or keeps_dtype else V.TENSOR
            if base.symbolic and method in TENSOR_ONLY_METHODS | BOOL_METHODS | SHAPE_METHODS:
                # a tensor method on a value the tree decides: a tensor if the receiver is one
                return V.method_result(base, comparison=method in BOOL_METHODS or keeps_dtype)
            if self.is_module_ref(func):
                return V.TENSOR
            if isinstance(receiver, cst.Name) and base.kind == "unknown" and method in TENSOR_ONLY_METHODS:
                head = self.aliases.get(receiver.value, "")
                if head == "" and receiver.value not in ("self", "cls"):
                    # a guess from the method's name alone: assumed, never known
                    return V.tensor(method in BOOL_METHODS, known=False)
            cls = self.class_info()
            if isinstance(receiver, cst.Name) and receiver.value == "self" and cls is not None:
                return V.ret("self", method, cls.qualname)
            if _is_super_call(receiver) and cls:
                return V.ret("super", method, cls.qualname)
            inner = self._self_attr(receiver)
            if inner is not None and cls is not None and inner in cls.submodules:
                return V.ret("attrcall", f"{inner}.{method}", cls.qualname)
            if name is not None and name.split(".")[0] in self.aliases and not self._is_local(name):
                return V.ret("name", name, cls.qualname if cls else None)
            return V.UNKNOWN
        if isinstance(func, cst.Subscript) and self.is_module_ref(func):
            return V.TENSOR
        if isinstance(func, cst.Name) and self._scopes and func.value in self._scopes[-1].modules:
            return V.TENSOR
        cls = self.class_info()
        attr = self._self_attr(func)
        if attr is None and isinstance(func, cst.Name) and self._scopes:
            attr = self._scopes[-1].held.get(func.value)
        if attr is not None and cls is not None:
            return V.ret("selfattr", attr, cls.qualname)
        if name is not None and not self._is_local(name):
            return V.ret("name", name, cls.qualname if cls else None)
        return V.UNKNOWN

    def _is_local(self, name: str) -> bool:
        head = name.split(".")[0]
        return bool(self._scopes and head in self._scopes[-1].values)

    def _builtin_value(self, name: str, node: cst.Call) -> Val | None:
        args = [self.value(a.value) for a in node.args if a.keyword is None and not a.star]
        if name in ("int", "float", "round", "len", "abs", "sum", "pow", "divmod", "complex", "hash", "ord"):
            if name in ("abs", "sum", "pow") and args:
                return V.op(*args)
            return V.NUMBER
        if name in ("min", "max"):
            if len(args) == 1:
                return V.elem(args[0])
            return V.op(*args) if args else V.UNKNOWN
        if name in ("bool", "isinstance", "hasattr", "callable", "all", "any", "issubclass"):
            return V.BOOL
        if name in ("str", "repr", "format", "type", "getattr", "range", "dict", "set", "frozenset", "id",
                    "print", "super", "object", "slice", "iter", "next", "reversed", "sorted", "zip",
                    "enumerate", "map", "filter"):
            return V.STR if name in ("str", "repr", "format") else V.OBJECT
        if name in ("list", "tuple"):
            if args and args[0].kind == "seq" and args[0].parts:  # `tuple(t * 2 for t in ts)`
                return args[0]
            return V.Val("seq", parts=(V.elem(args[0]),)) if args and args[0].is_tensor else V.Val("seq")
        return None

    def is_bool_tensor(self, node: cst.BaseExpression) -> bool:
        return self.value(node).is_bool_tensor

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
        if name == "range":
            for arg in node.args:
                self._note_scalar_use(arg.value)
        if not self.active():
            return
        fn = self.function
        pos = self.positions[node]
        refs: list[tuple[str, str]] = []
        func = node.func
        cls = self.class_info()
        attr = self._self_attr(func)
        if attr is not None:
            held = cls is not None and (attr in cls.submodules or attr in cls.callables)
            refs.append(("selfattr" if held else "self", attr))
        elif isinstance(func, cst.Attribute) and _is_super_call(func.value):
            refs.append(("super", func.attr.value))
        elif isinstance(func, cst.Attribute) and self._self_attr(func.value) is not None:
            refs.append(("attrcall", f"{self._self_attr(func.value)}.{func.attr.value}"))
        elif isinstance(func, cst.Subscript) and self.is_module_ref(func):
            inner = self._self_attr(func.value)
            if inner:
                refs.append(("selfattr", inner))
        elif isinstance(func, cst.Name) and self._scopes and func.value in self._scopes[-1].held:
            refs.append(("selfattr", self._scopes[-1].held[func.value]))
        elif name is not None:
            refs.append(("name", name))
        args: list[Val] = []
        kwargs: dict[str, Val] = {}
        star = False
        if refs:
            for arg in node.args:
                if arg.star:
                    star = True
                elif arg.keyword is not None:
                    kwargs[arg.keyword.value] = self.value(arg.value)
                elif not star:
                    args.append(self.value(arg.value))
        calls = [CallRef(kind, target, pos.start.line, pos.start.column, pos.end.line, pos.end.column,
                         args=args, kwargs=kwargs, star=star) for kind, target in refs]
        # Functions and bound methods handed to other calls (checkpoint, map, ...) are reached too;
        # what a type test is handed (`isinstance(m, Block)`, `hasattr(self, "fn")`) is not run.
        handed = node.args if name not in TYPE_TESTS else ()
        for arg in handed:
            arg_attr = self._self_attr(arg.value)
            target = None
            if arg_attr is not None:
                target = ("self", arg_attr)
            elif isinstance(arg.value, cst.Name) and arg.value.value in self.aliases:
                target = ("ref", self.aliases[arg.value.value])
            if target is not None:
                calls.append(CallRef(target[0], target[1], pos.start.line, pos.start.column, pos.end.line,
                                     pos.end.column, star=True))
        fn.calls.extend(calls)

    # ------------------------------------------------------------------ findings
    def current_statement(self) -> cst.CSTNode | None:
        """The innermost simple statement line being walked."""
        return self._stmts[-1] if self._stmts else None

    def is_bound(self, name: str) -> bool:
        """Whether the function being walked has bound `name` by now (a parameter, an assignment)."""
        return bool(self._scopes) and name in self._scopes[-1].values

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

    def add_finding(
        self,
        rule: "Rule",
        node: cst.CSTNode,
        message: str,
        suggestion: str,
        fix: Fix | None = None,
        scope: str | None = None,
        stmt_lines: tuple[int, int] | None = None,
        requires: Val | None = None,
        test: cst.BaseExpression | None = None,
        fix_needs: tuple[Val | None, ...] = (),
    ) -> None:
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
                                         tuple(deferred) if fix is not None else ()))

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
