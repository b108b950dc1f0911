"""What every call of an implementation may not see or keep (docs/reliability.md, "Sealed
answers"), in one place: the benchmark processes and the calls around them (`run --list`, the
version command, the build and the runtime's own tests) are sealed the same way.

The launcher does the sealing (launcher.c: hide_paths, deny_file_handles, drop_root); this module
says what to hide, where scratch folders live, as whom a call runs, and clears what a call left
in the machine's shared temporary folders, so that nothing a benchmark writes outlives its
process (a memo of variant → answer for the next one)."""
from __future__ import annotations

import os
import stat
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


# Where the package registries keep what a build fetches, under the harness's HOME (each tool's
# default) or where its variable points: a build writes these and its own folder, nothing else.
REGISTRY_CACHES = (".cargo", "go", ".cache", ".m2", ".npm", ".mix", ".hex", ".gem", ".bundle")
REGISTRY_CACHE_VARIABLES = ("CARGO_HOME", "GOPATH", "GOMODCACHE", "GOCACHE", "npm_config_cache", "MIX_HOME",
                            "HEX_HOME", "GEM_HOME", "BUNDLE_PATH")


def registry_caches() -> list[Path]:
    """The caches a build may write, made where missing (the folders above the registries' own
    must stay read-only, so a build could not make them itself)."""
    home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
    caches = [home / name for name in REGISTRY_CACHES]
    caches += [Path(os.environ[v]) for v in REGISTRY_CACHE_VARIABLES if os.environ.get(v, "").startswith("/")]
    # Maven's local repository moves only by a system property, often given in MAVEN_OPTS.
    caches += [Path(option.split("=", 1)[1]) for option in os.environ.get("MAVEN_OPTS", "").split()
               if option.startswith("-Dmaven.repo.local=/")]
    for cache in caches:
        cache.mkdir(parents=True, exist_ok=True)
    return caches


def secrets_beside(paths: tuple[str, ...]) -> tuple[str, ...]:
    """What a call that keeps the harness's user must not read on top of a benchmark's hidden
    paths: the store's password files (PGPASSFILE, ~/.pgpass) and every block device (root owns
    them: the raw disk holds every hidden file)."""
    extra = [os.environ.get("PGPASSFILE", ""), os.path.expanduser("~/.pgpass")]
    try:
        extra += [entry.path for entry in os.scandir("/dev")
                  if stat.S_ISBLK(entry.stat(follow_symlinks=False).st_mode)]
    except OSError:
        pass
    return paths + tuple(p for p in extra if p and os.path.lexists(p))


def can_seal() -> bool:
    """Only root makes the mount namespace every seal stands on."""
    return os.geteuid() == 0


UNSEALED = ("builds and the runtimes' own tests run unsealed: parbench is not root, so it cannot "
            "hide its answers from them in a mount namespace of their own (docs/reliability.md)")


@contextmanager
def sealed_build(folder: Path) -> Iterator[dict]:
    """The arguments for run_measured that seal a runtime's build or its own tests: the harness's
    user (they write the registries' caches and their folder, which it owns) without any
    capability, every path a benchmark may not read hidden, the whole machine read-only but
    `folder`, the caches and a TMPDIR of the call's own, removed after it, and a /dev/shm of its
    own (launcher.c's seal_writer): /tmp itself is read-only, so nothing the call writes there
    waits for its benchmark. The harness's secrets stay out of its environment. Not root:
    unsealed (UNSEALED says so)."""
    env = {k: v for k, v in os.environ.items() if k not in bench_user.HARNESS_SECRETS}
    if not can_seal():
        yield {"env": env}
        return
    # Inside its folder: on the same mount as its outputs, so that a compiler's rename from its
    # temporary folder into them (rustc's) is no cross-device link.
    scratch = Path(tempfile.mkdtemp(prefix=".parbench-tmp-", dir=folder.resolve()))
    try:
        yield {"env": {**env, "TMPDIR": str(scratch)}, "hide": secrets_beside(sealed_paths()),
               "writable": tuple(str(p) for p in [folder.resolve(), *registry_caches()])}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
