"""echo_loop.py: the harness's side of a server's conversation, and how its lines become the
repetitions' (the launcher's part is tests/integration/test_echo_server.py's)."""
import json
import os
import time

from parbench.measure.echo_loop import _Conversation, _port_of, repetition_lines
from parbench.measure.loadgen import LoadResult, ReferenceServer
from parbench.workloads.echo_server.oracle import echo_checksum

PARAMS = {"connections": 5, "requests": 2, "len": 16, "wait_us": 0}


def _load(ok=True, replies=10):
    return LoadResult(2_000_000, replies, 10, 0 if ok else 1, None if ok else "connection refused",
                      None if ok else "refused", 100_000, 900_000, 950_000, "00000000000000ab", 7, 2, 20000)


def test_a_repetitions_time_replies_and_digest_are_the_load_generators_not_the_servers():
    server_line = json.dumps({"rep": 0, "ns": 1, "items": 99, "checksum": "forged", "extra": {"replies": 12,
                                                                                             "p99_ns": 1}})
    ready, merged = repetition_lines(['{"ready":"none","port":1}', server_line], [_load()])
    record = json.loads(merged)
    assert ready == '{"ready":"none","port":1}'
    assert (record["rep"], record["ns"], record["items"], record["checksum"]) == (0, 2_000_000, 10, "00000000000000ab")
    assert record["extra"]["replies"] == 12 and record["extra"]["p99_ns"] == 900_000
    assert record["extra"]["replies_per_s"] == 5000.0


def test_a_line_after_a_failed_repetition_stays_as_the_server_printed_it():
    lines = ['{"ready":"none","port":1}', '{"rep":0,"items":1,"checksum":"served"}']
    assert repetition_lines(lines, [_load(ok=False)]) == lines


def test_a_ready_line_must_name_a_port():
    assert _port_of('{"ready":"none","port":4242}') == 4242
    for line in ('{"ready":"none"}', '{"ready":"none","port":0}', '{"ready":"none","port":"80"}',
                 '{"rep":0,"port":80}', "not json", '{"ready":"none","port":true}'):
        assert _port_of(line) is None, line


def _talk(repetitions=2):
    read, write = os.pipe()
    return read, _Conversation(write, [11, 12, 13], PARAMS, repetitions, time.monotonic() + 30)


def test_each_repetition_is_the_load_generators_then_its_index_on_the_servers_stdin():
    read, talk = _talk()
    with ReferenceServer(wait_us=0) as server:
        talk.heard(f'{{"ready":"none","port":{server.port}}}\n'.encode())
        assert os.read(read, 100) == b"0\n" and talk.loads[0].digest == echo_checksum(5, 2, 16, 11)
        talk.heard(b'{"rep":0,"items":12,"checksum":"served"}\n')
        assert os.read(read, 100) == b"1\n" and talk.loads[1].digest == echo_checksum(5, 2, 16, 12)
        talk.heard(b'{"rep":1,"items":12,"checksum":"served"}\n')
    assert os.read(read, 100) == b"" and talk.failure is None      # end of file after the last


def test_a_ready_line_without_a_port_ends_the_conversation_with_the_reason():
    read, talk = _talk()
    talk.heard(b'{"ready":"none"}\n')
    assert os.read(read, 100) == b"" and talk.failure.outcome == "bad-output"
    assert "not a ready line naming its port" in talk.failure.detail and talk.loads == []


def test_a_failed_repetition_ends_the_conversation_without_its_index():
    read, talk = _talk()
    with ReferenceServer(wait_us=0) as server:
        port = server.port
    talk.heard(f'{{"ready":"none","port":{port}}}\n'.encode())        # nothing listens there now
    assert os.read(read, 100) == b"" and talk.failure.outcome == "bad-output"
    assert "repetition 0 (warm-ups count from 0): the load generator: connection 0" in talk.failure.detail


def test_a_repetition_that_gets_no_reply_ends_at_the_repetitions_own_timeout_not_the_cases(monkeypatch):
    import socket

    from parbench.measure import echo_loop
    monkeypatch.setattr(echo_loop, "REPETITION_TIMEOUT_S", 1.0)
    read, write = os.pipe()
    talk = _Conversation(write, [1], PARAMS, 1, time.monotonic() + 3600)
    with socket.create_server(("127.0.0.1", 0)) as silent:        # accepts in its backlog, never replies
        started = time.monotonic()
        talk.heard(f'{{"ready":"none","port":{silent.getsockname()[1]}}}\n'.encode())
    assert time.monotonic() - started < 10 and talk.failure.outcome == "timeout"
    assert "timeout after 1000 ms" in talk.failure.detail


def test_more_connections_than_descriptors_is_a_limit_naming_the_limit(monkeypatch):
    from parbench.measure import echo_loop
    out_of_descriptors = LoadResult(1, 5, 10, 5, "connection 5, request 0: could not open it: too many open files",
                                    "open", -1, -1, -1, "", 11, 0, 20000)
    monkeypatch.setattr(echo_loop, "run_load", lambda port, load, timeout: out_of_descriptors)
    read, talk = _talk()
    talk.heard(b'{"ready":"none","port":4242}\n')
    assert talk.failure.outcome == "limit" and "its limit is 20,000" in talk.failure.detail
