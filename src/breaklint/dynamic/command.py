"""`breaklint explain`: the dynamic pass's command (run targets under dynamo, check the static
findings against them, budgets, what-if settings). The `breaklint` group (`breaklint.cli`) adds it."""

from __future__ import annotations

import functools
import importlib.util
import sys
import traceback
from contextlib import nullcontext
from pathlib import Path

import click

from ..config import ConfigError, load


def internal_errors_exit_2(command):
    """An error the command did not foresee ends it with status 2 and says so, with its traceback:
    the status of a run that failed is never 1, which means "breaks found" to CI."""
    @functools.wraps(command)
    def guarded(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - reported, and the status says the run failed
            traceback.print_exc(file=sys.stderr)
            click.echo(f"breaklint: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(2)
    return guarded


def report_options(command):
    """The options of what `explain` and `merge` report, and how: format, output, exit status, the
    configuration and cache of the static pass, and the graph-break budget."""
    options = [
        click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "html"]), default="text",
                     show_default=True, help="Report format (`html`: one self-contained page to open in a browser)."),
        click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
                     help="Write the report here."),
        click.option("--exit-zero", is_flag=True,
                     help="Exit 0 even when there are breaks (failed targets still give 2)."),
        click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False, exists=True),
                     help="A pyproject.toml (or a TOML file holding the [tool.breaklint] keys at top level)."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the static pass's cache."),
        click.option("--baseline", "budget_path", type=click.Path(path_type=Path, dir_okay=False),
                     help="A graph-break budget (from --write-baseline): fail only when a target gets worse than it."),
        click.option("--write-baseline", "write_budget", type=click.Path(path_type=Path, dir_okay=False),
                     help="Record each target's graph count, break count and break sites as the budget."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command()
@click.argument("targets", nargs=-1)
@click.option("--paths", "paths", multiple=True, type=click.Path(path_type=Path, exists=True),
              help="Files or directories to check statically and to place breaks in (default: .). Repeatable.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default=None,
              help="Where to run the model (default: auto, CUDA when torch sees a GPU).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds each target may run (default: 300).")
@click.option("--train/--no-train", default=None,
              help="Training mode with autograd, or eval mode under no_grad (default: eval, or the config).")
@click.option("--max-memory", type=click.IntRange(min=1), default=None,
              help="MiB of memory each target may take on the CPU; beyond it the target fails as out of memory.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Targets run at once, each in its own process (and on its own GPU when there are several).")
@click.option("--what-if", is_flag=True, help="Run each target again under each dynamo setting that can remove "
              "breaks (capture_scalar_outputs, ...) and report which sites vanish and whether outputs agree.")
@click.option("--shard", "shard_spec", metavar="K/N",
              help="Run only the K-th of N stable, balanced slices of the targets (a CI matrix or cluster job); "
                   "the JSON report then carries what `breaklint merge` needs.")
@click.option("--durations", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="With --shard: balance the slices by these seconds per target (a JSON object, or an earlier "
                   "explain JSON report).")
@report_options
@internal_errors_exit_2
def explain(targets, paths, device, timeout, train, max_memory, fmt, output, exit_zero, config_path,
            no_cache, jobs, budget_path, write_budget, what_if, shard_spec, durations) -> None:
    """Run TARGETS under torch._dynamo.explain and check the static findings against them.

    A TARGET is `path/to/file.py:FACTORY` or `package.module:FACTORY`: FACTORY takes no
    arguments and returns a case or a list of cases, a case being `(model_or_fn, args)` or
    `(model_or_fn, args, kwargs)`. Without TARGETS, `[tool.breaklint.dynamic] targets` is used.
    Each target runs in its own process.
    """
    from ..engine import lint
    from .explain import run_targets
    from .shards import ShardError, parse_shard, read_durations, shard_data, slice_of

    paths = list(paths) or [Path(".")]
    try:
        config = load(paths, config_path)
    except ConfigError as exc:
        click.echo(f"breaklint: error: {exc}", err=True)
        sys.exit(2)
    dyn = config.dynamic
    targets = list(targets) or dyn.targets
    if not targets:
        raise click.UsageError("no targets: name them, or list them under [tool.breaklint.dynamic] targets")
    every_target, shard = list(targets), None
    if shard_spec is not None:
        if fmt != "json":
            raise click.UsageError("--shard writes the JSON report that `breaklint merge` joins: use --format json")
        try:
            shard = parse_shard(shard_spec)
            targets = slice_of(every_target, *shard, read_durations(durations) if durations else None)
        except ShardError as exc:
            raise click.UsageError(str(exc)) from None
    elif durations is not None:
        raise click.UsageError("--durations balances shards: give --shard K/N too")
    device = device or dyn.device
    timeout = timeout or dyn.timeout
    train = dyn.train if train is None else train
    max_memory = max_memory or dyn.max_memory
    if importlib.util.find_spec("torch") is None:  # the targets' processes import it, this one need not
        click.echo("breaklint: error: the dynamic pass needs torch (pip install 'breaklint[dynamic]')", err=True)
        sys.exit(2)

    result = lint(paths, config, use_cache=not no_cache)
    roots = [p.resolve() for p in paths]
    show_bar = len(targets) > 1 and sys.stderr.isatty()
    with click.progressbar(length=len(targets), label="explain", file=sys.stderr, show_pos=True) if show_bar \
            else nullcontext() as bar:
        def done(report) -> None:
            if bar is not None:
                bar.update(1, report.target)
            elif len(targets) > 1:  # not a terminal: one line per finished target
                state = f"{report.data.get('graphs', '?')} graphs, {len(report.data.get('breaks', []))} breaks" \
                    if report.ok else f"failed: {report.error}"
                click.echo(f"breaklint: {report.target}: {state} ({report.seconds:.1f} s)", err=True)

        reports = run_targets(list(targets), min(jobs, len(targets)), on_done=done, device=device, train=train,
                              timeout=timeout, roots=roots, max_memory=max_memory)
    runs = {}
    if what_if:
        from . import whatif

        runs = {setting: run_targets(list(targets), min(jobs, len(targets)), device=device, train=train,
                                     timeout=timeout, roots=roots, max_memory=max_memory,
                                     dynamo_config={setting: True}, compare_outputs=True)
                for setting in whatif.REMEDIES}
    extra = {"shard": shard_data(*shard, every_target, paths, what_if, reports, runs)} if shard else None
    _finish(result, config, reports, runs, fmt=fmt, output=output, exit_zero=exit_zero, budget_path=budget_path,
            write_budget=write_budget, extra=extra)


@click.command(name="merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@report_options
@internal_errors_exit_2
def merge_cmd(shards, fmt, output, exit_zero, config_path, no_cache, budget_path, write_budget) -> None:
    """Join the JSON reports of `breaklint explain --shard K/N` (every K once, in any order) into the
    report one run over every target writes: the same order, statuses and budget verdict. The static
    pass runs again here, over the paths the shards were given (run it from the same checkout)."""
    from ..engine import lint
    from .shards import ShardError, merge_shards

    try:
        _, paths, _, reports, runs = merge_shards(list(shards))
    except ShardError as exc:
        click.echo(f"breaklint: error: {exc}", err=True)
        sys.exit(2)
    missing = [p for p in paths if not p.exists()]
    if missing:
        click.echo(f"breaklint: error: {missing[0]}: the shards' path is not here (merge from the same checkout)",
                   err=True)
        sys.exit(2)
    try:
        config = load(paths, config_path)
    except ConfigError as exc:
        click.echo(f"breaklint: error: {exc}", err=True)
        sys.exit(2)
    result = lint(paths, config, use_cache=not no_cache)
    _finish(result, config, reports, runs, fmt=fmt, output=output, exit_zero=exit_zero, budget_path=budget_path,
            write_budget=write_budget)


def _finish(result, config, reports: list, runs: dict, *, fmt: str, output: Path | None, exit_zero: bool,
            budget_path: Path | None, write_budget: Path | None, extra: dict | None = None) -> None:
    """Check the static findings against the targets' reports, render the report, and exit with
    explain's status. One run over every target and a merge of its shards both end here."""
    from ..report import relative, text
    from .explain import merge

    outcomes = []
    if runs:
        from . import whatif

        outcomes = whatif.compare(reports, runs, config.root)
    merged = merge(result.all, reports, result.files)
    if outcomes:
        merged.findings = _with_remedies(merged.findings, outcomes)
    counts = _dynamic_summary(merged)
    findings = relative(merged.findings) if fmt != "sarif" else merged.findings
    if fmt == "json":
        import json

        body = json.dumps({
            "targets": [{"target": r.target, "ok": r.ok, "error": r.error or None,
                         "device": r.data.get("device"), "torch": r.data.get("torch"),
                         "cases": r.data.get("cases"), "graphs": r.data.get("graphs"),
                         "seconds": round(r.seconds, 2),
                         "breaks": [{"case": b.get("case"), "gb_type": b.get("gb_type"),
                                     "gb_name": b.get("gb_name") or None, "reason": b.get("reason"),
                                     "hints": b.get("hints", []),
                                     "stack": [{"file": f, "line": n} for f, n in b.get("frames", [])]}
                                    for b in r.data.get("breaks", [])]}
                        for r in reports],
            "summary": counts,
            "recompiles": merged.recompiles,
            "what_if": [{"target": o.target, "setting": o.setting, "breaks_before": o.before, "breaks_after": o.after,
                         "removed": [{"file": f, "line": n, "gb_type": gb} for f, n, gb in o.removed],
                         "added": [{"file": f, "line": n, "gb_type": gb} for f, n, gb in o.added],
                         "outputs_agree": o.outputs_agree, "error": o.error or None,
                         "add": o.line if o.pays else None} for o in outcomes],
            "findings": [f.to_dict() for f in findings],
            **(extra or {}),
        }, indent=2) + "\n"
    elif fmt == "sarif":
        from ..report import sarif

        body = sarif.render(findings, len(result.files))
    elif fmt == "html":
        from ..report import html

        body = html.render(reports, merged.findings, merged.recompiles, counts, config.root)
    else:
        body = text.render(findings) + _recompile_text(merged.recompiles)

    if output is not None:
        output.write_text(body, encoding="utf-8")
    else:
        click.echo(body, nl=False)
    if outcomes and fmt in ("text", "html"):
        from ..dynamic.whatif import table

        click.echo("\nWhat if (each target again under each setting; outputs compared eagerly vs compiled):\n"
                   + table(outcomes), err=output is not None or fmt != "text")
    for rep in reports:
        if not rep.ok:
            click.echo(f"breaklint: target {rep.target}: {rep.error}", err=True)
    click.echo(
        f"{len(reports)} target{'s' * (len(reports) != 1)} ({sum(not r.ok for r in reports)} failed): "
        f"{counts['graphs']} graphs, {counts['breaks']} breaks; {counts['confirmed']} confirmed, "
        f"{counts['missed']} missed by the static pass, {counts['false_alarms']} false alarms, "
        f"{counts['not_run']} not run; {len(merged.recompiles)} recompiles.",
        err=output is not None or fmt != "text")
    failed = any(not r.ok for r in reports)
    if write_budget is not None or budget_path is not None:
        sys.exit(_budget(reports, config.root, budget_path, write_budget, failed))
    if failed:
        sys.exit(2)
    if exit_zero:
        sys.exit(0)
    sys.exit(1 if counts["breaks"] or any(f.kind == "break" for f in merged.findings) else 0)


def _with_remedies(findings: list, outcomes: list) -> list:
    """Static findings whose break a dynamo setting removes, with outputs unchanged, say so."""
    import os
    from dataclasses import replace

    from ..dynamic.whatif import resolved_sites

    sites = resolved_sites(outcomes)
    out = []
    for f in findings:
        setting = next((sites[(os.path.realpath(f.path), line)] for line in range(f.line, f.end_line + 1)
                        if (os.path.realpath(f.path), line) in sites), None)
        if setting is not None and f.kind == "break":
            f = replace(f, suggestion=f"{f.suggestion}; measured: `torch._dynamo.config.{setting} = True` removes "
                                      f"this break with outputs unchanged")
        out.append(f)
    return out


def _budget(reports, root: Path, budget_path: Path | None, write_budget: Path | None, failed: bool) -> int:
    """`explain --baseline` / `--write-baseline`: the exit status (1 only when a target got worse)."""
    from ..adopt import budget

    status = 0
    try:
        if budget_path is not None:
            verdicts = budget.compare(budget.read(budget_path), reports, root)
            for verdict in verdicts:
                mark = "WORSE" if verdict.worse else "ok"
                click.echo(f"{mark}: {verdict.target}", err=True)
                for line in verdict.lines:
                    click.echo(f"  {line}", err=True)
            worse = sum(v.worse for v in verdicts)
            click.echo(f"{worse} of {len(verdicts)} target{'s' * (len(verdicts) != 1)} worse than the budget "
                       f"{budget_path}.", err=True)
            status = 1 if worse else 0
        if write_budget is not None:
            count = budget.write(write_budget, reports, root)
            click.echo(f"Recorded the graph-break budget of {count} target{'s' * (count != 1)} in {write_budget}.",
                       err=True)
    except budget.BudgetError as exc:
        click.echo(f"breaklint: error: {exc}", err=True)
        return 2
    return 2 if failed else status


def _dynamic_summary(merged) -> dict:
    statuses = [f.status for f in merged.findings if f.kind == "break"]
    return {
        "graphs": merged.graphs,
        "breaks": merged.breaks,
        "confirmed": statuses.count("confirmed"),
        "missed": statuses.count("dynamic-only"),
        "false_alarms": statuses.count("not-reproduced"),
        "not_run": statuses.count("not-run"),
        "outside_paths": merged.outside,
    }


def _recompile_text(recompiles: list[dict]) -> str:
    from ..report import display_path

    out = []
    for rec in recompiles:
        guards = "; ".join(rec["guards"][:1]) or "guard failed"
        out.append(f"{display_path(Path(rec['file']))}:{rec['line']}: recompile of `{rec['function']}`: {guards}")
    return "\n".join(out) + ("\n" if out else "")
