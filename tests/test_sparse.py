"""BL429: where a sparse tensor is made, and the first statement that takes it up again."""

from __future__ import annotations

from textwrap import dedent

from breaklint.engine import lint_source


def findings(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(dedent(source)) if f.code == "BL429"]


def test_the_first_read_of_the_name_is_reported_and_not_an_attribute_or_keyword_of_that_name() -> None:
    source = """
        import torch

        @torch.compile
        def layer(x, graph, edge_index):
            adj = torch.sparse_coo_tensor(edge_index, torch.ones(3), (4, 4))
            y = graph.adj + x
            z = helper(adj=y)
            out = torch.sparse.mm(adj, z)
            return out, adj

        def helper(adj):
            return adj
    """
    assert findings(source) == [(6, "BL429"), (9, "BL429")]


def test_a_name_bound_again_no_longer_holds_it_and_a_python_value_is_not_converted() -> None:
    source = """
        import torch

        @torch.compile
        def layer(x: torch.Tensor, rows: list):
            adj = x.to_sparse()
            adj = x * 2
            dense = adj + 1
            again = x.to_sparse_csr()
            again = again.to_dense()
            return dense, again, rows.to_sparse()
    """
    assert findings(source) == [(6, "BL429"), (9, "BL429"), (10, "BL429")]
