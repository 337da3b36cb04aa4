"""The static analysis of one file and of the tree: parse (`parse`), the batched walk (`walk`), the file
context composed of layers (`context`: `names`, `scopes`, `annotations`, `flow`, `narrowing`, `bindings`,
`evaluate`, `conditions`, `calls`), the values lattice (`values`), the plain-data summaries (`summary`)
and what compile reaches over all of them (`reach`).

Node kinds are asked of with `type(node) is cst.Name` (or `in (cst.Name, cst.Attribute)`) wherever the
class is a leaf of libcst's node hierarchy, which every concrete node class is: libcst's classes are
abstract base classes, and `isinstance` on them runs `ABCMeta.__instancecheck__` in Python, a few
percent of a whole run. The abstract kinds (`cst.BaseExpression`, `cst.BaseSuite`, ...) keep
`isinstance`; `tests/test_architecture.py` checks that every exact test names a leaf."""
