"""What annotations say a value holds (`x: Tensor`, `Optional[Tensor]`, `Dict[str, Tensor]`,
`n: int`), and what a parameter's default holds. Asked by the scopes (parameters), the bindings
(annotated assignments) and the class model (`self.flag = flag`).
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .optimizer_classes import TORCH_OPTIMIZERS
from .summary import FunctionInfo
from .syntax import dotted
from .values import Val
from .vocabulary import (HINT_MODULES, SAMPLED_HINTS, TENSOR_ANNOTATIONS, TORCH_OBJECTS, TYPED_TENSORS,
                         UNREADABLE)


class Annotations:
    """What annotations and defaults say a value holds.

    A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps current.
    """

    def _declared_value(self, param: cst.Param) -> Val | None:
        """What a parameter's annotation says it holds, or None without one (or with one that
        says nothing this file can read, such as a type alias from elsewhere)."""
        if param.annotation is None:
            return None
        value = self.annotation_value(param.annotation.annotation)
        if value in TORCH_OBJECTS.values() and param.default is not None and dotted(param.default) == "None":
            return None  # `generator: torch.Generator = None`, as `Optional[...]`: what the callers hand, if anything
        return None if value is UNREADABLE else value

    def _annotated_class(self, param: cst.Param) -> str | None:
        """The class a parameter's annotation names (`transform: Transform`, `Optional[Transform]`,
        `Transform | None`), where it names a class by a capitalized name and says nothing else."""
        if param.annotation is None:
            return None
        ann = _forward_reference(param.annotation.annotation)
        ann = self._unwrap_optional(ann)
        if type(ann) is cst.BinaryOperation and type(ann.operator) is cst.BitOr:
            parts = _not_none(ann)
            ann = parts[0] if len(parts) == 1 else ann
        if type(ann) not in (cst.Name, cst.Attribute):
            return None
        qual = self.qualify(ann)
        if not qual or not qual.rsplit(".", 1)[-1][:1].isupper() or qual.startswith(("typing.", "collections.")):
            return None
        return qual

    def class_named(self, annotation: cst.BaseExpression) -> str | None:
        """The class an annotation names (`States`, `Optional[States]`, `States | None`), as a parameter's would."""
        return self._annotated_class(cst.Param(cst.Name("_"), cst.Annotation(annotation)))

    def declare_return(self, info: FunctionInfo, node: cst.FunctionDef) -> None:
        """What a function's return annotation says, for where its body does not show it: the class it names
        (`-> VSATensor`, of `return x.as_subclass(cls)`), and the tensors it declares (`-> torch.Tensor`, of
        `return self._compare(ref)`; `-> list[Tensor]`)."""
        if node.returns is None:
            return
        info.declared_return = self.class_named(node.returns.annotation)
        # only tensors: `-> Any`, `-> float` and the like are often written of what is a tensor at run time
        declared = self.annotation_value(node.returns.annotation)
        if declared.is_tensor or any(part.is_tensor for part in declared.parts):
            info.declared_result = declared

    def _unwrap_optional(self, ann: cst.BaseExpression) -> cst.BaseExpression:
        """`Optional[X]` -> `X` (what it holds when it holds anything); any other annotation as it is."""
        if type(ann) is cst.Subscript and (self.qualify(ann.value) or "").endswith("Optional"):
            inner = [el.slice.value for el in ann.slice if type(el.slice) is cst.Index]
            if len(inner) == 1:
                return inner[0]
        return ann

    def untraceable_check(self, node: cst.FunctionDef) -> str:
        """For a function beartype checks: the first annotation whose check calls what dynamo cannot trace,
        as "sampled:<parameter>" (a list or sequence of items, of which beartype checks one picked at random)
        or "array:<parameter>" (a jaxtyping array type, whose `isinstance` is its own Python), "return" for the
        result's; empty where none does (a tensor, a dict, a tuple of fixed length trace)."""
        params = node.params
        hinted = [(p.name.value, p.annotation) for p in (*params.posonly_params, *params.params, *params.kwonly_params,
                                                       params.star_arg, params.star_kwarg) if type(p) is cst.Param]
        for name, annotation in (*hinted, ("return", node.returns)):
            kind = self._breaking_hint(annotation.annotation) if annotation is not None else None
            if kind is not None:
                return f"{kind}:{name}"
        return ""

    def _breaking_hint(self, ann: cst.BaseExpression) -> str | None:
        """"sampled" or "array" for an annotation that holds such a hint, at any depth (`Optional[List[T]]`,
        `Dict[str, List[T]]`, `list[T] | None`); None for one that holds neither."""
        if type(ann) is cst.BinaryOperation and type(ann.operator) is cst.BitOr:
            return self._breaking_hint(ann.left) or self._breaking_hint(ann.right)
        if type(ann) is not cst.Subscript:
            return None
        module, _, name = (self.qualify(ann.value) or dotted(ann.value) or "").rpartition(".")
        inner = [el.slice.value for el in ann.slice if type(el.slice) is cst.Index]
        if module == "jaxtyping" and name != "PyTree":
            return "array"
        if module in HINT_MODULES and (name in SAMPLED_HINTS or name in ("tuple", "Tuple") and len(inner) == 2
                                       and type(inner[1]) is cst.Ellipsis):
            return "sampled"
        return next(filter(None, map(self._breaking_hint, inner)), None)

    def annotation_value(self, ann: cst.BaseExpression) -> Val:
        unwrapped = self._unwrap_optional(ann)
        if unwrapped is not ann:
            # Optional[X] is what X is; an optional generator is often left `None`, as the callers tell
            inner = self.annotation_value(unwrapped)
            return UNREADABLE if inner in TORCH_OBJECTS.values() else inner
        if self._is_tensor_annotation(ann):
            return V.BOOL_TENSOR if self._of_bools(ann) else V.TENSOR
        if self._is_sequence_annotation(ann) or self._tensor_elements(ann):
            return V.seq([V.TENSOR])
        if self._is_tensor_mapping(ann):
            return V.mapping_of(V.TENSOR)
        scalar = self._scalar_annotation(ann)
        if scalar is not None:
            return scalar
        if type(ann) is cst.BinaryOperation or (
                type(ann) is cst.Subscript and (self.qualify(ann.value) or "").endswith("Union")):
            # `Union[List, Tensor]`: either, as the callers pass (a root's, with no default, taken for a
            # tensor); a union that names no tensor holds none, and one with a Python number (`float |
            # Tensor`, a scale or a time) is left unknown: a number is what is passed, as a rule
            members = self._union_members(ann)
            tensor = any(self._is_tensor_annotation(m) for m in members)
            number = any(self._scalar_annotation(m) in (V.NUMBER, V.BOOL) for m in members)
            return UNREADABLE if tensor and not number else V.UNKNOWN
        if type(ann) is cst.SimpleString and "Tensor" in ann.value:
            return V.UNKNOWN
        name = self.qualify(ann.value if type(ann) is cst.Subscript else ann) or ""
        if type(ann) is cst.Subscript and name.split(".")[-1] == "Literal":
            values = [self.literal_value(el.slice.value) for el in ann.slice if type(el.slice) is cst.Index]
            return V.join(*[v or V.UNKNOWN for v in values]) if values else V.OBJECT
        if name.split(".")[-1].lower() in ("dict", "list", "tuple", "set", "str", "callable", "mapping",
                                           "sequence", "iterable", "any") or name.startswith(
                                               ("typing.", "typing_extensions.", "collections.abc.")):
            return V.OBJECT
        if name in TORCH_OBJECTS:
            return TORCH_OBJECTS[name]  # `generator: torch.Generator`
        if name in TORCH_OPTIMIZERS:
            return V.Val("object", ref=name)  # `optim: Optimizer`: an optimizer of torch's, by the class it declares
        # a name this file cannot see into (`Adj`, `OptTensor`, a class): let the call sites tell
        return UNREADABLE

    def _union_members(self, ann: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The members of a union annotation (`A | B | C`, `Union[A, B]`), nested unions flattened."""
        if type(ann) is cst.BinaryOperation:
            return [*self._union_members(ann.left), *self._union_members(ann.right)]
        if type(ann) is cst.Subscript and (self.qualify(ann.value) or "").endswith("Union"):
            return [m for el in ann.slice if type(el.slice) is cst.Index for m in self._union_members(el.slice.value)]
        return [ann]

    def _scalar_annotation(self, ann: cst.BaseExpression) -> Val | None:
        if type(ann) is cst.BinaryOperation:
            parts = _not_none(ann)
            if len(parts) == 1:
                return self._scalar_annotation(parts[0])
            vals = [self._scalar_annotation(p) for p in parts]
            return V.NUMBER if all(v is not None and v.kind == "number" for v in vals) else None
        name = dotted(ann) if type(ann) is not cst.SimpleString else ann.evaluated_value
        return {"int": V.NUMBER, "float": V.NUMBER, "complex": V.NUMBER, "bool": V.BOOL, "str": V.STR,
                "bytes": V.STR}.get(name or "")

    def _default_value(self, param: cst.Param) -> Val | None:
        """What a parameter's default holds, for a default other than `None`."""
        default = param.default
        if default is None or (type(default) is cst.Name and default.value == "None"):
            return None
        value = self.literal_value(default)
        return value if value is not None else V.UNKNOWN

    def _is_tensor_annotation(self, ann: cst.BaseExpression) -> bool:
        if type(ann) is cst.SimpleString:
            text = ann.evaluated_value
            return text.replace("Optional[", "").rstrip("]").split(" |")[0] in ("Tensor", "torch.Tensor")
        if type(ann) is cst.BinaryOperation:  # Tensor | None is a tensor; float | Tensor may not be
            parts = _not_none(ann)
            return bool(parts) and all(self._is_tensor_annotation(p) for p in parts)
        if type(ann) is cst.Subscript and self.qualify(ann.value) in ("typing.Optional", "Optional"):
            return any(
                type(el.slice) is cst.Index and self._is_tensor_annotation(el.slice.value)
                for el in ann.slice
            )
        if type(ann) is cst.Subscript:
            # shape-typed tensors: torchtyping's `TensorType["batch", "feature"]`, and jaxtyping's
            # `Float[Tensor, "b c"]` (any of its dtype forms over a tensor type)
            kind = self.qualify(ann.value) or ""
            first = ann.slice[0].slice
            return kind == "torchtyping.TensorType" or (kind.startswith("jaxtyping.") and type(first) is cst.Index
                                                         and self._is_tensor_annotation(first.value))
        qual = self.qualify(ann) or ""
        return qual in TENSOR_ANNOTATIONS or qual.rpartition(".")[2] in TYPED_TENSORS

    def _of_bools(self, ann: cst.BaseExpression) -> bool:
        """A tensor of bools: `torch.BoolTensor` (or an alias of the same name: `BoolTensor: TypeAlias =
        torch.Tensor` in a module of the package), a shape-typed one (`Bool[Tensor, "b"]`,
        `TensorType["b", torch.bool]`); `Optional[...]` or `| None` of one."""
        if type(ann) is cst.BinaryOperation:
            parts = _not_none(ann)
            return len(parts) == 1 and self._of_bools(parts[0])
        if type(ann) in (cst.Name, cst.Attribute):
            return (self.qualify(ann) or "").rpartition(".")[2] == "BoolTensor"
        if type(ann) is not cst.Subscript:
            return False
        kind = self.qualify(ann.value)
        return kind == "jaxtyping.Bool" or kind == "torchtyping.TensorType" and any(
            type(el.slice) is cst.Index and self.qualify(el.slice.value) == "torch.bool" for el in ann.slice)

    def _is_tensor_mapping(self, ann: cst.BaseExpression) -> bool:
        """`Dict[str, Tensor]`, `dict[str, Tensor]`, `Mapping[str, Tensor]`: every value a tensor."""
        if not (type(ann) is cst.Subscript and (self.qualify(ann.value) or "").split(".")[-1].lower() in (
                "dict", "mapping", "mutablemapping", "ordereddict") and len(ann.slice) == 2):
            return False
        value = ann.slice[1].slice
        return type(value) is cst.Index and self._is_tensor_annotation(value.value)

    def _tensor_elements(self, ann: cst.BaseExpression) -> bool:
        """`Union[Tensor, tuple[Tensor, Tensor]]`, `Tensor | list[Tensor]`: either way, its elements are
        tensors (a value the `isinstance` tests of the body tell apart)."""
        if type(ann) is cst.BinaryOperation and type(ann.operator) is cst.BitOr:
            members = [ann.left, ann.right]
        elif type(ann) is cst.Subscript and (self.qualify(ann.value) or "").endswith("Union"):
            members = [el.slice.value for el in ann.slice if type(el.slice) is cst.Index]
        else:
            return False
        members = [m for m in members if not (type(m) is cst.Name and m.value == "None")]
        return (any(self._is_sequence_annotation(m) or self._tensor_elements(m) for m in members)
                and all(self._is_tensor_annotation(m) or self._is_sequence_annotation(m) or self._tensor_elements(m)
                        for m in members))

    def _is_sequence_annotation(self, ann: cst.BaseExpression) -> bool:
        if type(ann) is cst.Subscript and (self.qualify(ann.value) or "").split(".")[-1].lower() in (
            "list", "tuple", "sequence"
        ):
            return any(type(el.slice) is cst.Index and self._is_tensor_annotation(el.slice.value)
                       for el in ann.slice)
        return False


def _not_none(union: cst.BinaryOperation) -> list[cst.BaseExpression]:
    """The operands of `X | Y` other than `None`."""
    return [p for p in (union.left, union.right) if not (type(p) is cst.Name and p.value == "None")]


def _forward_reference(ann: cst.BaseExpression) -> cst.BaseExpression:
    """`"Sampler"`, `"pkg.Sampler"` (a class named in a string, as a forward reference or an import
    made only for type checkers) as the name it holds; any other annotation as it is."""
    if type(ann) is not cst.SimpleString:
        return ann
    text = ann.evaluated_value
    if not isinstance(text, str) or not all(part.isidentifier() for part in text.split(".")):
        return ann
    parts = text.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node
