"""Who is measuring a run right now: an owner id that survives pid reuse, and the signals that
end a run the way Ctrl-C does (every measured case kept, the resume line printed)."""
from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

HANDLED = {signal.SIGTERM: 143, signal.SIGHUP: 129}


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat): with the
    pid it names one process, even after the pid is reused."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()[19]


def owner_id() -> str:
    return f"{socket.gethostname()}|{os.getpid()}|{_start_time(os.getpid())}"


def owner_pid(owner: str) -> str:
    parts = owner.split("|")
    return parts[1] if len(parts) == 3 else "?"


def is_alive(owner: str) -> bool:
    """True while the owning harness still runs. A run owned on another machine cannot be
    checked from here, so it counts as alive; an empty owner (older runs) as dead."""
    parts = owner.split("|")
    if len(parts) != 3:
        return False
    host, pid, started = parts
    if host != socket.gethostname():
        return True
    return pid.isdigit() and _start_time(int(pid)) == started


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled like Ctrl-C; `exit_code` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.exit_code = HANDLED.get(signum, 130)


def stop_like_ctrl_c() -> None:
    """SIGTERM and SIGHUP raise Stopped in the main thread, so they take Ctrl-C's path."""
    def handler(signum, frame):
        raise Stopped(signum)
    for signum in HANDLED:
        signal.signal(signum, handler)


def exit_code_of(interruption: BaseException | None) -> int:
    return getattr(interruption, "exit_code", 130)
