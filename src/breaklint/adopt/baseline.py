"""Adopting breaklint on an existing code base: a baseline of today's findings, or `# noqa` comments.

A baseline file records each finding by its fingerprint (the one SARIF's `partialFingerprints` use:
code, path relative to the project root, the flagged line and text, not the line number), plus the
path, line and message for people reading the file in a review. `--baseline FILE` then reports only
findings whose fingerprint is not in it. The file is JSON, read as data and checked field by field.
"""

from __future__ import annotations

import io
import json
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..finding import Finding
from ..fingerprint import fingerprints
from ..source import decode_source, source_lines
from ..suppress import parse_comment

FORMAT = 1


class BaselineError(Exception):
    """A baseline that cannot be read or does not have the shape breaklint writes."""


@dataclass
class Applied:
    kept: list[Finding]  # findings not in the baseline: these are reported
    baselined: int  # findings the baseline covers
    stale: int  # baseline entries no finding matches any more (fixed, or the code moved)


def write(path: Path, findings: list[Finding], root: Path) -> int:
    """Record `findings` in `path`; returns how many."""
    from ..fingerprint import relative_uri

    entries = [{"fingerprint": fp, "code": f.code, "path": relative_uri(f.path, root)[0], "line": f.line,
                "message": f.message} for f, fp in fingerprints(findings, root)]
    payload = {"tool": "breaklint", "format": FORMAT, "findings": entries}
    try:
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise BaselineError(f"cannot write baseline {path}: {exc.strerror or exc}") from None
    return len(entries)


def read_json(path: Path, what: str, error: type[Exception]) -> object:
    """The JSON data in a baseline-like file, or `error` saying plainly why there is none."""
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist; record one with `--write-baseline {path}`") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise error(f"{what} {path} is not JSON: {exc}") from None


def read(path: Path) -> set[str]:
    """The fingerprints recorded in `path`."""
    payload = read_json(path, "baseline", BaselineError)
    if not isinstance(payload, dict) or payload.get("tool") != "breaklint" or payload.get("format") != FORMAT:
        raise BaselineError(f"baseline {path} was not written by this breaklint (expected format {FORMAT}); "
                            f"write it again with `--write-baseline`")
    entries = payload.get("findings")
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries):
        raise BaselineError(f"baseline {path}: `findings` must be a list of objects with a `fingerprint`")
    return {e["fingerprint"] for e in entries}


def apply(findings: list[Finding], known: set[str], root: Path) -> Applied:
    kept, matched = [], set()
    for finding, fp in fingerprints(findings, root):
        if fp in known:
            matched.add(fp)
        else:
            kept.append(finding)
    return Applied(kept=kept, baselined=len(findings) - len(kept), stale=len(known - matched))


# ---------------------------------------------------------------------- --add-noqa
def _scan(text: str) -> tuple[dict[int, int], set[int], dict[int, tuple[int, str]]]:
    """What the tokenizer says of each line: where its comment can go (a line that ends inside a
    multi-line string cannot take one: it goes where the string closes), which lines end in a
    backslash continuation, and the comment each line already has (column, text)."""
    moved: dict[int, int] = {}
    comments: dict[int, tuple[int, str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
            for line in range(tok.start[0], tok.end[0]):
                moved[line] = tok.end[0]
        elif tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = (tok.start[1], tok.string)
    continued = {i + 1 for i, line in enumerate(source_lines(text)) if line.rstrip(" \t").endswith("\\")}
    return moved, continued, comments


def _host_line(line: int, moved: dict[int, int], continued: set[int], last: int) -> int:
    for _ in range(last):
        if line in moved:
            line = moved[line]
        elif line in continued and line < last:
            line += 1
        else:
            break
    return line


def add_noqa_text(text: str, codes_by_line: dict[int, set[str]]) -> tuple[str, int]:
    """`text` with `# noqa: CODES` on each line of `codes_by_line` (moved to where a comment may go);
    existing comments are kept, an existing `# noqa: ...` is extended. Returns the text and how many
    lines changed."""
    moved, continued, comments = _scan(text)
    lines = source_lines(text)
    ends = []  # each line's own line ending, split where source_lines splits
    offset = 0
    for line in lines:
        offset += len(line)
        end = text[offset:offset + 2]
        end = "\r\n" if end.startswith("\r\n") else end[:1] if end[:1] in ("\r", "\n") else ""
        ends.append(end)
        offset += len(end)
    wanted: dict[int, set[str]] = defaultdict(set)
    for line, codes in codes_by_line.items():
        wanted[_host_line(line, moved, continued, len(lines))] |= codes
    changed = 0
    for line, codes in sorted(wanted.items()):
        if not 0 < line <= len(lines):
            continue
        current = lines[line - 1]
        start, comment = comments.get(line, (None, ""))
        parsed = parse_comment(comment) if comment else None
        if parsed is not None and parsed[1] == "noqa" and start is not None:
            have, _ = parsed
            if have is None or codes <= have:
                continue  # a bare `# noqa` (or one naming these codes) already covers the line
            lines[line - 1] = current[:start] + _with_codes(comment, ", ".join(sorted(have | codes)))
        else:
            lines[line - 1] = current.rstrip(" \t") + f"  # noqa: {', '.join(sorted(codes))}"
        changed += 1
    return "".join(line + end for line, end in zip(lines, ends)), changed


def _with_codes(comment: str, codes: str) -> str:
    """`comment` with the codes of its `# noqa[: ...]` part replaced by `codes`."""
    import re

    return re.sub(r"(#\s*noqa)\b(?::\s*[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)?", lambda m: f"{m[1]}: {codes}",
                  comment, count=1, flags=re.I)


def add_noqa(findings: list[Finding]) -> tuple[int, int, list[str]]:
    """Add `# noqa: BLxxx` for every finding. Returns (lines changed, files changed, problems)."""
    from ..fixes.apply import ChangedOnDisk, write_source

    by_file: dict[Path, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for f in findings:
        if f.kind in ("break", "hazard"):
            by_file[f.path][f.line].add(f.code)
    lines = files = 0
    problems = []
    for path, codes in sorted(by_file.items()):
        try:
            text = decode_source(path.read_bytes())
            new, changed = add_noqa_text(text, codes)
            if changed:
                write_source(path, text, new)
                lines, files = lines + changed, files + 1
        except (OSError, SyntaxError, UnicodeDecodeError, tokenize.TokenError, ChangedOnDisk) as exc:
            problems.append(f"{path}: could not add noqa comments: {exc}")
    return lines, files, problems
