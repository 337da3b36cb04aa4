"""SARIF 2.1.0, shaped for GitHub code scanning.

The log is built from `sarif_om` objects. It is serialized by `to_plain` below
rather than by `jschema_to_python.to_json`, which drops every property equal to
its schema default, even one set on purpose: a result's `level: "warning"`
would vanish and a reader would fall back to the rule's default level. Here
`level` and `kind` are always written; other properties are left out when None
or equal to sarif_om's default (the "unset" sentinels such as `index: -1`);
empty lists are never built; and anything that is not a SARIF object, a list,
a dict or a JSON scalar is refused instead of being written as its `str()`.

Levels, by kind of finding:

    break   -> "warning"   (problem.severity "warning")
    hazard  -> "note"      (problem.severity "recommendation")
    notice  -> "note"      (BL002, an unused suppression)
    error   -> not a result: BL001 (file did not parse) and BL003 (rule crashed) become
               toolExecutionNotifications of level "error"; BL004 (Python accepts the file but it
               was not analyzed) one of level "warning"

The output is deterministic: results are sorted, URIs are relative to the
repository root (`%SRCROOT%`), and there are no timestamps or absolute paths.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import attr
import sarif_om as om

from .._version import __version__
from ..config import git_root
from ..finding import Finding, Fix
from ..fingerprint import Fingerprinter, Sources, relative_uri
from ..registry import CATALOG, all_codes, code_info, doc_section, rule_doc, rule_info

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/breaklint/breaklint"
SRCROOT = "%SRCROOT%"
LEVELS = {"break": "warning", "hazard": "note", "notice": "note"}
SEVERITY = {"break": "warning", "hazard": "recommendation", "notice": "recommendation"}
NOTIFICATION_CODES = ("BL001", "BL003", "BL004")
FINGERPRINT_KEY = "breaklint/v1"
ALWAYS_WRITTEN = {"level", "kind"}


def to_plain(obj: object) -> object:
    """A SARIF object tree as JSON-ready Python values (see the module docstring)."""
    if attr.has(type(obj)):
        out: dict[str, object] = {}
        names = set()
        for field in attr.fields(type(obj)):
            names.add(field.name)
            value = getattr(obj, field.name)
            name = field.metadata.get("schema_property_name", field.name)
            if value is None or (name not in ALWAYS_WRITTEN and _is_default(value, field.default)):
                continue
            out[field.metadata.get("schema_property_name", field.name)] = to_plain(value)
        # Property bags: sarif_om models only `tags`; other properties are set as attributes.
        for key, value in sorted(vars(obj).items()):
            if key not in names:
                out[key] = to_plain(value)
        return out
    if isinstance(obj, (list, tuple)):
        return [to_plain(item) for item in obj]
    if isinstance(obj, dict):
        return {str(key): to_plain(value) for key, value in obj.items()}
    if obj is None or isinstance(obj, (str, bool, int, float)):
        return obj
    raise TypeError(f"cannot write a {type(obj).__name__} into SARIF")


def _is_default(value: object, default: object) -> bool:
    if isinstance(default, attr.Factory):  # type: ignore[arg-type]
        default = default.factory()
    return type(value) is type(default) and value == default


def _bag(**props: object) -> om.PropertyBag:
    bag = om.PropertyBag(tags=props.pop("tags", None))
    for key, value in props.items():
        setattr(bag, key, value)
    return bag


@cache
def _descriptor(code: str) -> om.ReportingDescriptor:
    name, kind, short = code_info(code)
    doc = rule_doc(code)
    full = doc_section(code, "What it does") or short
    tags = ["torch.compile", "performance"]
    tags.append({"break": "graph-break", "hazard": "hazard"}.get(kind, "breaklint"))
    precision = rule_info(code).precision if code in CATALOG else "very-high"
    enabled = rule_info(code).default_enabled if code in CATALOG else True
    config = om.ReportingConfiguration(level=LEVELS.get(kind, "error"), enabled=enabled)
    return om.ReportingDescriptor(
        id=code,
        name=_pascal(name),
        short_description=om.MultiformatMessageString(text=short),
        full_description=om.MultiformatMessageString(text=_plain_text(full)),
        help=om.MultiformatMessageString(text=_plain_text(doc), markdown=doc),
        help_uri=f"{INFORMATION_URI}/blob/main/rules/{code}.md",
        default_configuration=config,
        properties=_bag(tags=tags, precision=precision,
                        **{"problem.severity": SEVERITY.get(kind, "error")},
                        **({"gb_types": list(rule_info(code).gb_types)} if code in CATALOG and rule_info(code).gb_types
                           else {})),
    )


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))


def _plain_text(markdown: str) -> str:
    """Markdown with its fences and heading marks taken off, for readers that show plain text."""
    lines = []
    for line in markdown.splitlines():
        if line.startswith("```"):
            continue
        lines.append(line.lstrip("#").strip() if line.startswith("#") else line)
    return "\n".join(lines).strip()


def _uri(path: Path, root: Path) -> tuple[str, str | None]:
    uri, inside = relative_uri(path, root)
    return uri, SRCROOT if inside else None


def _location(uri: str, base: str | None, region: om.Region) -> om.Location:
    return om.Location(physical_location=om.PhysicalLocation(
        artifact_location=om.ArtifactLocation(uri=uri, uri_base_id=base), region=region))


def _region(f: Finding, snippet: str | None = None) -> om.Region:
    return om.Region(start_line=f.line, start_column=f.col + 1, end_line=f.end_line, end_column=f.end_col + 1,
                     snippet=om.ArtifactContent(text=snippet) if snippet else None)


def _fix(fix: Fix, uri: str, base: str | None) -> om.Fix:
    replacements = [
        om.Replacement(
            deleted_region=om.Region(start_line=e.line, start_column=e.col + 1, end_line=e.end_line,
                                     end_column=e.end_col + 1),
            inserted_content=om.ArtifactContent(text=e.content),
        )
        for e in fix.edits
    ]
    label = "Safe fix" if fix.safe else "Unsafe fix (review before applying)"
    return om.Fix(
        description=om.Message(text=f"{label}: {fix.title}"),
        artifact_changes=[om.ArtifactChange(artifact_location=om.ArtifactLocation(uri=uri, uri_base_id=base),
                                            replacements=replacements)],
        properties=_bag(applicability=fix.applicability),
    )


def _message(f: Finding) -> str:
    text = f.message.rstrip(".")
    if f.suggestion:
        text += f". Suggested rewrite: {f.suggestion}"
    return text if text.endswith(".") else text + "."


def _run(findings: list[Finding], root: Path, category: str, files_checked: int) -> om.Run:
    sources = Sources()
    fingerprint = Fingerprinter(root, sources)
    results, notifications = [], []
    findings = sorted(findings, key=Finding.sort_key)
    rule_codes = [c for c in all_codes() if c not in NOTIFICATION_CODES]
    index = {code: i for i, code in enumerate(rule_codes)}
    for f in findings:
        uri, base = _uri(f.path, root)
        if f.code in NOTIFICATION_CODES:
            notifications.append(om.Notification(
                level="warning" if f.code == "BL004" else "error",
                message=om.Message(text=f.message.rstrip(".") + "."),
                locations=[_location(uri, base, _region(f))],
                descriptor=om.ReportingDescriptorReference(id=f.code,
                                                           index=NOTIFICATION_CODES.index(f.code)),
            ))
            continue
        props: dict[str, object] = {"kind": f.kind, "origin": f.origin}
        if f.status:
            props["status"] = f.status
        if f.gb_types:
            props["gb_types"] = list(f.gb_types)
        results.append(om.Result(
            rule_id=f.code,
            rule_index=index[f.code],
            level=LEVELS.get(f.kind, "warning"),
            kind="fail",
            message=om.Message(text=_message(f)),
            locations=[_location(uri, base, _region(f, sources.span(f) or None))],
            partial_fingerprints={FINGERPRINT_KEY: fingerprint(f, uri)},
            fixes=[_fix(f.fix, uri, base)] if f.fix else None,
            properties=_bag(**props),
        ))
    failed = any(f.code == "BL003" for f in findings)
    driver = om.ToolComponent(
        name="breaklint",
        version=__version__,
        semantic_version=__version__,
        information_uri=INFORMATION_URI,
        rules=[_descriptor(code) for code in rule_codes],
        notifications=[_descriptor(code) for code in NOTIFICATION_CODES],
    )
    return om.Run(
        tool=om.Tool(driver=driver),
        automation_details=om.RunAutomationDetails(id=f"breaklint/{category}/"),
        original_uri_base_ids={SRCROOT: om.ArtifactLocation(
            description=om.Message(text="The root of the repository that was checked."))},
        column_kind="unicodeCodePoints",
        invocations=[om.Invocation(
            execution_successful=not failed,
            tool_execution_notifications=notifications or None,
            properties=_bag(files_checked=files_checked),
        )],
        results=results,
    )


def render(findings: list[Finding], files_checked: int, root: Path | None = None) -> str:
    """One log; static findings in one run, dynamic-only ones in a second run of their own category."""
    root = (root or git_root(Path.cwd()) or Path.cwd()).resolve()
    static = [f for f in findings if f.origin == "static"]
    dynamic = [f for f in findings if f.origin == "dynamic"]
    runs = [_run(static, root, "static", files_checked)]
    if dynamic:
        runs.append(_run(dynamic, root, "dynamic", files_checked))
    log = om.SarifLog(schema_uri=SCHEMA, version="2.1.0", runs=runs)
    return json.dumps(to_plain(log), indent=2, ensure_ascii=False) + "\n"
