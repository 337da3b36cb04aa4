"""Records: classes whose instances are their fields, and class-level attributes.

A record is a `@dataclass`, a `typing.NamedTuple` subclass, or a class made by
`collections.namedtuple("P", "lo hi")` / `typing.NamedTuple("P", [("lo", Tensor), ...])`. Model
code returns and passes its tensors in such records (`Detections(boxes=b, scores=s)`, a solver's
table of coefficients), then reads them back as attributes (`out.boxes`). A record's fields are
kept in order with what each one's annotation declares (`ClassInfo.fields`); building one gives a
`dict` value keyed by field name (named "record", so that a position reads a field too), and an
attribute read on it gives the field's value. A record of another file gives what its fields
declare (reach.py).

A class-level attribute of any other class (`table = torch.tensor([...])`, `mid: torch.Tensor`) is
what `self.<name>` reads until an instance attribute of that name is set.

A layer of `FileContext` (context.py), whose `__init__` declares the state it keeps (`records`,
`positional`).
"""

from __future__ import annotations

import libcst as cst

from . import values as V
from .summary import ClassInfo
from .syntax import decorator_callee
from .values import Val, record_of

DATACLASS = frozenset({"dataclasses.dataclass", "dataclass"})
NAMED_TUPLE = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple", "NamedTuple"})
NAMEDTUPLE_FACTORY = frozenset({"collections.namedtuple", "namedtuple"})


class Records:
    """Record classes of the file and the values their constructors give (see the module's docstring)."""

    def scan_records(self, node: cst.Module) -> None:
        """The file's records, before the walk: module-level code may build one before its class
        statement is walked."""
        for stmt in node.body:
            if type(stmt) is cst.ClassDef:
                self.class_fields(stmt, f"{self.module}.{stmt.name.value}")
            elif type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 \
                    and type(stmt.body[0]) is cst.Assign and type(stmt.body[0].value) is cst.Call:
                assign = stmt.body[0]
                fields = self._factory_fields(assign.value)
                if fields is None or len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
                    continue
                name = assign.targets[0].target.value
                qual = f"{self.module}.{name}"
                self.aliases.setdefault(name, qual)
                self.records[qual] = fields
                self.positional.add(qual)
                self.summary.classes[qual] = ClassInfo(qualname=qual, bases=[], fields=fields, positional=True)

    def class_fields(self, node: cst.ClassDef, qual: str) -> dict[str, Val] | None:
        """The fields of a `@dataclass` or `NamedTuple` class, in order, with the values their
        annotations declare (kept in `records`); None for any other class. A dataclass that derives
        from another class may have more fields before its own: it is built by keyword only (it is
        not put in `positional`)."""
        decorated = any(self.qualify(decorator_callee(d)) in DATACLASS for d in node.decorators)
        based = any(self.qualify(arg.value) in NAMED_TUPLE for arg in node.bases if arg.keyword is None)
        if not (decorated or based):
            return None
        if based or not node.bases:
            self.positional.add(qual)
        fields: dict[str, Val] = {}
        for stmt in node.body.body:
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.AnnAssign and type(small.target) is cst.Name \
                            and not (self.qualify(_head(small.annotation.annotation)) or "").endswith("ClassVar"):
                        fields[small.target.value] = self._field_value(small.annotation.annotation)
        self.records[qual] = fields
        return fields

    def _factory_fields(self, call: cst.Call) -> dict[str, Val] | None:
        """`namedtuple("P", "lo hi")`, `namedtuple("P", ["lo", "hi"])`, `NamedTuple("P", [("lo", T)])`."""
        factory = self.qualify(call.func)
        if factory not in NAMEDTUPLE_FACTORY and factory not in NAMED_TUPLE:
            return None
        if len(call.args) < 2:
            return None
        if call.args[1].keyword is not None and call.args[1].keyword.value != "field_names":
            return None
        spec = call.args[1].value
        if type(spec) is cst.SimpleString and isinstance(text := spec.evaluated_value, str):
            names = text.replace(",", " ").split()
            return {n: V.UNKNOWN for n in names} if all(n.isidentifier() for n in names) else None
        if type(spec) not in (cst.List, cst.Tuple):
            return None
        fields: dict[str, Val] = {}
        for element in spec.elements:
            item = element.value
            if type(item) is cst.SimpleString and isinstance(item.evaluated_value, str):
                fields[item.evaluated_value] = V.UNKNOWN
            elif type(item) is cst.Tuple and len(item.elements) == 2 \
                    and type(item.elements[0].value) is cst.SimpleString \
                    and isinstance(key := item.elements[0].value.evaluated_value, str):
                fields[key] = self._field_value(item.elements[1].value)
            else:
                return None
        return fields if all(n.isidentifier() for n in fields) else None

    def _field_value(self, annotation: cst.BaseExpression) -> Val:
        value = self.annotation_value(annotation)
        return value if value.kind != "unknown" else V.UNKNOWN

    def record_value(self, qual: str, node: cst.Call) -> Val | None:
        """What building record `qual` (a class of this file) gives: its fields, each what the call
        passes or else what the field declares. None when `qual` is no record of the file."""
        fields = self.records.get(qual)
        if fields is None:
            return None
        values = dict(fields)
        names = list(fields) if qual in self.positional else []
        for position, arg in enumerate(node.args):
            if arg.star:
                return record_of(fields)
            key = arg.keyword.value if arg.keyword is not None else (names[position] if position < len(names) else None)
            if key in values:
                values[key] = self.value(arg.value)
        return record_of(values)

    def class_attributes(self, node: cst.ClassDef, info: ClassInfo) -> None:
        """Class-level attributes of a class that is no record: `table = torch.tensor([...])` is a
        tensor attribute, `mid: torch.Tensor` declares one, `tableau: Tableau` declares its class;
        a record built there is its fields."""
        for stmt in node.body.body:
            if type(stmt) is not cst.SimpleStatementLine:
                continue
            for small in stmt.body:
                if type(small) is cst.Assign and len(small.targets) == 1 \
                        and type(small.targets[0].target) is cst.Name:
                    name, value, annotation = small.targets[0].target.value, small.value, None
                elif type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                    name, value, annotation = small.target.value, small.value, small.annotation.annotation
                else:
                    continue
                if type(value) is cst.Call:
                    record = self.record_value(self.qualify(value.func) or "", value)
                    if record is not None:
                        info.attr_values.setdefault(name, record)
                    else:
                        self._classify_attr(name, value, info)
                elif (instance := self.module_instance(value)) is not None:
                    info.attr_values.setdefault(name, instance)  # `tableau = HEUN`
                elif type(value) in (cst.Name, cst.Attribute) and not name.isupper() \
                        and (held := [h for h in self._held_functions(value) if h.rsplit(".", 1)[-1][:1].isupper()]):
                    # `noise_cls = Noise`: a class, which `self.noise_cls(...)` builds
                    info.callables.setdefault(name, held)
                elif type(value) in (cst.Dict, cst.List, cst.Tuple) \
                        and (held := [h for h in self.held_in_literal(value) if not h.startswith("self:")]):
                    # `LOSSES = {"dice": dice_loss, ...}`: `self.LOSSES[name](...)` runs each function it holds
                    info.callables.setdefault(name, held)
                elif value is None and annotation is not None:
                    if self.annotation_value(annotation).is_tensor:
                        info.tensor_attrs.add(name)
                    elif (held := self._declared_class(annotation)) is not None:
                        info.declared.setdefault(name, held)  # the class of what it holds: calls dispatch on it

    def field_classes(self, node: cst.ClassDef, info: ClassInfo) -> None:
        """The classes a record's fields declare (`optim: OptimizerWrapper`): calls on a field dispatch on them."""
        for stmt in node.body.body:
            for small in stmt.body if type(stmt) is cst.SimpleStatementLine else ():
                if type(small) is cst.AnnAssign and type(small.target) is cst.Name \
                        and (held := self._declared_class(small.annotation.annotation)) is not None:
                    info.declared.setdefault(small.target.value, held)

    def _declared_class(self, annotation: cst.BaseExpression) -> str | None:
        """The class of the tree (or another library, not torch's) an annotation names by a plain name
        (`Optional[Wrapper]`: what it holds when it holds anything)."""
        annotation = self._unwrap_optional(annotation)
        held = self.qualify(annotation) if type(annotation) in (cst.Name, cst.Attribute) else None
        return held if held and not held.startswith(("torch.", "typing.")) else None


def _head(annotation: cst.BaseExpression) -> cst.BaseExpression:
    return annotation.value if type(annotation) is cst.Subscript else annotation
