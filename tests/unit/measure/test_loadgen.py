"""loadgen.py and its C programs: the load generator against the spec's test vector, the native
reference server, and small servers in this process that break the wire format one way each."""
import json
import socket
import subprocess
import threading
import time

import pytest

from parbench.measure import loadgen
from parbench.measure.loadgen import Load, ReferenceServer, run_load
from parbench.workloads.echo_server.oracle import echo_checksum


@pytest.fixture(scope="module")
def reference():
    with ReferenceServer(wait_us=0) as server:
        yield server


def test_the_spec_vector_passes_against_the_reference_server(reference):
    done = subprocess.run([loadgen.loadgen_binary(), "--port", str(reference.port), "--vector"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and json.loads(done.stdout) == {"vector": "ok", "failure": None}


def test_random_payloads_give_the_oracles_digest_and_every_reply(reference):
    reference.served()                          # what earlier tests sent is counted apart
    load = Load(connections=50, requests=7, length=64, seed=123456789)
    result = run_load(reference.port, load, timeout_s=30)
    assert result.ok and result.failure is None
    assert result.replies == 350 and result.probe_replies == loadgen.PROBES + 1     # the spec's vector after
    assert result.digest == echo_checksum(50, 7, 64, 123456789)
    assert 0 < result.p50_ns <= result.p99_ns <= result.max_ns <= result.ns
    line = reference.served()
    assert line["extra"]["replies"] == 350 + loadgen.PROBES + 1 and line["extra"]["accepted"] == 51
    assert line["rep"] == 1 and line["checksum"] == "served"


def test_a_payload_of_no_bytes_and_a_payload_of_the_largest_size_both_check(reference):
    for length in (0, 65536):
        load = Load(3, 2, length, 99)
        result = run_load(reference.port, load, timeout_s=30)
        assert result.ok and result.digest == echo_checksum(3, 2, length, 99), length


def test_each_repetition_without_a_given_seed_draws_its_own_from_getrandom(reference):
    outs = [json.loads(subprocess.run([loadgen.loadgen_binary(), "--port", str(reference.port), "--connections", "2",
                                       "--requests", "1", "--len", "8"], capture_output=True, text=True,
                                      timeout=30).stdout) for _ in range(2)]
    assert outs[0]["seed_source"] == "getrandom" and outs[0]["seed"] != outs[1]["seed"]
    assert outs[0]["digest"] == echo_checksum(2, 1, 8, int(outs[0]["seed"]))


def test_the_reference_server_waits_its_wait_before_each_reply():
    with ReferenceServer(wait_us=30_000) as server:
        result = run_load(server.port, Load(20, 3, 16, 1), timeout_s=30, probes=0)
    assert result.ok and result.p50_ns >= 30_000_000 and result.ns >= 3 * 30_000_000


def test_the_reference_server_exits_0_at_the_end_of_its_stdin():
    server = ReferenceServer(wait_us=0)
    assert server.close() == 0


def test_a_port_nothing_listens_on_is_a_refused_connection():
    port = _free_port()
    result = run_load(port, Load(4, 2, 8, 1), timeout_s=10)
    assert not result.ok and result.failure_kind == "refused" and result.failures == 4
    assert "connection refused" in result.failure


def test_bad_arguments_exit_2_with_one_line():
    done = subprocess.run([loadgen.loadgen_binary(), "--port", "1", "--connections", "0", "--requests", "1",
                           "--len", "1"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


# --- servers that break the wire format one way each ---------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _read_exactly(conn: socket.socket, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


class Broken:
    """A thread per connection, replying by `reply(header, payload, count)` (None: close it)."""

    def __init__(self, reply, early=False):
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self.port, self.reply, self.early = self.listener.getsockname()[1], reply, early
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        with conn:
            try:
                self._exchanges(conn)
            except OSError:                  # the load generator gave up on it: what the test expects
                pass

    def _exchanges(self, conn):
        count = 0
        while (header := _read_exactly(conn, 8)) is not None:
            if self.early:                   # the header back before the payload is read
                conn.sendall(header)
            payload = _read_exactly(conn, int.from_bytes(header[4:], "big"))
            if payload is None:
                return
            answer = self.reply(header, payload, count)
            count += 1
            if answer is None:
                return
            conn.sendall(answer[8:] if self.early else answer)

    def close(self):
        self.listener.close()


def _right(header, payload, count):
    return header + payload[::-1]


def _run_against(server: Broken, load=Load(3, 4, 16, 5), timeout_s=10):
    try:
        return run_load(server.port, load, timeout_s)
    finally:
        server.close()


def test_a_wrong_byte_names_its_offset():
    def wrong(header, payload, count):
        reply = bytearray(header + payload[::-1])
        if count == 2:
            reply[8 + 5] ^= 1
        return bytes(reply)
    result = _run_against(Broken(wrong))
    assert result.failure_kind == "wrong-byte" and "request 2: wrong byte at offset 13 of the 24-byte reply" in result.failure


def test_a_header_that_is_not_the_requests_is_a_wrong_byte_in_the_header():
    result = _run_against(Broken(lambda h, p, c: b"\0\0\0\x09" + h[4:] + p[::-1]))
    assert result.failure_kind == "wrong-byte" and "(in the header)" in result.failure


def test_a_connection_closed_before_its_reply_is_closed_early():
    result = _run_against(Broken(lambda h, p, c: None if c == 1 else h + p[::-1]))
    assert result.failure_kind == "closed" and "request 1: connection closed early" in result.failure


def test_a_server_that_replies_before_reading_the_request_whole_is_caught_by_the_probes():
    result = _run_against(Broken(_right, early=True))
    assert result.replies == 12 and result.failure_kind == "early-reply"
    assert "replied before it had read the request whole" in result.failure


def test_a_server_that_stops_replying_is_a_timeout_and_the_load_generator_ends():
    stuck = threading.Event()

    def hang(header, payload, count):
        if count == 1:
            stuck.wait(30)
        return header + payload[::-1]
    started = time.monotonic()
    result = _run_against(Broken(hang), timeout_s=1.5)
    stuck.set()
    assert result.failure_kind == "timeout" and result.failure.startswith("timeout after 1500 ms")
    assert time.monotonic() - started < 10


def test_more_connections_than_descriptors_is_this_sides_limit_named_as_such(reference):
    import resource

    def few_descriptors():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    done = subprocess.run([loadgen.loadgen_binary(), "--port", str(reference.port), "--connections", "100",
                           "--requests", "1", "--len", "8"], capture_output=True, text=True, timeout=30,
                          preexec_fn=few_descriptors)
    result = json.loads(done.stdout)
    assert done.returncode == 1 and result["failure_kind"] == "open" and result["nofile_limit"] == 64
    assert "could not open it: too many open files" in result["failure"]


def test_every_repetition_ends_with_the_spec_vector_on_the_probe_connection():
    def wrong_on_the_vector(header, payload, count):
        return header + (payload if payload == b"abc" else payload[::-1])
    result = _run_against(Broken(wrong_on_the_vector))
    assert result.replies == 12 and result.failure_kind == "wrong-byte"
    assert result.failure.startswith("the spec's test vector (id 1, len 3, \"abc\" -> \"cba\"): wrong byte at offset 8")
