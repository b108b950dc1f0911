"""The one error a pipeline stage raises to stop with a sentence and an exit code."""
from __future__ import annotations

# One exit code per class, the same from every command (docs/reliability.md's table, held by
# tests/unit/test_errors.py): 1 is a regression found, or work done that could not be stored or
# written (a full disk, a store gone); 2 a refusal before anything was done; 3 a failed case
# under --strict; a handled signal 128 + its number.
EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, EXIT_FAILED_CASE = 0, 1, 2, 3
EXIT_NOT_WRITTEN = 1


class PipelineError(RuntimeError):
    """A stage could not go on; `code` is the exit code that says why (2 usage, 1 otherwise)."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code
