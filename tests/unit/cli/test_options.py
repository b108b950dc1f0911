"""flags.py: the command line's own types; a bad value is one line and exit 2."""
import click
import pytest

from parbench.cli import options as flags


def test_a_comma_list_of_counts_within_bounds():
    assert flags.csv_ints("1,2, 4") == (1, 2, 4) and flags.csv_ints(None) == ()
    assert flags.csv_ints("1000000", "--counts") == (1_000_000,)


@pytest.mark.parametrize("text, option", [("1,,2", "--workers"), ("0", "--workers"), ("two", "--workers"),
                                          ("5000", "--workers"), ("١", "--workers"), ("10000000000", "--counts")])
def test_a_bad_comma_list_exits_2(text, option):
    with pytest.raises(SystemExit) as exit_:
        flags.csv_ints(text, option)
    assert exit_.value.code == 2


def test_memory_limits_in_sizes_and_none():
    assert flags.memory_limit_kb("8G") == 8 * 1024 ** 2 and flags.memory_limit_kb("512") == 512 * 1024
    assert flags.memory_limit_kb("none") == 0 and flags.memory_limit_kb(None) is None


@pytest.mark.parametrize("text", ["0.4K", "eight", "101%", "2000T"])
def test_a_memory_limit_that_is_no_limit_exits_2(text):
    with pytest.raises(SystemExit):
        flags.memory_limit_kb(text)


@pytest.mark.parametrize("value", ["nan", "inf", "1e12", "0.01", "soon"])
def test_seconds_are_finite_and_within_bounds(value):
    with pytest.raises(click.BadParameter):
        flags.Seconds().convert(value, None, None)
    assert flags.Seconds().convert("2.5", None, None) == 2.5


def test_the_export_flags_are_picked_from_a_commands_flags():
    assert flags.exports_in({"export_json": "a.json", "scale": "smoke", "export_csv": None}) == \
        {"export_json": "a.json", "export_csv": None}


def test_a_request_from_run_options_flags():
    given = {"scale": "smoke", "workloads": ("w",), "runtimes": (), "models": (), "params": ("n=5,6",),
             "processes": None, "warmup": None, "warmup_budget": None, "repeat": 2, "timeout": None, "budget": None, "target_ci": None,
             "memory_limit": "1G", "order": "shuffled", "order_seed": 7, "as_root": True}
    request = flags.request_from(given, "1,2")
    assert request.params == {"n": [5, 6]} and request.workers == (1, 2) and request.seed == 7
    assert request.as_root
    assert request.memory_limit_kb == 1024 ** 2 and request.setting("processes") == 2


def _stopped_by(interruption):
    @click.group(cls=flags.OneLineErrors)
    def group():
        pass

    @group.command()
    def sweep():
        raise interruption
    return group


def test_a_stop_whose_sweep_said_what_it_stored_is_not_contradicted(capfd):
    """Issue 46: advise --measure printed "5 cases are stored in run 2", then "interrupted
    (SIGINT) before anything was stored"."""
    from parbench.measure import liveness
    with pytest.raises(SystemExit) as exited:
        _stopped_by(liveness.stopped_by_exit_code(130)).main(["sweep"], prog_name="parbench")
    err = capfd.readouterr().err
    assert exited.value.code == 130
    assert "before anything was stored" not in err and "interrupted (SIGINT); what was stored is said above" in err


def test_a_stop_before_anything_ran_says_so(capfd):
    with pytest.raises(SystemExit) as exited:
        _stopped_by(KeyboardInterrupt()).main(["sweep"], prog_name="parbench")
    assert exited.value.code == 130 and "interrupted (SIGINT) before anything was stored" in capfd.readouterr().err
