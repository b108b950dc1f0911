"""keygen: `count` random keys of `bytes` bytes each, encoded as lower-case RFC 4648 Base32."""
from __future__ import annotations

import base64
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

from .checksums import digest_hex, digest_sum, splitmix64_bytes
from .protocol import Job, LimitReached, Model, Outcome, Param, Workload

STRONG_SOURCE = "os.urandom (getrandom(2), the kernel CSPRNG)"
CHUNKS_PER_WORKER = 4   # a few chunks each, so a slow worker does not hold the others up


def base32_lower(data: bytes) -> bytes:
    return base64.b32encode(data).lower()


def make_keys(first: int, stop: int, key_bytes: int, source: str, seed: int) -> list[bytes]:
    """Keys first..stop-1; a seeded key depends only on its index, so any split gives the same set."""
    if source == "strong":
        return [base32_lower(os.urandom(key_bytes)) for _ in range(first, stop)]
    return [base32_lower(splitmix64_bytes(seed, index, key_bytes)) for index in range(first, stop)]


def index_ranges(count: int, parts: int) -> list[tuple[int, int]]:
    size = max(1, -(-count // parts))
    return [(first, min(count, first + size)) for first in range(0, count, size)]


def _outcome(keys: list[bytes], job: Job, extra: dict) -> Outcome:
    def checksum() -> str:
        if job.params["source"] == "strong":
            return f"{len(keys)}:{sum(len(key) for key in keys)}"
        return digest_hex(digest_sum(keys))
    return Outcome(len(keys), checksum, extra)


def _args(job: Job) -> tuple[int, str, int]:
    return job.params["bytes"], job.params["source"], job.params["seed"]


def run_seq(job: Job) -> Outcome:
    return _outcome(make_keys(0, job.params["count"], *_args(job)), job, {})


def _run_pool(job: Job, executor) -> list[bytes]:
    ranges = index_ranges(job.params["count"], job.workers * CHUNKS_PER_WORKER)
    futures = [executor.submit(make_keys, first, stop, *_args(job)) for first, stop in ranges]
    keys: list[bytes] = []
    for future in futures:
        keys.extend(future.result())
    return keys


def run_threads(job: Job) -> Outcome:
    with ThreadPoolExecutor(max_workers=job.workers) as executor:
        keys = _run_pool(job, executor)
    return _outcome(keys, job, {"switch_interval_s": sys.getswitchinterval()})


def run_processes(job: Job) -> Outcome:
    # Pool start-up is inside the timed region on purpose: it is what this model costs.
    try:
        with ProcessPoolExecutor(max_workers=job.workers,
                                 mp_context=multiprocessing.get_context("fork")) as executor:
            keys = _run_pool(job, executor)
    except OSError as error:
        raise LimitReached(str(error)) from error
    return _outcome(keys, job, {"start_method": "fork"})


WORKLOAD = Workload(
    name="keygen",
    params=(
        Param("count", int, 2000),
        Param("bytes", int, 1000),
        Param("source", str, "strong", choices=("strong", "seeded")),
        Param("seed", int, 0),
    ),
    models={
        "seq": Model("seq", run_seq, note="list comprehension: os.urandom then base64.b32encode(...).lower()"),
        "threads": Model("threads", run_threads, workers=True,
                         note="ThreadPoolExecutor, 4 index ranges per worker; the GIL serialises "
                              "the Base32 encoding (only os.urandom releases it)"),
        "processes": Model("processes", run_processes, workers=True,
                           note="ProcessPoolExecutor with the fork start method (Linux default in 3.11), "
                                "4 index ranges per worker; pool start-up and pickling the keys back "
                                "to the parent are inside the timed region"),
    },
)
