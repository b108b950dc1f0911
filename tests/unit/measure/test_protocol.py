"""protocol.py: the command line a process gets, the bounded JSON it may print, how its lines are
read into a reply, and the checks its numbers must pass before they are believed."""
import json

import pytest

from parbench.measure import protocol
from parbench.measure.protocol import (Reply, Unreadable, accounted_ns, command_line, feed_of, gaps_ns,
                                       implausible, parse_stdout, read_json)

MS = 1_000_000


def rep(index: int, ns: int = 5 * MS, items: int = 10, **extra) -> str:
    line = {"rep": index, "ns": ns, "items": items, "checksum": "42"}
    return json.dumps({**line, "extra": extra} if extra else line)


def reply_of(*lines: str, times: list[int] | None = None, first_timed: int = 0, repeat: int | None = None) -> Reply:
    return parse_stdout(list(lines), times, first_timed, repeat)


# --- the command line and the feed ---------------------------------------------------------------
def test_the_command_line_spells_params_with_dashes_and_says_nothing_of_repetitions():
    argv = command_line("impls/rt/run", "sdes", "pool", {"block_size": 64, "n": 3}, 4)
    assert argv == ["impls/rt/run", "sdes", "--model", "pool", "--block-size", "64", "--n", "3", "--workers", "4"]


def test_a_model_without_workers_gets_no_workers_flag():
    assert "--workers" not in command_line("run", "toy", "seq", {}, None)


def test_the_feed_is_the_variants_or_one_zero_per_repetition_it_may_run():
    assert feed_of([7, 8, 9], 3) == [7, 8, 9]
    assert feed_of(None, 5) == [0] * 5
    assert feed_of([], 1) == [0]


# --- bounded JSON ----------------------------------------------------------------------------------
def test_plain_json_is_read_as_json():
    assert read_json('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


@pytest.mark.parametrize("text, reason", [
    ('{"ns": NaN}', "NaN is not a number JSON has"),
    ('{"ns": Infinity}', "Infinity is not a number JSON has"),
    ('{"ns": 9223372036854775808}', "outside int64"),
    ('{"ns": -9223372036854775809}', "outside int64"),
    ('{"ns": 1e999}', "not a finite number"),
    ('{"s": "\\ud800"}', "lone surrogate"),
    ('{"\\udc00": 1}', "a key holds a lone surrogate"),
    ('{"ns": ', "not JSON"),
])
def test_json_the_harness_will_not_take_is_refused_with_its_reason(text, reason):
    with pytest.raises(Unreadable, match=reason):
        read_json(text)


def test_the_int64_bounds_themselves_are_taken():
    assert read_json(f"[{protocol.INT64[0]}, {protocol.INT64[1]}]") == list(protocol.INT64)


def test_nesting_beyond_the_bound_is_refused_and_at_the_bound_is_taken():
    assert read_json("[" * 8 + "]" * 8) == [[[[[[[[]]]]]]]]
    with pytest.raises(Unreadable, match="nested deeper than 8 levels"):
        read_json("[" * 9 + "]" * 9)
    with pytest.raises(Unreadable, match="nested deeper than 3 levels"):
        read_json('{"a": {"b": {"c": {}}}}', max_depth=3)


def test_many_brackets_that_never_nest_deep_are_taken_even_inside_strings():
    assert read_json('{"s": "[][][][][][][][][]", "t": [1]}') == {"s": "[][][][][][][][][]", "t": [1]}


def test_a_nesting_deep_enough_to_exhaust_the_parser_is_refused_not_crashed():
    with pytest.raises(Unreadable, match="nested deeper"):
        read_json("[" * 100_000 + "]" * 100_000)


# --- reading the lines -----------------------------------------------------------------------------
def test_timed_lines_become_repetitions_with_their_arrival_times():
    reply = reply_of(rep(0), rep(1), times=[10, 20])
    assert [r["rep"] for r in reply.repetitions] == [0, 1] and reply.arrival_ns == [10, 20]
    assert reply.malformed is None and reply.limit is None


def test_a_string_of_output_is_read_line_by_line_and_a_blank_line_is_malformed():
    reply = parse_stdout(f"{rep(0)}\n\n{rep(1)}\n")
    assert [r["rep"] for r in reply.repetitions] == [0, 1]
    assert reply.malformed.startswith("stdout line 2 is not JSON")     # protocol 4: nothing else on stdout


def test_the_repetitions_before_the_launchers_first_timed_one_are_the_warm_up():
    reply = reply_of(rep(0), rep(1), rep(2), times=[5, 9, 12], first_timed=2)
    assert [w["rep"] for w in reply.warmups] == [0, 1] and reply.warmup_arrival_ns == [5, 9]
    assert [r["rep"] for r in reply.repetitions] == [2] and reply.arrival_ns == [12]


def test_repetitions_out_of_order_are_malformed():
    reply = reply_of(rep(0), rep(2))
    assert "is repetition 2, where repetition 1 was due" in reply.malformed
    assert "is repetition 0, where repetition 1 was due" in reply_of(rep(0), rep(0)).malformed


def test_stray_output_is_malformed_but_a_limit_line_after_it_is_still_read():
    reply = reply_of("Picked up JAVA_TOOL_OPTIONS", json.dumps({"error": "limit", "detail": "too many workers"}))
    assert reply.limit == "too many workers"
    assert reply.malformed.startswith("stdout line 1 is not JSON")


def test_a_limit_line_without_a_detail_is_malformed():
    reply = reply_of(json.dumps({"error": "limit", "detail": "  "}))
    assert reply.limit is None and reply.malformed == "a limit line without a detail"


def test_only_the_first_problem_is_reported():
    reply = reply_of("[1]", "oops")
    assert reply.malformed.startswith("stdout line 1 is not a JSON object")


def test_a_line_of_unreadable_json_says_why_and_quotes_the_line_printably():
    reply = reply_of('{"rep": 0, "ns": NaN, "items": 1, "checksum": "\u00e9"}')
    assert "is not readable JSON: NaN is not a number JSON has" in reply.malformed
    assert "\\xe9" in reply.malformed and "\u00e9" not in reply.malformed


def test_a_line_longer_than_the_bound_is_malformed_without_being_parsed(monkeypatch):
    monkeypatch.setattr(protocol, "MAX_LINE_CHARS", 80)
    reply = reply_of(rep(0), json.dumps({"pad": "x" * 80}))
    assert reply.malformed == "stdout line 2 is longer than 80 characters"
    assert len(reply.repetitions) == 1


@pytest.mark.parametrize("record, problem", [
    ({"rep": 0, "ns": 5, "items": 1}, "lacks checksum (str)"),
    ({"rep": 0, "ns": "5", "items": 1, "checksum": "x"}, "lacks ns (int)"),
    ({"rep": True, "ns": 5, "items": 1, "checksum": "x"}, "lacks rep (int)"),
    ({"rep": 0, "ns": 5.0, "items": 1, "checksum": "x"}, "lacks ns (int)"),
    ({"warmup": 0, "ns": 5, "items": 1, "checksum": "x"}, "lacks rep (int)"),   # protocol 3's warm-up line
    ({"rep": 0, "ns": 5, "items": 1, "checksum": "x", "extra": [1]}, "extra is not an object"),
])
def test_a_line_missing_a_field_or_of_the_wrong_type_is_malformed(record, problem):
    reply = reply_of(json.dumps(record))
    assert reply.malformed.startswith(f"stdout line 1 {problem}") and not reply.repetitions and not reply.warmups


def test_a_line_beyond_the_repetitions_asked_for_ends_the_reading_as_bad_output():
    reply = reply_of(rep(0), rep(1), rep(2), json.dumps({"error": "limit", "detail": "late"}), repeat=2)
    assert reply.malformed == "stdout line 3 is a repetition beyond the 2 asked for"
    assert len(reply.repetitions) == 2 and reply.limit is None


def test_warmups_do_not_count_against_the_repeat_count():
    reply = reply_of(rep(0), rep(1), rep(2), first_timed=2, repeat=1)
    assert reply.malformed is None and len(reply.repetitions) == 1 and len(reply.warmups) == 2


def test_a_ready_line_first_is_protocol_3s_and_keeps_its_arrival():
    reply = reply_of(json.dumps({"ready": "warm", "start_ns": 1200}), rep(0), times=[3, 8])
    assert reply.ready == {"ready": "warm", "start_ns": 1200} and reply.ready_arrival_ns == 3
    assert reply.malformed is None and reply.arrival_ns == [8]


@pytest.mark.parametrize("lines, problem", [
    ([rep(0), json.dumps({"ready": "cold"})], "is a second ready line, or one after a repetition's"),
    ([json.dumps({"ready": "cold"}), json.dumps({"ready": "cold"})], "is a second ready line"),
    ([json.dumps({"ready": "hot"})], "has ready = 'hot', not one of cold, warm, none"),
    ([json.dumps({"ready": "warm"})], "is warm without start_ns"),
    ([json.dumps({"ready": "warm", "start_ns": -1})], "is warm without start_ns"),
    ([json.dumps({"ready": "warm", "start_ns": True})], "is warm without start_ns"),
    ([json.dumps({"ready": "none", "extra": "x"})], "has an extra that is not an object"),
])
def test_a_ready_line_out_of_place_or_incomplete_is_malformed(lines, problem):
    reply = reply_of(*lines)
    assert problem in reply.malformed


def test_a_cold_ready_line_needs_no_start_time():
    assert reply_of(json.dumps({"ready": "cold"})).ready == {"ready": "cold"}


# --- what a line accounts for, and the gaps the launcher saw ---------------------------------------
def test_a_line_accounts_for_its_work_every_phase_and_every_baseline():
    line = {"ns": 100, "extra": {"checksum_ns": 10, "prepare_ns": 5, "cleanup_ns": 1, "ceiling_ns": 2,
                                 "ceiling_setup_ns": 3, "baseline_spawn_ns": 20, "baseline_x_ns": 7.5,
                                 "other_ns": 1000, "baseline_flag": 99, "gap_ns": 10_000}}
    assert accounted_ns(line) == 100 + 10 + 5 + 1 + 2 + 3 + 20 + 7


def test_phases_that_are_not_numbers_account_for_nothing():
    assert accounted_ns({"ns": 50, "extra": {"checksum_ns": True, "prepare_ns": "9", "baseline_a_ns": None}}) == 50
    assert accounted_ns({"ns": 50, "extra": None}) == 50


def test_without_a_feed_each_gap_runs_from_the_line_before_and_the_first_has_none():
    reply = reply_of(rep(0), rep(1), rep(2), times=[100, 250, 400], first_timed=1)
    assert gaps_ns(reply) == [150, 150]
    assert gaps_ns(reply_of(rep(0), rep(1), times=[100, 250])) == [None, 150]


def test_with_a_feed_each_gap_runs_from_writing_the_variant_to_the_line():
    reply = reply_of(rep(0), rep(1), rep(2), times=[100, 250, 400], first_timed=1)
    assert gaps_ns(reply, [90, 240, 380]) == [10, 20]


def test_a_repetition_whose_variant_was_never_written_has_no_gap():
    reply = reply_of(rep(0), rep(1), times=[100, 250])
    assert gaps_ns(reply, [90]) == [10, None]


# --- the numbers that cannot be believed -----------------------------------------------------------
WALL = 100 * MS


def test_a_complete_plausible_reply_passes():
    reply = reply_of(rep(0), rep(1), rep(2), times=[MS, 7 * MS, 13 * MS], first_timed=1)
    assert implausible(reply, 2, 10, WALL) is None


def test_fewer_repetitions_than_asked_is_implausible():
    assert implausible(reply_of(rep(0)), 2, None, WALL) == "printed 1 timed repetitions, asked for 2"


def test_a_zero_time_is_implausible_unless_allowed_and_a_negative_one_always():
    assert "reports ns = 0: not a positive time" in implausible(reply_of(rep(0, ns=0)), 1, None, WALL)
    assert implausible(reply_of(rep(0, ns=0)), 1, None, WALL, zero_allowed=True) is None
    assert "not a positive time" in implausible(reply_of(rep(0, ns=-1)), 1, None, WALL, zero_allowed=True)


def test_a_negative_phase_is_implausible():
    # It would let ns exceed the gap the launcher saw and still add up: -10 ms of preparation
    # beside an ns 10 ms longer than the repetition took.
    assert implausible(reply_of(rep(0, prepare_ns=-10 * MS)), 1, None, WALL) == (
        "repetition 0 reports prepare_ns = -10000000: a phase cannot take negative time")
    assert "baseline_memcpy_ns = -1" in implausible(reply_of(rep(0, baseline_memcpy_ns=-1)), 1, None, WALL)
    assert implausible(reply_of(rep(0, prepare_ns=0, checksum_ns=MS)), 1, None, WALL) is None


def test_a_repetition_longer_than_the_whole_process_is_implausible():
    assert "longer than the whole process (100.0 ms)" in implausible(reply_of(rep(0, ns=WALL + 1)), 1, None, WALL)


def test_repetitions_that_add_up_to_more_than_the_process_are_implausible():
    reply = reply_of(rep(0, ns=60 * MS), rep(1, ns=60 * MS))
    assert implausible(reply, 2, None, WALL) == "its repetitions add up to more than the whole process's 100.0 ms"


def test_a_time_far_below_the_gap_between_its_lines_is_implausible():
    reply = reply_of(rep(0, ns=MS), rep(1, ns=10_000), times=[0, 20 * MS])
    assert "repetition 1 reports 10000 ns but its line came 20.0 ms after" in implausible(reply, 2, None, WALL)


def test_a_gap_stretched_by_waiting_for_a_core_is_judged_without_the_wait():
    reply = reply_of(rep(0, ns=MS), rep(1, ns=10_000), times=[0, 20 * MS])
    assert implausible(reply, 2, None, WALL, waited_ns=[0, 12 * MS]) is None        # 8 ms left: not checked
    assert "after the one before, less 5.0 ms waiting for a core" in implausible(reply, 2, None, WALL,
                                                                                  waited_ns=[0, 5 * MS])


def test_a_short_time_after_a_short_gap_is_not_checked():
    reply = reply_of(rep(0, ns=MS), rep(1, ns=1), times=[0, 9 * MS])
    assert implausible(reply, 2, None, WALL) is None


def test_a_wrong_item_count_names_the_line_warmups_included():
    assert implausible(reply_of(rep(0, items=9)), 1, 10, WALL, items_unit="keys") == \
        "repetition 0 reports items = 9, the case is 10 keys"
    assert implausible(reply_of(rep(0, items=3), rep(1), first_timed=1), 1, 10, WALL) == \
        "repetition 0 reports items = 3, the case is 10 items"
    assert implausible(reply_of(rep(0, items=9)), 1, None, WALL) is None
