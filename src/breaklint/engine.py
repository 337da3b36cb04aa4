"""The static pass: one parse and one batched walk per file, then reach over the tree.

Per file (in worker processes when there are many, cached by content), the
walk runs every rule and records *candidate* findings, each tagged with the
function it sits in, plus the file's part of the call graph. Then, for the
whole tree, `reach` decides which functions torch.compile traces, and only
their candidates become findings.
"""

from __future__ import annotations

import hashlib
import io
import os
import tokenize
import subprocess
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper

from . import __version__, cache, suppress
from .config import Config
from .context import FileContext, module_name_for, source_lines
from .reach import Reach, Values
from .summary import Candidate, ModuleSummary
from .finding import Finding
from .registry import ENGINE_CODES, load_rules

# A file that mentions none of these cannot hold code that torch.compile traces
# (or a helper it calls into) in a way any rule can see; it is not parsed.
GATE_WORDS = ("torch", "forward", "Module", "compile", "Tensor", ".item(", ".tolist(", ".nonzero(")
PARALLEL_THRESHOLD = 16


@dataclass
class FileResult:
    path: Path
    module: str
    summary: ModuleSummary | None = None
    candidates: list[Candidate] = field(default_factory=list)
    suppressions: list[tuple[int, frozenset[str] | None, str]] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    skipped: bool = False  # gated out or `breaklint: skip-file`
    digest: str = ""  # sha256 of the bytes that were checked; fixes apply only to those


@dataclass
class LintResult:
    findings: list[Finding]
    files: list[Path]
    errors: list[Finding]  # BL001/BL003: files that could not be fully checked
    reached: set[str] = field(default_factory=set)
    digests: dict[Path, str] = field(default_factory=dict)

    @property
    def all(self) -> list[Finding]:
        return sorted([*self.findings, *self.errors], key=Finding.sort_key)


def _engine_finding(code: str, path: Path, message: str, line: int = 1, col: int = 0) -> Finding:
    name, kind, _ = ENGINE_CODES[code]
    return Finding(code=code, kind=kind, message=message, suggestion="", path=path,
                   line=line, col=col, end_line=line, end_col=col)


def analyze_source(source: bytes | str, path: Path, module: str) -> FileResult:
    """Parse and walk one file. Never raises for bad input."""
    result = FileResult(path=path, module=module)
    if isinstance(source, bytes):
        try:
            text = decode_source(source)
        except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
            reason = exc.reason if isinstance(exc, UnicodeDecodeError) else (getattr(exc, "msg", None) or str(exc))
            result.errors.append(_engine_finding("BL001", path, f"cannot decode file: {reason}"))
            return result
    else:
        text = source
    if suppress.skips_file(text) or not any(word in text for word in GATE_WORDS):
        result.skipped = True
        return result
    try:
        module_node = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        message = " ".join(exc.message.split())
        result.errors.append(_engine_finding("BL001", path, f"syntax error: {message}",
                                             exc.raw_line, max(exc.raw_column, 0)))
        return result
    except Exception as exc:  # libcst can raise other errors on odd input
        result.errors.append(_engine_finding("BL001", path, f"cannot parse: {exc}"))
        return result
    wrapper = MetadataWrapper(module_node, unsafe_skip_copy=True)
    ctx = FileContext(path, module, source_lines(text))
    rules = [cls(ctx) for cls in load_rules().values()]
    try:
        wrapper.visit_batched([ctx, *rules])
    except Exception as exc:  # a bug in a rule must not lose the rest of the run
        failing = _guess_failing_rule(exc)
        result.errors.append(_engine_finding(
            "BL003", path, f"internal error in {failing}: {type(exc).__name__}: {exc}"))
        return result
    result.summary = ctx.summary
    result.candidates = ctx.candidates
    result.suppressions = ctx.suppressions
    return result


def decode_source(data: bytes) -> str:
    """A file's text as Python reads it: a UTF-8 BOM or a PEP 263 coding declaration
    (`# -*- coding: latin-1 -*-`) decides the encoding, UTF-8 otherwise."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def _guess_failing_rule(exc: BaseException) -> str:
    tb = exc.__traceback__
    name = "the analysis"
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if owner is not None and hasattr(owner, "CODE"):
            name = f"{owner.CODE} ({type(owner).__name__})"
        tb = tb.tb_next
    return name


def _cached(path: Path, module: str, cache_dir: str | None) -> FileResult | None:
    """The file's result from the cache, or None when it must be analyzed (also when it cannot be read)."""
    if cache_dir is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return cache.read(cache.entry_path(cache_dir, path, module, data), FileResult, path, module)


def _analyze_path(args: tuple[Path, str, str | None]) -> FileResult:
    path, module, cache_dir = args
    try:
        data = path.read_bytes()
    except OSError as exc:
        result = FileResult(path=path, module=module)
        result.errors.append(_engine_finding("BL001", path, f"cannot read file: {exc.strerror}"))
        return result
    result = analyze_source(data, path, module)
    result.digest = hashlib.sha256(data).hexdigest()
    if cache_dir is not None:  # `lint` looked the file up (`_cached`) before sending it here
        cache.write_atomic(cache.entry_path(cache_dir, path, module, data), cache.dumps(result))
    return result


# ---------------------------------------------------------------------- discovery
def discover(paths: list[Path], config: Config) -> list[Path]:
    """Python files under the paths, minus excluded and git-ignored ones.

    A file named explicitly is linted even when excluded by a directory pattern,
    as ruff and flake8 do, unless `--force-exclude` semantics are wanted later."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
            continue
        # Patterns apply below the project root, or below the directory named
        # when it lies outside the root, never to the folders above it.
        anchor = config.root if _is_within(path, config.root) else path
        for dirpath, dirnames, filenames in os.walk(path):
            base = Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if not config.is_excluded(_rel(base / d, anchor)))
            for name in sorted(filenames):
                if name.endswith(".py"):
                    file = base / name
                    if not config.is_excluded(_rel(file, anchor)):
                        found.append(file)
    unique = list(dict.fromkeys(found))
    if config.respect_gitignore:
        ignored = git_ignored(unique)
        unique = [p for p in unique if p not in ignored]
    return unique


def _is_within(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def git_ignored(paths: list[Path]) -> set[Path]:
    if not paths:
        return set()
    try:
        proc = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input="\0".join(str(p) for p in paths).encode(),
            capture_output=True, timeout=30, cwd=paths[0].parent if paths[0].parent.exists() else None,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode not in (0, 1):
        return set()  # not a git repository, or git could not answer
    return {Path(p) for p in proc.stdout.decode().split("\0") if p}


# ---------------------------------------------------------------------- the run
def lint(paths: list[Path], config: Config, jobs: int | None = None, use_cache: bool = True) -> LintResult:
    files = discover(paths, config)
    cache_dir = None
    if use_cache:
        base = Path(config.cache_dir) if config.cache_dir else config.root / ".breaklint_cache"
        cache_dir = str(base / f"v{__version__}-{config.fingerprint()}")
        _write_gitignore(base)
    # Cache hits are read here: a warm run starts no workers and sends nothing between processes.
    found = [(p, module_name_for(p)) for p in files]
    results: list[FileResult | None] = [_cached(p, mod, cache_dir) for p, mod in found]
    work = [(p, mod, cache_dir) for (p, mod), res in zip(found, results) if res is None]
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs > 1 and len(work) >= PARALLEL_THRESHOLD:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            fresh = iter(pool.map(_analyze_path, work, chunksize=max(1, len(work) // (jobs * 4))))
            results = [res if res is not None else next(fresh) for res in results]
    else:
        results = [res if res is not None else _analyze_path((p, mod, cache_dir))
                   for res, (p, mod) in zip(results, found)]
    return combine(results, config)


def _write_gitignore(base: Path) -> None:
    marker = base / ".gitignore"
    if not marker.exists():
        cache.write_atomic(marker, b"# created by breaklint\n*\n")


def combine(results: list[FileResult], config: Config) -> LintResult:
    summaries = [r.summary for r in results if r.summary is not None]
    reach = Reach(summaries, config.module_bases, config.entry_points)
    values = Values(reach)
    enabled = config.enabled_codes()
    disabled_rule = load_rules().get("BL410")
    extra: dict[Path, list[Candidate]] = {}
    if disabled_rule is not None:
        by_module = {r.module: r for r in results if r.summary is not None}
        for caller, call, target in reach.disabled_calls:
            module = max((mod for mod in by_module if caller.startswith(mod + ".")), key=len, default=None)
            if module is None:
                continue
            res = by_module[module]
            short = target.rsplit(".", 1)[-1]
            finding = Finding(
                code=disabled_rule.CODE, kind=disabled_rule.KIND,
                message=f"call to `{short}`, which is excluded from compilation "
                        f"(`torch.compiler.disable`): dynamo breaks the graph around it",
                suggestion=disabled_rule.SUGGESTION, path=res.path, line=call.line, col=call.col,
                end_line=call.end_line, end_col=call.end_col, gb_types=disabled_rule.GB_TYPES,
            )
            extra.setdefault(res.path, []).append(Candidate(caller, finding, call.line, call.end_line))
    findings: list[Finding] = []
    errors: list[Finding] = []
    for res in results:
        rel = _rel(res.path, config.root)
        file_ignores = config.ignored_for(rel)
        allowed = {c for c in enabled if not any(c.startswith(i) for i in file_ignores)}
        for err in res.errors:
            if err.code in allowed:
                errors.append(err)
        seen: set[tuple] = set()
        candidates = []
        for cand in [*res.candidates, *extra.get(res.path, [])]:
            f = cand.finding
            key = (f.code, f.line, f.col, f.end_line, f.end_col)
            if cand.scope in reach.reached and f.code in allowed and key not in seen and (
                    cand.requires is None or values.resolve(cand.requires).is_tensor):
                seen.add(key)
                candidates.append(cand)
        kept, unused = suppress.apply(candidates, res.suppressions)
        findings.extend(c.finding for c in kept)
        if "BL002" in allowed:
            for line, code, style in unused:
                if not any(a.startswith(code) for a in allowed):
                    continue
                marker = "breaklint: ignore" if style == "breaklint" else "noqa"
                findings.append(_engine_finding(
                    "BL002", res.path, f"unused suppression `{marker}` for {code}: nothing is reported here",
                    line))
    findings.sort(key=Finding.sort_key)
    errors.sort(key=Finding.sort_key)
    return LintResult(findings=findings, files=[r.path for r in results], errors=errors, reached=reach.reached,
                      digests={r.path: r.digest for r in results if r.digest})


def lint_source(source: str, path: Path = Path("<string>"), config: Config | None = None) -> list[Finding]:
    """Lint one piece of source on its own; handy in tests and editors."""
    config = config or Config()
    result = combine([analyze_source(source, path, path.stem)], config)
    return result.all
