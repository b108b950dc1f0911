"""Both sides of docs/protocol.md: the command line the harness sends, the JSON lines it reads."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

EXIT_OK, EXIT_BAD_ARGUMENTS, EXIT_LIMIT = 0, 2, 3


def command_line(run_script: str, workload: str, model: str, params: dict[str, Any],
                 workers: int | None, warmup: int, repeat: int) -> list[str]:
    argv = [run_script, workload, "--model", model]
    for name, value in params.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return argv + ["--warmup", str(warmup), "--repeat", str(repeat)]


@dataclass
class Reply:
    """What one process printed: its repetitions, or the limit it hit, or why it is unreadable."""
    repetitions: list[dict[str, Any]] = field(default_factory=list)
    limit: str | None = None
    malformed: str | None = None


REQUIRED = {"rep": int, "ns": int, "items": int, "checksum": str}


def parse_stdout(stdout: str) -> Reply:
    """Every line is read even after a bad one, so that a limit line printed after some stray
    runtime output (a VM's own warning on stdout, say) still says what stopped the work."""
    reply = Reply()
    for number, line in enumerate(stdout.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            reply.malformed = reply.malformed or f"stdout line {number} is not JSON: {line[:120]!r}"
            continue
        if not isinstance(record, dict):
            reply.malformed = reply.malformed or f"stdout line {number} is not a JSON object: {line[:120]!r}"
            continue
        if record.get("error") == "limit":
            reply.limit = str(record.get("detail", "resource limit"))
            continue
        problem = next((f"lacks {key} ({kind.__name__})" for key, kind in REQUIRED.items()
                        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool)), None)
        if problem is None and not isinstance(record.get("extra", {}), dict):
            problem = "extra is not an object"
        if problem:
            reply.malformed = reply.malformed or f"stdout line {number} {problem}: {line[:120]!r}"
            continue
        reply.repetitions.append(record)
    return reply
