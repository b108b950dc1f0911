"""Who is measuring a run right now: an owner id that survives pid reuse, PID namespaces and
reboots, checked by pid where it can be and by heartbeat where it cannot; and the signals that end
a run the way Ctrl-C does (every measured case kept, the resume line printed)."""
from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

HANDLED = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat): with the
    pid it names one process, even after the pid is reused."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()[19]


HEARTBEAT_S = 15                 # how often a running harness says it is alive
STALE_AFTER_S = 120              # a run whose owner has not beaten for this long can be resumed


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return "?"


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return "?"


def owner_id() -> str:
    """host|boot id|PID namespace|pid|start time: a pid means one process only on one kernel's
    boot and in one PID namespace."""
    pid = os.getpid()
    return f"{socket.gethostname()}|{_boot_id()}|{_pid_namespace()}|{pid}|{_start_time(pid)}"


def owner_pid(owner: str) -> str:
    parts = owner.split("|")
    return parts[-2] if len(parts) in (3, 5) else "?"


def is_alive(owner: str, heartbeat_age_s: float = float("inf")) -> bool:
    """True while the owning harness still runs. Where its pid can be checked (this host, this
    boot, this PID namespace) the pid decides; elsewhere (another host of a fleet, another
    container) its heartbeat does: alive while it beat within STALE_AFTER_S. An empty owner
    (older runs) is dead. Hosts of a fleet are assumed to keep their clocks within seconds."""
    parts = owner.split("|")
    if len(parts) not in (3, 5):
        return False
    if _checked_here(parts):
        pid, started = parts[-2:]
        return pid.isdigit() and _start_time(int(pid)) == started
    return heartbeat_age_s < STALE_AFTER_S


def _checked_here(parts: list[str]) -> bool:
    """Whether the owner's pid names a process this harness can look at."""
    if len(parts) == 3:
        return parts[0] == socket.gethostname()
    return len(parts) == 5 and tuple(parts[:3]) == (socket.gethostname(), _boot_id(), _pid_namespace())


def why_dead(owner: str, heartbeat_age_s: float) -> str:
    if _checked_here(owner.split("|")):
        return f"its parbench, pid {owner_pid(owner)}, is gone"
    return (f"its parbench on {owner.split('|')[0] or '?'} has not beaten for {min(heartbeat_age_s, 1e9):.0f} s "
            f"(a run is taken as dead after {STALE_AFTER_S} s)")


class Stopped(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP, handled like Ctrl-C; `exit_code` says which."""

    def __init__(self, signum: int, told: bool = False):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.exit_code = HANDLED.get(signum, 130)
        self.told = told                # a child parbench has already said what it stored


def stop_like_ctrl_c() -> None:
    """SIGINT, SIGTERM and SIGHUP raise Stopped in the main thread, once: the first one starts the
    orderly stop (cases kept, the run closed, the resume line printed), and any later one is only
    noted, so that a second Ctrl-C cannot cut that stop short. SIGINT is taken even where it was
    ignored (a parbench started with `&` by a script), so Ctrl-C and `kill -INT` always stop it."""
    first: list[int] = []

    def handler(signum, frame):
        if first:
            return                      # already stopping: the first signal decides
        first.append(signum)
        raise Stopped(signum)
    for signum in HANDLED:
        signal.signal(signum, handler)


def exit_code_of(interruption: BaseException | None) -> int:
    return getattr(interruption, "exit_code", 130)


def signal_of(interruption: BaseException | None) -> int:
    """The signal that stopped parbench (a bare KeyboardInterrupt is Ctrl-C's SIGINT)."""
    return getattr(interruption, "signum", signal.SIGINT)


def stopped_by_exit_code(code: int) -> Stopped | None:
    """A child parbench that exited as a handled signal makes it (130, 143, 129): the same stop."""
    signum = next((s for s, c in HANDLED.items() if c == code), None)
    return Stopped(signum, told=True) if signum is not None else None
