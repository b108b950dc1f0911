"""Runs one fresh process tree under the launcher (launcher.c) and measures it as the kernel sees it.

The launcher forks the command, keeps it in a memory cgroup where the machine allows (else it
samples the tree from /proc), enforces the timeout and the memory limit, kills every process of
the tree when the command ends (setsid() escapees included), dies with the harness, and reports
wall, CPU, the largest process's peak RSS and the whole tree's peak as one JSON line.
Output is read as a stream with caps, so a benchmark that floods stdout or prints one enormous
line is a `bad-output` result instead of a harness that runs out of memory.
"""
from __future__ import annotations

import collections
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from parbench.inputs import cache_root

LAUNCHER_SOURCE = Path(__file__).with_name("launcher.c")
MAX_STDOUT_BYTES = 16 << 20      # the protocol prints one short line per repetition
MAX_LINE_BYTES = 1 << 20
# --warmup ≤ 1000 and --repeat ≤ 10000 lines, and room for a VM's own chatter; 5 million tiny
# lines would cost the harness half a gigabyte of str objects.
MAX_STDOUT_LINES = 100_000
STDERR_TAIL_BYTES = 64 << 10
SAMPLE_MS = 10
GRACE_S = 10                     # beyond the launcher's own timeout, before the harness steps in


class LauncherMissing(RuntimeError):
    """No C compiler: parbench cannot keep benchmarks on a leash, so it does not run them."""


@dataclass
class Finished:
    stdout_lines: list[str]        # protocol mode only; empty when the output was only digested
    stdout_times: list[int]        # when each line arrived, ns after the start (plausibility checks)
    stdout_digest: str             # SHA-256 of all stdout bytes (exec compares runs by it)
    stdout_problem: str | None     # a cap that was hit: the process was stopped for it
    stdout_head: str               # the first MAX_LINE_BYTES of stdout (exec's --expect, messages)
    stderr: str                    # the last STDERR_TAIL_BYTES only
    exit_code: int | None          # None when it did not exit by itself (signal, timeout)
    timed_out: bool
    wall_ns: int
    user_ns: int
    sys_ns: int
    max_rss_kb: int                # the largest single process (ru_maxrss)
    voluntary_switches: int
    involuntary_switches: int
    signal: int | None = None
    tree_peak_rss_kb: int = 0      # the whole tree at one moment (sampled), never below max_rss_kb
    memory: dict = field(default_factory=dict)   # how memory was measured and limited, leftovers
    out_of_memory: bool = False


@functools.lru_cache(maxsize=1)
def launcher() -> str:
    """The compiled launcher, built once into the cache."""
    binary = cache_root().parent / "bin" / "parbench-launch"
    if binary.exists() and binary.stat().st_mtime >= LAUNCHER_SOURCE.stat().st_mtime:
        return str(binary)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise LauncherMissing("parbench needs a C compiler (cc, gcc or clang) to build its process "
                              "launcher: apt-get install -y gcc")
    binary.parent.mkdir(parents=True, exist_ok=True)
    tmp = binary.with_name(f"{binary.name}.{os.getpid()}")
    built = subprocess.run([compiler, "-O2", "-Wall", "-o", str(tmp), str(LAUNCHER_SOURCE)],
                           capture_output=True, text=True)
    if built.returncode != 0:
        raise LauncherMissing(f"building the process launcher failed: {built.stderr.strip()[-500:]}")
    os.replace(tmp, binary)
    return str(binary)


class _StdoutReader(threading.Thread):
    """Reads stdout to its end; keeps lines (protocol mode) within the caps, digests everything."""

    def __init__(self, stream, keep_lines: bool, on_overflow, echo=None):
        super().__init__(daemon=True)
        self.stream, self.keep_lines, self.on_overflow, self.echo = stream, keep_lines, on_overflow, echo
        self.lines: list[str] = []
        self.times: list[int] = []
        self.started = time.perf_counter_ns()
        self.digest = hashlib.sha256()
        self.problem: str | None = None
        self.head = b""
        self._total = 0

    def run(self) -> None:
        pending = b""
        for chunk in iter(lambda: self.stream.read1(65536), b""):
            self.digest.update(chunk)
            if len(self.head) < MAX_LINE_BYTES:
                self.head += chunk[:MAX_LINE_BYTES - len(self.head)]
            if self.echo is not None:
                self.echo(chunk)
            if not self.keep_lines or self.problem:
                continue
            self._total += len(chunk)
            pending += chunk
            *complete, pending = pending.split(b"\n")
            self.lines += [line.decode(errors="replace") for line in complete]
            self.times += [time.perf_counter_ns() - self.started] * len(complete)
            if self._total > MAX_STDOUT_BYTES:
                self._overflow(f"stdout exceeded {MAX_STDOUT_BYTES >> 20} MiB (the protocol prints one "
                               "short JSON line per repetition)")
            elif len(pending) > MAX_LINE_BYTES or any(len(l) > MAX_LINE_BYTES for l in complete):
                self._overflow(f"a stdout line exceeded {MAX_LINE_BYTES >> 20} MiB")
            elif len(self.lines) > MAX_STDOUT_LINES:
                self._overflow(f"stdout exceeded {MAX_STDOUT_LINES:,} lines (the protocol prints one line per repetition)")
        if pending and self.keep_lines and not self.problem:
            self.lines.append(pending.decode(errors="replace"))
            self.times.append(time.perf_counter_ns() - self.started)
        self.stream.close()

    def _overflow(self, problem: str) -> None:
        self.problem, self.lines, self.times = problem, [], []
        self.on_overflow()


def _tail_reader(stream, tail: collections.deque) -> None:
    size = 0
    for chunk in iter(lambda: stream.read1(65536), b""):
        tail.append(chunk)
        size += len(chunk)
        while size - len(tail[0]) > STDERR_TAIL_BYTES:
            size -= len(tail.popleft())
    stream.close()


def run_measured(argv: list[str], timeout_s: float, memory_limit_kb: int | None = None,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 protocol: bool = True, echo_stdout=None) -> Finished:
    """Run argv to completion (or until timeout_s), returning its output and measurements.

    protocol=True keeps stdout's lines (capped); False only digests them (exec of any command).
    KeyboardInterrupt (and the SIGTERM/SIGHUP the CLI turns into it) stops the launcher, which
    kills the whole tree, before it propagates.
    """
    report_read, report_write = os.pipe()
    command = [launcher(), "--report-fd", str(report_write), "--timeout-ms", str(int(timeout_s * 1000)),
               "--sample-ms", str(SAMPLE_MS), "--parent-pid", str(os.getpid())]
    if memory_limit_kb:
        command += ["--memory-limit-kb", str(int(memory_limit_kb))]
    try:
        child = subprocess.Popen(command + ["--", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True,
                                 pass_fds=(report_write,))
    finally:
        os.close(report_write)
    stop = lambda: _signal(child.pid, signal.SIGTERM)
    stdout = _StdoutReader(child.stdout, protocol, stop, echo_stdout)
    stderr_tail: collections.deque = collections.deque()
    report: list[bytes] = []
    readers = [stdout, threading.Thread(target=_tail_reader, args=(child.stderr, stderr_tail), daemon=True),
               threading.Thread(target=_read_rest, args=(report_read, report), daemon=True)]
    for reader in readers:
        reader.start()
    started = time.perf_counter_ns()
    try:
        try:
            child.wait(timeout_s + GRACE_S)
        except subprocess.TimeoutExpired:      # the launcher itself is stuck (stopped?): end it all
            _signal(child.pid, signal.SIGKILL, group=True)
            child.wait()
        except BaseException:
            _stop_now(child)
            raise
        readers[2].join(GRACE_S)               # the report, with the cgroups it names
    finally:
        kill_cgroups(_announced_cgroups(report))
    for reader in readers:
        reader.join(GRACE_S)
    return _finished(child, stdout, b"".join(stderr_tail), b"".join(report), started)


def _announced_cgroups(report: list[bytes]) -> list[str]:
    """The cgroups the launcher said it made ("cgroup PATH" lines before its JSON line)."""
    lines = b"".join(report).decode(errors="replace").splitlines()
    return [line[len("cgroup "):] for line in lines
            if line.startswith("cgroup /sys/fs/cgroup/") and ".." not in line]


def kill_cgroups(paths: list[str]) -> None:
    """Kills every process left in these cgroups and removes them. The launcher does this
    itself; this is for a launcher that was killed or stopped by the tree it was watching."""
    for path in paths:
        group = Path(path)
        for _ in range(1000):
            try:
                members = [int(p) for p in (group / "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                break                            # gone: the launcher removed it
            if not members:
                break
            try:
                (group / "cgroup.kill").write_text("1")
            except OSError:                      # cgroup v1: one by one, until none is left
                for pid in members:
                    _signal(pid, signal.SIGKILL)
            time.sleep(0.002)
        try:
            group.rmdir()
        except OSError:
            pass


def _read_rest(fd: int, sink: list[bytes]) -> None:
    try:
        for chunk in iter(lambda: os.read(fd, 1 << 16), b""):
            sink.append(chunk)
    finally:
        os.close(fd)


def _signal(pid: int, sig: int, group: bool = False) -> None:
    try:
        os.killpg(pid, sig) if group else os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _stop_now(child: subprocess.Popen) -> None:
    """On an interruption: ask the launcher to kill its tree, then make sure of it."""
    _signal(child.pid, signal.SIGTERM)
    try:
        child.wait(5)
    except subprocess.TimeoutExpired:
        _signal(child.pid, signal.SIGKILL, group=True)
        child.wait()


def _finished(child: subprocess.Popen, stdout: _StdoutReader, stderr: bytes, report: bytes,
              started: int) -> Finished:
    last = report.decode(errors="replace").strip().splitlines()[-1:] or ["{}"]
    try:
        measured = json.loads(last[0]) if last[0].startswith("{") else {}
    except ValueError:
        measured = {}
    if not measured:     # the launcher itself died: the harness's own view, marked as such
        measured = {"wall_ns": time.perf_counter_ns() - started, "status": 9, "memory_method": "none",
                    "launcher_failed": True}
    status = measured.get("status", 0)
    timed_out = bool(measured.get("timed_out")) or measured.get("launcher_failed", False)
    stopped = bool(measured.get("stopped_by_signal")) or stdout.problem is not None
    memory = {k: measured.get(k) for k in ("memory_method", "sample_ms", "samples", "cgroup_peak_kb",
                                           "memory_limit_kb", "limit_method", "leftover")
              if measured.get(k) not in (None, -1)}
    max_rss = int(measured.get("max_rss_kb", 0))
    return Finished(
        stdout_lines=stdout.lines, stdout_times=stdout.times, stdout_digest=stdout.digest.hexdigest(), stdout_problem=stdout.problem,
        stdout_head=stdout.head.decode(errors="replace"),
        stderr=stderr.decode(errors="replace"),
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) and not (timed_out or stopped) else None,
        timed_out=timed_out, wall_ns=int(measured.get("wall_ns", 0)),
        user_ns=int(measured.get("user_ns", 0)), sys_ns=int(measured.get("sys_ns", 0)),
        max_rss_kb=max_rss, voluntary_switches=int(measured.get("nvcsw", 0)),
        involuntary_switches=int(measured.get("nivcsw", 0)),
        signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        tree_peak_rss_kb=max(int(measured.get("tree_peak_rss_kb", 0)), max_rss), memory=memory,
        out_of_memory=bool(measured.get("out_of_memory")))
