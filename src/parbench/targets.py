"""What parbench may write at a path a user named (an export, `--out`'s reports, the HTML report,
a new store): a regular file is replaced atomically, a character device or a FIFO (`/dev/null`,
`/dev/stdout`, a named pipe) is written through as `>` would, and anything else is refused
with a line. A path is followed through its symlinks first, so a link stays a link. And what it
reads at such a path (an expected output, a journal, a JSON export): a regular file only, of
bounded size, so a device (`/dev/zero`) or a FIFO never reaches a reader that would wait on it
forever or fill the memory."""
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


def is_stream_device(path: Path) -> bool:
    """A character device (/dev/null, a terminal): two exports may both be written through it, as
    `>` would; a FIFO's one reader would get them mixed."""
    mode = _mode(path)
    return mode is not None and stat.S_ISCHR(mode)


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


# --- reading ------------------------------------------------------------------------------
# A journal or an export holds every sample of its runs, a few hundred bytes each: a gibibyte is
# millions of samples, beyond any run parbench makes, and json.loads needs several times a
# file's size in memory.
RECORDS_LIMIT = 1 << 30

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
         (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


class UnreadableFile(OSError):
    """A path that is not a file parbench can read whole; its str is the reason alone."""

    def __str__(self) -> str:
        return self.strerror


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path) -> int:
    """A descriptor of the regular file at `path` (a link to one is followed); UnreadableFile
    for anything else, OSError where it cannot be opened. The caller closes it."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnreadableFile(errno.EINVAL, f"{_kind(mode)}, not a regular file")
    return fd


def chunks(fd: int, limit: int | None = None):
    """The file's bytes a MiB at a time; UnreadableFile once more than `limit` have come (a file
    that grows while it is read stops there too)."""
    total = 0
    while chunk := os.read(fd, 1 << 20):
        total += len(chunk)
        if limit is not None and total > limit:
            raise UnreadableFile(errno.EFBIG, f"more than the {limit:,} bytes parbench reads there")
        yield chunk


def read_bounded(path, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them, else UnreadableFile."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise UnreadableFile(errno.EFBIG, f"{size:,} bytes, more than the {limit:,} parbench reads there")
        return b"".join(chunks(fd, limit))
    finally:
        os.close(fd)
