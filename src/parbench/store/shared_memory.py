"""SQLite's wal-index (the store's `-shm` file) turned read-only underneath a run: found before
a statement touches it, and this process's mappings of it made private, so that SQLite's next
write there (a statement's read mark, a commit, the checkpoint when the store is closed) lands
in memory instead of killing parbench with SIGBUS. SQLite writes that file through a shared
mmap, never write(2): the kernel answers a write fault on a page of an immutable or append-only
file (`chattr +i`, `chattr +a`) with SIGBUS, which no Python handler can catch."""
from __future__ import annotations

import ctypes
import mmap
import os
import struct

# statx(2)'s stx_attributes (linux/stat.h): asked by path, so no descriptor of the file is opened
# and closed (closing any descriptor of a file drops every POSIX lock this process holds on it,
# SQLite's included: concurrent creators then failed with "locking protocol").
STATX_ATTR_IMMUTABLE, STATX_ATTR_APPEND = 0x10, 0x20
FLAGS = {STATX_ATTR_IMMUTABLE: "immutable (chattr +i)", STATX_ATTR_APPEND: "append-only (chattr +a)"}
AT_FDCWD, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS = -100, 0x100, 0x7FF
MAP_FIXED = 0x10
_libc = ctypes.CDLL(None, use_errno=True)
_kept: list[int] = []        # descriptors behind private mappings: never closed, for the same reason


def wal_index(database: str) -> str:
    return f"{database}-shm"


def read_only_flag(path: str) -> str | None:
    """What makes `path` refuse writes through a mapping ("immutable (chattr +i)"), or None:
    for a file that is not there, or a file system or C library that says nothing of it."""
    buffer = ctypes.create_string_buffer(256)
    statx = getattr(_libc, "statx", None)
    if statx is None or statx(AT_FDCWD, os.fsencode(path), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, buffer) != 0:
        return None
    attributes = struct.unpack_from("Q", buffer, 8)[0]
    return next((said for bit, said in FLAGS.items() if attributes & bit), None)


def privatize(path: str) -> int:
    """Every shared mapping of `path` in this process replaced, at the same address, by a private
    one of the same bytes (copy-on-write: a write lands in this process's memory, not in the
    file); how many were. SQLite keeps reading and writing them as before, so nothing it holds
    moves."""
    mmap_call = _libc.mmap
    mmap_call.restype = ctypes.c_void_p
    mmap_call.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    real, done = os.path.realpath(path), 0
    with open("/proc/self/maps") as maps:
        regions = [line.split(maxsplit=5) for line in maps]
    fd = os.open(real, os.O_RDONLY | os.O_CLOEXEC)
    _kept.append(fd)
    for fields in regions:
        if len(fields) == 6 and fields[5].rstrip("\n") == real and "s" in fields[1]:
            start, end = (int(x, 16) for x in fields[0].split("-"))
            at = mmap_call(start, end - start, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_PRIVATE | MAP_FIXED,
                           fd, int(fields[2], 16))
            done += at == start
    return done
