"""breaklint: find torch.compile graph breaks before they cost a speedup."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("breaklint")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__", "assert_no_graph_breaks"]


def __getattr__(name: str):
    # Imported on first use, so `import breaklint` stays light (the dynamic pass needs torch).
    if name == "assert_no_graph_breaks":
        from .dynamic import assert_no_graph_breaks

        return assert_no_graph_breaks
    raise AttributeError(f"module 'breaklint' has no attribute {name!r}")
