"""Runs one fresh process tree under the launcher (launcher.c) and measures it as the kernel sees it.

The launcher stays resident (one per harness thread) and forks each run it is sent: it keeps the
tree in memory cgroups of its own where the machine allows (else it samples the tree from /proc),
enforces the timeout and the memory limit, kills every process of the tree when the command ends
(setsid() escapees included), dies with the harness, and answers with wall, CPU, the largest
process's peak RSS, the whole tree's peak (RSS and PSS) and what the run printed. It reads the
output itself, as a stream with caps, so a benchmark that floods stdout or prints one enormous
line is a `bad-output` result instead of a harness that runs out of memory; and the harness
sleeps in one read while a command runs, so it takes nothing from what it measures.
"""
from __future__ import annotations

import atexit
import functools
import glob
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from parbench.analysis.steady_state import TOLERANCE, long_window
from parbench.measure.bench_user import BenchUser
from parbench.project import cache_root

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
    stdout_times: list[int]        # when each line arrived, ns after the start, stamped by the launcher
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
    # The rest of the machine while it ran (/proc/stat, in 10 ms ticks): `steal_ns`, CPU time the
    # hypervisor took away, and `others_cores`, the cores kept busy by everything but this tree.
    machine_load: dict = field(default_factory=dict)
    # Protocol 3 (a run with a feed): when each variant was written (ns after the start), the
    # tree's threads at each line (the ready line first), and whether the answers were hidden.
    fed_ns: list[int] = field(default_factory=list)
    threads: list["ThreadSnapshot"] = field(default_factory=list)
    cpu_method: str = ""           # how the tree's CPU was read: cgroup-v2, cgroup-v1, threads
    hidden: bool = False
    # Protocol 4: why the launcher stopped writing variants (steady, budget, fixed, protocol,
    # limit, ended), the first repetition it counts as timed, how many repetition lines it took,
    # and the line that broke "one line, one variant" (empty where none did).
    feed_verdict: str = ""
    first_timed: int = 0
    repetitions_seen: int = 0
    protocol_problem: str = ""
    stdout_bytes: int = 0          # every byte of stdout read (0 where it went to /dev/null unread)
    launcher_cpu_ns: int = 0       # the launcher's own CPU during the run: reading the output, sampling
    # Each repetition as the launcher judged it (its "series" frame): the gap from its variant to
    # its line less the longest wait for a core of one of the tree's threads or the launcher.
    launcher_series: list[int] = field(default_factory=list)


# Past its budget in seconds, a search goes on until it has had the long window's chance and one
# more repetition, within this many times the budget: Java's tuned 8 MiB kernel took 799 ms in its
# first repetition on a busy machine, and a 0.5 s budget allowed it no second (issue 56).
CAP_PER_BUDGET = 6


@dataclass(frozen=True)
class FeedPolicy:
    """When the launcher stops writing variants (protocol 4): after exactly warmup + timed
    repetitions, or (warmup None) once its own series is steady (analysis/steady_state.stops),
    or when the variants run out, or budget_s of repetitions is spent and it has run
    min_repetitions, or CAP_PER_BUDGET × budget_s is, whichever comes first."""
    warmup: int | None
    timed: int
    budget_s: float = 0.0
    tolerance: float = TOLERANCE

    @property
    def min_repetitions(self) -> int:
        return long_window(self.timed) + 1

    def field(self, variants: list[int]) -> str:
        warmup = -1 if self.warmup is None else self.warmup
        return (f"{warmup} {self.timed} {int(self.budget_s * 1000)} {round(self.tolerance * 1000)} "
                f"{self.min_repetitions} {int(self.budget_s * CAP_PER_BUDGET * 1000)};"
                + " ".join(str(int(v)) for v in variants))


@dataclass(frozen=True)
class ThreadSnapshot:
    """The tree as the launcher read it when a line arrived: the tree's whole CPU time (threads
    that ended included; None without a cgroup) and each live thread's, by (pid, tid)."""
    at_ns: int
    tree_cpu_ns: int | None
    threads: dict[tuple[int, int], int]
    peak_tasks: int | None = None     # the most tasks the tree had at once so far (pids.peak), None unread
    machine_forks: int | None = None  # tasks the whole machine made since boot (/proc/stat), None unread
    # How long each thread sat runnable waiting for a core (schedstat's run delay, cumulative), by
    # (pid, tid), and how long the launcher, woken for this line, waited before it read it: time
    # that stretched the gap between two lines but was not work.
    waits: dict[tuple[int, int], int] = field(default_factory=dict)
    launcher_wait_ns: int | None = None


_building_launcher = threading.Lock()


@functools.lru_cache(maxsize=1)
def launcher() -> str:
    """The compiled launcher, built once into the cache. Under a lock: the threads of one
    harness (`parbench build`'s) would otherwise compile it at once into the same file."""
    with _building_launcher:
        return _built_launcher()


def _built_launcher() -> str:
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


@dataclass
class _Resident:
    """A launcher that serves this thread's runs: PR_SET_PDEATHSIG ties a process to the thread
    that started it, and one request is in flight at a time, so each thread gets its own."""
    process: subprocess.Popen
    owner: int                   # the pid that started it: a fork of the harness must not share it


_local = threading.local()
_all_started: list[subprocess.Popen] = []


class _Tally:
    """How many runs this harness process made and their walls, summed: a stage tells its own
    overhead from what it measured by the difference (schedule.Execution.overhead)."""
    runs = 0
    wall_ns = 0


def measured_so_far() -> tuple[int, int]:
    """(runs, their total wall in ns) since this harness process started."""
    return _Tally.runs, _Tally.wall_ns


def _resident() -> _Resident:
    current = getattr(_local, "launcher", None)
    if current is not None and current.owner == os.getpid() and current.process.poll() is None:
        return current
    process = subprocess.Popen([launcher(), "--parent-pid", str(os.getpid())], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, bufsize=0, start_new_session=True)
    if not _all_started:
        atexit.register(_close_all)
    _all_started.append(process)
    _local.launcher = _Resident(process, os.getpid())
    return _local.launcher


def _close_all() -> None:
    """At exit: end of file on its stdin ends each launcher between runs."""
    for process in _all_started:
        try:
            process.stdin.close()
            process.wait(2)
        except (OSError, subprocess.TimeoutExpired):
            _signal(process.pid, signal.SIGKILL, group=True)


def end_every_run() -> None:
    """SIGTERM to every launcher of this harness, whichever thread started it: each ends the run
    it is serving and kills that run's tree, as when the harness dies. What a Ctrl-C does to
    work on other threads, which the launchers' parent-death signal (tied to the thread that
    started each) would not end while the main thread waits for them."""
    for process in list(_all_started):
        if process.poll() is None:
            _signal(process.pid, signal.SIGTERM)


def _discard(resident: _Resident) -> None:
    if getattr(_local, "launcher", None) is resident:
        _local.launcher = None
    if resident.process in _all_started:
        _all_started.remove(resident.process)


@functools.lru_cache(maxsize=4096)
def _assignment(key: str, value: str) -> bytes:
    """KEY=VALUE as the launcher takes it. Cached: exec sends the same environment with every run
    (but its HYPERFINE_ITERATION), and encoding it afresh cost ~0.05 ms a run."""
    return os.fsencode(key) + b"=" + os.fsencode(value)


def _request(argv: list[str], timeout_s: float, memory_limit_kb: int | None, env: dict[str, str] | None,
             cwd: str | None, protocol: bool, echo: int, user: BenchUser | None = None,
             feed: list[int] | None = None, hide: list[str] | tuple = (),
             policy: FeedPolicy | None = None, writable: list[str] | tuple = ()) -> bytes:
    """One run's request in the launcher's format (launcher.c): NUL-terminated fields after
    their total length. The environment and directory are sent whole with every run, so a
    launcher started earlier runs each command as a fresh Popen would. `feed`: protocol 3's
    variants, written one per line as the process asks (`policy`: when to stop, protocol 4); `hide`:
    paths the command must not see; `writable`: for a build or a runtime's own tests, the only
    paths it may write (launcher.c's seal_writer; only beside `hide`)."""
    assignments = ((k + b"=" + v for k, v in os.environb.items()) if env is None
                   else (_assignment(k, v) for k, v in env.items()))
    numbers = [int(timeout_s * 1000), int(memory_limit_kb or 0), SAMPLE_MS, int(protocol), int(echo),
               MAX_STDOUT_BYTES, MAX_LINE_BYTES, MAX_STDOUT_LINES, MAX_LINE_BYTES, STDERR_TAIL_BYTES,
               user.uid if user else -1, user.gid if user else -1]
    feed_field = (policy.field(feed) if policy is not None and feed else " ".join(str(int(v)) for v in feed or ()))
    fields = [str(n).encode() for n in numbers] + [
              feed_field.encode(), "\n".join(map(str, hide)).encode(), "\n".join(map(str, writable)).encode(),
              os.fsencode(cwd or os.getcwd()), str(len(argv)).encode(),
              *map(os.fsencode, argv), str(len(os.environb if env is None else env)).encode(), *assignments]
    payload = b"\0".join(fields) + b"\0"
    if payload.count(b"\0") != len(fields):    # one pass in C rather than one per field
        raise ValueError("embedded null byte")
    return b"%010d" % len(payload) + payload


class _Answer:
    """Reads the launcher's frames ("TAG LENGTH\n" + bytes) from its stdout, sleeping in select
    until each arrives or the deadline passes."""

    def __init__(self, fd: int, deadline: float):
        self.fd, self.deadline, self.buffer = fd, deadline, bytearray()

    def _more(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            raise TimeoutError
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            raise EOFError
        self.buffer += chunk

    def frame(self) -> tuple[str, bytes]:
        while (end := self.buffer.find(b"\n")) < 0:
            self._more()
        tag, _, length = bytes(self.buffer[:end]).decode().partition(" ")
        size = end + 1 + int(length)
        while len(self.buffer) < size:
            self._more()
        payload = bytes(self.buffer[end + 1:size])
        del self.buffer[:size]
        return tag, payload


def run_measured(argv: list[str], timeout_s: float, memory_limit_kb: int | None = None,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 protocol: bool = True, echo_stdout=None, user: BenchUser | None = None,
                 feed: list[int] | None = None, hide: list[str] | tuple = (),
                 policy: FeedPolicy | None = None, writable: list[str] | tuple = (),
                 discard_stdout: bool = False) -> Finished:
    """Run argv to completion (or until timeout_s), returning its output and measurements.

    protocol=True keeps stdout's lines (capped); False only digests them (exec of any command).
    While it runs the harness sleeps in one read of the launcher's answer. KeyboardInterrupt
    (and the SIGTERM/SIGHUP the CLI turns into it) stops the launcher, which kills the whole
    tree, before it propagates. `user`: the user the launcher makes the command (None: its own).
    `feed`, `hide`, `policy` and `writable`: protocols 3 and 4 and the seal (see _request).
    `discard_stdout`: the command's stdout is /dev/null, never read (exec's --output=null).
    """
    echo = 2 if discard_stdout else int(echo_stdout is not None)
    request = _request(argv, timeout_s, memory_limit_kb, env, cwd, protocol, echo, user,
                       feed, hide, policy, writable)
    resident = _resident()
    started = time.perf_counter_ns()
    frames: dict[str, bytes] = {}
    cgroups: list[str] = []
    try:
        resident.process.stdin.write(request)
        answer = _Answer(resident.process.stdout.fileno(), time.monotonic() + timeout_s + GRACE_S)
        while "result" not in frames:
            tag, payload = answer.frame()
            if tag == "cgroup":
                cgroups.append(payload.decode(errors="replace"))
            elif tag == "echo":
                echo_stdout(payload)
            else:
                frames[tag] = payload
    except (OSError, EOFError, TimeoutError, ValueError):
        # The launcher died (a benchmark may kill it) or is stuck (stopped?): end it all.
        _end(resident, cgroups, signal.SIGKILL)
    except BaseException:
        _end(resident, cgroups, signal.SIGTERM)
        raise
    finished = _finished(frames, started)
    _Tally.runs += 1
    _Tally.wall_ns += finished.wall_ns
    return finished


def _end(resident: _Resident, cgroups: list[str], sig: int) -> None:
    """A launcher that will serve no more runs: SIGTERM asks it to kill its run's tree first,
    then it and whatever is left in the run's cgroups are killed for sure."""
    _discard(resident)
    process = resident.process
    process.stdout.close()               # an answer nobody reads must not block its writer
    _signal(process.pid, sig)
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        _signal(process.pid, signal.SIGKILL, group=True)
        process.wait()
    process.stdin.close()
    kill_cgroups([path for path in cgroups if path.startswith("/sys/fs/cgroup/") and ".." not in path]
                 + _made_by(process.pid))


def _made_by(launcher_pid: int) -> list[str]:
    """The cgroups left by a launcher that was killed (launcher.c names them after its pid): its
    next runs' too, which it empties and removes itself when it ends in any other way."""
    own = [line.split(":", 2) for line in Path("/proc/self/cgroup").read_text().splitlines() if line.count(":") >= 2]
    memory = next((path for _, controllers, path in own if controllers == "memory"), None)
    patterns = [f"/sys/fs/cgroup/parbench/{launcher_pid}-*", f"/sys/fs/cgroup/unified/parbench/{launcher_pid}-*"]
    if memory is not None:
        patterns.append(f"/sys/fs/cgroup/memory{'' if memory == '/' else memory}/parbench-{launcher_pid}-*")
    patterns.append(f"/sys/fs/cgroup/*cpuacct*/**/parbench-cpu-{launcher_pid}-*")
    return [path for pattern in patterns for path in glob.glob(pattern, recursive=True)]


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


def _signal(pid: int, sig: int, group: bool = False) -> None:
    try:
        os.killpg(pid, sig) if group else os.kill(pid, sig)
    except ProcessLookupError:
        pass


STDOUT_PROBLEMS = {
    "bytes": f"stdout exceeded {MAX_STDOUT_BYTES >> 20} MiB (the protocol prints one short JSON line per repetition)",
    "line": f"a stdout line exceeded {MAX_LINE_BYTES >> 20} MiB",
    "lines": f"stdout exceeded {MAX_STDOUT_LINES:,} lines (the protocol prints one line per repetition)",
}


def _finished(frames: dict[str, bytes], started: int) -> Finished:
    try:
        measured = json.loads(frames.get("result", b"{}"))
    except ValueError:
        measured = {}
    if not measured:     # the launcher itself died: the harness's own view, marked as such
        measured = {"wall_ns": time.perf_counter_ns() - started, "status": 9, "memory_method": "none",
                    "launcher_failed": True}
    problem = STDOUT_PROBLEMS.get(measured.get("stdout_problem") or "")
    status = measured.get("status", 0)
    timed_out = bool(measured.get("timed_out")) or measured.get("launcher_failed", False)
    stopped = bool(measured.get("stopped_by_signal")) or problem is not None
    memory = {k: measured.get(k) for k in ("memory_method", "sample_ms", "samples", "tree_peak_pss_kb",
                                           "pss_samples", "cgroup_peak_kb", "memory_limit_kb", "limit_method",
                                           "leftover")
              if measured.get(k) not in (None, -1)}
    max_rss = int(measured.get("max_rss_kb", 0))
    lines, times = _lines(frames) if problem is None else ([], [])
    return Finished(
        stdout_lines=lines, stdout_times=times,
        stdout_digest=measured.get("stdout_digest") or hashlib.sha256(b"").hexdigest(), stdout_problem=problem,
        stdout_head=frames.get("head", b"").decode(errors="replace"),
        stderr=frames.get("stderr", b"").decode(errors="replace"),
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) and not (timed_out or stopped) else None,
        timed_out=timed_out, wall_ns=int(measured.get("wall_ns", 0)),
        user_ns=int(measured.get("user_ns", 0)), sys_ns=int(measured.get("sys_ns", 0)),
        max_rss_kb=max_rss, voluntary_switches=int(measured.get("nvcsw", 0)),
        involuntary_switches=int(measured.get("nivcsw", 0)),
        signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        tree_peak_rss_kb=max(int(measured.get("tree_peak_rss_kb", 0)), max_rss), memory=memory,
        out_of_memory=bool(measured.get("out_of_memory")), machine_load=_machine_load(measured),
        fed_ns=[int(t) for t in frames.get("fed", b"").split()], threads=_snapshots(frames.get("threads", b"")),
        cpu_method=str(measured.get("cpu_method", "")), hidden=bool(measured.get("hidden")),
        stdout_bytes=int(measured.get("stdout_bytes", 0)), launcher_cpu_ns=int(measured.get("launcher_cpu_ns", 0)),
        **_feed_end(frames))


def _feed_end(frames: dict[str, bytes]) -> dict:
    """The launcher's "steady", "protocol" and "series" frames (protocol 4)."""
    verdict, first_timed, seen = (frames.get("steady", b"").decode(errors="replace").split() + ["", "0", "0"])[:3]
    return {"feed_verdict": verdict, "first_timed": int(first_timed) if first_timed.isdigit() else 0,
            "repetitions_seen": int(seen) if seen.isdigit() else 0,
            "protocol_problem": frames.get("protocol", b"").decode(errors="replace"),
            "launcher_series": [int(v) for v in frames.get("series", b"").split()]}


def _snapshots(text: bytes) -> list[ThreadSnapshot]:
    """The launcher's "threads" frame: one line per stdout line,
    `at tree_cpu [peak=N] [forks=N] [wait=N] pid.tid:ns[:delay] …`."""
    snapshots = []
    for line in text.decode(errors="replace").splitlines():
        at, tree, *threads = line.split()
        found, waits, counts = {}, {}, {}
        for entry in threads:
            if entry.startswith(("peak=", "forks=", "wait=")):
                key, _, value = entry.partition("=")
                counts[key] = int(value)
                continue
            ids, _, times = entry.partition(":")
            pid, _, tid = ids.partition(".")
            ns, _, delay = times.partition(":")
            found[(int(pid), int(tid))] = int(ns)
            if delay:
                waits[(int(pid), int(tid))] = int(delay)
        snapshots.append(ThreadSnapshot(int(at), int(tree) if int(tree) >= 0 else None, found,
                                        counts.get("peak"), counts.get("forks"), waits, counts.get("wait")))
    return snapshots


def _machine_load(measured: dict) -> dict:
    busy, steal, wall = (measured.get(k, -1) for k in ("machine_busy_ns", "machine_steal_ns", "wall_ns"))
    if busy < 0 or steal < 0 or wall <= 0:
        return {}
    others = max(0, busy - measured.get("user_ns", 0) - measured.get("sys_ns", 0))
    return {"steal_ns": steal, "others_cores": round(others / wall, 3)}


def _lines(frames: dict[str, bytes]) -> tuple[list[str], list[int]]:
    """The kept stdout's lines (an unfinished last one included) and when each arrived, as the
    launcher stamped them."""
    text = frames.get("stdout", b"")
    if not text:
        return [], []
    lines = text.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    times = [int(t) for t in frames.get("times", b"").split()]
    return [line.decode(errors="replace") for line in lines], times[:len(lines)]
