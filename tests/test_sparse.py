"""BL429: where a sparse tensor is made, and the first statement that takes it up again."""

from __future__ import annotations

from textwrap import dedent

from pathlib import Path

from breaklint.config import Config
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
    # the constructor; `product`'s sparse result made while `adj` is unread (where dynamo gives up);
    # and the reads of both helpers' results, which break where only one of them turns out sparse.
    # Not the dense helper's call or result.
    found = findings(source)
    assert found == [(5, "BL429"), (17, "BL429"), (19, "BL429"), (19, "BL429")]
    messages = [f.message for f in lint_source(dedent(source)) if f.code == "BL429" and f.line in (17, 19)]
    assert "`adj` holds the sparse tensor `adjacency` returned at line 15 when this makes another" in messages[0]
    assert "`adj` holds the sparse tensor `adjacency` returned at line 15: the code after" in messages[1]


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


def test_a_second_sparse_tensor_made_while_the_first_is_unread_is_where_dynamo_gives_up() -> None:
    source = """
        import torch

        def conv(v):
            return torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), v, (2, 2))

        def strided(v):
            selection = torch.sparse_coo_tensor(torch.tensor([[0], [0]]), torch.ones(1), (2, 2))
            return torch.sparse.mm(selection, conv(v))

        @torch.compile
        def layer(x):
            lo = strided(x[:2])
            hi = strided(x[2:])
            both = torch.cat([lo, hi])
            return both.to_dense() + x.sum()
    """
    # the product of two sparse tensors (one a helper's) and the concatenation are sparse; the second
    # call is where dynamo fails to hold `lo`, and it runs the rest eagerly: the read of either name at
    # `torch.cat` no longer breaks, nor does that of `both`
    found = findings(source)
    assert found == [(5, "BL429"), (8, "BL429"), (9, "BL429"), (14, "BL429")]
    message = next(f.message for f in lint_source(dedent(source)) if f.code == "BL429" and f.line == 14)
    assert "`lo` holds the sparse tensor `strided` returned at line 13 when this makes another" in message


def test_a_dense_product_is_no_second_sparse_tensor() -> None:
    source = """
        import torch

        def project(v):
            selection = torch.sparse_coo_tensor(torch.tensor([[0], [0]]), torch.ones(1), (2, 2))
            return torch.sparse.mm(selection, v * 2)

        @torch.compile
        def layer(x):
            lo = project(x)
            hi = project(x + 1)
            return lo + hi
    """
    # `project` returns a dense tensor: neither its call nor the reads of what it returns break
    assert findings(source) == [(5, "BL429"), (6, "BL429")]


def test_a_parameter_every_caller_hands_a_sparse_tensor_breaks_at_its_first_read() -> None:
    source = """
        import torch

        def adjacency(edge_index):
            return torch.sparse_coo_tensor(edge_index, torch.ones(3), (4, 4))

        def propagate(adj: torch.Tensor, x: torch.Tensor):
            n = x.shape[0]
            return torch.sparse.mm(adj, x) / n

        def scaled(adj: torch.Tensor, x: torch.Tensor):
            adj = torch.eye(4)
            return adj @ x

        def mixed(m, x):
            return m @ x

        @torch.compile
        def layer(x, edge_index):
            adj = adjacency(edge_index)
            h = propagate(adj, x)
            return scaled(adj, h), mixed(adj, h), mixed(x, h)
    """
    # `propagate` reads the sparse tensor it is handed (its annotation says only "a tensor"); `scaled`
    # binds the name again before reading it; `mixed` is handed a dense tensor by one of its callers
    found = findings(source)
    assert found == [(5, "BL429"), (9, "BL429"), (21, "BL429")]
    message = next(f.message for f in lint_source(dedent(source)) if f.code == "BL429" and f.line == 9)
    assert message.startswith("`adj` holds the sparse tensor its callers pass")


def test_a_legacy_sparse_class_picked_by_name_makes_a_sparse_tensor_that_stays_sparse_transposed() -> None:
    source = """
        import torch

        def make(indices, values, n):
            type_name = values.type().split(".")[-1]
            if indices.is_cuda:
                cls = getattr(torch.cuda.sparse, type_name)
            else:
                cls = getattr(torch.sparse, type_name)
            return cls(indices, values, torch.Size((n, n)))

        def dense_kind(values):
            return getattr(torch, values.type().split(".")[-1])

        @torch.compile
        def layer(x, edge_index):
            adj_t = make(edge_index, x[:3], 4).mT
            y = torch.sparse.mm(adj_t, x)
            z = dense_kind(x)(4)
            return y, torch.sparse.FloatTensor(edge_index, x[:3], torch.Size((4, 4))), z
    """
    # the class's call, the read of its transpose, and the typed constructor; not a class of `torch`'s own
    assert findings(source) == [(10, "BL429"), (18, "BL429"), (20, "BL429")]


def test_dense_values_too_deep_to_carry_are_no_sparse_tensors() -> None:
    source = """
        import torch

        @torch.compile
        def attend(proj, q, enc):
            a = proj(q)[0][0][0][0][0]
            b = proj(enc)[0][0][0][0][0]
            query = torch.cat([a, enc])
            key = torch.cat([b, q])
            return query @ key
    """
    # each concatenation is sparse only where all its operands are; the second, made while the first
    # is unread, would break where both are, a value too deep to carry to where the tree decides:
    # that is no evidence of a sparse tensor
    assert findings(source) == []


def test_a_nested_function_parameter_is_not_the_enclosing_function_parameter() -> None:
    source = """
        import torch

        def adjacency(edge_index):
            return torch.sparse_coo_tensor(edge_index, torch.ones(3), (4, 4))

        def propagate(adj, x):
            def scale(adj):
                return adj * 2
            return scale(x)

        @torch.compile
        def layer(x, edge_index):
            y = x + 1
            return propagate(adjacency(edge_index), y)
    """
    # `scale`'s `adj` is handed `x`, whatever `propagate`'s callers pass for its own `adj` (which
    # `propagate` never reads)
    assert findings(source) == [(5, "BL429")]


def test_an_attribute_of_a_parameters_name_read_while_it_is_bound_again_is_no_read_of_it() -> None:
    source = """
        import torch

        def adjacency(edge_index):
            return torch.sparse_coo_tensor(edge_index, torch.ones(3), (4, 4))

        def propagate(adj, graph, x):
            adj = graph.adj
            return adj @ x

        @torch.compile
        def layer(x, graph, edge_index):
            y = x + 1
            return propagate(adjacency(edge_index), graph, y)
    """
    # `graph.adj` names an attribute, not the parameter `adj` that the callers hand a sparse tensor
    # and that is bound again here before any read
    assert findings(source) == [(5, "BL429")]


def test_a_sparse_tensor_kept_on_the_object_breaks_where_it_is_read() -> None:
    # BL429: `self.adj` made sparse in `__init__`, a sparse buffer, and a memo of what a helper of the
    # tree returned (looked up with `hasattr`, then read); a dense attribute and a memo of a dense helper stay
    # quiet, and after the first attribute read dynamo gives up on the function
    source = dedent("""
        import torch
        from torch import nn

        def adjacency(edge_index, n):
            return torch.sparse_coo_tensor(edge_index, torch.ones(edge_index.shape[1]), (n, n))

        def dense(n):
            return torch.eye(n)

        class Kept(nn.Module):
            def __init__(self):
                super().__init__()
                self.adj = torch.eye(4).to_sparse()
                self.register_buffer("hops", torch.eye(4).to_sparse())
                self.w = torch.eye(4)

            def forward(self, x):
                h = torch.sparse.mm(self.adj, self.w @ x)
                return torch.sparse.mm(self.hops, h)

        class Memo(nn.Module):
            def memo(self, e):
                if hasattr(self, "_memo"):
                    return self._memo
                self._memo = adjacency(e, 4)
                return self.dense_memo()

            def dense_memo(self):
                if hasattr(self, "_dense"):
                    return self._dense
                self._dense = dense(4)
                return self._dense

            def forward(self, x, e):
                return self.memo(e) @ x
    """)
    found = [(f.line, f.message.split(":")[0]) for f in lint_source(source, Path("m.py"), Config())
             if f.code == "BL429" and "self." in f.message]
    lines = source.splitlines()
    at = lambda text: next(i for i, line in enumerate(lines, 1) if text in line)  # noqa: E731
    assert [line for line, _ in found] == [at("h = torch.sparse.mm(self.adj"), at('if hasattr(self, "_memo")'),
                                           at("return self._memo")]


def test_a_sparse_only_operation_every_run_performs_shows_what_the_function_is_handed() -> None:
    source = """
        import torch

        class Layer(torch.nn.Module):
            def forward(self, x, adj, flag: bool):
                n = adj.shape[0]
                return torch.sparse.mm(adj, x) * n

        class Levels(torch.nn.Module):
            def forward(self, x):
                y = x * 2
                for level, matrix in enumerate(self.matrices):
                    y = y + level
                    y = torch.smm(matrix, y)
                    z = matrix.coalesce()
                return y

        @torch.compile
        def counted(x, adj):
            y = x + 1
            return y * adj._nnz()

        layer = torch.compile(Layer())
        levels = torch.compile(Levels())
    """
    # the first read of each, not the operation; once per function (dynamo gives up on it there)
    assert findings(source) == [(6, "BL429"), (14, "BL429"), (21, "BL429")]


def test_an_operation_some_runs_perform_shows_nothing_of_what_the_function_is_handed() -> None:
    source = """
        import torch

        class Branch(torch.nn.Module):
            def forward(self, x, adj, flag: bool):
                if flag:
                    x = torch.sparse.mm(adj, x)
                y = torch.sparse.mm(adj, x) if flag else x
                try:
                    y = adj.coalesce() @ y
                except RuntimeError:
                    pass
                return y

        class Either(torch.nn.Module):
            def forward(self, x, adj):
                y = x * 2
                out = torch.sparse.mm(adj, y) if adj.is_sparse else adj @ y
                return torch.sparse.mm(adj, out)

        class Local(torch.nn.Module):
            def forward(self, x, adj):
                def step(a, h):
                    return torch.sparse.mm(a, h)
                dense = adj.to_dense()
                return step(dense, x)

        branch = torch.compile(Branch())
        either = torch.compile(Either())
        local = torch.compile(Local())
    """
    assert findings(source) == []
