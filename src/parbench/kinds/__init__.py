"""Kinds of measurement: each kind plans its cases and owns its runner.

A kind (pipeline.Kind) fills a `pipeline.Invocation` from a user's request — its first cases,
its runner, its run record — and leaves measuring, analysis and reporting to the shared
pipeline. `suite` measures workloads across runtimes, `sweep` one workload across a parameter,
`exec` arbitrary commands.
"""

LAYER = 10  # fills the pipeline's Invocation
