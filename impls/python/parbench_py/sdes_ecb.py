"""sdes-ecb: S-DES (Schaefer) in ECB mode, one byte per block, over a file loaded before timing."""
from __future__ import annotations

import hashlib
import mmap
import multiprocessing
import time
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Callable

from .protocol import BadArguments, Job, LimitReached, Model, Outcome, Param, Workload

P10 = (3, 5, 2, 7, 4, 10, 1, 9, 8, 6)
P8 = (6, 3, 7, 4, 8, 5, 10, 9)
IP = (2, 6, 3, 1, 4, 8, 5, 7)
IP_INVERSE = (4, 1, 3, 5, 7, 2, 8, 6)
EXPAND_PERMUTE = (4, 1, 2, 3, 2, 3, 4, 1)
P4 = (2, 4, 3, 1)
S0 = ((1, 0, 3, 2), (3, 2, 1, 0), (0, 2, 1, 3), (3, 1, 3, 2))
S1 = ((0, 1, 2, 3), (2, 0, 1, 3), (3, 0, 1, 0), (2, 1, 0, 3))


def permute(value: int, width: int, table: tuple[int, ...]) -> int:
    """Output bit k is input bit table[k]; positions are 1-based from the most significant bit."""
    out = 0
    for position in table:
        out = (out << 1) | ((value >> (width - position)) & 1)
    return out


def rotate_left5(half: int, by: int) -> int:
    return ((half << by) | (half >> (5 - by))) & 0b11111


def subkeys(key: int) -> tuple[int, int]:
    p10 = permute(key, 10, P10)
    left, right = rotate_left5(p10 >> 5, 1), rotate_left5(p10 & 0b11111, 1)
    k1 = permute((left << 5) | right, 10, P8)
    left, right = rotate_left5(left, 2), rotate_left5(right, 2)
    k2 = permute((left << 5) | right, 10, P8)
    return k1, k2


def f_k(block: int, subkey: int) -> int:
    left, right = block >> 4, block & 0xF
    mixed = permute(right, 4, EXPAND_PERMUTE) ^ subkey
    l4, r4 = mixed >> 4, mixed & 0xF
    s0 = S0[((l4 >> 2) & 0b10) | (l4 & 1)][(l4 >> 1) & 0b11]
    s1 = S1[((r4 >> 2) & 0b10) | (r4 & 1)][(r4 >> 1) & 0b11]
    return ((left ^ permute((s0 << 2) | s1, 4, P4)) << 4) | right


def encrypt_block(plain: int, k1: int, k2: int) -> int:
    block = f_k(permute(plain, 8, IP), k1)
    swapped = ((block & 0xF) << 4) | (block >> 4)
    return permute(f_k(swapped, k2), 8, IP_INVERSE)


def table_for_key(key: int) -> bytes:
    k1, k2 = subkeys(key)
    return bytes(encrypt_block(plain, k1, k2) for plain in range(256))


def encrypt_bitwise(data: bytes | memoryview, key: int) -> bytes:
    """Every byte goes through the permutations and both Feistel rounds (the article's CPU-heavy form)."""
    k1, k2 = subkeys(key)
    return bytes([encrypt_block(plain, k1, k2) for plain in data])


def encrypt_table(data: bytes | memoryview, key: int) -> bytes:
    return bytes(data).translate(table_for_key(key))  # bytes(b) of a bytes object is no copy


CIPHERS = {"bitwise": encrypt_bitwise, "table": encrypt_table}


def load(params: dict) -> tuple[bytes, int]:
    started = time.perf_counter_ns()
    try:
        with open(params["input"], "rb") as file:
            plaintext = file.read()
    except OSError as error:
        raise BadArguments(f"--input {params['input']}: {error.strerror}") from None
    return plaintext, time.perf_counter_ns() - started


def _sha256_of(data) -> Callable[[], str]:
    """The checksum, deferred: the protocol computes it after the clock stops, as the spec asks."""
    return lambda: hashlib.sha256(data).hexdigest()


def run_seq(job: Job) -> Outcome:
    ciphertext = CIPHERS[job.params["cipher"]](job.input, job.params["key"])
    return Outcome(len(job.input), _sha256_of(ciphertext), {"cipher": job.params["cipher"]})


# Set in each forked worker by the pool initializer: the plaintext (inherited, not copied, by
# fork) and the shared output mapping every worker writes its chunk into.
_worker_buffers: tuple[bytes, mmap.mmap] | None = None


def _remember_buffers(plaintext: bytes, ciphertext: mmap.mmap) -> None:
    global _worker_buffers
    _worker_buffers = (plaintext, ciphertext)


def _encrypt_chunk(start: int, stop: int, key: int, cipher: str) -> None:
    plaintext, ciphertext = _worker_buffers
    ciphertext[start:stop] = CIPHERS[cipher](memoryview(plaintext)[start:stop], key)


def chunk_bytes(text: str) -> int:
    """--chunk BYTES: a positive work unit, or 0 for the default (one chunk per worker)."""
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


chunk_bytes.__name__ = "chunk size (bytes >= 1, or 0 for size / workers)"


def default_chunk(size: int, workers: int) -> int:
    """One chunk per worker: the fewest messages while every worker still gets a share."""
    return max(1, -(-size // workers))


def run_processes(job: Job) -> Outcome:
    plaintext, size = job.input, len(job.input)
    chunk = job.params["chunk"] or default_chunk(size, job.workers)
    # An anonymous shared mapping made before the fork: workers write ciphertext straight into
    # it, so only (start, stop) pairs cross the pipes.
    ciphertext = mmap.mmap(-1, max(1, size))
    try:
        with ProcessPoolExecutor(max_workers=job.workers, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_remember_buffers, initargs=(plaintext, ciphertext)) as executor:
            futures = [executor.submit(_encrypt_chunk, start, min(size, start + chunk),
                                       job.params["key"], job.params["cipher"])
                       for start in range(0, size, chunk)]
            for future in futures:
                future.result()
    except OSError as error:
        raise LimitReached(str(error)) from error
    result = memoryview(ciphertext)[:size]
    return Outcome(size, _sha256_of(result),
                   {"cipher": job.params["cipher"], "chunk": chunk, "start_method": "fork"})


def run_threads(job: Job) -> Outcome:
    """The same chunks on a thread pool: the GIL lets one thread run Python (and translate) at a time."""
    plaintext, size, key, cipher = job.input, len(job.input), job.params["key"], job.params["cipher"]
    chunk = job.params["chunk"] or default_chunk(size, job.workers)
    ciphertext = bytearray(size)
    view = memoryview(plaintext)

    def encrypt_chunk(start: int) -> None:
        stop = min(size, start + chunk)
        ciphertext[start:stop] = CIPHERS[cipher](view[start:stop], key)

    with ThreadPoolExecutor(max_workers=job.workers) as executor:
        for finished in [executor.submit(encrypt_chunk, start) for start in range(0, size, chunk)]:
            finished.result()
    return Outcome(size, _sha256_of(ciphertext),
                   {"cipher": cipher, "chunk": chunk, "switch_interval_s": sys.getswitchinterval()})


WORKLOAD = Workload(
    name="sdes-ecb",
    params=(
        Param("input", str),
        Param("key", int, 642),
        Param("cipher", str, "bitwise", choices=tuple(CIPHERS)),
        Param("chunk", chunk_bytes, 0),
    ),
    models={
        "seq": Model("seq", run_seq, note="bitwise: a Python function per byte; table: bytes.translate "
                                          "with the key's 256-byte table"),
        "processes": Model("processes", run_processes, workers=True,
                           note="ProcessPoolExecutor with the fork start method (Linux default in 3.11): "
                                "workers inherit the plaintext and write into a shared anonymous mmap; "
                                "pool start-up is inside the timed region; --chunk BYTES, default "
                                "size / workers (recorded as extra.chunk)"),
        "threads": Model("threads", run_threads, workers=True,
                         note="ThreadPoolExecutor over the same chunks into one bytearray; the GIL serialises "
                              "both ciphers (bytes.translate does not release it), shown for comparison; "
                              "--chunk BYTES, default size / workers"),
    },
    load=load,
)
