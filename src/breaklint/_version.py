"""The package's one version (pyproject.toml reads it from here): `importlib.metadata` would cost every
run, warm runs included, 40 ms of imports. A module of its own, so that what needs the version does not
import the package's root (which reaches the dynamic pass for `assert_no_graph_breaks`)."""

__version__ = "0.1.0"
