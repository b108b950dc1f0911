"""store/shared_memory.py: a file made immutable under a shared mapping is found, and the mapping
made private so that a write to it lands in memory rather than being SIGBUS."""
import subprocess
import sys
import textwrap

import pytest

from conftest import require
from parbench.store import shared_memory


@pytest.fixture
def frozen(tmp_path):
    """A 32 KiB file (one of SQLite's -shm regions), to be made immutable by the test."""
    path = tmp_path / "s.sqlite-shm"
    path.write_bytes(b"\x01" * 32768)
    yield path
    subprocess.run(["chattr", "-i", str(path)], capture_output=True)


def _chattr(path, flag: str) -> None:
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True)
    require(done.returncode == 0, f"chattr {flag} needs root and a file system with flags (ext4): {done.stderr!r}")


def test_an_immutable_or_append_only_file_is_found_and_a_plain_one_or_none_is_not(frozen, tmp_path):
    assert shared_memory.read_only_flag(str(frozen)) is None
    assert shared_memory.read_only_flag(str(tmp_path / "absent")) is None
    _chattr(frozen, "+a")
    assert shared_memory.read_only_flag(str(frozen)) == "append-only (chattr +a)"
    _chattr(frozen, "-a")
    _chattr(frozen, "+i")
    assert shared_memory.read_only_flag(str(frozen)) == "immutable (chattr +i)"


def test_a_write_through_a_privatized_mapping_of_an_immutable_file_lands_in_memory(frozen):
    # In a child: without privatize its write is SIGBUS, which would end this test run too.
    program = textwrap.dedent(f"""
        import mmap, os, subprocess, sys
        from parbench.store import shared_memory
        fd = os.open({str(frozen)!r}, os.O_RDWR)
        shared = mmap.mmap(fd, 32768, mmap.MAP_SHARED)
        shared[0] = 2                                   # dirty, then written back: a clean page again
        shared.flush()
        subprocess.run(["chattr", "+i", {str(frozen)!r}], check=True)
        if sys.argv[1] == "privatize":
            assert shared_memory.privatize({str(frozen)!r}) == 1
        shared[4096] = 3
        print(shared[0], shared[4096])
    """)
    _chattr(frozen, "+i")                                # can this machine make it immutable at all?
    _chattr(frozen, "-i")
    done = subprocess.run([sys.executable, "-c", program, "privatize"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.split() == ["2", "3"], done.stderr
    assert frozen.read_bytes()[:1] == b"\x02" and frozen.read_bytes()[4096:4097] == b"\x01"   # the file: as it was
    _chattr(frozen, "-i")
    unguarded = subprocess.run([sys.executable, "-c", program, "leave"], capture_output=True, text=True)
    assert unguarded.returncode == -7                 # SIGBUS: what the store now never meets
