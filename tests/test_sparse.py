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


def test_what_a_helper_returns_is_followed_where_the_tree_shows_it_sparse() -> None:
    source = """
        import torch

        def adjacency(edge_index, n):
            return torch.sparse_coo_tensor(edge_index, torch.ones(edge_index.shape[1]), (n, n))

        def dense(edge_index, n):
            return torch.zeros(n, n).index_put_((edge_index[0], edge_index[1]), torch.ones(3))

        def product(a, b):
            return torch.sparse.mm(adjacency(a, 4), adjacency(b, 4))

        @torch.compile
        def layer(x, edge_index):
            adj = adjacency(edge_index, 4)
            full = dense(edge_index, 4)
            both = product(edge_index, edge_index)
            h = x * 2
            return torch.sparse.mm(adj, h) + full @ h + torch.sparse.mm(both, h)
    """
    # the constructor, and the one read of each helper's sparse result; not the dense helper's
    found = findings(source)
    assert found == [(5, "BL429"), (19, "BL429")]
    messages = [f.message for f in lint_source(dedent(source)) if f.code == "BL429" and f.line == 19]
    assert messages and "`adj` holds the sparse tensor `adjacency` returned at line 15" in messages[0]


def test_a_read_in_another_branch_of_the_if_that_made_it_is_not_reported() -> None:
    source = """
        import torch

        @torch.compile
        def weighted(x, edge_index, sparse: bool):
            if sparse:
                edge_index = torch.sparse_coo_tensor(edge_index, torch.ones(3), (4, 4))
            elif x.dim() > 1:
                edge_index = edge_index.flip(0)
            else:
                edge_index = edge_index + 1
            return x[edge_index[0]]
    """
    # the `elif` and `else` bodies never hold the sparse tensor, and after the `if` it is held only when
    # the first branch ran: only the constructor is reported
    assert findings(source) == [(7, "BL429")]
