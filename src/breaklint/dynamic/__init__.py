"""The dynamic pass: targets run under torch._dynamo.explain (`explain`), each in a worker process of its own
(`worker`), what dynamo settings would change (`whatif`), the rules' calibration against dynamo
(`calibrate`), and the `breaklint explain` command (`command`). Imports torch lazily; the static pass
never imports this package."""
