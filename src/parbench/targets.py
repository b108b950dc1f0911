"""What parbench may write at a path a user named (an export, `--out`'s reports, the HTML report,
a new store): a regular file is replaced atomically, a character device or a FIFO (`/dev/null`,
`/dev/stdout`, a named pipe) is written through as `>` would, and anything else is refused
with a line. A path is followed through its symlinks first, so a link stays a link."""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

# What may be written through: a stream, whose "file" is whatever reads it.
_STREAMS = (stat.S_ISCHR, stat.S_ISFIFO)
_REFUSED = {stat.S_ISDIR: "a folder", stat.S_ISBLK: "a block device (a disk)", stat.S_ISSOCK: "a socket"}


class Unwritable(OSError):
    """A target parbench will not write: what it is, in `strerror`."""

    def __init__(self, path: Path, what: str):
        super().__init__(errno.EINVAL, f"it is {what}; parbench writes a file, a character device or a FIFO there",
                         str(path))


def _mode(path: Path) -> int | None:
    """The mode of what `path` leads to (through its symlinks), None where nothing is there yet."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):       # nothing there (yet); making it says why not
        return None


def refused(path: Path) -> str | None:
    """Why nothing may be written at `path` (a folder, a disk, a socket), else None."""
    mode = _mode(path)
    if mode is None:
        return None
    return next((what for test, what in _REFUSED.items() if test(mode)), None)


def is_stream(path: Path) -> bool:
    mode = _mode(path)
    return mode is not None and any(test(mode) for test in _STREAMS)


def problem(path: Path) -> str | None:
    """Why `path` cannot be written, asked before a run starts; None when it can."""
    if what := refused(path):
        return f"cannot write {path}: it is {what}"
    if is_stream(path):
        return None if os.access(path, os.W_OK) else f"cannot write {path}: permission denied"
    why = folder_refusal(Path(os.path.realpath(path)).parent)
    return f"cannot write {path}: {why}" if why else None


def folder_refusal(folder: Path) -> str | None:
    """Why nothing can be written in `folder` (made if missing), found by writing a probe; None
    when it can. Asked before a run starts, so a run never ends on an unwritable folder."""
    existing = next((f for f in (folder, *folder.parents) if os.path.lexists(f)), None)
    if existing is not None and not os.path.isdir(existing):
        # mkdir's own word for it is "File exists", which says nothing of why.
        return f"{existing} is {_kind_of(existing)}, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".parbench-write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        return str(error.strerror or error)
    return None


def _kind_of(path: Path) -> str:
    mode = _mode(path)
    if mode is None:
        return "a broken link"
    return ("a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a file")


def write_text(path: Path, text: str) -> Path:
    """`text` at `path`: through a stream, else into a temporary file renamed over the target, so
    that a full disk or a signal mid-write leaves the previous file (or none), never half of one."""
    if what := refused(path):
        raise Unwritable(path, what)
    if is_stream(path):
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
        return path
    real = Path(os.path.realpath(path))
    real.parent.mkdir(parents=True, exist_ok=True)
    partial = real.with_name(f".{real.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        if (mode := _mode(real)) is not None:
            os.chmod(partial, stat.S_IMODE(mode))       # the file's permissions survive, as under `>`
        os.replace(partial, real)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path
