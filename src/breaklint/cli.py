"""The `breaklint` command."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import __version__
from .config import Config, ConfigError, load, validate_codes
from .registry import ENGINE_CODES, all_codes, code_info, load_rules, rule_doc

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


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="breaklint")
def main() -> None:
    """Find torch.compile graph breaks before they cost a speedup.

    `breaklint [PATHS]...` checks files and directories (see `breaklint check --help`).
    """


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--select", multiple=True, help="Codes or prefixes to check (replaces the default set).")
@click.option("--ignore", multiple=True, help="Codes or prefixes to leave out.")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to add to the selection.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False), help="Write the report here.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, help="Count findings per code instead of listing them.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes (default: CPUs).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="A pyproject.toml (or a TOML file holding the [tool.breaklint] keys at top level).")
@click.option("--color/--no-color", default=None, help="Colour the text output (default: on a terminal).")
def check(paths, select, ignore, extend_select, fmt, output, exit_zero, statistics, jobs, no_cache,
          config_path, color) -> None:
    """Check PATHS (files or directories, default `.`) for graph breaks."""
    from .engine import lint
    from .report import relative, text

    paths = list(paths) or [Path(".")]
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise click.UsageError(f"no such file or directory: {missing[0]}")
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
    except ConfigError as exc:
        click.echo(f"breaklint: error: {exc}", err=True)
        sys.exit(2)
    try:
        result = lint(paths, config, jobs=jobs, use_cache=not no_cache)
    except Exception as exc:  # pragma: no cover - the engine reports per-file errors itself
        click.echo(f"breaklint: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    findings = relative(result.all)
    if fmt == "sarif":
        from .report import sarif
        findings = result.all
    colour = color if color is not None else (output is None and sys.stdout.isatty()
                                              and "NO_COLOR" not in os.environ)
    if statistics:
        body = text.statistics(findings)
    elif fmt == "json":
        from .report import json as json_report
        body = json_report.render(findings)
    elif fmt == "sarif":
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
    if fmt == "text" or output is not None:
        click.echo(text.summary(findings, len(result.files)), err=output is not None or statistics)
    sys.exit(exit_status(findings, exit_zero))


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


@main.command(name="rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_cmd(fmt: str) -> None:
    """List every rule."""
    rules = load_rules()
    rows = []
    for code in all_codes():
        name, kind, message = code_info(code)
        default = rules[code].DEFAULT_ENABLED if code in rules else True
        gb = list(rules[code].GB_TYPES) if code in rules else []
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
