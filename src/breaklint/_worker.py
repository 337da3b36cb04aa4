"""The old name of the dynamic pass's worker, kept for callers outside the package: the worker is
`breaklint.dynamic.worker` (`python -m breaklint._worker TARGET OUT` still runs it)."""

from .dynamic.worker import *  # noqa: F401,F403 - the worker's names, under the old module
from .dynamic.worker import _outputs_agree, main, normalize_cases, to_device  # noqa: F401

if __name__ == "__main__":
    main()
