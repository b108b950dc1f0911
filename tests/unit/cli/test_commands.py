"""cli/commands.py: each command, in process (click's CliRunner), on a real SQLite store of known
runs: history, show, compare (and its regression exit), report, load's refusal, the usage errors
(exit 2) that stop a run before anything is measured, and the help texts."""
import pytest
from click.testing import CliRunner
from unit_records import case_run

from parbench.cli.commands import main
from parbench.errors import EXIT_REGRESSION, EXIT_USAGE
from parbench.records import RunRecord
from parbench.store import open_store

POOL = ((50, 55, 52), (51, 54, 53))


@pytest.fixture
def db(tmp_path) -> str:
    """Two complete runs: in run 2 the seq case is three times slower, the pool the same."""
    path = str(tmp_path / "results.sqlite")
    store = open_store(path)
    for seq_times in (((100, 110, 105), (102, 108, 104)), ((300, 310, 305), (302, 308, 304))):
        record = RunRecord(None, "2026-11-25T08:00:00+00:00", "smoke", {"warmup": 0, "repeat": 3},
                           {"hostname": "unit", "logical_cpus": 2}, {"rt": {"version": "1", "flags": "", "sources": {}}})
        run_id = store.begin_run(record)
        for run in (case_run(times=seq_times), case_run("pool", "threads", POOL, workers=2)):
            store.add_case(run_id, run)
        store.finish_run(run_id, "complete", "2026-11-25T08:01:00+00:00")
    store.close()
    return path


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_the_help_lists_every_command():
    done = invoke("--help")
    assert done.exit_code == 0
    for name in ("advise", "build", "compare", "doctor", "exec", "history", "list", "load", "report", "run",
                 "show", "sweep"):
        assert f"  {name} " in done.output


def test_history_lists_every_stored_run_with_its_case_count(db):
    done = invoke("history", "--db", db)
    rows = [line for line in done.output.splitlines() if "complete" in line]
    assert done.exit_code == 0 and [row.split()[1] for row in rows] == ["1", "2"] and all(" 2 " in r for r in rows)


def test_show_reprints_a_stored_run_with_its_comparison(db):
    done = invoke("show", "1", "--db", db)
    assert done.exit_code == 0 and "rt pool ×2" in done.output and "faster" in done.output


def test_show_of_a_run_that_is_not_stored_is_a_usage_error_naming_those_that_are(db):
    done = invoke("show", "9", "--db", db)
    assert done.exit_code == EXIT_USAGE and "no run '9'; stored runs: 1, 2" in done.output


def test_compare_gives_a_verdict_per_case(db):
    done = invoke("compare", "1", "2", "--db", db)
    seq = next(line for line in done.output.splitlines() if "toy/rt/seq" in line)
    pool = next(line for line in done.output.splitlines() if "toy/rt/pool" in line)
    assert done.exit_code == 0 and "slower" in seq and "no significant difference" in pool


def test_compare_exits_1_where_a_case_regressed_beyond_the_threshold_and_names_it(db):
    done = invoke("compare", "1", "2", "--db", db, "--fail-on-regression", "10")
    assert done.exit_code == EXIT_REGRESSION and "1 case(s) regressed by more than 10 %: toy/rt/seq[n=10]" in done.output


def test_compare_within_the_threshold_exits_0(db):
    assert invoke("compare", "1", "2", "--db", db, "--fail-on-regression", "500").exit_code == 0


def test_compare_fails_on_a_case_missing_from_either_run_unless_allowed(db):
    store = open_store(db)
    record = RunRecord(None, "2026-11-25T09:00:00+00:00", "smoke", {"warmup": 0, "repeat": 3},
                       {"hostname": "unit", "logical_cpus": 2}, {"rt": {"version": "1", "flags": "", "sources": {}}})
    run_id = store.begin_run(record)
    store.add_case(run_id, case_run("pool-renamed", "threads", POOL, workers=2))
    store.add_case(run_id, case_run(times=((100, 110, 105), (102, 108, 104))))
    store.finish_run(run_id, "complete", "2026-11-25T09:01:00+00:00")
    store.close()
    done = invoke("compare", "1", "3", "--db", db, "--fail-on-regression", "500")
    assert done.exit_code == EXIT_REGRESSION, done.output
    assert ("2 case(s) missing from one run (--allow-missing lets them pass): toy/rt/pool[n=10,workers=2] (only in "
            "run 1), toy/rt/pool-renamed[n=10,workers=2] (only in run 3)") in " ".join(done.output.split())
    assert invoke("compare", "1", "3", "--db", db, "--fail-on-regression", "500", "--allow-missing").exit_code == 0
    assert invoke("compare", "1", "3", "--db", db).exit_code == 0          # no gate asked: a report only


def test_compare_with_one_run_says_what_it_wants(db):
    done = invoke("compare", "1", "--db", db)
    assert done.exit_code == EXIT_USAGE and "compare wants two runs" in done.output


def test_report_writes_one_html_page_of_a_stored_run(db, tmp_path):
    done = invoke("report", "--html", str(tmp_path / "r.html"), "--db", db)
    assert done.exit_code == 0 and (tmp_path / "r.html").read_text().lstrip().lower().startswith("<!doctype html")


def test_load_refuses_a_file_that_is_not_a_journal_and_keeps_it(db, tmp_path):
    journal = tmp_path / "not-a-journal"
    journal.write_text("hello\n")
    done = invoke("load", str(journal), "--db", db)
    assert done.exit_code == EXIT_USAGE and "is not a parbench journal" in done.output
    assert journal.read_text() == "hello\n"


def test_run_with_an_unknown_workload_is_a_usage_error_naming_the_valid_ones(db):
    done = invoke("run", "--workload", "nope", "--db", db)
    assert done.exit_code == EXIT_USAGE and "unknown workload 'nope'; valid: batch-job" in done.output


def test_sweep_counts_that_are_not_integers_are_a_usage_error(db):
    done = invoke("sweep", "tasks", "--counts", "1,x", "--db", db)
    assert done.exit_code == EXIT_USAGE and "--counts wants a comma list of positive integers" in done.output


def test_an_unknown_sweep_axis_is_a_usage_error():
    done = invoke("sweep", "diagonal")
    assert done.exit_code == EXIT_USAGE and "diagonal" in done.output


def test_advise_with_a_store_that_is_not_there_is_a_usage_error(tmp_path):
    done = invoke("advise", "--workload", "keygen", "--param", "count=1", "--db", str(tmp_path / "none.sqlite"))
    assert done.exit_code == EXIT_USAGE and "no results store at" in done.output


def test_advise_for_takes_only_its_two_figures_and_not_with_exec(tmp_path):
    done = invoke("advise", "--workload", "keygen", "--param", "count=1", "--for", "cold", "--db", str(tmp_path / "x"))
    assert done.exit_code == EXIT_USAGE and "first-run" in done.output
    done = invoke("advise", "--exec", "1", "--for", "first-run", "--db", str(tmp_path / "x"))
    assert done.exit_code == EXIT_USAGE and "--for" in done.output


def test_a_store_address_parbench_does_not_know_is_one_line_not_a_traceback():
    done = invoke("advise", "--workload", "keygen", "--param", "count=1", "--db", "ftp://x/y")
    assert done.exit_code == EXIT_USAGE and "not a store parbench knows" in done.output and "Traceback" not in done.output


@pytest.mark.parametrize("command", [("history",), ("show",), ("report", "--html", "page.html"), ("compare", "1", "2")])
def test_a_reader_of_a_store_that_is_not_there_says_so_and_makes_none(tmp_path, command):
    """A typo in --db is one line, not a new empty store beside the real one."""
    missing = tmp_path / "typo.sqlite"
    done = invoke(*command[:1], *[str(tmp_path / a) if a.endswith(".html") else a for a in command[1:]],
                  "--db", str(missing))
    assert done.exit_code == EXIT_USAGE and "no results store at" in done.output
    assert list(tmp_path.iterdir()) == []
