"""`python -m breaklint.rules`: regenerate `_catalog.py` after changing a rule's metadata."""

from pathlib import Path

from . import catalog_source

Path(__file__).resolve().parents[1].joinpath("_catalog.py").write_text(catalog_source(), encoding="utf-8")
