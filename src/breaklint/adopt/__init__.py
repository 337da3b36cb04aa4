"""Adopting breaklint on a code base that already has breaks: a baseline of known findings and `# noqa`
comments (`baseline`), and a graph-break budget for the dynamic pass (`budget`)."""
