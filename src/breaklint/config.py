"""`[tool.breaklint]` in pyproject.toml, merged with command-line options."""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from .calibration import installed_torch
from .dynamo_settings import FLAGS, SUPPORTED, Settings, canonical
from .registry import CATALOG, all_codes, rule_info

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "__pycache__",
    "build", "dist", "node_modules", "site-packages", ".breaklint_cache", ".mypy_cache",
    ".pytest_cache", ".ruff_cache",
)
KNOWN_KEYS = {
    "select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
    "module-bases", "respect-gitignore", "cache-dir", "dynamic", "entry-points", "max-file-size",
    "baseline", "dynamo-config", "target-torch", "target-python", "follow",
}
# Files larger than this (bytes) are reported as BL004 and not parsed: a model file is rarely above
# 0.5 MB, while a 10 MB generated file would take minutes and gigabytes to analyze.
DEFAULT_MAX_FILE_SIZE = 1 << 20


class ConfigError(Exception):
    """A broken configuration or an unknown rule code: exit status 2."""


@dataclass
class DynamicConfig:
    """`[tool.breaklint.dynamic]`: what `breaklint explain` runs when no target is given."""

    targets: list[str] = field(default_factory=list)
    timeout: float = 300.0
    device: str = "auto"
    train: bool = False
    max_memory: int | None = None  # MiB per target, CPU runs only


@dataclass
class Config:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: list[str] = field(default_factory=list)
    module_bases: list[str] = field(default_factory=lambda: [
        "lightning.LightningModule", "pytorch_lightning.LightningModule",
        "lightning.pytorch.LightningModule",
    ])
    # functions, methods or classes that code outside the linted files compiles
    # (`torch.compile(pkg.ops.fused)`, `torch.compile(model.step)`): dotted names or fnmatch patterns
    entry_points: list[str] = field(default_factory=list)
    # installed packages whose functions and modules the code calls from compiled code, read to find
    # the breaks inside them (`follow.py`): top-level names, `torch_geometric`
    follow: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    cache_dir: str | None = None
    baseline: str | None = None  # a baseline file (relative to the root): only findings not in it count
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the pyproject.toml the settings came from
    dynamic: "DynamicConfig" = field(default_factory=lambda: DynamicConfig())
    # dynamo settings made outside the linted tree (`dynamo_settings.Settings.from_values` form)
    dynamo_config: dict[str, list[str]] = field(default_factory=dict)
    # the torch release the findings are for ("2.11"); None: the installed one, else the newest
    # the rules were calibrated on (`calibration.py`)
    target_torch: str | None = None
    # the oldest Python the code runs on ("3.11"); None: the lower bound of the project's
    # `requires-python` (`requires_python`), else the Python breaklint runs on
    target_python: str | None = None
    requires_python: str | None = None  # `[project] requires-python` of the pyproject.toml read

    def python_release(self) -> tuple[int, int]:
        """The oldest Python release the findings are for, as (3, 11)."""
        for text in (self.target_python, self.requires_python):
            found = lowest_python(text) if text else None
            if found is not None:
                return found
        return sys.version_info[:2]

    def dynamo_settings(self) -> Settings:
        return Settings.from_values(self.dynamo_config)

    # ------------------------------------------------------------------ selection
    def enabled_codes(self) -> set[str]:
        codes = all_codes()
        if self.select:
            chosen = {c for c in codes if _selected(c, self.select)}
        else:
            chosen = {c for c in codes if c not in CATALOG or rule_info(c).default_enabled}
        chosen |= {c for c in codes if _selected(c, self.extend_select)}
        chosen -= {c for c in codes if _selected(c, self.ignore)}
        return chosen

    def ignored_for(self, relpath: str) -> list[str]:
        out: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if _path_matches(relpath, pattern):
                out.extend(codes)
        return out

    def is_excluded(self, relpath: str) -> bool:
        return any(_path_matches(relpath, p) for p in [*self.exclude, *self.extend_exclude])

    def fingerprint(self) -> str:
        data = asdict(self)
        data["root"] = data["source"] = data["dynamic"] = data["baseline"] = None  # the static pass ignores these
        # findings depend on the torch release they are for, the installed one by default
        data["target_torch"] = self.target_torch or installed_torch()
        data["target_python"] = data["requires_python"] = ".".join(map(str, self.python_release()))
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _selected(code: str, selectors: list[str]) -> bool:
    return any(s == "ALL" or code.startswith(s) for s in selectors)


def _path_matches(relpath: str, pattern: str) -> bool:
    """The pattern matches the path, a folder holding it, or (a pattern without `/`) one of its parts."""
    whole, part = _matcher(pattern)
    if whole(relpath):
        return True
    return part is not None and any(part(p) for p in relpath.split("/"))


@functools.lru_cache(maxsize=None)
def _matcher(pattern: str) -> tuple[Callable[[str], object], Callable[[str], object] | None]:
    pattern = pattern.rstrip("/")
    whole = re.compile(f"(?:{fnmatch.translate(pattern)})|(?:{fnmatch.translate(pattern + '/*')})").match
    return whole, (re.compile(fnmatch.translate(pattern)).match if "/" not in pattern else None)


def validate_codes(selectors: list[str], where: str) -> None:
    codes = all_codes()
    for sel in selectors:
        if sel == "ALL":
            continue
        if not sel or not any(c.startswith(sel) for c in codes):
            raise ConfigError(f"{where}: unknown rule code or prefix {sel!r} (see `breaklint rules`)")


# packages dynamo does not trace as written: torch's own functions, NumPy's (run as torch operations),
# optree's and einops' (dynamo substitutes its own versions, or traces their torch backend), triton's
# kernels. Following one would report what dynamo never runs.
NOT_FOLLOWED = {"torch": "dynamo handles its functions itself, and the rules describe them",
                "numpy": "dynamo runs its functions as torch operations, and the rules describe them",
                "optree": "dynamo substitutes its own versions of its tree functions",
                "einops": "dynamo traces its operations through its torch backend",
                "triton": "dynamo compiles its kernels itself",
                "functorch": "it is torch's (`torch.func`)"}


def validate_follow(names: list[str], where: str) -> list[str]:
    """Top-level package names to follow, none of those dynamo does not trace as written."""
    for name in names:
        if not name.isidentifier():
            raise ConfigError(f"{where}: {name!r} is not a top-level package name (such as \"torch_geometric\")")
        if name in NOT_FOLLOWED:
            raise ConfigError(f"{where}: {name} is not followed: {NOT_FOLLOWED[name]}")
    return names


def find_pyproject(start: Path) -> Path | None:
    start = Path(os.path.realpath(start))  # never raises, even on a symlink loop
    folder = start if start.is_dir() else start.parent
    for candidate in [folder, *folder.parents]:
        path = candidate / "pyproject.toml"
        if path.is_file():
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                return path  # let load() report it
            if "breaklint" in data.get("tool", {}):
                return path
    return None


def load(paths: list[Path], explicit: Path | None = None) -> Config:
    path = explicit
    if path is None:
        starts = paths or [Path.cwd()]
        path = find_pyproject(starts[0])
    if path is None:
        return Config(root=git_root(Path.cwd()) or Path.cwd())
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    section = data.get("tool", {}).get("breaklint", {}) if path.name == "pyproject.toml" else data
    cfg = from_mapping(section, source=path)
    project = data.get("project") if path.name == "pyproject.toml" else None
    requires = project.get("requires-python") if isinstance(project, dict) else None
    cfg.requires_python = requires if isinstance(requires, str) else None
    return cfg


def from_mapping(section: dict, source: Path | None = None) -> Config:
    where = f"{source}: [tool.breaklint]" if source else "[tool.breaklint]"
    if not isinstance(section, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(section) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown option(s) {', '.join(sorted(unknown))}")
    cfg = Config(root=source.parent if source else Path.cwd(), source=source)

    def strings(key: str) -> list[str]:
        value = section.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: {key} must be a list of strings")
        return value

    cfg.select = strings("select")
    cfg.ignore = strings("ignore")
    cfg.extend_select = strings("extend-select")
    for key in ("select", "ignore", "extend-select"):
        validate_codes(strings(key), f"{where} {key}")
    if "exclude" in section:
        cfg.exclude = strings("exclude")
    cfg.extend_exclude = strings("extend-exclude")
    if "module-bases" in section:
        cfg.module_bases = [*cfg.module_bases, *strings("module-bases")]
    cfg.entry_points = strings("entry-points")
    cfg.follow = validate_follow(strings("follow"), f"{where} follow")
    pfi = section.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where}: per-file-ignores must be a table of pattern = [codes]")
    for pattern, codes in pfi.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: per-file-ignores.{pattern} must be a list of codes")
        validate_codes(codes, f"{where} per-file-ignores.{pattern}")
        cfg.per_file_ignores[pattern] = codes
    gi = section.get("respect-gitignore", True)
    if not isinstance(gi, bool):
        raise ConfigError(f"{where}: respect-gitignore must be true or false")
    cfg.respect_gitignore = gi
    size = section.get("max-file-size", DEFAULT_MAX_FILE_SIZE)
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ConfigError(f"{where}: max-file-size must be a positive number of bytes")
    cfg.max_file_size = size
    baseline = section.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        raise ConfigError(f"{where}: baseline must be a path (a string)")
    cfg.baseline = baseline
    cache_dir = section.get("cache-dir")
    if cache_dir is not None and not isinstance(cache_dir, str):
        raise ConfigError(f"{where}: cache-dir must be a string")
    cfg.cache_dir = cache_dir
    cfg.dynamic = _dynamic(section.get("dynamic", {}), f"{where}.dynamic" if source else "[tool.breaklint.dynamic]")
    cfg.dynamo_config = _dynamo_config(section.get("dynamo-config", {}), f"{where} dynamo-config")
    target = section.get("target-torch")
    if target is not None and (not isinstance(target, str) or not TORCH_VERSION.match(target)):
        raise ConfigError(f"{where}: target-torch must be a torch release such as \"2.11\" or \"2.13.0\"")
    cfg.target_torch = target
    python = section.get("target-python")
    if python is not None and (not isinstance(python, str) or not PYTHON_VERSION.match(python)):
        raise ConfigError(f"{where}: target-python must be a Python release such as \"3.11\" (or \"py311\")")
    cfg.target_python = python
    return cfg


TORCH_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")
PYTHON_VERSION = re.compile(r"^(?:3\.\d+(?:\.\d+)?|py3\d+)$")
# one clause of `requires-python` that bounds it from below: `>=3.10`, `~=3.10`, `==3.11.*`, `>3.9`
_LOWER_BOUND = re.compile(r"^\s*(>=|~=|==|===|>)\s*(\d+)\.(\d+)")


def lowest_python(text: str) -> tuple[int, int] | None:
    """The oldest Python release a `target-python` value (`3.11`, `py311`) or a `requires-python`
    specifier (`>=3.10,<4`) allows, as (3, 10); None where it names no lower bound."""
    if text.startswith("py3") and text[3:].isdigit():
        return 3, int(text[3:])
    if PYTHON_VERSION.match(text):
        major, minor = text.split(".")[:2]
        return int(major), int(minor)
    bounds = [(int(m.group(2)), int(m.group(3))) for clause in text.split(",")
              if (m := _LOWER_BOUND.match(clause))]
    return max(bounds) if bounds else None


def _dynamo_config(table: object, where: str) -> dict[str, list[str]]:
    """`{capture_scalar_outputs = true, reorderable_logging_functions = ["print"]}`."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table of dynamo settings")
    out: dict[str, list[str]] = {}
    for name, value in table.items():
        setting = canonical(name)
        if setting is None:
            raise ConfigError(f"{where}: {name!r} is not a setting the static pass models "
                              f"(one of {', '.join(SUPPORTED)})")
        if setting in FLAGS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: {name} must be true or false")
            out[setting] = [str(value).lower()]
        else:
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{where}: {name} must be a list of dotted function names "
                                  f"(\"print\", \"logging.Logger.info\")")
            out[setting] = list(value)
    return out


def _dynamic(table: object, where: str) -> DynamicConfig:
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(table) - {"targets", "timeout", "device", "train", "max-memory"}
    if unknown:
        raise ConfigError(f"{where}: unknown option(s) {', '.join(sorted(unknown))}")
    out = DynamicConfig()
    targets = table.get("targets", [])
    if not isinstance(targets, list) or not all(isinstance(t, str) and ":" in t for t in targets):
        raise ConfigError(f"{where}: targets must be a list of \"path.py:FACTORY\" or \"module:FACTORY\" strings")
    out.targets = targets
    timeout = table.get("timeout", out.timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigError(f"{where}: timeout must be a positive number of seconds")
    out.timeout = float(timeout)
    device = table.get("device", out.device)
    if device not in ("auto", "cpu", "cuda"):
        raise ConfigError(f"{where}: device must be \"auto\", \"cpu\" or \"cuda\"")
    out.device = device
    train = table.get("train", False)
    if not isinstance(train, bool):
        raise ConfigError(f"{where}: train must be true or false")
    out.train = train
    memory = table.get("max-memory")
    if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory <= 0):
        raise ConfigError(f"{where}: max-memory must be a positive number of MiB")
    out.max_memory = memory
    return out


def git_root(start: Path) -> Path | None:
    """The work tree of the git repository holding `start`, if any."""
    real = Path(os.path.realpath(start))
    for candidate in [real, *real.parents]:
        if (candidate / ".git").exists():
            return candidate
    return None
