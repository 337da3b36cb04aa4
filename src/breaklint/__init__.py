"""breaklint: find torch.compile graph breaks before they cost a speedup."""

from ._version import __version__

__all__ = ["__version__", "assert_no_graph_breaks"]


def __getattr__(name: str):
    # Imported on first use, so `import breaklint` stays light (the dynamic pass needs torch).
    if name == "assert_no_graph_breaks":
        from .dynamic.explain import assert_no_graph_breaks

        return assert_no_graph_breaks
    raise AttributeError(f"module 'breaklint' has no attribute {name!r}")
