"""keygen: `count` random keys of `bytes` bytes each, encoded as lower-case RFC 4648 Base32."""
from __future__ import annotations

import base64
import os
import sys
from typing import Callable

from .. import dask_cluster, parallel
from ..digest import digest_hex, digest_sum, splitmix64_bytes
from ..protocol import BadArguments, Job, LimitReached, Model, Outcome, Param, Workload, int_list, time_ns

STRONG_SOURCE = "os.urandom (getrandom(2), the kernel CSPRNG)"
# Python has one kernel, the portable one: os.urandom (the standard library's CSPRNG call) per key
# and the standard library's base64.b32encode. Nothing engineered exists, so there is no tuned one.
KERNELS = {"portable": "reference, transliterated: os.urandom, base64.b32encode"}
DETAILS = {"strong": "reference, transliterated: os.urandom, base64.b32encode",
           "seeded": "reference, transliterated: SplitMix64, base64.b32encode"}


def base32_lower(data: bytes) -> bytes:
    return base64.b32encode(data).lower()


def key_material(source: str, seed: int) -> Callable[[int, int], bytes]:
    """Where key `index`'s bytes come from: the one thing the two sources differ in."""
    if source == "strong":
        return lambda index, key_bytes: os.urandom(key_bytes)
    return lambda index, key_bytes: splitmix64_bytes(seed, index, key_bytes)


def make_keys(first: int, stop: int, key_bytes: int, source: str, seed: int) -> list[bytes]:
    """Keys first..stop-1, the same loop, store and encoder for both sources; a seeded key depends
    only on its index, so any split gives the same set."""
    material = key_material(source, seed)
    return [base32_lower(material(index, key_bytes)) for index in range(first, stop)]


# The ceiling's two halves (docs/workloads/keygen.md), per chunk, nothing kept.

def fill_csprng(keys: int, key_bytes: int) -> None:
    """The CSPRNG alone: one os.urandom call filling the chunk's keys × bytes."""
    os.urandom(keys * key_bytes)


def encode_fixed(keys: int, key_bytes: int) -> None:
    """base64.b32encode alone over `keys` fixed keys (the model's .lower() is not in it)."""
    fixed = bytes(range(256)) * (key_bytes // 256) + bytes(range(key_bytes % 256))
    for _ in range(keys):
        base64.b32encode(fixed)


def ceiling_over(run_chunks: Callable[[Callable[[int, int], None]], None]) -> dict:
    """csprng_ns and base32_ns; run_chunks(function) runs function(keys, key_bytes) for every chunk."""
    csprng_ns = time_ns(lambda: run_chunks(fill_csprng))
    base32_ns = time_ns(lambda: run_chunks(encode_fixed))
    return {"ceiling": "csprng+base32", "ceiling_ns": csprng_ns + base32_ns,
            "csprng_ns": csprng_ns, "base32_ns": base32_ns}


def _outcome(keys: list[bytes], job: Job, extra: dict, ceiling: Callable[[], dict],
             busy: list | None = None) -> Outcome:
    """The digest of the keys for both sources; the probes read key i of the generation order
    (chunks are gathered in order, so keys[i] is key i), both after the clock."""
    probes = job.params["probes"]
    return Outcome(len(keys), lambda: digest_hex(digest_sum(keys)), extra, ceiling, busy,
                   evidence=lambda: {"probes": [keys[index].decode() for index in probes]})


def _args(job: Job) -> tuple[int, str, int]:
    return job.params["bytes"], job.params["source"], job.params["seed"]


def _spans(job: Job, workers: int) -> tuple[int, list[tuple[int, int]]]:
    count = job.params["count"]
    chunk = job.params["chunk"] or parallel.default_chunk(count, workers, parallel.KEYGEN_CHUNK_CAP)
    return chunk, parallel.chunk_spans(count, chunk)


def _in_caller(function: Callable, spans: list[tuple[int, int]], key_bytes: int) -> None:
    for start, stop in spans:
        function(stop - start, key_bytes)


def run_seq(job: Job) -> Outcome:
    keys = make_keys(0, job.params["count"], *_args(job))
    _, spans = _spans(job, 1)   # the ceiling goes chunk by chunk, so it never holds count × bytes at once
    key_bytes = job.params["bytes"]
    return _outcome(keys, job, {}, lambda: ceiling_over(lambda function: _in_caller(function, spans, key_bytes)))


def _pool_ceiling(job: Job, started_pool: Callable[[], parallel.ThreadPool | parallel.ProcessPool],
                  spans: list[tuple[int, int]], key_bytes: int) -> dict:
    """The ceiling on the model's workers (parallel.ceiling_on)."""
    sizes = [(stop - start, key_bytes) for start, stop in spans]
    return parallel.ceiling_on(job, started_pool,
                               lambda pool: ceiling_over(lambda function: pool.run_each(function, sizes)))


def _flatten(chunks: list[list[bytes]]) -> list[bytes]:
    keys: list[bytes] = []
    for chunk_keys in chunks:
        keys.extend(chunk_keys)
    return keys


def run_threads(job: Job) -> Outcome:
    chunk, spans = _spans(job, job.workers)
    with parallel.pool_for(job, lambda: parallel.ThreadPool(job.workers)) as pool:
        ran = pool.run_chunks(make_keys, [(start, stop, *_args(job)) for start, stop in spans])
    keys = _flatten(ran.results)
    extra = {"switch_interval_s": sys.getswitchinterval(), **parallel.chunk_extra(chunk, len(spans), ran.workers_used)}
    return _outcome(keys, job, extra, lambda: _pool_ceiling(
        job, lambda: parallel.ThreadPool(job.workers).start_every_worker(), spans, job.params["bytes"]), ran.busy)


def run_processes(job: Job) -> Outcome:
    chunk, spans = _spans(job, job.workers)
    try:
        with parallel.pool_for(job, lambda: parallel.ProcessPool(job.workers)) as pool:
            ran = pool.run_chunks(make_keys, [(start, stop, *_args(job)) for start, stop in spans])
    except OSError as error:
        raise LimitReached(str(error)) from error
    keys = _flatten(ran.results)
    extra = {"start_method": "fork", **parallel.chunk_extra(chunk, len(spans), ran.workers_used)}
    return _outcome(keys, job, extra, lambda: _pool_ceiling(
        job, lambda: parallel.ProcessPool(job.workers).start_every_worker(), spans, job.params["bytes"]), ran.busy)


def run_dask(job: Job) -> Outcome:
    """One task per chunk on the cluster; every chunk's keys are gathered into the caller's list."""
    session, key_bytes = job.session, job.params["bytes"]
    chunk, spans = _spans(job, session.threads)
    per_span = [[argument] * len(spans) for argument in _args(job)]
    ran = session.gather_counted(session.map(
        make_keys, [start for start, _ in spans], [stop for _, stop in spans], *per_span))
    keys = _flatten(ran.results)
    sizes = [stop - start for start, stop in spans]

    def on_the_cluster(function: Callable) -> None:
        session.gather_counted(session.map(function, sizes, [key_bytes] * len(spans)))

    return _outcome(keys, job, parallel.chunk_extra(chunk, len(spans), ran.workers_used),
                    lambda: ceiling_over(on_the_cluster), ran.busy)


CHUNK_NOTE = "--chunk KEYS, default min(1024, ceil(count / workers)); every worker takes one chunk before any takes a second"

MODELS = {
    "seq": Model("seq", run_seq, note="list comprehension: os.urandom then base64.b32encode(...).lower()"),
    "threads": Model("threads", run_threads, workers=True,
                     note="ThreadPoolExecutor; the GIL serialises the Base32 encoding (only os.urandom "
                          "releases it); " + CHUNK_NOTE,
                     starts=parallel.THREAD_STARTS,
                     session=parallel.WARM_THREADS),
    "processes": Model("processes", run_processes, workers=True,
                       note="ProcessPoolExecutor with the fork start method; the keys are pickled back to the "
                            "parent; " + CHUNK_NOTE,
                       starts=parallel.PROCESS_STARTS,
                       session=parallel.WARM_PROCESSES),
}
PARAMS = (
    Param("count", int, 2000),
    Param("bytes", int, 1000),
    Param("source", str, "strong", choices=("strong", "seeded")),
    Param("seed", int, 0),
    Param("chunk", parallel.chunk_param, 0),
    Param("probes", int_list, ()),
)
if dask_cluster.available():
    PARAMS += dask_cluster.PARAMS
    MODELS["dask"] = Model(
        "distributed", run_dask, workers=True, session=dask_cluster.dask_session,
        starts=dask_cluster.STARTS, start_unavailable=dask_cluster.START_UNAVAILABLE,
        note=dask_cluster.NOTE + ". One task per chunk; each chunk's keys come back to the caller; the "
             "ceiling's two halves run as tasks over the same chunks; --chunk KEYS, default "
             "min(1024, ceil(count / cluster threads))")



def load(params: dict) -> tuple[None, int]:
    """Nothing to load; the probes are checked here, before the first repetition."""
    outside = [index for index in params["probes"] if index >= params["count"]]
    if outside:
        raise BadArguments(f"--probes {outside[0]} is not a key index (0 … {params['count'] - 1})")
    return None, 0


WORKLOAD = Workload(name="keygen", params=PARAMS, models=MODELS, load=load, variant="seed", kernels=KERNELS,
                    kernel_detail=lambda params: DETAILS[params["source"]])
