"""breaklint: find torch.compile graph breaks before they cost a speedup."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("breaklint")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
