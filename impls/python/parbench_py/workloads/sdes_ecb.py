"""sdes-ecb: S-DES (Schaefer) in ECB mode, one byte per block, over a file loaded before timing."""
from __future__ import annotations

import hashlib
import mmap
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

from .. import dask_cluster, parallel
from ..protocol import BadArguments, Job, LimitReached, Model, Outcome, Param, Workload, time_ns

# The portable kernel is the reference procedure of docs/workloads/sdes-ecb.md, transliterated:
# the spec's tables as lists of positions and the S-boxes as 4x4 lists, in the same order of
# operations. Python has no other kernel.
P10 = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6]
P8 = [6, 3, 7, 4, 8, 5, 10, 9]
IP = [2, 6, 3, 1, 4, 8, 5, 7]
IP_INV = [4, 1, 3, 5, 7, 2, 8, 6]
EP = [4, 1, 2, 3, 2, 3, 4, 1]
P4 = [2, 4, 3, 1]
S0 = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]]
S1 = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]]


def permute(value: int, width: int, table: list[int]) -> int:
    """table's positions count from 1 = the most significant of `width` bits."""
    out = 0
    for position in table:
        out = (out << 1) | ((value >> (width - position)) & 1)
    return out


def rotate5(half: int, by: int) -> int:
    """A left rotation of a 5-bit half."""
    return ((half << by) | (half >> (5 - by))) & 0b11111


def subkeys(key: int) -> tuple[int, int]:
    p10 = permute(key, 10, P10)
    left, right = rotate5(p10 >> 5, 1), rotate5(p10 & 0b11111, 1)
    k1 = permute((left << 5) | right, 10, P8)
    left, right = rotate5(left, 2), rotate5(right, 2)
    k2 = permute((left << 5) | right, 10, P8)
    return k1, k2


def sbox(box: list[list[int]], bits4: int) -> int:
    """row = bits 1 and 4, column = bits 2 and 3."""
    row = (((bits4 >> 3) & 1) << 1) | (bits4 & 1)
    column = (bits4 >> 1) & 0b11
    return box[row][column]


def f_k(block: int, subkey: int) -> int:
    """block: 8 bits, left = the high 4, right = the low 4."""
    left, right = block >> 4, block & 0xF
    mixed = permute(right, 4, EP) ^ subkey
    s = (sbox(S0, mixed >> 4) << 2) | sbox(S1, mixed & 0xF)
    return ((left ^ permute(s, 4, P4)) << 4) | right


def encrypt_byte(k1: int, k2: int, plain: int) -> int:
    block = f_k(permute(plain, 8, IP), k1)
    swapped = ((block & 0xF) << 4) | (block >> 4)
    return permute(f_k(swapped, k2), 8, IP_INV)


def table_for_key(key: int) -> bytes:
    """The table cipher's 256 entries, as bytes: the form bytes.translate looks them up in."""
    k1, k2 = subkeys(key)
    return bytes([encrypt_byte(k1, k2, b) for b in range(256)])


def key_schedule(cipher: str, key: int) -> Any:
    """What encrypting needs from the key: (K1, K2) for bitwise, the 256-byte table for table."""
    return table_for_key(key) if cipher == "table" else subkeys(key)


def encrypt_span(plaintext: bytes, output, start: int, stop: int, cipher: str, schedule: Any) -> None:
    """Encrypts plaintext[start:stop] into output[start:stop]."""
    if cipher == "table":
        # bytes.translate is the standard library's lookup of every byte in the table: it
        # stands in for the reference's loop `output[i] = table[input[i]]`. It can only return
        # a new object: the chunk is sliced out (a copy), translated and copied into the output.
        output[start:stop] = plaintext[start:stop].translate(schedule)
        return
    k1, k2 = schedule
    for i in range(start, stop):
        output[i] = encrypt_byte(k1, k2, plaintext[i])


def encrypt_bitwise(data: bytes, key: int) -> bytes:
    """Every byte goes through the permutations and both Feistel rounds (the article's CPU-heavy form)."""
    output = bytearray(len(data))
    encrypt_span(data, output, 0, len(data), "bitwise", subkeys(key))
    return bytes(output)


def encrypt_table(data: bytes, key: int) -> bytes:
    return data.translate(table_for_key(key))


CIPHERS = {"bitwise": encrypt_bitwise, "table": encrypt_table}


def key_param(text: str) -> int:
    """A 10-bit S-DES key (--key, and the variant that replaces it)."""
    key = int(text)
    if not 0 <= key <= 1023:
        raise ValueError(text)
    return key


key_param.__name__ = "10-bit key (0 … 1023)"


@dataclass(frozen=True)
class SdesInput:
    """The plaintext, and the output buffer every repetition writes into (made before the first)."""
    plaintext: bytes
    output: mmap.mmap   # anonymous and shared, so forked workers write into the parent's pages


def prefaulted_output(size: int) -> mmap.mmap:
    """size bytes with every page written once, so no repetition pays the output's page faults."""
    output = mmap.mmap(-1, max(1, size))   # mmap cannot map 0 bytes
    for offset in range(0, size, mmap.PAGESIZE):
        output[offset] = 0
    return output


def load(params: dict) -> tuple[SdesInput, int]:
    """The plaintext and the pre-faulted output buffer; load_ns counts both (they come before the first line)."""
    started = time.monotonic_ns()
    try:
        with open(params["input"], "rb") as file:
            plaintext = file.read()
    except OSError as error:
        raise BadArguments(f"--input {params['input']}: {error.strerror}") from None
    loaded = SdesInput(plaintext, prefaulted_output(len(plaintext)))
    return loaded, time.monotonic_ns() - started


def _sha256_of(data) -> Callable[[], str]:
    """The checksum, deferred: the protocol computes it after the clock stops, as the spec asks."""
    return lambda: hashlib.sha256(data).hexdigest()


def _ciphertext_in(loaded: SdesInput) -> memoryview:
    return memoryview(loaded.output)[:len(loaded.plaintext)]


def _copy_ceiling(copy_chunks: Callable[[], None]) -> dict:
    return {"ceiling": "copy", "ceiling_ns": time_ns(copy_chunks)}


def run_seq(job: Job) -> Outcome:
    loaded, cipher = job.input, job.params["cipher"]
    size = len(loaded.plaintext)
    schedule = key_schedule(cipher, job.params["key"])
    if cipher == "table":
        ciphertext = loaded.plaintext.translate(schedule)   # a new object: the only form translate has
    else:
        encrypt_span(loaded.plaintext, loaded.output, 0, size, cipher, schedule)
        ciphertext = _ciphertext_in(loaded)

    def copy_whole_input() -> None:
        loaded.output[0:size] = loaded.plaintext

    return Outcome(size, _sha256_of(ciphertext), {"cipher": cipher},
                   ceiling=lambda: _copy_ceiling(copy_whole_input))


def chunk_for(job: Job) -> int:
    return job.params["chunk"] or parallel.default_chunk(len(job.input.plaintext), job.workers,
                                                         parallel.SDES_CHUNK_CAP)


# Set in each forked pool process by its initializer: the plaintext and the shared output,
# both inherited through fork (nothing is pickled but (start, stop) and the key schedule).
_process_buffers: SdesInput | None = None


def _remember_buffers(loaded: SdesInput) -> None:
    global _process_buffers
    _process_buffers = loaded


def _encrypt_chunk_in_process(start: int, stop: int, cipher: str, schedule: Any) -> None:
    encrypt_span(_process_buffers.plaintext, _process_buffers.output, start, stop, cipher, schedule)


def _copy_chunk_in_process(start: int, stop: int) -> None:
    _process_buffers.output[start:stop] = memoryview(_process_buffers.plaintext)[start:stop]


def _process_pool(job: Job) -> parallel.ProcessPool:
    return parallel.ProcessPool(job.workers, _remember_buffers, (job.input,))


def _warm_processes(params: dict, workers: int, loaded: SdesInput) -> parallel.ProcessPool:
    return parallel.ProcessPool(workers, _remember_buffers, (loaded,))


def _copy_ceiling_on(job: Job, started_pool: Callable[[], parallel.ThreadPool | parallel.ProcessPool],
                     copy_chunk: Callable, spans: list[tuple[int, int]]) -> dict:
    """The copy with the model's workers (parallel.ceiling_on)."""
    return parallel.ceiling_on(job, started_pool,
                               lambda pool: _copy_ceiling(lambda: pool.run_each(copy_chunk, spans)))


def run_processes(job: Job) -> Outcome:
    cipher, chunk = job.params["cipher"], chunk_for(job)
    spans = parallel.chunk_spans(len(job.input.plaintext), chunk)
    schedule = key_schedule(cipher, job.params["key"])
    try:
        with parallel.pool_for(job, lambda: _process_pool(job)) as pool:
            ran = pool.run_chunks(_encrypt_chunk_in_process, [(start, stop, cipher, schedule) for start, stop in spans])
    except OSError as error:
        raise LimitReached(str(error)) from error
    extra = {"cipher": cipher, "start_method": "fork", **parallel.chunk_extra(chunk, len(spans), ran.workers_used)}
    return Outcome(len(job.input.plaintext), _sha256_of(_ciphertext_in(job.input)), extra, busy=ran.busy,
                   ceiling=lambda: _copy_ceiling_on(job, lambda: _process_pool(job).start_every_worker(),
                                                    _copy_chunk_in_process, spans))


def run_threads(job: Job) -> Outcome:
    """The same chunks on a thread pool: the GIL lets one thread run Python (and translate) at a time."""
    loaded, cipher, chunk = job.input, job.params["cipher"], chunk_for(job)
    spans = parallel.chunk_spans(len(loaded.plaintext), chunk)
    schedule = key_schedule(cipher, job.params["key"])
    with parallel.pool_for(job, lambda: parallel.ThreadPool(job.workers)) as pool:
        ran = pool.run_chunks(encrypt_span, [(loaded.plaintext, loaded.output, start, stop, cipher, schedule)
                                             for start, stop in spans])
    plaintext, output = memoryview(loaded.plaintext), memoryview(loaded.output)

    def copy_chunk(start: int, stop: int) -> None:
        output[start:stop] = plaintext[start:stop]

    extra = {"cipher": cipher, "switch_interval_s": sys.getswitchinterval(),
             **parallel.chunk_extra(chunk, len(spans), ran.workers_used)}
    return Outcome(len(loaded.plaintext), _sha256_of(_ciphertext_in(loaded)), extra, busy=ran.busy,
                   ceiling=lambda: _copy_ceiling_on(job, lambda: parallel.ThreadPool(job.workers).start_every_worker(),
                                                    copy_chunk, spans))


def _encrypt_shipped_chunk(chunk: bytes, cipher: str, schedule: Any) -> bytes | bytearray:
    """On a dask worker: the ciphertext of one chunk shipped to it, shipped back as the result."""
    if cipher == "table":
        return chunk.translate(schedule)
    ciphertext = bytearray(len(chunk))
    encrypt_span(chunk, ciphertext, 0, len(chunk), cipher, schedule)
    return ciphertext


def _copy_shipped_chunk(chunk: bytes) -> bytes:
    return bytes(memoryview(chunk))   # a real copy (bytes(chunk) would hand back the same object)


def _through_the_cluster(session, loaded: SdesInput, spans: list[tuple[int, int]], task: Callable,
                         *arguments) -> parallel.Gathered:
    """Scatters the plaintext chunks to the workers, runs task(chunk, *arguments) on each where it
    landed, and writes the gathered results into the output buffer."""
    if not spans:
        return parallel.Gathered([], 0, [])   # an empty input: scatter refuses an empty list, and there is nothing to ship
    shipped = session.client.scatter([loaded.plaintext[start:stop] for start, stop in spans], hash=False)
    futures = session.map(task, shipped, *[[argument] * len(spans) for argument in arguments])
    ran = session.gather_counted(futures)
    for (start, stop), result in zip(spans, ran.results):
        loaded.output[start:stop] = result
    return ran


def run_dask(job: Job) -> Outcome:
    """Chunks go to the cluster as bytes and come back as ciphertext: what going distributed costs."""
    loaded, cipher, session = job.input, job.params["cipher"], job.session
    size = len(loaded.plaintext)
    chunk = job.params["chunk"] or parallel.default_chunk(size, session.threads, parallel.SDES_CHUNK_CAP)
    spans = parallel.chunk_spans(size, chunk)
    schedule = key_schedule(cipher, job.params["key"])
    ran = _through_the_cluster(session, loaded, spans, _encrypt_shipped_chunk, cipher, schedule)
    extra = {"cipher": cipher, **parallel.chunk_extra(chunk, len(spans), ran.workers_used)}
    return Outcome(size, _sha256_of(_ciphertext_in(loaded)), extra, ceiling=lambda: _copy_ceiling(
        lambda: _through_the_cluster(session, loaded, spans, _copy_shipped_chunk)), busy=ran.busy)


CHUNK_NOTE = "--chunk BYTES, default min(1 MiB, ceil(size / workers)); every worker takes one chunk before any takes a second"

MODELS = {
    "seq": Model("seq", run_seq, note="bitwise: a Python function per byte, written into the output buffer; "
                                      "table: bytes.translate with the key's 256-byte table (it returns a new "
                                      "object, so that allocation is inside the timed region)"),
    "processes": Model("processes", run_processes, workers=True,
                       note="ProcessPoolExecutor with the fork start method: workers inherit the plaintext "
                            "through fork and write into the shared, pre-faulted output mapping; " + CHUNK_NOTE,
                       starts=parallel.PROCESS_STARTS, session=parallel.warm_session(_warm_processes)),
    "threads": Model("threads", run_threads, workers=True,
                     note="ThreadPoolExecutor over the same chunks into the same output buffer; the GIL "
                          "serialises both ciphers (bytes.translate does not release it), shown for "
                          "comparison; " + CHUNK_NOTE,
                     starts=parallel.THREAD_STARTS,
                     session=parallel.WARM_THREADS),
}
PARAMS = (
    Param("input", str),
    Param("key", key_param, 642),
    Param("cipher", str, "bitwise", choices=tuple(CIPHERS)),
    Param("chunk", parallel.chunk_param, 0),
)
if dask_cluster.available():
    PARAMS += dask_cluster.PARAMS
    MODELS["dask"] = Model(
        "distributed", run_dask, workers=True, session=dask_cluster.dask_session,
        starts=dask_cluster.STARTS, start_unavailable=dask_cluster.START_UNAVAILABLE,
        note=dask_cluster.NOTE + ". The plaintext chunks are scattered to the workers as bytes and the "
             "ciphertext chunks gathered back into the output buffer, inside ns; the copy ceiling makes the same "
             "round trip with a task that copies; --chunk BYTES, default min(1 MiB, ceil(size / cluster threads))")

# Python has one kernel, the portable one: the reference procedure in plain Python, and for
# `table` the reference's table looked up by bytes.translate, the standard library's call that
# replaces the lookup loop. Nothing engineered exists, so there is no tuned one.
DETAILS = {"bitwise": "reference, transliterated",
           "table": "reference, transliterated: bytes.translate"}
KERNELS = {"portable": "reference, transliterated: bytes.translate (table cipher)"}

WORKLOAD = Workload(name="sdes-ecb", params=PARAMS, models=MODELS, load=load, variant="key", kernels=KERNELS,
                    kernel_detail=lambda params: DETAILS[params["cipher"]])
