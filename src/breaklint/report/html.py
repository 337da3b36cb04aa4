"""The dynamic pass as one self-contained HTML page: no scripts, no network, no external assets.

Per target: its graph and break counts, each break with its source lines, GB type, dynamo's
explanation and hints and whether the static pass predicted it, and the recompiles with their failed
guards; a summary across targets at the top.
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path

from ..source import decode_source, relative_posix, source_lines

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 70rem; color: #1b1f24;
       padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .4rem; }
table.summary { border-collapse: collapse; margin: 1rem 0; }
table.summary td, table.summary th { border: 1px solid #d0d7de; padding: .3rem .7rem; text-align: right; }
table.summary th { background: #f6f8fa; text-align: left; }
.target { border: 1px solid #d0d7de; border-radius: 6px; padding: .6rem 1rem; margin: 1rem 0; }
.target.clean { border-left: 6px solid #2da44e; } .target.broken { border-left: 6px solid #cf222e; }
.target.failed { border-left: 6px solid #8250df; }
.break { margin: .8rem 0; padding: .5rem .8rem; background: #fff8f0; border-radius: 4px; }
.site { font-family: ui-monospace, monospace; font-weight: 600; }
.gb { display: inline-block; background: #cf222e; color: #fff; border-radius: 3px;
      padding: 0 .4rem; margin-left: .4rem; }
.status { display: inline-block; border-radius: 3px; padding: 0 .4rem; margin-left: .4rem; background: #ddf4ff; }
.status.missed { background: #ffebe9; }
pre { background: #f6f8fa; padding: .4rem .6rem; overflow-x: auto; margin: .3rem 0; }
pre .hit { background: #ffd8b5; display: inline-block; width: 100%; }
.muted { color: #57606a; } ul { margin: .2rem 0 .2rem 1.2rem; padding: 0; }
"""


def _source(path: str, line: int, cache: dict[str, list[str]]) -> str:
    if path not in cache:
        try:
            cache[path] = source_lines(decode_source(Path(path).read_bytes()))
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            cache[path] = []
    lines = cache[path]
    if not 0 < line <= len(lines):
        return ""
    rows = []
    for n in range(max(1, line - 2), min(len(lines), line + 2) + 1):
        text = f"{n:>5}  {escape(lines[n - 1])}"
        rows.append(f'<span class="hit">{text}</span>' if n == line else text)
    return "<pre>" + "\n".join(rows) + "</pre>"


def _split_reason(reason: str) -> tuple[str, str, list[str]]:
    """Dynamo's message, its filled-in explanation and its hints (the registry's are templates)."""
    text = " ".join(reason.split())
    text = text.split(" Developer debug context:")[0]
    head, _, rest = text.partition(" Explanation: ")
    explanation, *hints = rest.split(" Hint: ") if rest else ("",)
    return head, explanation, [h for h in hints if h]


def _display(path: str, root: Path) -> str:
    return relative_posix(path, root) or path


def render(reports: list, findings: list, recompiles: list[dict], summary: dict, root: Path) -> str:
    """`reports`: each target's `TargetReport`; `findings`: the merged findings (with their status)."""
    from ..dynamic.explain import Break, describe_gb

    files = {os.path.realpath(f.path) for f in findings}
    predicted = {(os.path.realpath(f.path), line): f for f in findings if f.origin == "static" and f.kind == "break"
                 for line in range(f.line, f.end_line + 1)}
    sources: dict[str, list[str]] = {}
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>breaklint: graph breaks</title>"
             f"<style>{STYLE}</style></head><body>",
             "<h1>Graph breaks under torch.compile</h1>",
             '<p class="muted">breaklint explain: each target ran under <code>torch._dynamo.explain</code>.</p>',
             '<table class="summary"><tr><th>targets</th><th>failed</th><th>graphs</th><th>breaks</th>'
             "<th>confirmed by the static pass</th><th>missed by it</th><th>false alarms</th><th>recompiles</th></tr>",
             f"<tr><td>{len(reports)}</td><td>{sum(not r.ok for r in reports)}</td><td>{summary['graphs']}</td>"
             f"<td>{summary['breaks']}</td><td>{summary['confirmed']}</td><td>{summary['missed']}</td>"
             f"<td>{summary['false_alarms']}</td><td>{len(recompiles)}</td></tr></table>"]
    for rep in reports:
        breaks = rep.data.get("breaks", []) if rep.ok else []
        state = "failed" if not rep.ok else ("broken" if breaks else "clean")
        parts.append(f'<section class="target {state}"><h2>{escape(rep.target)}</h2>')
        if not rep.ok:
            parts.append(f"<p>failed: {escape(rep.error)}</p></section>")
            continue
        parts.append(f'<p>{rep.data.get("graphs", 0)} graph{"s" * (rep.data.get("graphs", 0) != 1)}, '
                     f'{len(breaks)} break{"s" * (len(breaks) != 1)} <span class="muted">'
                     f'({escape(str(rep.data.get("device", "")))}, torch {escape(str(rep.data.get("torch", "")))}, '
                     f'{rep.seconds:.1f} s)</span></p>')
        for brk in breaks:
            frames = [(f, int(n)) for f, n in brk.get("frames", [])]
            at = Break(brk.get("reason", ""), brk.get("gb_type"), frames).site(
                lambda f: os.path.realpath(f) in files) or (frames[-1] if frames else None)
            info = describe_gb(brk.get("gb_type"))
            gb = brk.get("gb_type") or ""
            name = brk.get("gb_name") or info["gb_name"]
            parts.append('<div class="break">')
            if at is not None:
                hit = predicted.get((os.path.realpath(at[0]), at[1]))
                status = (f'<span class="status">predicted: {escape(hit.code)}</span>' if hit is not None else
                          '<span class="status missed">missed by the static pass</span>')
                parts.append(f'<div><span class="site">{escape(_display(at[0], root))}:{at[1]}</span>'
                             f'{f"<span class=gb>{escape(gb)}</span>" if gb else ""} {escape(name)} {status}</div>')
                parts.append(_source(at[0], at[1], sources))
            else:
                parts.append(f"<div>(no frame in user code){f' <span class=gb>{escape(gb)}</span>' if gb else ''}"
                             f" {escape(name)}</div>")
            reason, explanation, own_hints = _split_reason(brk.get("reason") or "")
            parts.append(f"<div><b>reason</b>: {escape(reason[:600])}</div>")
            explanation = explanation or info["explanation"]
            if explanation:
                parts.append(f"<div><b>explanation</b>: {escape(explanation[:600])}</div>")
            hints = own_hints or brk.get("hints") or info["hints"]
            if hints:
                parts.append("<ul>" + "".join(f"<li>hint: {escape(h)}</li>" for h in hints) + "</ul>")
            parts.append("</div>")
        parts.append("</section>")
    if recompiles:
        parts.append("<h2>Recompiles</h2><ul>")
        for rec in recompiles:
            guards = "; ".join(rec.get("guards", [])[:2]) or "guard failed"
            parts.append(f"<li><span class=site>{escape(_display(rec['file'], root))}:{rec['line']}</span> "
                         f"<code>{escape(rec['function'])}</code>: {escape(guards)}</li>")
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
