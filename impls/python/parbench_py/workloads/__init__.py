"""The workloads, one module each: the protocol's `run <workload>` loads the one it names."""
