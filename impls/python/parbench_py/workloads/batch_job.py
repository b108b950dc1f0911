"""batch-job: re-align each pending document's annotations (LCS, CPU) and store them in one transaction (I/O)."""
from __future__ import annotations

import contextlib
import json
import multiprocessing.util
import os
import queue
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from typing import Iterator

from .. import dask_cluster, parallel
from ..digest import order_free_digest
from ..protocol import Job, LimitReached, Model, Outcome, Param, Workload

Span = tuple[int, int, str]


# The alignment of docs/workloads/batch-job.md, step 2, in plain Python: written from the spec's
# text alone, so that it shares no code with the harness's oracle that checks it.

def suffix_lcs_table(old: bytes, new: bytes) -> list[list[int]]:
    """dp[i][j] = LCS(old[i:], new[j:]): the length of the longest common subsequence of the two
    suffixes; the row and column past the end are 0 (an empty suffix has nothing in common)."""
    dp = [[0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(len(old) - 1, -1, -1):
        row, next_row, byte = dp[i], dp[i + 1], old[i]
        for j in range(len(new) - 1, -1, -1):
            if byte == new[j]:
                row[j] = next_row[j + 1] + 1
            elif next_row[j] >= row[j + 1]:   # the larger of the two neighbours, without a call per cell
                row[j] = next_row[j]
            else:
                row[j] = row[j + 1]
    return dp


def walk_matches(old: bytes, new: bytes, dp: list[list[int]]) -> dict[int, int]:
    """i -> j for every byte the walk from (0, 0) matches: equal bytes match and step both;
    otherwise step i when dp[i+1][j] >= dp[i][j+1] (ties go to i), else step j."""
    matched: dict[int, int] = {}
    i = j = 0
    while i < len(old) and j < len(new):
        if old[i] == new[j]:
            matched[i] = j
            i, j = i + 1, j + 1
        elif dp[i + 1][j] >= dp[i][j + 1]:
            i += 1
        else:
            j += 1
    return matched


def offset_map(old: bytes, new: bytes) -> list[int]:
    """M: M[len(old)] = len(new); from the end down, M[i] is the byte of `new` that byte i of
    `old` matched, or M[i+1] where it matched none."""
    matched = walk_matches(old, new, suffix_lcs_table(old, new))
    mapped = [0] * (len(old) + 1)
    mapped[len(old)] = len(new)
    for i in range(len(old) - 1, -1, -1):
        mapped[i] = matched.get(i, mapped[i + 1])
    return mapped


def align(old: bytes, new: bytes, spans: list[Span]) -> list[Span]:
    """Each span [b, e) becomes [M[b], M[e]); one with M[b] >= M[e] is dropped."""
    mapped = offset_map(old, new)
    moved = [(mapped[begin], mapped[end], label) for begin, end, label in spans]
    return [(begin, end, label) for begin, end, label in moved if begin < end]


# The reset of docs/protocol.md (batch-job), run before every repetition but the process's first,
# in one transaction on one connection: the job's tables back to the pristine copies' rows.
RESET_STATEMENTS = (
    "DELETE FROM annotations",
    "INSERT INTO annotations (doc_id, span_begin, span_end, label) "
    "SELECT doc_id, span_begin, span_end, label FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label",
    "DELETE FROM documents",
    "INSERT INTO documents (doc_id, length, annotation_count, status) "
    "SELECT doc_id, length, annotation_count, status FROM pristine_documents",
)


class Database:
    """The job's few statements on one connection, SQLite (stdlib sqlite3) or PostgreSQL (psycopg 3)."""

    def __init__(self, url: str):
        if url.startswith(("postgresql://", "postgres://")):
            import psycopg  # only needed for PostgreSQL runs
            self.connection = psycopg.connect(url, autocommit=True)
            self.placeholder, self.begin = "%s", None
        elif url.startswith("sqlite:"):
            path = sqlite_path(url)
            # isolation_level=None: we issue BEGIN ourselves. timeout is the busy timeout, so
            # concurrent writers wait for each other instead of failing.
            self.connection = sqlite3.connect(path, timeout=600, isolation_level=None,
                                              check_same_thread=False)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=FULL")
            # IMMEDIATE takes the write lock up front: a deferred transaction that upgrades
            # from read to write can fail with SQLITE_BUSY without waiting in WAL mode.
            self.placeholder, self.begin = "?", "BEGIN IMMEDIATE"
        else:
            raise ValueError(f"--db must be sqlite:PATH or postgresql://…, got {url!r}")

    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.placeholder)

    def pending_doc_ids(self) -> list[int]:
        rows = self.connection.execute(
            "SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id").fetchall()
        return [doc_id for (doc_id,) in rows]

    def annotations(self, doc_id: int) -> list[Span]:
        return [tuple(row) for row in self.connection.execute(
            self._sql("SELECT span_begin, span_end, label FROM annotations WHERE doc_id = ? ORDER BY id"),
            (doc_id,)).fetchall()]

    def replace_annotations(self, doc_id: int, new_length: int, aligned: list[Span]) -> None:
        statements = [
            (self._sql("DELETE FROM annotations WHERE doc_id = ?"), [(doc_id,)]),
            (self._sql("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)"),
             [(doc_id, begin, end, label) for begin, end, label in aligned]),
            (self._sql("UPDATE documents SET length = ?, annotation_count = ?, status = 'aligned' "
                       "WHERE doc_id = ?"), [(new_length, len(aligned), doc_id)]),
        ]
        if self.begin is None:
            with self.connection.transaction(), self.connection.cursor() as cursor:
                for statement, rows in statements:
                    if rows:
                        cursor.executemany(statement, rows)
            return
        self.connection.execute(self.begin)
        try:
            for statement, rows in statements:
                self.connection.executemany(statement, rows)
            self.connection.execute("COMMIT")
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise

    def restore_job(self) -> None:
        """RESET_STATEMENTS in one transaction."""
        if self.begin is None:
            with self.connection.transaction():
                for statement in RESET_STATEMENTS:
                    self.connection.execute(statement)
            return
        self.connection.execute(self.begin)
        try:
            for statement in RESET_STATEMENTS:
                self.connection.execute(statement)
            self.connection.execute("COMMIT")
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise

    def annotation_rows(self) -> list[tuple[int, int, int, str]]:
        return self.connection.execute(
            "SELECT doc_id, span_begin, span_end, label FROM annotations").fetchall()

    def close(self) -> None:
        self.connection.close()


@dataclass(frozen=True)
class DocumentTimes:
    cpu_ns: int
    io_ns: int


def process_document(database: Database, docs_dir: str, doc_id: int) -> DocumentTimes:
    started = time.perf_counter_ns()
    with open(os.path.join(docs_dir, f"{doc_id}.json"), "rb") as file:
        document = json.load(file)
    spans = database.annotations(doc_id)
    read = time.perf_counter_ns()
    old, new = document["old"].encode(), document["new"].encode()
    aligned = align(old, new, spans)
    aligned_at = time.perf_counter_ns()
    database.replace_annotations(doc_id, len(new), aligned)
    written = time.perf_counter_ns()
    return DocumentTimes(cpu_ns=aligned_at - read, io_ns=(read - started) + (written - aligned_at))


def _outcome(job: Job, times: list[DocumentTimes], extra: dict, busy: list | None = None) -> Outcome:
    def checksum() -> str:
        database = Database(job.params["db"])
        try:
            rows = database.annotation_rows()
        finally:
            database.close()
        return order_free_digest(f"{d}:{b}:{e}:{label}".encode() for d, b, e, label in rows)
    extra = {"cpu_ns": sum(t.cpu_ns for t in times), "io_ns": sum(t.io_ns for t in times),
             "db": "postgresql" if job.params["db"].startswith("postgres") else "sqlite", **extra}
    return Outcome(len(times), checksum, extra, busy=busy)


def restore_before_repetition(params: dict, repetition: int) -> None:
    """The process's first repetition finds the fresh database the harness made; every later
    one finds the last one's work, and starts from the pristine rows again."""
    if repetition == 0:
        return
    database = Database(params["db"])
    try:
        database.restore_job()
    finally:
        database.close()


def _pending(url: str) -> list[int]:
    database = Database(url)
    try:
        return database.pending_doc_ids()
    finally:
        database.close()


def run_seq(job: Job) -> Outcome:
    database = Database(job.params["db"])
    try:
        times = [process_document(database, job.params["docs_dir"], doc_id)
                 for doc_id in database.pending_doc_ids()]
    finally:
        database.close()
    return _outcome(job, times, {})


def _units_extra(docs: int, workers_used: int) -> dict:
    """One document is one chunk (docs/workloads/batch-job.md)."""
    return parallel.chunk_extra(1, docs, workers_used)


class ThreadConnections:
    """One connection per pool thread, opened by the thread at its first document (or, warm,
    before the ready line) and closed by the caller once the pool's threads are done with it."""

    def __init__(self, url: str):
        self.url = url
        self.by_thread: dict[int, Database] = {}   # a dict assignment is atomic under the GIL

    def mine(self) -> Database:
        thread = threading.get_ident()
        if thread not in self.by_thread:
            self.by_thread[thread] = Database(self.url)
        return self.by_thread[thread]

    def close(self) -> None:
        for database in self.by_thread.values():
            database.close()
        self.by_thread.clear()


@dataclass
class WarmThreads(parallel.WarmPool):
    """The threads model's warm start: the pool, and the connection each of its threads opened."""
    connections: ThreadConnections | None = None


@contextlib.contextmanager
def _warm_threads(params: dict, workers: int, loaded: None) -> Iterator[WarmThreads]:
    connections = ThreadConnections(params["db"])
    pool = parallel.ThreadPool(workers)
    try:
        pool.start_every_worker().run_chunks(connections.mine, [()] * workers)
        yield WarmThreads(pool, connections=connections)
    finally:
        pool.shutdown()
        connections.close()


def _document_on_pool_thread(connections: ThreadConnections, docs_dir: str, doc_id: int) -> DocumentTimes:
    return process_document(connections.mine(), docs_dir, doc_id)


def run_threads(job: Job) -> Outcome:
    """W threads, each with its own connection, one document a task from the pool's queue."""
    doc_ids = _pending(job.params["db"])
    warm = isinstance(job.session, WarmThreads)
    connections = job.session.connections if warm else ThreadConnections(job.params["db"])
    try:
        with parallel.pool_for(job, lambda: parallel.ThreadPool(job.workers)) as pool:
            ran = pool.run_chunks(_document_on_pool_thread,
                                  [(connections, job.params["docs_dir"], doc_id) for doc_id in doc_ids])
    finally:
        if not warm:
            connections.close()
    return _outcome(job, ran.results,
                    {"switch_interval_s": sys.getswitchinterval(), **_units_extra(len(doc_ids), ran.workers_used)},
                    ran.busy)


# Each pool process's own connection, opened after the fork (a connection must never cross a
# fork) by its first document, or, warm, before the ready line; closed when the process exits.
_process_database: Database | None = None


def _process_database_for(url: str) -> Database:
    global _process_database
    if _process_database is None:
        _process_database = Database(url)
        multiprocessing.util.Finalize(_process_database, _process_database.close, exitpriority=10)
    return _process_database


def _process_document_in_pool(url: str, docs_dir: str, doc_id: int) -> DocumentTimes:
    return process_document(_process_database_for(url), docs_dir, doc_id)


def _open_process_database(url: str) -> None:
    _process_database_for(url)   # the connection stays in the process; nothing goes back


@contextlib.contextmanager
def _warm_processes(params: dict, workers: int, loaded: None) -> Iterator[parallel.WarmPool]:
    pool = parallel.ProcessPool(workers)
    try:
        pool.start_every_worker().run_chunks(_open_process_database, [(params["db"],)] * workers)
        yield parallel.WarmPool(pool)
    finally:
        pool.shutdown()


def run_processes(job: Job) -> Outcome:
    url = job.params["db"]
    doc_ids = _pending(url)
    try:
        with parallel.pool_for(job, lambda: parallel.ProcessPool(job.workers)) as pool:
            ran = pool.run_chunks(_process_document_in_pool,
                                  [(url, job.params["docs_dir"], doc_id) for doc_id in doc_ids])
    except OSError as error:
        raise LimitReached(str(error)) from error
    return _outcome(job, ran.results, {"start_method": "fork", **_units_extra(len(doc_ids), ran.workers_used)},
                    ran.busy)


def _document_on_own_connection(url: str, docs_dir: str, doc_id: int) -> DocumentTimes:
    database = Database(url)
    try:
        return process_document(database, docs_dir, doc_id)
    finally:
        database.close()


def run_thread_per_doc(job: Job) -> Outcome:
    """The seed's Ruby `thread`: one thread per document, all started at once, each with its own connection."""
    done: list[tuple[int, DocumentTimes]] = []
    failures: list[BaseException] = []

    def unit(doc_id: int) -> None:
        try:
            done.append((threading.get_native_id(),
                         _document_on_own_connection(job.params["db"], job.params["docs_dir"], doc_id)))
        except BaseException as error:  # surfaced in the main thread below
            failures.append(error)

    threads = []
    doc_ids = _pending(job.params["db"])
    try:
        for doc_id in doc_ids:
            thread = threading.Thread(target=unit, args=(doc_id,))
            try:
                thread.start()
            except RuntimeError as error:
                raise LimitReached(f"{error} (after {len(threads)} threads)") from error
            threads.append(thread)
    finally:
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]
    workers_used = len({worker for worker, _ in done})
    return _outcome(job, [times for _, times in done],
                    {"switch_interval_s": sys.getswitchinterval(), **_units_extra(len(doc_ids), workers_used)})


def _child_document(sender, url: str, docs_dir: str, doc_id: int) -> None:
    try:
        sender.send(("ok", (os.getpid(), _document_on_own_connection(url, docs_dir, doc_id))))
    except BaseException as error:
        sender.send(("error", f"document {doc_id}: {error!r}"))


def run_process_per_doc(job: Job) -> Outcome:
    """The seed's Ruby `fork`: one forked process per document, all at once, its times back over a pipe."""
    context = parallel.FORK
    children = []
    doc_ids = _pending(job.params["db"])
    for doc_id in doc_ids:
        try:
            receiver, sender = context.Pipe(duplex=False)
            child = context.Process(target=_child_document,
                                    args=(sender, job.params["db"], job.params["docs_dir"], doc_id))
            child.start()
        except OSError as error:  # fork or pipe refused: EAGAIN, ENOMEM, EMFILE
            raise LimitReached(f"{error} (after {len(children)} processes)") from error
        sender.close()
        children.append((child, receiver))
    done = []   # (the child's pid, its document's times)
    for child, receiver in children:
        try:
            status, value = receiver.recv()
        except EOFError:
            child.join()
            if child.exitcode is not None and child.exitcode < 0:
                # Killed by a signal before it could answer: with hundreds of children at once
                # that is the kernel's OOM killer, a memory limit rather than a bug.
                raise LimitReached(f"a document's process was killed by signal {-child.exitcode} "
                                   f"with {len(children)} processes running at once") from None
            raise RuntimeError(f"a document's process exited {child.exitcode} without a result") from None
        child.join()
        receiver.close()
        if status != "ok":
            raise RuntimeError(value)
        done.append(value)
    workers_used = len({worker for worker, _ in done})
    return _outcome(job, [times for _, times in done],
                    {"start_method": "fork", **_units_extra(len(doc_ids), workers_used)})


# A dask worker's connections, one per worker thread (a connection is never shared by two
# threads), opened by its first document and closed by the caller at the end of the run.
_dask_worker_databases: dict[tuple[str, int], Database] = {}


def _document_on_dask_worker(url: str, docs_dir: str, doc_id: int) -> DocumentTimes:
    key = (url, threading.get_ident())
    if key not in _dask_worker_databases:
        _dask_worker_databases[key] = Database(url)
    return process_document(_dask_worker_databases[key], docs_dir, doc_id)


def _close_dask_worker_databases() -> int:
    closed = len(_dask_worker_databases)
    for database in _dask_worker_databases.values():
        database.close()
    _dask_worker_databases.clear()
    return closed


def run_dask(job: Job) -> Outcome:
    """One task per document on the cluster; each does its own transaction from its worker."""
    session, url = job.session, job.params["db"]
    doc_ids = _pending(url)
    futures = session.map(_document_on_dask_worker, [url] * len(doc_ids), [job.params["docs_dir"]] * len(doc_ids),
                          doc_ids)
    ran = session.gather_counted(futures)
    session.client.run(_close_dask_worker_databases)   # every worker's connections, inside ns
    return _outcome(job, ran.results, _units_extra(len(doc_ids), ran.workers_used), ran.busy)


def sqlite_path(url: str) -> str:
    path = url[len("sqlite:"):]
    return path[2:] if path.startswith("//") else path


def database_url(text: str) -> str:
    """sqlite:PATH of an existing file (sqlite3 would quietly make an empty one), or a PostgreSQL URL."""
    if text.startswith(("postgresql://", "postgres://")):
        return text
    if text.startswith("sqlite:") and os.path.isfile(sqlite_path(text)):
        return text
    raise ValueError(text)


database_url.__name__ = "database URL (sqlite:PATH of an existing file, or postgresql://user:pass@host:port/db)"


def docs_directory(text: str) -> str:
    if not os.path.isdir(text):
        raise ValueError(text)
    return text


docs_directory.__name__ = "directory"

PER_DOCUMENT_WARM = ("its units are made per document, as the work list comes: a unit made before the ready "
                     "line would be a pool, which is the bounded model's warm start")
MODELS = {
    "seq": Model("seq", run_seq, note="one connection, documents in doc_id order; SQLite (stdlib sqlite3, "
                                      "WAL, synchronous=FULL) or PostgreSQL (psycopg 3)"),
    "threads": Model("threads", run_threads, workers=True,
                     note="a ThreadPoolExecutor of W threads, each with its own connection, one document a task "
                          "(every thread takes one before any takes a second); the GIL serialises the LCS, "
                          "sqlite3/psycopg release it while waiting on the database; SQLite or PostgreSQL",
                     starts={"cold": "the W threads made in each repetition, each opening its connection at its "
                                     "first document; every thread joined and connection closed before the clock stops",
                             "warm": "the W threads and their W connections made before the ready line; each "
                                     "repetition submits its documents and waits for them"},
                     session=_warm_threads),
    "processes": Model("processes", run_processes, workers=True,
                       note="ProcessPoolExecutor (fork start method, the Linux default in 3.11), one connection per "
                            "process opened after the fork, one document per task; every worker takes one document "
                            "before any takes a second; SQLite or PostgreSQL",
                       starts={"cold": "a fork ProcessPoolExecutor made in each repetition, each process opening its "
                                       "connection at its first document; every process reaped (its connection "
                                       "closed) before the clock stops",
                               "warm": "the W processes and their W connections made before the ready line; each "
                                       "repetition submits its documents and waits for them"},
                       session=_warm_processes),
    "thread-per-doc": Model("threads", run_thread_per_doc,
                            note="the seed's Ruby `thread`: one threading.Thread per document, all started "
                                 "at once (unbounded), each opening its own connection; SQLite or PostgreSQL",
                            starts={"cold": "a thread per document, made, joined and its connection closed in the "
                                            "repetition"},
                            start_unavailable={"warm": PER_DOCUMENT_WARM}),
    "process-per-doc": Model("processes", run_process_per_doc,
                             note="the seed's Ruby `fork`: one multiprocessing.Process (fork) per document, all "
                                  "at once (unbounded), each opening its own connection, its times back over "
                                  "a Pipe; SQLite or PostgreSQL",
                             starts={"cold": "a forked process per document, made and reaped in the repetition"},
                             start_unavailable={"warm": PER_DOCUMENT_WARM}),
}
PARAMS = (Param("docs_dir", docs_directory), Param("db", database_url))
if dask_cluster.available():
    PARAMS += dask_cluster.PARAMS
    MODELS["dask"] = Model(
        "distributed", run_dask, workers=True, session=dask_cluster.dask_session,
        starts=dask_cluster.STARTS, start_unavailable=dask_cluster.START_UNAVAILABLE,
        note=dask_cluster.NOTE + ". One task per document; each worker opens its own connection at its first "
             "document and does the document's transaction itself (the SQLite file or PostgreSQL server must be "
             "reachable from the workers); the caller closes every worker's connections (client.run) inside ns")

# Python has one kernel, the portable one: the spec's LCS suffix table filled cell by cell in plain
# Python (no numpy, no bit-parallel LCS). Nothing engineered exists, so there is no tuned one.
KERNELS = {"portable": "reference, transliterated"}

WORKLOAD = Workload(name="batch-job", params=PARAMS, models=MODELS, kernels=KERNELS,
                    prepare=restore_before_repetition)
