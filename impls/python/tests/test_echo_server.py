"""echo-server (workloads/echo-server.md): every model started as the harness starts it, spoken to over
real sockets in the spec's wire format: the vector, random payloads, the wait, the stats line, the exit."""
import json
import os
import pathlib
import socket
import struct
import subprocess
import sys
import time
import unittest

from parbench_py import protocol
from parbench_py.workloads import echo_server

HERE = pathlib.Path(__file__).resolve().parent.parent
MODELS = list(echo_server.WORKLOAD.models)
AT_ONCE = {"seq": 1, "pool": 2}   # connections served at once (pool with --workers 2)


class Server:
    """One `run echo-server` process: its ready line read, stdin kept open until close()."""

    def __init__(self, model: str, wait_us: int = 0, workers: int | None = None) -> None:
        args = [sys.executable, "-m", "parbench_py", "echo-server", "--model", model, "--wait-us", str(wait_us)]
        if workers is not None:
            args += ["--workers", str(workers)]
        self.process = subprocess.Popen(args, cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONPATH": str(HERE)})
        self.ready = json.loads(self.process.stdout.readline())
        self.port = self.ready["port"]

    def connect(self) -> socket.socket:
        conn = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def stats(self, variant: int) -> dict:
        self.process.stdin.write(f"{variant}\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def threads(self) -> int:
        return echo_server.os_threads(self.process.pid)

    def close(self) -> int:
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=10)
        finally:
            self.process.kill()
            self.process.stdout.close()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        if self.process.poll() is None:
            self.close()


def send_request(conn: socket.socket, request_id: int, payload: bytes) -> None:
    conn.sendall(struct.pack(">II", request_id, len(payload)) + payload)


def read_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def read_reply(conn: socket.socket, length: int) -> bytes:
    return read_exactly(conn, 8 + length)


def expected_reply(request_id: int, payload: bytes) -> bytes:
    return struct.pack(">II", request_id, len(payload)) + payload[::-1]


class Wire(unittest.TestCase):
    def test_reply_is_the_header_then_the_payload_reversed(self):
        self.assertEqual(echo_server.reversed_reply(b"\0\0\0\1\0\0\0\3", b"abc"), b"\0\0\0\1\0\0\0\3cba")


class ServedModel:
    """One server per model, with wait_us 2,000 (and --workers 2 where the model takes it), for
    every rule but the exit, which a fresh server checks; subclassed once per model below."""
    model = ""

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = Server(cls.model, wait_us=2000, workers=2 if cls.model in echo_server.WORKERS else None)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.close()

    def test_the_spec_vector(self):
        with self.server.connect() as conn:
            send_request(conn, 1, b"abc")
            self.assertEqual(read_reply(conn, 3), bytes.fromhex("0000000100000003") + b"cba")

    def test_random_payloads_over_concurrent_connections_then_the_stats_line(self):
        self.server.stats(0)   # what the other tests served is counted before this one
        replies, at_once = 0, AT_ONCE.get(self.model, 6)
        for _ in range(2):   # in lockstep, so no more connections than the model serves at once
            conns = [self.server.connect() for _ in range(at_once)]
            for request in range(4):
                payloads = [os.urandom(request * 100 + index) for index in range(len(conns))]
                for index, conn in enumerate(conns):
                    send_request(conn, 1000 * index + request, payloads[index])
                for index, conn in enumerate(conns):
                    self.assertEqual(read_reply(conn, len(payloads[index])),
                                     expected_reply(1000 * index + request, payloads[index]))
                    replies += 1
            for conn in conns:
                conn.close()
        line = self.server.stats(7)
        self.assertEqual((line["rep"], line["items"], line["checksum"]), (7, replies, "served"))
        self.assertEqual((line["extra"]["replies"], line["extra"]["accepted"]), (replies, 2 * at_once))
        self.assertEqual(self.server.stats(8)["items"], 0)   # counted since the line before

    def test_an_empty_payload_is_echoed(self):
        with self.server.connect() as conn:
            send_request(conn, 9, b"")
            self.assertEqual(read_reply(conn, 0), expected_reply(9, b""))

    def test_a_len_over_65536_closes_that_connection_only(self):
        with self.server.connect() as bad:
            bad.sendall(struct.pack(">II", 2, 65_537))
            self.assertEqual(bad.recv(100), b"")
        with self.server.connect() as good:
            send_request(good, 3, b"xy")
            self.assertEqual(read_reply(good, 2), expected_reply(3, b"xy"))

    def test_a_short_request_at_eof_gets_no_reply(self):
        with self.server.connect() as conn:
            conn.sendall(struct.pack(">II", 4, 10) + b"abc")
            conn.shutdown(socket.SHUT_WR)
            self.assertEqual(conn.recv(100), b"")

    def test_end_of_stdin_exits_0_and_leaves_nothing_running(self):
        server = Server(self.model, workers=2 if self.model in echo_server.WORKERS else None)
        with server.connect() as conn:   # an open connection does not hold the exit back
            send_request(conn, 1, b"abc")
            read_reply(conn, 3)
            children = children_of(server.process.pid)
            started = time.monotonic()
            self.assertEqual(server.close(), 0)
            self.assertLess(time.monotonic() - started, 5)
        self.assertEqual([pid for pid in children if os.path.exists(f"/proc/{pid}")], [])
        self.assertEqual(len(children), 2 if self.model == "processes" else 0)

    def test_the_wait_holds_only_what_the_model_serves_at_once(self):
        """20 connections, one request each, all kept open: a concurrent model answers every one
        (in reverse order here), so one connection's wait does not hold the others; seq answers
        only the first and pool only its first two until one of them is closed."""
        conns = [self.server.connect() for _ in range(20)]
        for index, conn in enumerate(conns):
            send_request(conn, index, b"wait")
        at_once = AT_ONCE.get(self.model, len(conns))
        for index in reversed(range(at_once)):
            self.assertEqual(read_reply(conns[index], 4), expected_reply(index, b"wait"))
        if at_once < len(conns):
            conns[at_once].settimeout(0.3)
            with self.assertRaises(socket.timeout):
                conns[at_once].recv(1)       # not served while the first ones stay open
            conns[0].close()
            conns[at_once].settimeout(10)
            self.assertEqual(read_reply(conns[at_once], 4), expected_reply(at_once, b"wait"))
        for conn in conns:
            conn.close()

    def test_the_waits_of_20_connections_overlap(self):
        """wait_us 200,000 on 20 connections at once: a server that waits for one connection at a
        time cannot answer the 20th before 20 × 200 ms, however fast the machine; a concurrent one
        answers all of them about 200 ms after they are sent (the bound is the serial server's floor,
        not a speed: a busy machine would have to stall this one for 3.8 s to fail it)."""
        if self.model in AT_ONCE:
            return
        server = Server(self.model, wait_us=200_000, workers=2 if self.model in echo_server.WORKERS else None)
        conns = [server.connect() for _ in range(20)]
        started = time.monotonic()
        for index, conn in enumerate(conns):
            send_request(conn, index, b"overlap")
        for index, conn in enumerate(conns):
            self.assertEqual(read_reply(conn, 7), expected_reply(index, b"overlap"))
        self.assertLess(time.monotonic() - started, 20 * 0.2)
        for conn in conns:
            conn.close()
        self.assertEqual(server.close(), 0)

    def test_os_threads_with_12_connections_open(self):
        """threads: one per open connection; an event loop: a handful (its own and stdin's at most)."""
        family = echo_server.FAMILIES[self.model]
        if family not in ("threads", "event-loop"):
            return
        self.server.stats(0)
        conns = [self.server.connect() for _ in range(12)]
        for index, conn in enumerate(conns):   # one exchange each: every connection is being served
            send_request(conn, index, b"t")
            read_reply(conn, 1)
        now = self.server.threads()
        for conn in conns:
            conn.close()
        peak = self.server.stats(0)["extra"]["threads_peak"]
        if family == "threads":
            self.assertGreaterEqual((now, peak), (13, 13))
        else:
            self.assertLessEqual(max(now, peak), 3)


for _model in MODELS:
    globals()[f"Test_{_model}"] = type(f"Test_{_model}", (ServedModel, unittest.TestCase), {"model": _model})
del _model


class Listing(unittest.TestCase):
    def test_uvloop_is_a_model_or_says_why_not(self):
        workload = echo_server.WORKLOAD
        self.assertNotEqual("uvloop" in workload.models, "uvloop" in workload.unavailable)


class BadArguments(unittest.TestCase):
    def test_out_of_range_arguments_are_refused(self):
        for args in (["--wait-us", "-1"], ["--wait-us", "10000001"], ["--port", "70000"],
                     ["--workers", "2"], ["--model", "nope"]):
            with self.subTest(args=args), self.assertRaises(protocol.BadArguments):
                protocol.parse_call(["echo-server", "--model", "seq", *args], {"echo-server": echo_server.WORKLOAD},
                                    ["echo-server"])

    def test_a_bad_argument_exits_2_with_one_line(self):
        done = subprocess.run([sys.executable, "-m", "parbench_py", "echo-server", "--model", "seq", "--wait-us", "-5"],
                              cwd=HERE, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
        self.assertEqual((done.returncode, done.stdout, done.stderr.count("\n")), (2, "", 1), done.stderr)


def children_of(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as children:
        return [int(child) for child in children.read().split()]


if __name__ == "__main__":
    unittest.main()
