"""The dynamo settings that change where torch.compile breaks, as the static pass understands them.

A project turns some breaks off with `torch._dynamo.config`: `capture_scalar_outputs` traces
`.item()` (the break moves to the `if` that then tests the number), `capture_dynamic_output_shape_ops`
traces `nonzero` and boolean masks, `reorderable_logging_functions` and `ignore_logger_methods` let
print and logging calls be reordered or dropped, `allow_rnn` traces `nn.LSTM`, `trace_autograd_ops`
traces `torch.autograd.grad` and `.backward()`. The static pass reads
these where the tree sets them (`analysis/settings.py`) or where the configuration names them
(`[tool.breaklint] dynamo-config`), and each rule whose verdict one of them changes says so on the
finding it reports:

- `unless`: conditions under which the finding is not a break (a token each, below);
- `only_with`: conditions that must all hold for it to be one (the `if` on a captured number).

A token is a setting's name (`capture_scalar_outputs`: the setting is on) or `name=key|key` for a
set of functions (`reorderable_logging_functions=print`: the set holds one of the keys). A flag's
token may end in `>=X.Y`, the torch release from which the setting has that effect, as the rule's
calibration on several releases showed (`trace_autograd_ops>=2.13`). Keys are
dotted names as the tree writes them after imports are resolved: `print`, `logging.warning`,
`warnings.warn`; `logging.Logger.info` stands for the `info` method of every logger.

Nothing here imports torch or libcst: the configuration, the rules and the engine all ask it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# settings that are on or off
FLAGS = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops", "allow_rnn", "trace_autograd_ops")
# settings that hold a set of functions
FUNCTION_SETS = ("reorderable_logging_functions", "ignore_logger_methods")
# other spellings dynamo accepts for the same setting
ALIASES = {"ignore_logging_functions": "ignore_logger_methods"}
SUPPORTED = (*FLAGS, *FUNCTION_SETS)

LOGGER_CLASS = "logging.Logger"


def canonical(name: str) -> str | None:
    """The setting a name of `torch._dynamo.config` stands for, or None if the static pass does not
    model it (most settings do not move a break)."""
    name = ALIASES.get(name, name)
    return name if name in SUPPORTED else None


def function_key(name: str) -> str:
    """`Logger.info`, `logging.Logger.info` -> `logging.Logger.info`; other names unchanged."""
    head, _, method = name.rpartition(".")
    if head in ("Logger", LOGGER_CLASS, "logging.RootLogger", "RootLogger"):
        return f"{LOGGER_CLASS}.{method}"
    return name


class Settings:
    """The dynamo settings in force for some code: flags on or off, function sets' members.

    Built by layering: `Settings().merged(a).merged(b)`, a later layer's flag winning, sets joined. A
    flag that the tree sets both on and off (`conflicting`) is taken as off: the break stays reported.
    """

    __slots__ = ("flags", "functions")

    def __init__(self) -> None:
        self.flags: dict[str, bool] = {}
        self.functions: dict[str, set[str]] = {}

    @classmethod
    def from_values(cls, values: Mapping[str, Iterable[str]]) -> "Settings":
        """From the plain form a summary keeps: a flag's values as "true"/"false" (both: conflicting,
        off), a set's members as dotted names."""
        out = cls()
        for name, items in values.items():
            setting = canonical(name)
            if setting is None:
                continue
            items = list(items)
            if setting in FLAGS:
                out.flags[setting] = bool(items) and all(v == "true" for v in items)
            else:
                out.functions[setting] = {function_key(v) for v in items}
        return out

    def merged(self, other: "Settings | None") -> "Settings":
        if other is None or not (other.flags or other.functions):
            return self
        out = Settings()
        out.flags = {**self.flags, **other.flags}
        out.functions = {k: set(v) for k, v in self.functions.items()}
        for name, members in other.functions.items():
            out.functions.setdefault(name, set()).update(members)
        return out

    def holds(self, token: str, torch: tuple[int, ...] | None = None) -> bool:
        """Whether the token's condition holds, on the torch release `torch` where the token names one."""
        name, keys, since = parse_token(token)
        if since and torch is not None and torch < release(since):
            return False
        if not keys:
            return self.flags.get(name, False)
        members = self.functions.get(name, set())
        for key in map(function_key, keys):
            # a name imported from elsewhere (`pkg.utils.logger.info`) is the tree's `logger.info`
            if key in members or any(m.endswith("." + key) or key.endswith("." + m) for m in members if "." in m):
                return True
        return False

    def __bool__(self) -> bool:
        return any(self.flags.values()) or any(self.functions.values())


def parse_token(token: str) -> tuple[str, list[str], str]:
    """`name=key|key>=X.Y` -> (the setting, its keys, the release from which it has the effect);
    keys empty for a flag, the release "" for every release."""
    rest, _, since = token.partition(">=")
    name, _, keys = rest.partition("=")
    return name, keys.split("|") if keys else [], since


def token_setting(token: str) -> str:
    """The setting a token is about: `reorderable_logging_functions=print` -> its name."""
    return parse_token(token)[0]


def token_since(token: str) -> str:
    """The torch release from which a token's setting has its effect ("" for every release)."""
    return parse_token(token)[2]


def add_values(held: dict[str, list[str]], setting: str, values: Iterable[str]) -> None:
    """Add a setting's values (`Settings.from_values` form) to `held`, each once."""
    known = held.setdefault(setting, [])
    known.extend(v for v in values if v not in known)


def release(version: str) -> tuple[int, ...]:
    """"2.13.0+cpu" -> (2, 13, 0); "2.11" -> (2, 11, 0)."""
    parts = [int(p) for p in re.findall(r"\d+", version.split("+")[0])[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


def describe_token(token: str) -> str:
    name, keys, _ = parse_token(token)
    return f"`{keys[0]}` in `{name}`" if keys else f"`{name}`"
