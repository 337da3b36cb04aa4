"""The `breaklint` command."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import click

from ._version import __version__
from .config import ConfigError, load, validate_codes, validate_follow
from .dynamic.command import explain, merge_cmd
from .registry import CATALOG, all_codes, code_info, rule_doc, rule_info

FORMATS = ("text", "json", "github", "sarif")


def _codes(value: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for item in value:
        out.extend(c.strip().upper() for c in item.split(",") if c.strip())
    return out


class DefaultGroup(click.Group):
    """`breaklint PATHS...` runs `check`; `breaklint rule CODE` and `breaklint rules` are subcommands."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)


class GroupedCommand(click.Command):
    """A command whose --help lists its options in sections, as ruff's does."""

    def __init__(self, *args, groups: dict[str, list[str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.groups = groups

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        help_option = self.get_help_option(ctx)
        records = {("help" if param is help_option else param.name): param.get_help_record(ctx)
                   for param in self.get_params(ctx) if isinstance(param, click.Option)}
        placed: set[str] = set()
        for title, names in self.groups.items():
            rows = [records[name] for name in names if records.get(name)]
            placed.update(names)
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
        rest = [record for name, record in records.items() if record and name not in placed]
        if rest:
            with formatter.section("Other options"):
                formatter.write_dl(rest)


CHECK_GROUPS = {
    "Rule selection": ["select", "ignore", "extend_select", "follow"],
    "Fixes": ["fix", "unsafe_fixes", "diff", "show_fixes"],
    "Adopting on an existing code base": ["baseline_path", "write_baseline", "add_noqa"],
    "Output": ["fmt", "output", "quiet", "statistics", "exit_zero", "color"],
    "Run": ["jobs", "no_cache", "config_path", "help"],
}


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="breaklint")
def main() -> None:
    """Find torch.compile graph breaks before they cost a speedup.

    `breaklint [PATHS]...` checks files and directories (see `breaklint check --help`).
    """


main.add_command(explain)
main.add_command(merge_cmd)


def _results_kept(command):
    """The command runs with Python's cyclic collector paused (`memory.results_kept`): the run's results
    are kept to the end, and a full pass of the collector, which would rescan them all, is not worth
    its cost in the few moments the report takes. The analysis frees each file's cycles itself."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        from .memory import results_kept

        with results_kept():
            return command(*args, **kwargs)
    return run


@main.command(cls=GroupedCommand, groups=CHECK_GROUPS)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--select", multiple=True, help="Codes or prefixes to check (replaces the default set).")
@click.option("--ignore", multiple=True, help="Codes or prefixes to leave out.")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to add to the selection.")
@click.option("--format", "--output-format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format (`--output-format` as in ruff).")
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False), help="Write the report here.")
@click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no summary line or hints.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, help="Count findings per code instead of listing them.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes (default: CPUs).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A pyproject.toml (or a TOML file holding the [tool.breaklint] keys at top level).")
@click.option("--color/--no-color", default=None, help="Colour the text output (default: on a terminal).")
@click.option("--fix", "fix", is_flag=True, help="Apply safe fixes, then report what is left.")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --fix or --diff, apply unsafe fixes too (they may change behaviour: review them).")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing; "
              "exit 1 if there would be changes.")
@click.option("--show-fixes", is_flag=True, help="With --fix, list what was fixed, per file and code (as ruff does).")
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Report only findings not recorded in this baseline file (also `baseline` in [tool.breaklint]).")
@click.option("--write-baseline", type=click.Path(path_type=Path, dir_okay=False),
              help="Record every current finding in this baseline file (prunes fixed ones) and exit 0.")
@click.option("--follow", multiple=True, metavar="PACKAGE",
              help="Read this installed package too, and report at each call into it from compiled code a break "
              "that happens inside it whenever the called function runs (repeatable; adds to `follow`).")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: BLxxx` to every line with a finding, keeping "
              "existing comments.")
@_results_kept
def check(paths, select, ignore, extend_select, fmt, output, quiet, exit_zero, statistics, jobs, no_cache,
          config_path, color, fix, unsafe_fixes, diff, show_fixes, baseline_path, write_baseline, follow,
          add_noqa) -> None:
    """Check PATHS (files or directories, default `.`) for graph breaks."""
    from .engine import lint
    from .report import relative, text

    paths = list(paths) or [Path(".")]
    # A path that does not exist is a usage error (exit 2), but the others are still checked.
    missing = [p for p in paths if not os.path.lexists(p)]
    for path in missing:
        click.echo(f"breaklint: error: {path}: no such file or directory", err=True)
    paths = [p for p in paths if p not in missing]
    if not paths:
        sys.exit(2)
    try:
        config = load(paths, config_path)
        if select:
            validate_codes(_codes(select), "--select")
            config.select = _codes(select)
        if ignore:
            validate_codes(_codes(ignore), "--ignore")
            config.ignore = [*config.ignore, *_codes(ignore)]
        if extend_select:
            validate_codes(_codes(extend_select), "--extend-select")
            config.extend_select = [*config.extend_select, *_codes(extend_select)]
        if follow:
            config.follow = [*config.follow, *validate_follow(list(follow), "--follow")]
    except ConfigError as exc:
        click.echo(f"breaklint: error: {exc}", err=True)
        sys.exit(2)
    fixrun = None
    try:
        if fix or diff:
            from . import autofix

            fixrun = autofix.run(paths, config, unsafe=unsafe_fixes, write=not diff, jobs=jobs,
                               use_cache=not no_cache)
            result = fixrun.result
        else:
            result = lint(paths, config, jobs=jobs, use_cache=not no_cache)
    except Exception as exc:  # pragma: no cover - the engine reports per-file errors itself
        click.echo(f"breaklint: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    for note in result.notes:
        click.echo(f"breaklint: warning: {note}", err=True)
    if fixrun is not None:
        for problem in fixrun.problems:
            click.echo(f"breaklint: {problem}", err=True)
    if diff:
        _print_diff(fixrun, result, usage_error=bool(missing))
    if write_baseline is not None or add_noqa:
        _adopt(result, config, write_baseline, add_noqa, usage_error=bool(missing))
    if baseline_path is None and config.baseline:
        baseline_path = config.root / config.baseline
    if baseline_path is not None:
        from .adopt import baseline

        try:
            applied = baseline.apply(result.findings, baseline.read(baseline_path), config.root)
        except baseline.BaselineError as exc:
            click.echo(f"breaklint: error: {exc}", err=True)
            sys.exit(2)
        result.findings = applied.kept
        if not quiet and (applied.baselined or applied.stale):
            entries = "entries no longer match" if applied.stale != 1 else "entry no longer matches"
            stale = (f"; {applied.stale} baseline {entries} (fixed or changed): prune with "
                     f"`--write-baseline {baseline_path}`" if applied.stale else "")
            click.echo(f"breaklint: {applied.baselined} finding{'s' * (applied.baselined != 1)} in the baseline "
                       f"{baseline_path} not shown{stale}", err=True)
    # SARIF makes its URIs relative to the repository root itself
    findings = result.all if fmt == "sarif" else relative(result.all)
    colour = color if color is not None else (output is None and sys.stdout.isatty()
                                              and "NO_COLOR" not in os.environ)
    if statistics:
        body = text.statistics(findings)
        _echo_errors(result)  # counts do not say which files went unchecked
    elif fmt == "json":
        from .report import json as json_report
        body = json_report.render(findings)
    elif fmt == "sarif":
        from .report import sarif
        body = sarif.render(findings, len(result.files))
    elif fmt == "github":
        from .report import github
        body = github.render(findings)
    else:
        body = text.render(findings, colour=colour)
    if output is not None:
        output.write_text(body, encoding="utf-8")
    else:
        click.echo(body, nl=False)
    if (fmt == "text" or output is not None) and not quiet:
        to_stderr = output is not None or statistics
        click.echo(text.summary(findings, len(result.files)), err=to_stderr)
        if fixrun is not None and show_fixes:
            click.echo(_fixed_list(fixrun), err=to_stderr, nl=False)
        if fixrun is not None:
            remaining = len(result.findings)
            click.echo(f"Fixed {fixrun.fixed} finding{'s' * (fixrun.fixed != 1)} in {len(fixrun.files)} "
                       f"file{'s' * (len(fixrun.files) != 1)} ({remaining} remaining).", err=to_stderr)
        hint = text.fixable(findings, unsafe_fixes)
        if hint:
            click.echo(hint, err=to_stderr)
    internal = fixrun is not None and fixrun.internal_errors
    sys.exit(2 if missing or internal else exit_status(findings, exit_zero))


def _fixed_list(fixrun) -> str:
    """`--show-fixes`: what was fixed, per file and code, in ruff's layout."""
    from collections import Counter

    from .report import display_path

    lines = []
    for change in sorted(fixrun.files, key=lambda c: str(c.path)):
        lines.append(f"- {display_path(change.path)}:")
        for code, count in sorted(Counter(change.codes).items()):
            name = code_info(code)[0] if code in CATALOG else ""
            lines.append(f"    {count} × {code}" + (f" ({name})" if name else ""))
    return "".join(line + "\n" for line in lines)


def _adopt(result, config, write_baseline: Path | None, add_noqa: bool, usage_error: bool) -> None:
    """`--write-baseline` and `--add-noqa`: record today's findings, then exit 0 (2 on a usage error, an
    internal error, or a file `--add-noqa` could not change)."""
    from .adopt import baseline

    status = 2 if usage_error or _internal_error(result) else 0
    if write_baseline is not None:
        try:
            count = baseline.write(write_baseline, result.findings, config.root)
        except baseline.BaselineError as exc:
            click.echo(f"breaklint: error: {exc}", err=True)
            sys.exit(2)
        click.echo(f"Wrote {count} finding{'s' * (count != 1)} to the baseline {write_baseline}.", err=True)
    if add_noqa:
        lines, files, problems = baseline.add_noqa(result.findings)
        for problem in problems:
            click.echo(f"breaklint: {problem}", err=True)
        click.echo(f"Added noqa comments to {lines} line{'s' * (lines != 1)} in {files} "
                   f"file{'s' * (files != 1)}.", err=True)
        status = 2 if problems else status
    _echo_errors(result)
    sys.exit(status)


def _print_diff(fixrun, result, usage_error: bool) -> None:
    from .fixes.apply import unified_diff
    from .report import display_path

    for change in sorted(fixrun.files, key=lambda c: str(c.path)):
        click.echo(unified_diff(change, display_path(change.path)), nl=False)
    count, files = sum(len(c.applied) for c in fixrun.files), len(fixrun.files)
    _echo_errors(result)
    click.echo(f"Would fix {count} finding{'s' * (count != 1)} in {files} file{'s' * (files != 1)}.", err=True)
    status = 2 if usage_error or _internal_error(result, fixrun) else (1 if files else 0)
    sys.exit(status)


def _echo_errors(result) -> None:
    """Name each file that was not checked (BL001, BL003, BL004) on stderr, for the modes whose output
    is not a report of findings (`--diff`, `--add-noqa`, `--write-baseline`, `--statistics`)."""
    from .report import display_path

    for err in result.errors:
        click.echo(f"breaklint: {display_path(err.path)}:{err.line}:{err.col + 1}: {err.code} {err.message}",
                   err=True)


def _internal_error(result, fixrun=None) -> bool:
    return any(f.code == "BL003" for f in result.errors) or bool(fixrun is not None and fixrun.internal_errors)


def exit_status(findings, exit_zero: bool) -> int:
    status = 0
    if any(f.code == "BL003" for f in findings):
        status |= 2
    if findings and not exit_zero:
        status |= 1
    return 2 if status & 2 else status


@main.command()
@click.argument("code")
def rule(code: str) -> None:
    """Print the documentation of rule CODE."""
    code = code.strip().upper()
    if code not in all_codes():
        click.echo(f"breaklint: error: unknown rule code {code!r} (see `breaklint rules`)", err=True)
        sys.exit(2)
    click.echo(rule_doc(code), nl=False)
    lines = calibration_lines(code)
    if lines:
        click.echo("\n## Calibration (lines of the rule's fixture where dynamo breaks)\n")
        for line in lines:
            click.echo(line)


def calibration_lines(code: str) -> list[str]:
    """What `calibration.json` says of a rule: per torch release, how many of its fixture's lines break
    with no setting and with each dynamo setting that changes that."""
    from . import calibration

    if code not in CATALOG or rule_info(code).kind != "break":
        return []
    versions = calibration.table()
    out = []
    for version in calibration.counts(code, versions):
        row = versions[version]["rules"][code]
        broke, marked = row["none"]
        changes = [f"with {name}: {b} of {m}" for name, (b, m) in row.items() if name != "none" and b != broke]
        out.append(f"- torch {version}: {broke} of {marked}" + (f"; {'; '.join(changes)}" if changes else ""))
    return out


@main.command(name="rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_cmd(fmt: str) -> None:
    """List every rule."""
    rows = []
    for code in all_codes():
        name, kind, message = code_info(code)
        default = rule_info(code).default_enabled if code in CATALOG else True
        gb = list(rule_info(code).gb_types) if code in CATALOG else []
        rows.append({"code": code, "name": name, "kind": kind, "default": default, "gb_types": gb,
                     "message": message})
    if fmt == "json":
        import json
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        flag = "" if row["default"] else " (off by default)"
        click.echo(f"{row['code']}  {row['kind']:<7} {row['name']:<28} {row['message']}{flag}")


if __name__ == "__main__":  # pragma: no cover
    main()
