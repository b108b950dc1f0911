"""Runs one fresh process and measures it the way the kernel sees it (wait4 rusage).

The child is started in its own session so that a timeout or Ctrl-C can end its whole tree;
wait4 reports the child's CPU time including every descendant it waited for, and the peak
RSS of the largest process in that tree (Linux's ru_maxrss is a maximum, not a sum).
The command runs under parbench-launch (launcher.c) so that its peak RSS is its own and not
the harness's; where no C compiler is found, it is forked directly and that is said.
"""
from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from parbench.inputs import cache_root

LAUNCHER_SOURCE = Path(__file__).with_name("launcher.c")


@dataclass
class Finished:
    stdout: str
    stderr: str
    exit_code: int | None      # None when it did not exit by itself (signal, timeout)
    timed_out: bool
    wall_ns: int
    user_ns: int
    sys_ns: int
    max_rss_kb: int
    voluntary_switches: int
    involuntary_switches: int
    signal: int | None = None
    rss_is_own: bool = True    # False when forked straight from the harness (no launcher)


@functools.lru_cache(maxsize=1)
def launcher() -> str | None:
    """The compiled launcher, built once into the cache; None where no C compiler is found."""
    binary = cache_root().parent / "bin" / "parbench-launch"
    if binary.exists() and binary.stat().st_mtime >= LAUNCHER_SOURCE.stat().st_mtime:
        return str(binary)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    binary.parent.mkdir(parents=True, exist_ok=True)
    tmp = binary.with_name(f"{binary.name}.{os.getpid()}")
    built = subprocess.run([compiler, "-O2", "-o", str(tmp), str(LAUNCHER_SOURCE)], capture_output=True)
    if built.returncode != 0:
        return None
    os.replace(tmp, binary)
    return str(binary)


def _drain(stream, sink: list[bytes]) -> None:
    for chunk in iter(lambda: stream.read(65536), b""):
        sink.append(chunk)
    stream.close()


def run_measured(argv: list[str], timeout_s: float, env: dict[str, str] | None = None,
                 cwd: str | None = None, stdin_devnull: bool = True) -> Finished:
    """Run argv to completion (or until timeout_s), returning its output and measurements.

    KeyboardInterrupt kills the child's whole session before it propagates, so an
    interrupted suite never leaves a benchmark running behind the user's back.
    """
    launch = launcher()
    report_read, report_write = os.pipe()
    command = [launch, str(report_write), *argv] if launch else argv
    out: list[bytes] = []
    err: list[bytes] = []
    report: list[bytes] = []
    started = time.perf_counter_ns()
    try:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL if stdin_devnull else None, env=env,
                                 cwd=cwd, start_new_session=True, pass_fds=(report_write,))
    finally:
        os.close(report_write)
    readers = [threading.Thread(target=_drain, args=(stream, sink), daemon=True) for stream, sink in
               ((child.stdout, out), (child.stderr, err), (os.fdopen(report_read, "rb"), report))]
    for reader in readers:
        reader.start()
    result: dict = {}

    def wait() -> None:
        _, status, usage = os.wait4(child.pid, 0)
        result.update(status=status, usage=usage, ended=time.perf_counter_ns())

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    timed_out = False
    try:
        waiter.join(timeout_s)
        if waiter.is_alive():
            timed_out = True
            _kill_session(child.pid)
            waiter.join()
    except KeyboardInterrupt:
        _kill_session(child.pid)
        waiter.join()
        child.returncode = -signal.SIGKILL
        raise
    for reader in readers:
        reader.join(5)
    child.returncode = os.waitstatus_to_exitcode(result["status"])   # so Popen never waits again
    usage = result["usage"]
    measured = dict(wall=result["ended"] - started, user=int(usage.ru_utime * 1e9),
                    sys=int(usage.ru_stime * 1e9), rss=usage.ru_maxrss, nvcsw=usage.ru_nvcsw,
                    nivcsw=usage.ru_nivcsw, status=result["status"])
    line = b"".join(report).split()
    if launch and len(line) == 7 and not timed_out:
        measured.update(zip(("wall", "user", "sys", "rss", "nvcsw", "nivcsw", "status"), map(int, line)))
    status = measured["status"]
    return Finished(
        stdout=b"".join(out).decode(errors="replace"),
        stderr=b"".join(err).decode(errors="replace"),
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) and not timed_out else None,
        timed_out=timed_out, wall_ns=measured["wall"], user_ns=measured["user"],
        sys_ns=measured["sys"], max_rss_kb=measured["rss"],
        voluntary_switches=measured["nvcsw"], involuntary_switches=measured["nivcsw"],
        signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        rss_is_own=bool(launch))


def _kill_session(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
