"""Rule families, one module each. Importing a module registers its rules.

Code ranges:
  BL0xx  the engine itself (parse errors, unused suppressions, internal errors)
  BL1xx  a tensor turned into a Python value
  BL2xx  data-dependent control flow
  BL3xx  data-dependent output shapes
  BL4xx  calls dynamo cannot trace
  BL5xx  hazards: no break, but a cost (host-device syncs, recompiles)
"""
