"""The Dask cluster the `dask` models run on: started for the process from Dask's own command-line
entry points (a scheduler and one-thread workers on 127.0.0.1), or the user's own (--scheduler)."""
from __future__ import annotations

import contextlib
import ctypes
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .protocol import Param, RunFailed, Session, processes_cpu_ns

CONNECT_TIMEOUT_S = 10.0    # default of --connect-timeout: reaching a scheduler that is already running
START_TIMEOUT_S = 120.0     # our own cluster: processes start, import distributed and register
KILLED_WORKER_WAIT_S = 2.0  # how long a KilledWorker waits to see which of our processes ended, and how
STOP_TIMEOUT_S = 5.0        # a process that has not ended this long after SIGTERM gets SIGKILL
FOLDER_PREFIX = "parbench-dask-"   # + the run's pid: the cluster's logs, scheduler file and scratch space
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # workers import parbench_py from here
# A task whose worker dies is an error, not silently re-run elsewhere: the case would otherwise
# report a time measured on fewer workers than it says.
CLUSTER_ENVIRONMENT = {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}

PARAMS = (
    Param("scheduler", str, ""),             # tcp://HOST:PORT of a running cluster; "" starts one
    Param("connect_timeout", float, CONNECT_TIMEOUT_S),
)


def available() -> bool:
    """Whether the dask models can run here (imported only when a dask model runs)."""
    import importlib.util
    return importlib.util.find_spec("distributed") is not None


NOTE = ("on a distributed.Client: by default a cluster started for the process from Dask's own "
        "command-line entry points (python -m distributed.cli.dask_scheduler and one dask_worker per "
        "--workers, --nthreads 1 --no-nanny, 127.0.0.1 only, no dashboard), once per process, before the "
        "ready line (its start_ns); --scheduler tcp://HOST:PORT uses a running cluster instead "
        "(extra.cluster = remote, its memory is not measured). ns covers submitting the tasks, the work "
        "and gathering the results into the caller. A worker that dies fails the run")
# Protocol 3: the cluster is a service the process connects to once, as a Dask user keeps one.
STARTS = {"warm": "the cluster (a scheduler and W one-thread worker processes, or the --scheduler one), "
                  "connected and every worker thread run once before the ready line; each repetition submits "
                  "its tasks and gathers them"}
START_UNAVAILABLE = {"cold": "a Dask cluster is started once and kept (a --scheduler cluster is not this process's "
                             "to start at all); starting one per repetition (processes importing distributed for "
                             "seconds) is not how Dask is used"}


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the parent dies, even by SIGKILL (Linux prctl)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass
class DaskSession(Session):
    """A connected client and what the run must know about its cluster."""
    client: Any
    workers_at_start: frozenset[str]
    extra: dict[str, Any] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)   # our workers, by address
    scheduler_process: subprocess.Popen | None = None

    @property
    def threads(self) -> int:
        return self.extra["cluster_threads"]

    def workers_cpu_ns(self) -> int:
        """Our own cluster's processes (a --scheduler cluster's are not ours to read: 0)."""
        ours = [*self.processes.values(), *([self.scheduler_process] if self.scheduler_process else [])]
        return processes_cpu_ns(process.pid for process in ours)

    def check(self) -> None:
        lost = self.lost()
        if lost:
            raise RunFailed(_sentence(*lost[0]))

    def lost(self) -> list[tuple[str, str]]:
        """(what is gone, how it ended) for every worker (or the scheduler) of the run that is gone."""
        if self.scheduler_process is not None:   # our own cluster: its processes say it
            lost = [(f"dask worker {address} died during the run", _how_it_ended(process))
                    for address, process in self.processes.items() if process.poll() is not None]
            if self.scheduler_process.poll() is not None:
                lost.append(("the dask scheduler died during the run", _how_it_ended(self.scheduler_process)))
            return lost
        present = set(self.client.scheduler_info(n_workers=-1)["workers"])
        return [(f"dask worker {address} left the cluster during the run", "")
                for address in sorted(self.workers_at_start - present)]

    def map(self, function: Callable, *iterables) -> list:
        """One task per item, each answering (its worker's address, start, end, function(*item)); never cached."""
        count = len(iterables[0])
        if count == 0:
            return []
        return self.client.map(on_worker, [function] * count, *iterables, pure=False)

    def gather_counted(self, futures: list):
        """parallel.Gathered: the results in submission order, how many distinct dask workers ran
        them, and each task's busy interval on its worker."""
        from .parallel import gather_timed
        return gather_timed(self.client.gather(futures) if futures else [])


def on_worker(function: Callable, *args) -> tuple[str, int, int, Any]:
    """(the worker's address, start, end, function(*args)): the task's busy interval read on the
    worker with time.monotonic_ns, which on one machine (the local cluster) is the caller's clock."""
    from distributed import get_worker
    from .parallel import timed
    return timed(get_worker().address, function, *args)


def _lost(session: DaskSession) -> list[tuple[str, str]]:
    try:
        return session.lost()
    except Exception:   # noqa: BLE001 — a remote scheduler that no longer answers cannot say who is gone
        return []


def _sentence(what: str, *details: str) -> str:
    shown = "; ".join(detail for detail in details if detail)
    return f"{what} ({shown})" if shown else what


def _how_it_ended(process: subprocess.Popen) -> str:
    code = process.returncode
    if code is not None and code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit {code}"


def _spawn(argv: list[str], log_path: str) -> subprocess.Popen:
    environment = {**os.environ, **CLUSTER_ENVIRONMENT,
                   "PYTHONPATH": os.pathsep.join(filter(None, [PACKAGE_ROOT, os.environ.get("PYTHONPATH")]))}
    with open(log_path, "wb") as log:   # never our stdout: it carries the JSON lines
        return subprocess.Popen([sys.executable, "-m", *argv], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=environment, preexec_fn=_die_with_parent)


def _last_line(log_path: str) -> str:
    try:
        with open(log_path, "rb") as log:
            lines = [line.strip() for line in log.read().decode(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return f"; its log ends: {lines[-1][:300]}" if lines else ""


@dataclass
class _LocalCluster:
    """The processes of the cluster started for this run, and where their logs go."""
    folder: str
    scheduler: subprocess.Popen | None = None
    workers: list[subprocess.Popen] = field(default_factory=list)

    @property
    def scheduler_file(self) -> str:
        return os.path.join(self.folder, "scheduler.json")

    def log(self, name: str) -> str:
        return os.path.join(self.folder, f"{name}.log")

    def start(self, workers: int) -> None:
        self.scheduler = _spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                 "--no-dashboard", "--dashboard-address", "127.0.0.1:0",
                                 "--scheduler-file", self.scheduler_file], self.log("scheduler"))
        # Workers start at once and wait for the scheduler's file, so their imports overlap.
        for index in range(workers):
            self.workers.append(_spawn([
                "distributed.cli.dask_worker", "--scheduler-file", self.scheduler_file,
                "--name", f"parbench-{index}", "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
                "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--memory-limit", "0",
                "--local-directory", self.folder, "--death-timeout", "60"], self.log(f"worker-{index}")))

    def failed_process(self) -> str | None:
        """A sentence for the first cluster process that has already exited, if any."""
        if self.scheduler.poll() is not None:
            return f"the dask scheduler exited during start-up ({_how_it_ended(self.scheduler)}{_last_line(self.log('scheduler'))})"
        for index, process in enumerate(self.workers):
            if process.poll() is not None:
                return (f"dask worker parbench-{index} exited during start-up "
                        f"({_how_it_ended(process)}{_last_line(self.log(f'worker-{index}'))})")
        return None

    def stop(self) -> None:
        """Every process ended: SIGTERM, then SIGKILL for any still there after STOP_TIMEOUT_S.
        The workers go first and the scheduler once they are gone: a worker told to stop while
        its scheduler is going too sometimes hangs in its goodbye to it until the SIGKILL (3 of 9
        processes took the 5 s; 0 of 12 with the workers first, 2-core VM, 2026-11-28), which
        cost the quick suite about 25 s."""
        for group in (self.workers, [self.scheduler] if self.scheduler is not None else []):
            for process in group:
                if process.poll() is None:
                    process.terminate()
            deadline = time.monotonic() + STOP_TIMEOUT_S
            for process in group:
                try:
                    process.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _wait_until(deadline: float, ready: Callable[[], Any], failed: Callable[[], str | None],
                waiting_for: Callable[[], str]) -> Any:
    """Polls ready() until it answers something truthy, a process fails, or the deadline passes."""
    while True:
        answer = ready()
        if answer:
            return answer
        failure = failed()
        if failure:
            raise RunFailed(failure)
        if time.monotonic() > deadline:
            raise RunFailed(f"the dask cluster did not start within {START_TIMEOUT_S:g} s: {waiting_for()}")
        time.sleep(0.05)


def _scheduler_address(cluster: _LocalCluster) -> str | None:
    try:
        with open(cluster.scheduler_file) as file:
            return json.load(file)["address"]
    except (OSError, ValueError, KeyError):
        return None   # not written yet (or half written)


def _connect(address: str, timeout_s: float):
    import logging

    from distributed import Client
    # The client's own warnings (a lost connection while a dead worker is being reported) would
    # bury the one line that says what happened.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=timeout_s, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise RunFailed(f"dask scheduler {address} could not be reached within {timeout_s:g} s "
                        f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})") from None


def _cluster_extra(client, kind: str, started_ns: int) -> tuple[dict[str, Any], frozenset[str]]:
    import dask
    import distributed
    workers = client.scheduler_info(n_workers=-1)["workers"]
    extra = {"cluster": kind, "cluster_start_ns": started_ns, "cluster_workers": len(workers),
             "cluster_threads": sum(worker["nthreads"] for worker in workers.values()),
             "dask_version": dask.__version__, "distributed_version": distributed.__version__}
    return extra, frozenset(workers)


def _remove_folders_of_dead_runs() -> None:
    """The logs of a run that was killed (SIGKILL leaves no time to tidy): its pid is in the name."""
    for folder in glob.glob(os.path.join(tempfile.gettempdir(), f"{FOLDER_PREFIX}*-*")):
        pid = os.path.basename(folder)[len(FOLDER_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(folder, ignore_errors=True)


def _workers_by_address(client, cluster: _LocalCluster) -> dict[str, subprocess.Popen]:
    """Our worker processes by the address each registered with (its --name says which is which)."""
    by_name = {info["name"]: address for address, info in client.scheduler_info(n_workers=-1)["workers"].items()}
    for index in range(len(cluster.workers)):
        if f"parbench-{index}" not in by_name:   # registered, then gone before the first repetition
            raise RunFailed(cluster.failed_process() or f"dask worker parbench-{index} left during start-up")
    return {by_name[f"parbench-{index}"]: process for index, process in enumerate(cluster.workers)}


def _run_every_worker_thread(client) -> None:
    """A no-op task per thread of every worker: a worker starts its executor's threads at its
    first tasks, which would otherwise be inside the first repetition (protocol 3's warm start)."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    futures = [client.submit(int, pure=False, workers=[address], allow_other_workers=False)
               for address, info in workers.items() for _ in range(info["nthreads"])]
    client.gather(futures)


@contextlib.contextmanager
def _local_session(workers: int) -> Iterator[DaskSession]:
    started = time.perf_counter_ns()
    _remove_folders_of_dead_runs()
    cluster = _LocalCluster(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-"))
    client = None
    try:
        cluster.start(workers)
        deadline = time.monotonic() + START_TIMEOUT_S
        address = _wait_until(deadline, lambda: _scheduler_address(cluster), cluster.failed_process,
                              lambda: "the scheduler wrote no address")
        client = _connect(address, max(1.0, deadline - time.monotonic()))
        _wait_until(deadline, lambda: len(client.scheduler_info(n_workers=-1)["workers"]) >= workers,
                    cluster.failed_process,
                    lambda: f"{len(client.scheduler_info(n_workers=-1)['workers'])} of {workers} workers registered")
        _run_every_worker_thread(client)
        extra, addresses = _cluster_extra(client, "local", time.perf_counter_ns() - started)
        yield DaskSession(client, addresses, extra, _workers_by_address(client, cluster), cluster.scheduler)
    finally:
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=STOP_TIMEOUT_S)
        cluster.stop()


@contextlib.contextmanager
def _remote_session(address: str, timeout_s: float) -> Iterator[DaskSession]:
    started = time.perf_counter_ns()
    client = _connect(address, timeout_s)
    try:
        _run_every_worker_thread(client)
        extra, addresses = _cluster_extra(client, "remote", time.perf_counter_ns() - started)
        if not addresses:
            raise RunFailed(f"dask scheduler {address} has no workers")
        versions = client.get_versions(check=False)["scheduler"]["packages"]
        extra.update(cluster_distributed_version=versions.get("distributed"), workers=len(addresses),
                     memory="not measured by parbench (the cluster's processes are not this run's)")
        yield DaskSession(client, addresses, extra)
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=STOP_TIMEOUT_S)


@contextlib.contextmanager
def _signals_end_the_session() -> Iterator[None]:
    """SIGTERM and SIGHUP unwind like an exception, so the cluster is torn down on the way out."""
    def stop(signum, _frame):
        raise RunFailed(f"stopped by {signal.Signals(signum).name}; the dask cluster was shut down")
    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def dask_session(params: dict[str, Any], workers: int | None, loaded: Any = None) -> Iterator[DaskSession]:
    """The model's session (protocol.Model.session, its warm start): the cluster for the whole process.

    A fault inside it (a worker killed mid-case) becomes one RunFailed sentence, after the
    cluster is torn down."""
    with _signals_end_the_session():
        opened = (_remote_session(params["scheduler"], params["connect_timeout"]) if params["scheduler"]
                  else _local_session(workers or 1))
        with opened as session:
            try:
                yield session
            except RunFailed:
                raise
            except Exception as error:
                explained = _explained(session, error)
                if explained is error:
                    raise
                raise explained from error


def _explained(session: DaskSession, error: Exception) -> Exception:
    """A dead worker's sentence where one died; any other error stays what it is (a bug shows its traceback)."""
    from distributed.scheduler import KilledWorker
    first_line = str(error).splitlines()[0] if str(error) else ""
    reason = f"{type(error).__name__}: {first_line}"[:300]
    lost = _lost(session)
    # The scheduler may report a KilledWorker before the killed process has ended: wait for it a
    # moment, so the sentence says how it ended (killed by SIGKILL) whichever side noticed first.
    deadline = time.monotonic() + KILLED_WORKER_WAIT_S
    while not lost and isinstance(error, KilledWorker) and time.monotonic() < deadline:
        time.sleep(0.02)
        lost = _lost(session)
    if lost:
        what, how = lost[0]
        return RunFailed(_sentence(what, how, reason))
    if isinstance(error, KilledWorker):
        worker = getattr(error.last_worker, "address", error.last_worker)
        return RunFailed(_sentence(f"dask worker {worker} died during the run", reason))
    return error
