"""The static analysis of one file and of the tree: parse (`parse`), the batched walk (`walk`), the file
context composed of layers (`context`: `names`, `scopes`, `annotations`, `flow`, `narrowing`, `bindings`,
`evaluate`, `conditions`, `calls`), the values lattice (`values`), the plain-data summaries (`summary`)
and what compile reaches over all of them (`reach`)."""
