"""The Python (CPython) implementation of the parbench workloads, driven by the protocol in docs/protocol.md."""
