"""What every call of an implementation may not see or keep (docs/reliability.md, "Sealed
answers"), in one place: the benchmark processes and the calls around them (`run --list`, the
version command) are sealed the same way.

The launcher does the sealing (launcher.c: hide_paths, deny_file_handles, drop_root); this module
says what to hide, where scratch folders live, as whom a call runs, and clears what a call left
in the machine's shared temporary folders, so that nothing a benchmark writes outlives its
process (a memo of variant → answer for the next one)."""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from parbench.measure import bench_user
from parbench.project import RESULTS_DIR, cache_root


def scratch_root() -> Path:
    """Where each process's scratch folder (its HOME and TMPDIR) is made: the system's temporary
    folder, which every user may traverse. Not inside the project: a clone in a mode-700 folder
    (CI's, a fresh machine's under /tmp) is readable by the benchmark user only through
    CAP_DAC_READ_SEARCH, which access(2) ignores, and better-sqlite3 asks access(2) whether a
    database's folder exists. forget_what_it_left clears what the benchmark user leaves there."""
    return Path(tempfile.gettempdir())


def sealed_paths(db: str = "", journal_dir: Path | None = None) -> tuple[str, ...]:
    """What a benchmark must not read: the oracle's cached answers, every store and journal of
    results/ (earlier runs' checksums are there), and the run's own store wherever it is (a
    SQLite file and its WAL). The launcher hides them in the benchmark's own mount namespace,
    which only root can make: a harness that is not root runs benchmarks as its own user, who
    can read them anyway, and says so in the run's record."""
    if os.geteuid() != 0:
        return ()
    journal_dir = journal_dir or RESULTS_DIR / "journal"
    paths = [cache_root().parent / "oracle", journal_dir, journal_dir.parent]
    if db and "://" not in db:
        store = Path(db.removeprefix("sqlite:")).resolve()
        paths += [store] + [store.with_name(store.name + suffix) for suffix in ("-wal", "-shm", "-journal")]
    return tuple(str(p) for p in paths)


SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")


def forget_what_it_left(user: bench_user.BenchUser | None, folders: tuple[str, ...] = SHARED_FOLDERS) -> list[str]:
    """Removes everything the benchmark user owns at the top of the shared temporary folders,
    after each of its processes (the launcher has killed every one of them by then); returns what
    it removed. That user owns nothing else there: whatever it left is from this call. A harness
    that is not root runs benchmarks as itself and cannot tell theirs from its own: nothing is
    removed, and the run's record says its benchmarks were not sealed."""
    if user is None:
        return []
    removed = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != user.uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
                removed.append(entry.path)
            except OSError:
                pass
    return removed


@contextmanager
def sealed_call() -> Iterator[dict]:
    """The arguments for run_measured that seal a call that is not a benchmark process (`run
    --list`, the version command) as a benchmark is sealed: the unprivileged user under root,
    with a HOME and TMPDIR of its own that go with the call, and the same hidden paths."""
    try:
        user = bench_user.for_run(as_root=False)
    except bench_user.NoBenchUser:
        user = None                   # the run itself says so; a listing still answers
    scratch = Path(tempfile.mkdtemp(prefix="parbench-call-", dir=scratch_root()))
    try:
        yield {"user": user, "env": user.take(scratch) if user else None, "hide": sealed_paths()}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        forget_what_it_left(user)
