"""Rule families, one module each. Importing a module registers its rules.

Code ranges:
  BL0xx  the engine itself (parse errors, unused suppressions, internal errors)
  BL1xx  a tensor turned into a Python value
  BL2xx  data-dependent control flow
  BL3xx  data-dependent output shapes
  BL4xx  calls dynamo cannot trace
  BL5xx  hazards: no break, but a cost (host-device syncs, recompiles)

`load_rules()` imports every family (the engine asks it for the classes to walk with);
`python -m breaklint.rules` regenerates `_catalog.py` from the classes.
"""

from __future__ import annotations

import importlib
import pkgutil
import pprint
from functools import cache

from .base import RULES, Rule


@cache
def load_rules() -> dict[str, type[Rule]]:
    """Every rule class, by code (this imports libcst and every rule module)."""
    from ..registry import ENGINE_CODES

    for info in pkgutil.walk_packages(__path__, __name__ + "."):
        if info.name.rpartition(".")[2] != "__main__":  # `python -m breaklint.rules` writes the catalog
            importlib.import_module(info.name)
    taken = sorted(set(RULES) & set(ENGINE_CODES))
    if taken:
        raise ValueError(f"rule codes {taken} are the engine's own")
    return dict(sorted(RULES.items()))


def catalog_source() -> str:
    """`_catalog.py` as it must read for the rule classes of this checkout."""
    rows = {code: (cls.NAME, cls.KIND, cls.MESSAGE, cls.SUGGESTION, tuple(cls.GB_TYPES), cls.DEFAULT_ENABLED,
                   cls.PRECISION) for code, cls in load_rules().items()}
    header = ('"""Every rule\'s metadata, generated from the rule classes by `python -m breaklint.rules`:\n'
              'do not edit. Per code: name, kind, message, suggestion, GB types, enabled by default, precision."""\n')
    return f"{header}\nCATALOG = {pprint.pformat(rows, width=110, sort_dicts=True)}\n"
