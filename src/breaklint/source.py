"""A source file's text, lines and module name: what the engine, the fixes and the reports share
(no libcst here, so that a warm run and the reports never import it)."""

from __future__ import annotations

import io
import os
import re
import tokenize
from pathlib import Path


def decode_source(data: bytes) -> str:
    """A file's text as Python reads it: a UTF-8 BOM or a PEP 263 coding declaration
    (`# -*- coding: latin-1 -*-`) decides the encoding, UTF-8 otherwise."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


_LINE_END = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """A file's lines as Python's tokenizer (and libcst's positions) count them.

    Not `str.splitlines`, which also ends lines at form feeds and other separators.
    """
    lines = _LINE_END.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def line_starts(text: str) -> list[int]:
    """The offset in `text` at which each line (as `source_lines` counts them) starts."""
    return [0] + [m.end() for m in _LINE_END.finditer(text)]


def span_text(lines: list[str], line: int, col: int, end_line: int, end_col: int) -> str:
    """The text from (line, col) to (end_line, end_col): 1-based lines, 0-based columns, end exclusive."""
    if not 0 < line <= end_line <= len(lines):
        return ""
    if line == end_line:
        return lines[line - 1][col:end_col]
    return "\n".join([lines[line - 1][col:], *lines[line:end_line - 1], lines[end_line - 1][:end_col]])


def module_name_for(path: Path) -> str:
    """Dotted module name of a file, climbing the packages marked by `__init__.py`. Folders without
    one between the file and the nearest such package are namespace portions of it, as Python imports
    them (`pkg/models/mtcnn.py` with `pkg/__init__.py` and no `pkg/models/__init__.py` is
    `pkg.models.mtcnn`); the climb ends at the first folder above the package that is none (`src/`, a
    checkout), as it did before any such portion."""
    path = Path(os.path.realpath(path))  # never raises, even on a symlink loop
    parts = [] if path.stem == "__init__" else [path.stem]
    folder, portions = path.parent, []
    while not (folder / "__init__.py").is_file():  # namespace portions, up to the package holding them
        if not folder.name.isidentifier() or folder == folder.parent:
            return ".".join(parts) or path.stem  # in no package
        portions.insert(0, folder.name)
        folder = folder.parent
    parts[:0] = portions
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or path.stem


# what a compiled extension module's file ends with, built (`.so`, `.pyd`) or to be built (Cython's `.pyx`)
COMPILED_SUFFIXES = (".so", ".pyd", ".pyx")


def compiled_modules(files: dict[Path, str]) -> set[str]:
    """The modules beside the linted files that are compiled extensions: a `name.cpython-311-x86_64-linux-gnu.so`
    (`.pyd`) built, or a `name.pyx` to be built, where neither `name.py` nor a package `name/` is. `files`:
    each linted file with its module's name (`module_name_for`); each folder is listed once."""
    out: set[str] = set()
    listed: set[Path] = set()
    for path, module in files.items():
        folder = Path(os.path.realpath(path)).parent
        if folder in listed:
            continue
        listed.add(folder)
        try:
            names = set(os.listdir(folder))
        except OSError:
            continue
        package = module if path.stem == "__init__" else module.rpartition(".")[0]
        for name in names:
            stem = name.split(".", 1)[0]
            if name.endswith(COMPILED_SUFFIXES) and stem.isidentifier() and f"{stem}.py" not in names \
                    and stem not in names:
                out.add(f"{package}.{stem}" if package else stem)
    return out


def relative_posix(path: str | Path, root: Path) -> str | None:
    """`path` relative to `root` as a POSIX path, both with links resolved; None when it lies outside.
    (`os.path.realpath`, unlike `Path.resolve`, never raises, even on a symlink loop.)"""
    try:
        return Path(os.path.realpath(path)).relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        return None
