"""Abstract values: what an expression holds, as far as graph breaks care.

A `Val` is one point of a small lattice, in the spirit of ruff's `ResolvedPythonType`:

- concrete kinds: `tensor`, `booltensor` (a tensor of bools, e.g. a comparison of tensors),
  `none`, `number`, `bool`, `str`, `size` (a shape or one of its elements), `object` (a known
  value that is not a tensor: a module, an instance, a function, a dtype, ...), `seq` (a tuple
  or list whose elements are `parts`), `dict` (keys in `keys`, values in `parts`), `unknown`;
- symbolic kinds, which the per-file walk cannot decide and the tree level resolves over every
  file's summaries: `param` (parameter `name` of function `ref`), `ret` (what a call returns:
  call kind `ref`, target `name`, caller's class `owner`; a call of a function by name also holds
  what it passes, in `parts` named by `keys`), `op` (arithmetic or a comparison of
  `parts`: a tensor when any part is), `cmp` (the same, giving a bool tensor), `elem` (an
  element of `parts[0]`, at index `name` when known; for a string key read on `self.<attr>[...]`,
  `owner` names the class and the key under which the class keeps what its methods store there,
  asked where `parts[0]` tells nothing), `join` (one of `parts`: two branches).

A tensor is *known* (a torch call, a tensor method on a tensor, an annotation, a tensor a reached
caller computes) or only *assumed* (`ref="assumed"`: an unannotated parameter of a compile root, a
tensor-only method on a value nothing else tells of, one branch of a join whose other branch is
unknown). Both are tensors to the rules that report breaks; a fix that needs a tensor operand
(`torch.where(c, ...)`, `t.float()`) is offered only on known ones, since on a Python value it
would make working code raise. Arithmetic, elements and joins keep the mark: a result is known as
soon as one tensor in it is.

Values are plain frozen data: they travel in summaries and cache entries as JSON.
Unknown is honest: it is never a tensor, so a rule that needs a tensor stays quiet.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CONCRETE = frozenset({"tensor", "booltensor", "none", "number", "bool", "str", "size", "object", "seq", "dict",
                      "unknown"})
SYMBOLIC = frozenset({"param", "ret", "op", "cmp", "elem", "join"})
NOT_TENSOR = frozenset({"none", "number", "bool", "str", "size", "object", "seq", "dict"})
MAX_PARTS = 8
# how deep a value the tree decides may nest before it is left unknown: a chain of steps on an input
# (unwrapped from a tuple, transposed, split, reduced, compared) stays within it
MAX_DEPTH = 10


@dataclass(frozen=True)
class Val:
    kind: str
    ref: str = ""
    name: str = ""
    owner: str = ""
    parts: tuple["Val", ...] = ()
    keys: tuple[str, ...] = field(default=())

    def __hash__(self) -> int:  # values nest: hash each once
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.kind, self.ref, self.name, self.owner, self.parts, self.keys))
            object.__setattr__(self, "_hash", cached)
        return cached

    # ------------------------------------------------------------------ questions
    @property
    def is_tensor(self) -> bool:
        return self.kind in ("tensor", "booltensor")

    @property
    def known_tensor(self) -> bool:
        """A tensor that the code shows, not one only assumed (see the module's docstring)."""
        return self.kind in ("tensor", "booltensor") and self.ref != ASSUMED

    @property
    def shown(self) -> bool:
        """A tensor known, or shown on one path of several (`SHOWN_TENSOR`)."""
        return self.known_tensor or (self.kind in ("tensor", "booltensor") and self.ref == ASSUMED
                                     and self.name == "shown")

    @property
    def from_numpy(self) -> bool:
        """An array NumPy gives (`NUMPY_ARRAY`, `NUMPY_MADE`), or an element or part of one."""
        return self.kind == "tensor" and self.ref == ASSUMED and self.name in ("numpy", "numpy made")

    @property
    def by_method(self) -> bool:
        """A tensor assumed from a method only tensors have (`GUESSED_TENSOR`)."""
        return self.kind in ("tensor", "booltensor") and self.ref == ASSUMED and self.name == "method"

    @property
    def is_bool_tensor(self) -> bool:
        return self.kind == "booltensor"

    @property
    def symbolic(self) -> bool:
        return self.kind in SYMBOLIC

    @property
    def not_tensor(self) -> bool:
        """Known, and not a tensor (unknown is not this: it is simply not known)."""
        return self.kind in NOT_TENSOR

    @property
    def is_sparse(self) -> bool:
        return self.kind == "tensor" and self.name == "sparse"

    @property
    def is_sparse_when_all(self) -> bool:
        """A product, concatenation or transpose that is sparse when all its parts turn out so
        (`sparse_when_all`, which the tree decides)."""
        return self.kind == "op" and self.name == "sparse"

    @property
    def bool_shaped(self) -> bool:
        """A bool tensor, or a symbolic value that is one whenever it is a tensor (a comparison)."""
        if self.kind in ("booltensor", "cmp"):
            return True
        return self.kind == "join" and all(p.bool_shaped or p.kind == "none" for p in self.parts)

    def depth(self) -> int:
        return 1 + max((p.depth() for p in self.parts), default=0)

    def __repr__(self) -> str:  # short, for tests and debugging
        inner = ", ".join(repr(p) for p in self.parts)
        label = ":".join(x for x in (self.ref, self.name) if x)
        return f"{self.kind}({label}{'; ' if label and inner else ''}{inner})"


ASSUMED = "assumed"
TENSOR = Val("tensor")
BOOL_TENSOR = Val("booltensor")
ASSUMED_TENSOR = Val("tensor", ref=ASSUMED)
ASSUMED_BOOL_TENSOR = Val("booltensor", ref=ASSUMED)
# What a NumPy call gives under compile: an array to the code, a tensor to dynamo (torch._numpy).
# Assumed, so that no fix treats it as a torch.Tensor; named, since `capture_scalar_outputs` traces
# `int(t)` of a tensor and not of an array, but for one NumPy makes from numbers (`np.arange(n)`: made).
NUMPY_ARRAY = Val("tensor", ref=ASSUMED, name="numpy")
NUMPY_MADE = Val("tensor", ref=ASSUMED, name="numpy made")
# A tensor assumed from a method only tensors have (`g.std()`, `m.nan_to_num_()`) on a value nothing else
# tells of: stronger evidence than a bare parameter's, so that joined with a Python number it may still be
# a tensor, as a known one does (`sigma = g.std() if g.ndim > 1 else 0`)
GUESSED_TENSOR = Val("tensor", ref=ASSUMED, name="method")
GUESSED_BOOL_TENSOR = Val("booltensor", ref=ASSUMED, name="method")
# A tensor the code shows on one path and only assumed, or unknown, on another (`info` from `cholesky_ex`
# in one branch, from a function stored on the object in the other), and arithmetic on it: assumed, yet
# shown, so it stands where a finding needs a tensor the code shows being passed (a slice bound,
# `MustBe` "known")
SHOWN_TENSOR = Val("tensor", ref=ASSUMED, name="shown")
SHOWN_BOOL_TENSOR = Val("booltensor", ref=ASSUMED, name="shown")
# A sparse tensor (`torch.sparse_coo_tensor(...)`, `x.to_sparse()`): a tensor, which dynamo does not hold
# as an input (BL429 follows it out of the helper that makes it).
SPARSE = Val("tensor", name="sparse")
# One of torch's legacy sparse classes, picked by name (`getattr(torch.sparse, "FloatTensor")`): calling it
# makes a sparse tensor
SPARSE_CLASS = Val("object", ref="torch.sparse", name="class")
# What `isinstance(x, np.ndarray)` tells of `x` where it holds: an array, which no rule about tensors
# takes for one (the test guards code written for host data), but dynamo traces it all the same.
NDARRAY = Val("object", ref="numpy.ndarray")
UNKNOWN = Val("unknown")
NONE = Val("none")
# `None` that a loop body rebinds (`best = None`, then `best = score` in the loop): `None` the first time
# round only. Joined, it goes as `None` does; compared, it is no reason for the comparison not to be a
# tensor's (from the second time round the name holds what the body bound).
CARRIED_NONE = Val("none", name="carried")
NUMBER = Val("number")
BOOL = Val("bool")
# A local holding a compile check (`compiling = is_dynamo_compiling()`): true, or false, whenever
# compiled code runs (`Flow.compile_value` reads it back in tests of the name)
COMPILING = Val("bool", name="compiling")
NOT_COMPILING = Val("bool", name="not compiling")
STR = Val("str")
SIZE = Val("size")
# A `torch.Generator`: handed to a random function as `generator=`, it breaks the graph (BL421)
GENERATOR = Val("object", ref="torch.Generator")
# A quasi-random engine: dynamo skips `torch.quasirandom` whole, its construction and draws break (BL421)
SOBOL_ENGINE = Val("object", ref="torch.quasirandom.SobolEngine")
OBJECT = Val("object")


def tensor(bool_valued: bool = False, known: bool = True) -> Val:
    """A tensor (of bools), known or only assumed."""
    if bool_valued:
        return BOOL_TENSOR if known else ASSUMED_BOOL_TENSOR
    return TENSOR if known else ASSUMED_TENSOR


def guessed_tensor(bool_valued: bool = False) -> Val:
    """A tensor (of bools) assumed from a method only tensors have."""
    return GUESSED_BOOL_TENSOR if bool_valued else GUESSED_TENSOR


def _shown_or_assumed(parts: list[Val], bool_valued: bool) -> Val:
    """An assumed tensor of `parts`, none of them known: shown where one of them is (`SHOWN_TENSOR`)."""
    if any(p.shown for p in parts):
        return SHOWN_BOOL_TENSOR if bool_valued else SHOWN_TENSOR
    return tensor(bool_valued, known=False)


def param(function: str, name: str) -> Val:
    return Val("param", ref=function, name=name)


def passed(function: str, name: str) -> Val:
    """What the tree's calls of `function` pass for parameter `name`, whatever its annotation declares
    (`adj: Tensor` that every caller hands a sparse tensor)."""
    return Val("param", ref=function, name=name, owner="passed")


def ret(kind: str, target: str, owner: str | None) -> Val:
    return Val("ret", ref=kind, name=target, owner=owner or "")


def built_of(value: Val) -> str | None:
    """The class or function whose call made `value`, as far as it says: an object's class, or the name
    a call returned from (`lock = threading.Lock()` holds what `threading.Lock` returned)."""
    if value.kind == "object":
        return value.ref or None
    return value.name if value.kind == "ret" and value.ref == "name" else None


# how deep an argument a call's value may carry (`with_arguments`): deeper ones leave it without them
_ARGUMENT_DEPTH = 3


def with_arguments(call: Val, arguments: tuple[list[Val], list[tuple[str, Val]]] | None) -> Val:
    """A `ret` of a call of a function by name, with what this call passes (`parts`; `keys` names
    each: "#0", "#1", ... by position, else the keyword): where the callee returns what it was
    handed (`default(val, d)`, `pair(t)`), the tree decides the value of this call from these, not
    from every caller's. Left without them where they would make the value deep."""
    if arguments is None:
        return call
    positional, keywords = arguments
    keys = [f"#{i}" for i in range(len(positional))] + [k for k, _ in keywords]
    parts = [*positional, *(v for _, v in keywords)]
    if not parts or len(parts) > MAX_PARTS or any(p.depth() > _ARGUMENT_DEPTH for p in parts):
        return call
    return Val("ret", ref=call.ref, name=call.name, owner=call.owner, parts=tuple(parts), keys=tuple(keys))


def returned_by(held: list[str] | tuple[str, ...]) -> list[Val]:
    """What the calls an attribute holds the results of returned: each "f()" among `held` (a class's
    `callables`: `self.t = make_table()` keeps "pkg.make_table()")."""
    return [ret("name", h[:-2], None) for h in held if h.endswith("()")]


OPEN = "open"  # (a seq's name) `(target, *rest)`: past `parts`, and counted from the end, nothing is known


def seq(parts: list[Val] | tuple[Val, ...], open_end: bool = False) -> Val:
    """A tuple or list of `parts`; with `open_end`, its first elements only (a starred one follows)."""
    if len(parts) > MAX_PARTS * 2 or open_end and not parts:
        return Val("seq")
    return Val("seq", name=OPEN if open_end else "", parts=tuple(_bound(p) for p in parts))


def dict_of(keys: list[str], values: list[Val]) -> Val:
    if len(keys) > MAX_PARTS * 2:
        return Val("dict")
    return Val("dict", keys=tuple(keys), parts=tuple(_bound(v) for v in values))


def _bound(v: Val) -> Val:
    return UNKNOWN if v.depth() > MAX_DEPTH else v


def _flatten(kind: str, parts: tuple[Val, ...] | list[Val]) -> list[Val]:
    out: list[Val] = []
    for p in parts:
        if p.kind == kind and kind in ("op", "join") and not p.name:
            out.extend(p.parts)
        else:
            out.append(p)
    return list(dict.fromkeys(out))


def op(*parts: Val, comparison: bool = False) -> Val:
    """Arithmetic on values (a comparison when `comparison`): a tensor as soon as one operand is."""
    flat = _flatten("op", parts)
    if any(p.is_tensor for p in flat):
        return tensor(comparison) if any(p.known_tensor for p in flat) else _shown_or_assumed(flat, comparison)
    symbolic = [p for p in flat if p.symbolic]
    if not symbolic:
        if any(p.kind == "unknown" for p in flat):
            return UNKNOWN
        if comparison:
            return BOOL
        return SIZE if any(p.kind == "size" for p in flat) else NUMBER
    if len(symbolic) > MAX_PARTS:
        return UNKNOWN
    v = Val("cmp" if comparison else "op", parts=tuple(symbolic))
    return _bound(v)


# the names of NumPy calls' values on what the tree decides (`numpy_value`): elementwise, and taking arrays
NUMPY_ELEMENTWISE, NUMPY_TAKING_ARRAYS = NUMPY_RESULTS = ("numpy", "numpy array")


def sparse_when_all(operands: list[Val]) -> Val:
    """A product of two matrices (`torch.sparse.mm(a, b)`) or a concatenation (`torch.cat([a, b])`)
    some of whose operands the tree decides: sparse when every operand turns out sparse
    (`Values.resolve`), else a dense tensor."""
    return _bound(Val("op", name="sparse", parts=tuple(operands)))


def method_result(receiver: Val, comparison: bool = False, guess: bool = False) -> Val:
    """What a tensor method returns on a receiver the tree decides: a tensor when the receiver is
    one. Marked, so that rules can tell `x.sum()` (a tensor as soon as `x` is) from `n + 1`.

    A receiver that is itself arithmetic, a comparison or a method result is a tensor exactly when
    one of its operands is, so a chain (`(x.abs() < eps).all()`) rests on those operands directly
    and stays as shallow as its first link. `guess`: the method is one only tensors have (`sum`,
    `abs`, `std`): where the tree decides nothing of the receiver either (an element of
    `self.param_groups`, which a base class outside the tree sets), the result is a tensor assumed, as the
    same method on a name nothing tells of is (`Values.resolve`). A chain keeps the mark of any of its links."""
    if guess and _shows_tensor(receiver):
        return SHOWN_BOOL_TENSOR if comparison else SHOWN_TENSOR
    if guess and receiver.kind == "op" and receiver.name in NUMPY_RESULTS:
        return guessed_tensor(comparison)  # `np.asarray(b).sum(0)`: a method of the array NumPy gave
    parts: list[Val] = []
    for part in _flatten_ops(receiver):
        if part not in parts:
            parts.append(part)
    if len(parts) > MAX_PARTS:
        return UNKNOWN
    guess = guess or _guessed(receiver)
    return _bound(Val("cmp" if comparison else "op", name="guess" if guess else "method", parts=tuple(parts)))


def same_kind(receiver: Val, guess: bool = False) -> Val:
    """What a method that keeps the dtype (`view`, `clone`, `to(device)`) returns on a receiver the tree
    decides, a parameter or what a helper returns: the tensor it is, a tensor of bools if it is one
    (`valid(x).flatten()`); `guess` as for `method_result`."""
    if guess and _shows_tensor(receiver):
        return SHOWN_TENSOR
    return _bound(Val("op", name="keepguess" if guess else "keep", parts=(receiver,)))


def _shows_tensor(receiver: Val) -> bool:
    """A join one of whose values is a tensor the code shows (`kl = kl_divergence(p, q)` on one path,
    `kl = (lp - lq).mean(0)` of values the tree decides on the other): a method only tensors have
    gives a tensor whatever the tree finds for the rest (a tensor, or nothing known, joined with it is
    one), so the result is one at once, shown, and not a chain the tree must follow."""
    return receiver.kind == "join" and any(p.known_tensor for p in receiver.parts)


def _guessed(value: Val) -> bool:
    return value.kind in ("op", "cmp") and (value.name in ("guess", "keepguess") or any(_guessed(p) for p in value.parts))


def _flatten_ops(value: Val) -> list[Val]:
    if value.kind in ("op", "cmp") and value.name not in NUMPY_RESULTS:  # (an array whatever its operands)
        return [leaf for p in value.parts for leaf in _flatten_ops(p)]
    return [value]


def elem(container: Val, index: int | None = None, arity: int | None = None) -> Val:
    """An element of a value: of a tensor, a tensor (of bools where it is one: a row of a mask); of a
    tuple, the element itself. `arity`: the number of names the value is unpacked into (`a, b = f(x)`),
    which the tree reads to pick, of a function's returns, the tuples of that length."""
    if container.is_tensor:
        return tensor(container.is_bool_tensor, known=container.known_tensor)
    if container.kind == "seq" and container.parts:
        if index is not None and -len(container.parts) <= index < len(container.parts) \
                and not (container.name == OPEN and index < 0):
            return container.parts[index]
        return UNKNOWN if container.name == OPEN and index is not None else join(*container.parts)
    if container.kind == "dict" and container.name == RECORD and container.parts:
        if index is not None and -len(container.parts) <= index < len(container.parts):
            return container.parts[index]
        return join(*container.parts)
    if container.kind == "size":
        return SIZE
    if container.symbolic:
        return _bound(Val("elem", name="" if index is None else str(index), parts=(container,),
                          keys=(str(arity),) if arity is not None and index is not None else ()))
    return UNKNOWN


RECORD = "record"


def record_of(fields: dict[str, Val]) -> Val:
    """A record's value (a dataclass or named tuple, records.py): a dict of its fields, in order,
    named so that a position reads a field too."""
    value = dict_of(list(fields), list(fields.values()))
    return Val("dict", name=RECORD, parts=value.parts, keys=value.keys) if value.keys else value


def field(record: Val, name: str) -> Val | None:
    """Field `name` of a record value; None when `record` is no record holding it."""
    if record.kind == "dict" and record.name == RECORD and name in record.keys:
        return record.parts[record.keys.index(name)]
    return None


def attribute(value: Val, name: str) -> Val:
    """`value.name` for a value that is no tensor: a record's field; of a value the tree decides, an
    element named `.name`, which becomes the field once it turns out a record; else unknown."""
    got = field(value, name)
    if got is not None:
        return got
    # of an instance of a named class (`self.sched.timesteps`): what the class keeps there, which
    # the tree knows (reach.py)
    held = value.symbolic or (value.kind == "object" and bool(value.ref))
    return _bound(Val("elem", name=f".{name}", parts=(value,))) if held else UNKNOWN


def mapping_of(value: Val) -> Val:
    """A dict whose keys are not known and whose every value is `value` (`Dict[str, Tensor]`)."""
    return Val("dict", name="values", parts=(_bound(value),))


def item(container: Val, key: str | None) -> Val:
    """`d[key]` for a dict value, with a string key (None: a key that is not a literal). Of a value
    the tree decides, the key is kept (an `elem` named `'key`) for when it turns out to be a dict."""
    if container.kind == "dict":
        if key is not None and key in container.keys:
            return container.parts[container.keys.index(key)]
        if container.name == "values" and container.parts:
            return container.parts[0]
        return UNKNOWN
    if container.symbolic and key is not None:
        return _bound(Val("elem", name=f"'{key}", parts=(container,)))
    return elem(container)


def holds_tensor(value: Val) -> bool:
    """A tensor, a value the tree decides, or a tuple, list or dict with one of those in it."""
    if value.is_tensor or value.symbolic:
        return True
    return value.kind in ("seq", "dict") and any(holds_tensor(p) for p in value.parts)


def join(*parts: Val) -> Val:
    """One of several values (two branches, several returns, several call sites).

    `None` joined with a tensor is a tensor (the optional-tensor idiom: the `None` case is tested
    away), and so is a tensor joined with unknown (no evidence of anything else). A tensor the
    code shows joined with a Python number or bool (`prev = steps[i]` on one path, `prev = t - 1`
    on the other) may be a tensor: a test of it breaks whenever the tensor's path ran, so it is
    one, only assumed (no rewrite that needs a tensor); so too one assumed from a method only
    tensors have (`sigma = g.std() if g.ndim > 1 else 0`). A tensor only assumed otherwise (a
    root's bare parameter) joined with a Python value, or any tensor joined with another known
    non-tensor, is not known to be a tensor."""
    flat = [p for p in _flatten("join", parts)]
    if len(flat) > 1:
        # `x = x + 1` under an `if`, again and again: arithmetic on the join's other values alone is
        # of their kind (a tensor exactly when they are), so it adds nothing and only deepens the value
        rest = set(flat)
        flat = [p for p in flat if not (p.kind == "op" and p.parts and rest.issuperset(_flatten_ops(p)))]
    if not flat:
        return UNKNOWN
    if len(flat) == 1:
        return flat[0]
    real = [p for p in flat if p.kind != "none"] or flat
    if len(real) == 1:
        return real[0]
    if all(p.is_tensor for p in real):
        bools = all(p.is_bool_tensor for p in real)
        return tensor(bools) if all(p.known_tensor for p in real) else _shown_or_assumed(real, bools)
    if any(p.is_tensor for p in real) and all(p.is_tensor or p.kind == "unknown" for p in real):
        # a tensor on one path and nothing known on the other (`x, v = helper(x)` in one branch):
        # no evidence of anything but a tensor, and none that it is one on every path; so too of a
        # sparse one (`return self._memo` or the sparse tensor just made)
        if all(p.is_sparse for p in real if p.is_tensor):
            return SPARSE
        return _shown_or_assumed(real, all(p.is_bool_tensor for p in real if p.is_tensor))
    if any(p.kind == "unknown" for p in real):
        return UNKNOWN
    if any(p.shown or p.by_method for p in real) and \
            all(p.shown or p.by_method or p.kind in ("number", "bool") for p in real):
        # a tensor on one path (shown there, or what a method only tensors have gives), a Python number
        # on another
        return tensor(all(p.is_bool_tensor for p in real if p.is_tensor), known=False)
    if all(p.kind == "seq" for p in real) and len({len(p.parts) for p in real}) == 1:
        return seq([join(*col) for col in zip(*(p.parts for p in real))])
    if all(p.not_tensor for p in real):
        kinds = {p.kind for p in real}
        if kinds == {"bool"}:  # a compile check on one path, another flag on the other: a flag
            return real[0] if len(set(real)) == 1 else BOOL
        return real[0] if len(kinds) == 1 else OBJECT
    if any(p.not_tensor or p.is_tensor for p in real) and not any(p.symbolic for p in real):
        return UNKNOWN
    if len(real) > MAX_PARTS:
        return UNKNOWN
    return _bound(Val("join", parts=tuple(real)))


def override(default: Val, new: Val) -> Val:
    """A name's value past code that may rebind it (an `if` without `else`, a loop body): what it
    held before, `default`, or what that code set, `new`.

    As `join`, except for a flag that a comparison of tensors computes and that `True` or `False`
    may then overrule (`ok = err <= 1`, then `if big: ok = False`): a bool tensor unless the
    overruling path runs, which a test of it then breaks on, so an assumed bool tensor. The other
    way round (`ok = False`, then `if c: ok = t.all()`) stays a join: the flag is a Python bool
    unless the code that sets it runs."""
    if new.kind == "bool" and default.is_bool_tensor:
        return tensor(True, known=False)
    if new.kind == "bool" and default.symbolic and (default.bool_shaped or default.name == "default"):
        # decided once `default` is (it may itself be such a flag, overruled once more)
        return _bound(Val("join", name="default", parts=(default, new)))
    return join(default, new)

