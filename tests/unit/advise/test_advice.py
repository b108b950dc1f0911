"""advise/advice.py: one ranking per set of fixed params, predictions apart from what cannot be
predicted, the machine's CPUs from the evidence, and the sweeps that would measure what is missing."""
from advise_records import run_of
from unit_world import toy_workload

from parbench.advise.advice import advise
from parbench.advise.question import FIRST_RUN, Question

MEASURED = [("seq", 1000, None, 2_000_000), ("seq", 4000, None, 8_000_000),
            ("threads", 1000, 2, 1_000_000), ("threads", 4000, 2, 4_000_000)]


def advice_for(question: Question, cases=MEASURED, **run_options):
    return advise([run_of("toy", "n", cases, **run_options)], question, toy_workload(), 2)


def test_the_predictions_of_one_parameter_set_are_ranked_fastest_first():
    advice = advice_for(Question("toy", "n", 2000, {}, 2))
    ranking, = advice.rankings
    assert [(e.rank, e.prediction.model) for e in ranking.entries] == [(1, "threads"), (2, "seq")]
    assert ranking.entries[0].prediction.time.median < ranking.entries[1].prediction.time.median


def test_each_kernel_class_gets_its_own_ranking_in_a_stable_order():
    portable = run_of("toy", "n", MEASURED, extra_params={"kernel": "portable"})
    tuned = run_of("toy", "n", MEASURED, run_id=2, extra_params={"kernel": "tuned"})
    advice = advise([tuned, portable], Question("toy", "n", 2000, {}, 2), toy_workload(), 2)
    assert [r.context for r in advice.rankings] == [{"kernel": "portable"}, {"kernel": "tuned"}]
    assert sorted(advice.run_ids) == [1, 2]


def test_a_model_that_cannot_be_predicted_is_listed_apart_and_a_worker_sweep_is_proposed():
    advice = advice_for(Question("toy", "n", 2000, {}, 8), logical_cpus=8)
    ranking, = advice.rankings
    assert [e.prediction.model for e in ranking.entries] == ["seq"]
    assert [u.model for u in ranking.unpredictable] == ["threads"]
    sweep, = advice.missing
    assert sweep.arguments[:2] == ("sweep", "workers") and "--workers" in sweep.arguments


def test_a_value_beyond_the_measured_ones_proposes_a_sweep_up_to_it():
    advice = advice_for(Question("toy", "n", 64_000, {}, 2))
    assert all(e.prediction.extrapolated for e in advice.rankings[0].entries)
    sweep, = advice.missing
    assert sweep.arguments == ("sweep", "tasks", "--workload", "toy", "--counts", "4000,16000,64000")


def test_an_interpolated_answer_proposes_nothing_to_measure():
    assert advice_for(Question("toy", "n", 2000, {}, 2)).missing == []


def test_the_cpus_are_those_of_the_machine_the_evidence_was_measured_on():
    assert advice_for(Question("toy", "n", 2000, {}, 2), logical_cpus=6).cpus == 6


def test_evidence_that_does_not_say_its_cpus_takes_the_ones_given():
    record = run_of("toy", "n", MEASURED)
    record.machine["logical_cpus"] = None
    assert advise([record], Question("toy", "n", 2000, {}, 2), toy_workload(), 3).cpus == 3


def test_no_matching_case_gives_no_ranking_and_nothing_to_measure():
    advice = advice_for(Question("toy", "n", 2000, {}, 2, runtimes=("elsewhere",)))
    assert advice.rankings == [] and advice.missing == []


# advise --for first-run (issue 44): threads is steady-state fastest but pays a cold first
# repetition ten times its steady one; seq's first is only 1.5 times.
def _cold_threads_run():
    seq = run_of("toy", "n", [c for c in MEASURED if c[0] == "seq"], first_times=1.5)
    threads = run_of("toy", "n", [c for c in MEASURED if c[0] == "threads"], run_id=2, first_times=10)
    return [seq, threads]


def test_first_run_advice_ranks_by_each_process_first_repetition_and_shows_the_steady_figure_beside():
    question = Question("toy", "n", 4000, {}, 2, answers=FIRST_RUN)
    ranking, = advise(_cold_threads_run(), question, toy_workload(), 2).rankings
    assert [e.prediction.model for e in ranking.entries] == ["seq", "threads"]
    seq, threads = (e.prediction for e in ranking.entries)
    assert seq.time.median == 12_000_000 and threads.time.median == 40_000_000
    assert ranking.other[seq.name].median == 8_000_002 and ranking.other[threads.name].median == 4_000_002


def test_steady_state_advice_ranks_by_the_steady_median_and_shows_the_first_run_beside():
    ranking, = advise(_cold_threads_run(), Question("toy", "n", 4000, {}, 2), toy_workload(), 2).rankings
    assert [e.prediction.model for e in ranking.entries] == ["threads", "seq"]
    assert ranking.other[ranking.entries[0].prediction.name].median == 40_000_000


def test_a_candidate_without_first_run_figures_is_said_so_and_never_ranked_by_its_steady_figure():
    old = run_of("toy", "n", [c for c in MEASURED if c[0] == "threads"], run_id=2)     # before protocol 4
    seq = run_of("toy", "n", [c for c in MEASURED if c[0] == "seq"], first_times=1.5)
    advice = advise([seq, old], Question("toy", "n", 4000, {}, 2, answers=FIRST_RUN), toy_workload(), 2)
    ranking, = advice.rankings
    assert [e.prediction.model for e in ranking.entries] == ["seq"]
    lacking, = ranking.unpredictable
    assert lacking.model == "threads" and "no first-run figures stored for its 2 case(s)" in lacking.reason
    assert advice.missing == []          # not a worker sweep it lacks


def test_a_candidate_missing_some_first_run_figures_is_predicted_from_the_others_and_the_note_says_so():
    partial = run_of("toy", "n", [c for c in MEASURED if c[0] == "seq" and c[1] == 1000], first_times=2)
    old = run_of("toy", "n", [c for c in MEASURED if c[0] == "seq" and c[1] == 4000], run_id=2)
    advice = advise([partial, old], Question("toy", "n", 4000, {}, 2, answers=FIRST_RUN), toy_workload(), 2)
    entry, = advice.rankings[0].entries
    assert entry.prediction.measured_values == [1000.0]
    assert "left out of: rt seq (1)" in advice.note
