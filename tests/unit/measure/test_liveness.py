"""liveness.py: an owner id that names one process, alive by its pid here and by its heartbeat
elsewhere, and the signals that stop a run the way Ctrl-C does."""
import os
import signal
import socket
import subprocess

import pytest

from parbench.measure import liveness
from parbench.measure.liveness import Stopped


def owner_of(pid: int) -> str:
    """The owner id the process `pid` would give itself."""
    here = liveness.owner_id().split("|")
    return "|".join(here[:3] + [str(pid), str(liveness._start_time(pid))])


def test_this_harness_owner_id_names_its_host_pid_and_start_and_it_is_alive():
    owner = liveness.owner_id()
    host, boot, namespace, pid, started = owner.split("|")
    assert host == socket.gethostname() and pid == str(os.getpid()) and started.isdigit()
    assert liveness.owner_pid(owner) == str(os.getpid())
    assert liveness.is_alive(owner)


def test_a_process_here_is_alive_until_it_ends_whatever_its_heartbeat_says():
    child = subprocess.Popen(["sleep", "5"])
    try:
        owner = owner_of(child.pid)
        assert liveness.is_alive(owner, heartbeat_age_s=10_000)
    finally:
        child.kill()
        child.wait()
    assert not liveness.is_alive(owner, heartbeat_age_s=0)
    assert liveness.why_dead(owner, 0) == f"its parbench, pid {child.pid}, is gone"


def test_a_pid_reused_by_another_process_is_not_the_owner():
    here = liveness.owner_id().split("|")
    assert not liveness.is_alive("|".join(here[:4] + ["1"]))


def test_an_owner_on_another_host_is_alive_while_its_heartbeat_is_fresh():
    owner = "elsewhere.example|boot|pid:[1]|123|456"
    assert liveness.is_alive(owner, heartbeat_age_s=liveness.STALE_AFTER_S - 1)
    assert not liveness.is_alive(owner, heartbeat_age_s=liveness.STALE_AFTER_S)
    assert liveness.why_dead(owner, 300) == ("its parbench on elsewhere.example has not beaten for 300 s "
                                             f"(a run is taken as dead after {liveness.STALE_AFTER_S} s)")


def test_another_boot_or_pid_namespace_of_this_host_is_judged_by_heartbeat():
    host, boot, namespace, pid, started = liveness.owner_id().split("|")
    for owner in (f"{host}|another-boot|{namespace}|{pid}|{started}", f"{host}|{boot}|pid:[0]|{pid}|{started}"):
        assert liveness.is_alive(owner, heartbeat_age_s=1)
        assert not liveness.is_alive(owner)


def test_an_older_three_part_owner_of_this_host_is_checked_by_pid():
    started = liveness._start_time(os.getpid())
    assert liveness.is_alive(f"{socket.gethostname()}|{os.getpid()}|{started}")
    assert liveness.owner_pid(f"{socket.gethostname()}|{os.getpid()}|{started}") == str(os.getpid())
    assert not liveness.is_alive(f"{socket.gethostname()}|{os.getpid()}|0", heartbeat_age_s=0)


@pytest.mark.parametrize("owner", ["", "host|1", "a|b|c|d", "a|b|c|d|e|f"])
def test_an_empty_or_malformed_owner_is_dead_however_fresh_its_heartbeat(owner):
    assert not liveness.is_alive(owner, heartbeat_age_s=0)


def test_an_owner_here_whose_pid_is_not_a_number_is_dead():
    host, boot, namespace, _, started = liveness.owner_id().split("|")
    assert not liveness.is_alive(f"{host}|{boot}|{namespace}|notapid|{started}", heartbeat_age_s=0)


def test_a_malformed_owner_has_no_pid():
    assert liveness.owner_pid("") == "?" and liveness.owner_pid("a|b|c|d") == "?"


def test_a_pid_that_does_not_exist_has_no_start_time():
    assert liveness._start_time(2 ** 22 + 1) is None


def test_each_handled_signal_stops_with_the_shell_s_exit_code_for_it():
    assert [Stopped(s).exit_code for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == [130, 143, 129]
    assert str(Stopped(signal.SIGTERM)) == "SIGTERM"
    assert liveness.exit_code_of(Stopped(signal.SIGHUP)) == 129
    assert liveness.exit_code_of(KeyboardInterrupt()) == 130 and liveness.exit_code_of(None) == 130
    assert liveness.signal_of(KeyboardInterrupt()) == signal.SIGINT
    assert liveness.signal_of(Stopped(signal.SIGTERM)) == signal.SIGTERM


def test_a_child_that_exited_as_a_handled_signal_is_the_same_stop():
    stop = liveness.stopped_by_exit_code(143)
    assert isinstance(stop, Stopped) and stop.signum == signal.SIGTERM
    assert liveness.stopped_by_exit_code(1) is None and liveness.stopped_by_exit_code(0) is None


@pytest.fixture
def handlers_restored():
    saved = {s: signal.getsignal(s) for s in liveness.HANDLED}
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)


def test_the_first_signal_stops_like_ctrl_c_and_a_later_one_is_only_noted(handlers_restored):
    liveness.stop_like_ctrl_c()
    with pytest.raises(Stopped) as stopped:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):
            pass
    assert stopped.value.exit_code == 143
    os.kill(os.getpid(), signal.SIGINT)          # would raise KeyboardInterrupt or Stopped if not noted only
    for _ in range(1000):
        pass


def test_sigint_is_taken_even_where_it_was_ignored(handlers_restored):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    liveness.stop_like_ctrl_c()
    with pytest.raises(Stopped) as stopped:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):
            pass
    assert stopped.value.exit_code == 130
