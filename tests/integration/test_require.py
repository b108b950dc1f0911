"""conftest.require: a missing installable part skips a test on a developer's machine and fails
it under CI=true, so that `make test` cannot be green on a machine whose setup failed."""
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]      # tests/, where conftest.py is

NEEDS_A_MISSING_PART = '''
from conftest import require

def test_needs_chromium():
    require(False, "chromium is not installed")
'''


def _outcome(tmp_path: Path, ci: str | None) -> str:
    (tmp_path / "test_needs.py").write_text(NEEDS_A_MISSING_PART)
    env = {k: v for k, v in os.environ.items() if k != "CI"} | ({"CI": ci} if ci is not None else {})
    env["PYTHONPATH"] = str(TESTS)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider", "test_needs.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return done.stdout


def test_a_missing_part_is_a_skip_with_its_reason_outside_ci(tmp_path):
    out = _outcome(tmp_path, None)
    assert "1 skipped" in out and "chromium is not installed" in out, out


def test_a_missing_part_fails_the_test_under_ci_true(tmp_path):
    out = _outcome(tmp_path, "true")
    assert "1 failed" in out and "chromium is not installed (CI=true: scripts/setup should have installed it)" in out, out
