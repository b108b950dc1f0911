"""`parbench build`: runtimes built two at once, each line saying how long it took, a failed build
named with its output's tail, and Ctrl-C ending every build in progress, on every thread."""
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from conftest import REPO, default_sigint, parbench

BUILD = """#!/bin/sh
# A build that marks its start, works for BUILD_SECONDS, and marks its end (the test's own runtime).
here=$(dirname "$0")
date +%s.%N > "$here/started"
python3 -c 'import sys, time; time.sleep(float(sys.argv[1]))' "${BUILD_SECONDS:-1}" "$BUILD_MARK"
date +%s.%N > "$here/ended"
"""


def _project(root: Path, names: list[str], failing: str | None = None) -> Path:
    for name in names:
        folder = root / "impls" / name
        folder.mkdir(parents=True)
        (folder / "runtime.toml").write_text(
            f'name = "{name}"\ntitle = "a build of the tests"\nrequires = ["python3"]\nversion = "echo {name} 1"\n'
            'install = "(part of the test suite)"\napt = []\n')
        script = BUILD if name != failing else "#!/bin/sh\necho 'the compiler said no' >&2\nexit 3\n"
        (folder / "build").write_text(script)
        (folder / "build").chmod(0o755)
    (root / "workloads").symlink_to(REPO / "workloads")
    return root


def test_two_builds_run_at_once_and_a_failure_is_named_with_its_output(tmp_path):
    root = _project(tmp_path / "project", ["one", "two", "three"], failing="three")
    # An empty cache, as on a fresh machine: the two threads' first runs need the launcher compiled.
    done = parbench("build", "--jobs", "2", "--runtime", "one", "--runtime", "two", "--runtime", "three",
                    root=root, env={"BUILD_SECONDS": "2", "BUILD_MARK": "x",
                                    "PARBENCH_CACHE": str(tmp_path / "cache" / "inputs")})
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^built one in \d+ s$", done.stdout, re.M) and re.search(r"^built two in \d+ s$", done.stdout, re.M)
    assert "build three failed (exit 3" in done.stdout and "the compiler said no" in done.stdout
    assert "build failed for: three" in done.stderr
    # Both at once: each started before the other ended.
    (start_one, end_one), (start_two, end_two) = (
        [float((root / "impls" / name / mark).read_text()) for mark in ("started", "ended")] for name in ("one", "two"))
    assert start_one < end_two and start_two < end_one
    assert (tmp_path / "cache" / "bin" / "parbench-launch").exists()


def test_ctrl_c_ends_every_build_in_progress_and_exits_130(tmp_path):
    root = _project(tmp_path / "project", ["one", "two"])
    mark = f"parbench-build-test-{uuid.uuid4().hex}"
    env = {**os.environ, "PARBENCH_ROOT": str(root), "BUILD_SECONDS": "600", "BUILD_MARK": mark}
    child = subprocess.Popen([sys.executable, "-m", "parbench", "build", "--jobs", "2"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        deadline = time.time() + 60
        while not all((root / "impls" / n / "started").exists() for n in ("one", "two")):
            assert time.time() < deadline and child.poll() is None, child.communicate()
            time.sleep(0.1)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, out + err
    assert "interrupted (SIGINT)" in err
    time.sleep(0.5)
    assert subprocess.run(["pgrep", "-f", mark], capture_output=True).stdout == b""     # both builds ended
