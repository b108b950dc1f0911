"""What every call of an implementation may not see or keep (docs/reliability.md, "Sealed
answers"), in one place: the benchmark processes and the calls around them (`run --list`, the
version command, the build and the runtime's own tests) are sealed the same way.

The launcher does the sealing (launcher.c: own_namespaces, hide_paths, seal_writer,
deny_sealed_calls, drop_root); this module says what to hide, where scratch folders live, what a
call may write and as whom it runs.

Nothing is cleared after a process: the launcher makes the whole machine read-only to a sealed
benchmark but its scratch folder (removed after it), with a /dev/shm and an IPC namespace of its
own, so nothing it writes elsewhere outlives it and there is nothing to clear. Without a
benchmark user (a harness that is not root, or --as-root) there is no such seal, and a benchmark
runs as the harness's own user, whose files in the shared folders cannot be told from its own, so
no clearing could be trusted either; each run's metadata says who ran its benchmarks."""
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
    database's folder exists. Only the folder itself is writable to the benchmark (sealed_process)."""
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


def sealed_process(user: bench_user.BenchUser | None, scratch: Path, hidden: tuple[str, ...]) -> dict:
    """The arguments for run_measured that seal one process of an implementation under root: it
    runs as `user`, with its HOME and TMPDIR in `scratch`, `hidden` out of its sight, and the
    whole machine read-only to it but `scratch` (launcher.c's seal_writer), which the caller
    removes after it. Without a user (a harness that is not root, or --as-root: the process keeps
    root's capabilities and could remount anything) nothing is made read-only."""
    if user is None:
        return {"user": None, "env": None, "hide": hidden}
    return {"user": user, "env": user.take(scratch), "hide": hidden, "writable": (str(scratch),)}


@contextmanager
def sealed_call() -> Iterator[dict]:
    """The arguments for run_measured that seal a call that is not a benchmark process (`run
    --list`) as a benchmark is sealed: the unprivileged user under root, with a HOME and TMPDIR
    of its own that go with the call and are all it may write, and the same hidden paths."""
    try:
        user = bench_user.for_run(as_root=False)
    except bench_user.NoBenchUser:
        user = None                   # the run itself says so; a listing still answers
    scratch = Path(tempfile.mkdtemp(prefix="parbench-call-", dir=scratch_root()))
    try:
        yield sealed_process(user, scratch, sealed_paths())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


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
