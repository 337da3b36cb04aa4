"""The static pass, orchestrated: files (discovery.py) -> parse and walk each (analyze.py, in a pool
when there are many, cached by content) -> reach over the tree (analysis/reach.py) -> findings.

Per file, the walk runs every rule and records *candidate* findings, each tagged with the function
it sits in, plus the file's part of the call graph. Then, for the whole tree, `reach` decides which
functions torch.compile traces, and only their candidates become findings.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import cache, calibration, follow, suppress
from ._version import __version__
from .analysis.hierarchy import defines
from .analysis.reach import Reach, is_pattern
from .analysis.resolve import Values
from .analysis.resume import (
    breaking, consumed_generators, eager_comprehensions, eager_constructors, held_methods, unresumable_calls,
)
from .analysis.scoping import SettingsScopes
from .analysis.summary import Candidate, MustBe, within
from .analysis.values import GENERATOR, Val
from .analyze import FileResult, _analyze_kept, _entry, analyze_source
from .config import DEFAULT_EXCLUDE, Config
from .diagnostics import _engine_finding
from .dynamo_settings import describe_token, release, token_setting, token_since
from .discovery import _rel, discover
from .finding import Finding
from .memory import results_kept
from .pool import _analyze_in_pool, _size
from .registry import CATALOG, rule_info
from .source import module_name_for
from .tree_findings import placed, tree_candidates


# Worker processes pay for themselves once there are this many bytes to analyze (about half a second
# of parsing and walking on one core; a forked worker starts in a few milliseconds).
PARALLEL_BYTES = 128 * 1024


@dataclass
class LintResult:
    findings: list[Finding]
    files: list[Path]
    errors: list[Finding]  # BL001/BL003: files that could not be fully checked
    reached: set[str] = field(default_factory=set)
    digests: dict[Path, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # paths that gave nothing to lint, entry points naming nothing
    # dynamo setting -> how many findings it removed (the project's settings, read from the tree and
    # the configuration): not kept by the run cache, which a changed setting invalidates anyway
    lifted: dict[str, int] = field(default_factory=dict)
    asked: follow.Answers = field(default_factory=dict)  # a followed package's run: the names that break, or may

    @property
    def all(self) -> list[Finding]:
        return sorted([*self.findings, *self.errors], key=Finding.sort_key)


def lint(paths: list[Path], config: Config, jobs: int | None = None, use_cache: bool = True) -> LintResult:
    notes: list[str] = []
    files = discover(paths, config, notes)
    cache_dir = None
    if use_cache:
        base = Path(config.cache_dir) if config.cache_dir else config.root / ".breaklint_cache"
        cache_dir = str(base / f"v{__version__}-{config.fingerprint()}")
        cache.write_gitignore(base)
    # Cache hits are read here: a warm run starts no workers and sends nothing between processes. When
    # no file changed since the same invocation last ran, its whole result is one small entry.
    found = [(p, module_name_for(p)) for p in files]
    limit = config.max_file_size
    entries = [_entry(p, mod, cache_dir, limit) for p, mod in found]
    run_entry = state = None
    # the installed packages the configuration follows: their files are part of what the run depends on
    packages = {name: _package_files(root, config, cache_dir)
                for name, root in (follow.locate(config.follow, notes) if config.follow else {}).items()}
    followed = [entry for _, _, package_entries in packages.values() for entry in package_entries]
    if cache_dir is not None and all(entries) and all(followed):
        run_entry = cache.run_entry_path(cache_dir, [str(config.root), *map(str, files)])
        state = cache.run_state([*entries, *followed], str(config.root))
        record = cache.read_run(run_entry, state)
        if record is not None and record.files == files:
            return LintResult(findings=record.findings, files=record.files, errors=record.errors,
                              reached=set(record.reached), digests={Path(k): v for k, v in record.digests.items()},
                              notes=[*notes, *record.notes])
    with results_kept():
        results = _analyzed(found, entries, cache_dir, limit, jobs)
        ask = _asker(packages, cache_dir, jobs) if packages else None
        result = combine(results, config, ask=ask)
    run_notes, result.notes = result.notes, [*notes, *result.notes]
    if run_entry is not None and state is not None:
        record = cache.RunRecord(state=state, findings=result.findings, errors=result.errors, files=result.files,
                                 digests={str(k): v for k, v in result.digests.items()},
                                 reached=sorted(result.reached), notes=run_notes)
        cache.write_atomic(run_entry, cache.dumps(record))
    return result


def _analyzed(found: list[tuple[Path, str]], entries: list[Path | None], cache_dir: str | None, limit: int,
              jobs: int | None) -> list[FileResult]:
    """Each file's result: read from the cache, or analyzed (in a pool of workers when there is enough)."""
    results: list[FileResult | None] = [
        cache.read(entry, FileResult, p, mod) if entry is not None else None
        for entry, (p, mod) in zip(entries, found)]
    work = [(p, mod, cache_dir, limit) for (p, mod), res in zip(found, results) if res is None]
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    sizes = [_size(item[0]) for item in work]
    if jobs > 1 and len(work) > 1 and sum(sizes) >= PARALLEL_BYTES:
        fresh = iter(_analyze_in_pool(work, jobs, sizes))
        return [res if res is not None else next(fresh) for res in results]
    return [res if res is not None else _analyze_kept((p, mod, cache_dir, limit))
            for res, (p, mod) in zip(results, found)]


def _package_config(config: Config, root: Path) -> Config:
    """The configuration a followed package's own run uses: its folder's parent as the root (its paths
    read `torch_geometric/utils/loop.py`), every file of it, and no packages followed from there."""
    return dataclasses.replace(config, root=root.parent, follow=[], entry_points=[], respect_gitignore=False,
                               exclude=list(DEFAULT_EXCLUDE), extend_exclude=[], per_file_ignores={}, baseline=None)


# a followed package: its configuration, its files with their modules, and their cache entries
_Package = tuple[Config, list[tuple[Path, str]], list[Path | None]]


def _package_files(root: Path, config: Config, cache_dir: str | None) -> _Package:
    """A followed package's files, found and named once: the run cache's key and the package's own pass
    both read them."""
    own = _package_config(config, root)
    found = [(p, module_name_for(p)) for p in discover([root], own, [])]
    return own, found, [_entry(p, mod, cache_dir, own.max_file_size) for p, mod in found]


def _asker(packages: dict[str, _Package], cache_dir: str | None,
           jobs: int | None) -> Callable[[list[str]], follow.Answers]:
    """What runs the followed packages' own pass on the names the linted code calls of them."""
    def ask(names: list[str]) -> follow.Answers:
        told: follow.Answers = {}
        for package, (own, found, entries) in packages.items():
            asked = [n for n in names if n.partition(".")[0] == package]
            if not asked:
                continue
            own = dataclasses.replace(own, entry_points=sorted({n.removesuffix("()") for n in asked}))
            told.update(combine(_analyzed(found, entries, cache_dir, own.max_file_size, jobs), own,
                                asked=asked).asked)
        return told
    return ask


def _reached_when(cand: Candidate, conditions: dict[str, bool], via: str) -> Candidate:
    """A finding in a function that compile reaches only through calls made under trace-time
    conditions (`if self.training:` around `self.loss(...)` in `forward`) names them, and where to
    find them; one that needs a half-precision input is a hazard, as in the caller itself."""
    f = cand.finding
    texts = [c for c in conditions if c not in f.condition.split(" and ")]
    if not texts:
        return cand
    where = ".".join(via.split(".")[-2:])
    kind = "hazard" if f.kind == "break" and any(conditions[c] for c in texts) else f.kind
    return dataclasses.replace(cand, finding=dataclasses.replace(
        f, kind=kind, condition=" and ".join(filter(None, [f.condition, *texts])), reached_when=" and ".join(texts),
        message=f"{f.message} (reached only when `{' and '.join(texts)}`, in `{where}`)"))


def _stands(value: Val, must_be: MustBe) -> bool:
    """Whether a finding's requirement, now decided, is what `Candidate.must_be` says it must be."""
    if must_be == "sparse":
        return value.is_sparse
    if must_be == "bools":
        return value.is_bool_tensor
    if must_be == "generator":
        return value == GENERATOR
    return value.shown if must_be == "known" else value.is_tensor


def combine(results: list[FileResult], config: Config, ask: Callable[[list[str]], follow.Answers] | None = None,
            asked: list[str] | None = None) -> LintResult:
    """The tree's findings from its files' results. `ask` runs the followed packages' pass on the names the
    code calls of them (`follow.py`); `asked`, in such a package's own run, are those names, and the
    result's `asked` says which of them always break."""
    summaries = [r.summary for r in results if r.summary is not None]
    reach = Reach(summaries, config.module_bases, config.entry_points)
    values = Values(reach)
    when = reach.reached_when()
    scopes = SettingsScopes(summaries, reach, config.dynamo_settings())
    lifted: dict[str, int] = {}
    versions = calibration.table()
    target = calibration.target_release(config.target_torch, versions)
    verdicts = {code: calibration.verdict(code, target, versions) for code in CATALOG
                if rule_info(code).kind == "break"}
    enabled = config.enabled_codes()
    python = config.python_release()
    extra = tree_candidates(reach, results, python)
    for path, cands in placed(follow.found(reach, config.follow, ask) if ask else [], results).items():
        extra.setdefault(path, []).extend(map(follow.retold, cands))
    errors: list[Finding] = []

    def admit(cand: Candidate, allowed: set[str] | None, seen: set[tuple],
              counted: dict[str, int] = lifted) -> Candidate | None:
        f = cand.finding
        key = (f.code, f.line, f.col, f.end_line, f.end_col)
        if cand.scope not in reach.reached or (allowed is not None and f.code not in allowed) or key in seen or (
                cand.scope in reach.wrapper_only and not within(reach.functions[cand.scope].wrapper_spans, f.line)) or (
                cand.requires is not None and not _stands(
                    values.resolve(cand.requires), cand.must_be)):
            return None
        if cand.unless or cand.only_with:
            cand = _under_settings(cand, scopes, counted, release(target) if target else None)
            if cand is None:
                return None
        stands, note = verdicts.get(f.code, (True, ""))
        if not stands:  # the calibration saw no break of this rule on the target torch
            return None
        if note:
            cand = dataclasses.replace(cand, finding=dataclasses.replace(
                cand.finding, torch=note, message=f"{cand.finding.message} ({note})"))
        seen.add(key)
        if cand.scope in when:
            cand = _reached_when(cand, *when[cand.scope])
        if f.fix is not None and cand.fix_needs and not all(
                values.resolve(need).known_tensor for need in cand.fix_needs):
            # the finding stands on an assumed tensor; its rewrite needs a known one
            cand = dataclasses.replace(cand, finding=dataclasses.replace(cand.finding, fix=None))
        return cand

    admitted: list[tuple[FileResult, set[str], set[tuple], list[Candidate]]] = []
    direct: dict[str, list[tuple[int, str]]] = {}  # each reached function's own breaks (resume.py)
    described: dict[str, Finding] = {}  # "path:line" of a break -> the first break found there
    for res in results:
        rel = _rel(res.path, config.root)
        file_ignores = config.ignored_for(rel)
        allowed = {c for c in enabled if not any(c.startswith(i) for i in file_ignores)}
        for err in res.errors:
            # an internal error is never silent: no selection or ignore hides that a file went unchecked
            if err.code in allowed or err.code == "BL003":
                errors.append(err)
        seen: set[tuple] = set()
        own = [*res.candidates, *extra.get(res.path, [])]
        candidates = [c for c in (admit(cand, allowed, seen) for cand in own) if c is not None]
        admitted.append((res, allowed, seen, candidates))
        # Where dynamo breaks does not depend on which rules are selected or ignored: the breaks of the
        # rules left out here count too (admitted apart, so that no setting counts them as lifted).
        left_out: set[tuple] = set()
        for c in [*candidates, *(admit(cand, None, left_out, {}) for cand in own if cand.finding.code not in allowed)]:
            if c is not None and c.finding.kind == "break":
                direct.setdefault(c.scope, []).append((c.finding.line, f"{rel}:{c.finding.line}"))
                described.setdefault(f"{rel}:{c.finding.line}", c.finding)
    # What only the findings show: a method that breaks, called on an object built in compiled code;
    # a module constructor that dynamo compiles as a frame of its own.
    for found in direct.values():
        found.sort()
    sure = breaking(reach, direct, always=True)  # the breaks that happen whenever their function runs
    where = breaking(reach, direct)
    unresumable = unresumable_calls(reach, where, sure)
    inits = eager_constructors(reach, direct, sure, unresumable, where)
    # BL440: a comprehension is a frame of its own only up to Python 3.11
    frames = eager_comprehensions(reach, direct, sure, where, unresumable, inits, values.resolve) \
        if python < calibration.PYTHON_BOUND["BL440"] else []
    after = placed([(caller, (call.line, call.col, call.end_line, call.end_col), "BL426", message, (), None)
                     for caller, call, message in unresumable]
                    + [(init, span, "BL427", message, (), None) for init, span, message in inits]
                    + [(caller, span, "BL440", message, (), None) for caller, span, message in frames]
                    + [(caller, span, "BL433", message, (), requires)
                       for caller, span, message, requires in held_methods(reach, where)]
                    + [(caller, span, "BL437", message, (), None)
                       for caller, span, message in consumed_generators(reach, where)],
                    results)
    findings: list[Finding] = []
    for res, allowed, seen, candidates in admitted:
        candidates += [c for c in (admit(cand, allowed, seen) for cand in after.get(res.path, [])) if c is not None]
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
                      digests={r.path: r.digest for r in results if r.digest}, lifted=lifted,
                      notes=_unmatched_entry_points(reach, config.entry_points),
                      asked=follow.answers(reach, sure, where, asked, described) if asked else {})


def _unmatched_entry_points(reach: Reach, entry_points: list[str]) -> list[str]:
    """A note for each configured entry point (a dotted name, not a pattern) that names no function,
    class, method or module-level object of the linted files although the module it names is among
    them: a misspelt name, or one the package does not define. One whose module is not linted (a
    pre-commit run over other files) says nothing."""
    notes = []
    for entry in entry_points:
        if is_pattern(entry):
            continue
        name = reach.canonical(entry)
        owner, _, attr = name.rpartition(".")
        if defines(reach, name) or owner in reach.instances or (owner in reach.classes and reach.method(owner, attr)):
            continue
        parts = name.split(".")
        if any(".".join(parts[:cut]) in reach.modules for cut in range(len(parts) - 1, 0, -1)):
            resolved = f" (`{name}`)" if name != entry else ""
            notes.append(f"entry point `{entry}`{resolved} names no function, class or method of the linted files; "
                         "it is left out")
    return notes


def _under_settings(cand: Candidate, scopes: SettingsScopes, lifted: dict[str, int],
                    torch: tuple[int, ...] | None) -> Candidate | None:
    """The candidate as the dynamo settings in force where it sits leave it, on the target torch
    release: None where one removes the break (counted in `lifted`) or where one it needs is off;
    else named on the finding."""
    f = cand.finding
    here = scopes.at(cand.scope, f.line)
    for token in cand.unless:
        if here.holds(token, torch):
            lifted[token_setting(token)] = lifted.get(token_setting(token), 0) + 1
            return None
    if not all(here.holds(token, torch) for token in cand.only_with):
        return None
    names = tuple(dict.fromkeys(token_setting(t) for t in (*cand.only_with, *cand.unless)))
    message = f.message
    if cand.only_with:
        message += f" (a break because {' and '.join(describe_token(t) for t in cand.only_with)} is set)"
    for token in cand.unless:
        if token_since(token) and here.holds(token):  # set, but its effect came in a later release
            message += f" ({describe_token(token)} is set, which removes this break only from torch {token_since(token)})"
    return dataclasses.replace(cand, finding=dataclasses.replace(f, settings=names, message=message))


def lint_source(source: str, path: Path = Path("<string>"), config: Config | None = None) -> list[Finding]:
    """Lint one piece of source on its own; handy in tests and editors."""
    config = config or Config()
    result = combine([analyze_source(source, path, path.stem)], config)
    return result.all
