"""The one error a pipeline stage raises to stop with a sentence and an exit code."""
from __future__ import annotations

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, EXIT_FAILED_CASE = 0, 1, 2, 3


class PipelineError(RuntimeError):
    """A stage could not go on; `code` is the exit code that says why (2 usage, 1 otherwise)."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code
