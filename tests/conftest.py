"""Shared fixtures: the real parbench CLI run as a subprocess against real implementations."""
from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def parbench(*args: str, root: Path | None = None, env: dict | None = None, timeout: float = 600,
             check: bool = False) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    if root is not None:
        full_env["PARBENCH_ROOT"] = str(root)
    done = subprocess.run([sys.executable, "-m", "parbench", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        raise AssertionError(f"parbench {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done



def default_sigint() -> None:
    """preexec_fn for a parbench a test interrupts: a runner started by a script with `&` hands
    its children SIGINT ignored; the child gets Ctrl-C's default back, as a terminal gives it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def under_ci() -> bool:
    """CI=true (as CI services set it): scripts/setup has installed every part a test needs."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(found: object, missing: str) -> None:
    """A test's installable part (PostgreSQL, Chromium, Dask, a runtime…): where `found` is false,
    skip with `missing` as the reason on a developer's machine, and fail under CI=true, where a
    skip would make `make test` green on a machine whose setup failed."""
    if found:
        return
    if under_ci():
        pytest.fail(f"{missing} (CI=true: scripts/setup should have installed it)", pytrace=False)
    pytest.skip(missing)


def require_module(name: str, install: str):
    """The module, imported; else require()'s skip or failure, saying how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        require(False, f"{name} is not importable ({error}); install with: {install}")


POSTGRES_URL = os.environ.get("PARBENCH_TEST_POSTGRES", "postgresql://parbench:parbench@127.0.0.1:5432/parbench")


def require_runtime(runtime) -> None:
    """A runtime of impls/ whose tools are installed (require()d: scripts/setup installs them).
    One its runtime.toml declares `unavailable` here is a plain skip: a decision, not a failed set-up."""
    if runtime.unavailable_reason:
        pytest.skip(f"{runtime.name}: {runtime.unavailable_reason} (runtime.toml's `unavailable`)")
    require(runtime.available, f"{runtime.name}: {runtime.why_unavailable()}")


def require_postgres():
    """psycopg, with the test server answering (require()d: scripts/setup starts it)."""
    psycopg = require_module("psycopg", "pip install -e '.[test]'")
    try:
        psycopg.connect(POSTGRES_URL, connect_timeout=5).close()
    except psycopg.Error as error:
        require(False, f"no PostgreSQL server at {POSTGRES_URL} ({error}); scripts/postgres-up starts one")
    return psycopg


def fresh_postgres_schema(schema: str) -> str:
    """A URL of the test server scoped to a schema made empty for this test."""
    psycopg = require_postgres()
    with psycopg.connect(POSTGRES_URL, connect_timeout=5) as db:
        db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        db.execute(f"CREATE SCHEMA {schema}")
    return POSTGRES_URL + f"?options=-csearch_path%3D{schema}"


def wait_until_stored(db: str, query: str, deadline_s: float = 120) -> None:
    """Until the harness has stored what `query` counts (a state it reports, not a time)."""
    deadline = time.time() + deadline_s
    while time.time() < deadline:
        try:
            if sqlite3.connect(db).execute(query).fetchone()[0] >= 1:
                return
        except sqlite3.Error:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the harness never stored: {query}")

@pytest.fixture
def faulty_project(tmp_path: Path) -> Path:
    """A project root with the real workload specs, the misbehaving runtime and one that is absent."""
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "faulty").symlink_to(FIXTURES / "faulty")
    ghost = root / "impls" / "ghost"
    ghost.mkdir()
    (ghost / "runtime.toml").write_text(
        'name = "ghost"\nrequires = ["ghost-vm-that-is-not-installed"]\nversion = "ghost --version"\n'
        'install = "apt-get install -y ghost-vm"\n')
    return root


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "results.sqlite")


def project_with(root: Path, *runtimes: str) -> Path:
    """A project root at `root` with the real workload specs and the named fixture runtimes."""
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    for runtime in runtimes:
        (root / "impls" / runtime).symlink_to(FIXTURES / runtime)
    return root


@pytest.fixture(scope="session")
def warming_run(tmp_path_factory) -> tuple[Path, str, subprocess.CompletedProcess]:
    """One run of tests/fixtures/warming (flat, warm-up, slowdown, never settles) at n = 100, two
    processes and a 0.5 s warm-up budget, its JSON export on stdout: the steady-state and the
    first-run tests read the same measurement. Returns the project root, the store and the run."""
    root = project_with(tmp_path_factory.mktemp("warming"), "warming")
    db = str(root / "results.sqlite")
    done = parbench("run", "--workload", "spawn-chain", "--runtime", "warming", "--scale", "quick", "--processes", "2",
                    "--warmup-budget", "0.5", "--param", "n=100", "--db", db, "--export-json", "-", root=root,
                    env={"COLUMNS": "300"}, check=True)
    return root, db, done


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


@contextlib.contextmanager
def advise_panel(page_path: Path, workload: str):
    """An HTML report's advise panel in the real headless Chromium the setup installs, offline,
    with `workload` chosen: the page, and the list of its script errors and of every request that
    leaves the file (a test asserts it stays empty)."""
    sync_api = require_module("playwright.sync_api", "pip install -e '.[test]'")
    require(Path(CHROMIUM).exists(), f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("request", lambda r: problems.append(r.url) if not r.url.startswith("file:") else None)
            page.goto(page_path.as_uri())
            page.select_option("#advise-form select[name=workload]", label=workload)
            yield page, problems
        finally:
            browser.close()


@pytest.fixture
def hostile_project(tmp_path: Path) -> Path:
    """A project root with the real workload specs and the runtime that attacks the harness."""
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "hostile").symlink_to(FIXTURES / "hostile")
    return root


@contextlib.contextmanager
def small_tmpfs(mount: Path, size: str):
    """A tmpfs of `size` mounted at `mount` (made here) for the test's length: a disk that fills.
    Needs root, as the tests of a full disk do; unmounted lazily if something still holds it."""
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True)
    assert mounted.returncode == 0, f"cannot mount a small tmpfs (the test needs root): {mounted.stderr}"
    try:
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill_disk(folder: Path) -> None:
    """Writes a file into `folder` until its file system says it is full."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)

