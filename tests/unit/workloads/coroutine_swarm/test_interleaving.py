"""coroutine_swarm/interleaving.py: the probe tasks' tickets prove the tasks interleaved."""
from parbench.workloads.coroutine_swarm.interleaving import interleaving_problem, probe_tasks


def drawn_tickets(order: list[int], tasks: int, steps: int, salt: int) -> dict:
    """What a model reports when it ran its steps in `order` (one task id per step), drawing one
    ticket per step from a shared counter."""
    first, last = {}, {}
    for ticket, task in enumerate(order):
        first.setdefault(task, ticket)
        last[task] = ticket
    probes = [[t, first[t], last[t]] for t in sorted(probe_tasks(tasks, salt))]
    return {"tickets": len(order), "ticket_probes": probes}


def round_robin(tasks: int, steps: int) -> list[int]:
    return [t for _ in range(steps) for t in range(tasks)]


def run_to_completion(tasks: int, steps: int) -> list[int]:
    return [t for t in range(tasks) for _ in range(steps)]


def test_about_sixteen_probe_tasks_move_with_the_salt():
    assert probe_tasks(1000, 0) == set(range(0, 1000, 62))
    assert probe_tasks(1000, 5) == set(range(57, 1000, 62))
    assert probe_tasks(20, 7) == set(range(20))


def test_tasks_that_took_turns_pass():
    for tasks, steps, salt in ((40, 5, 3), (1000, 10, 123456), (2, 2, 0)):
        assert interleaving_problem(drawn_tickets(round_robin(tasks, steps), tasks, steps, salt),
                                    tasks, steps, salt) is None


def test_tasks_that_ran_to_completion_fail_whatever_they_count():
    extra = drawn_tickets(run_to_completion(40, 5), 40, 5, 3)
    assert "ran its 5 steps back to back" in interleaving_problem(extra, 40, 5, 3)


def test_a_model_without_tickets_is_unproven_not_passed():
    assert interleaving_problem({"switches": 200}, 40, 5, 3).startswith("interleaving unproven: extra.tickets")


def test_tickets_must_number_every_step_once():
    extra = drawn_tickets(round_robin(40, 5), 40, 5, 3)
    assert "drew 199 tickets" in interleaving_problem({**extra, "tickets": 199}, 40, 5, 3)


def test_the_probes_are_the_salts_not_the_models_choice():
    extra = drawn_tickets(round_robin(1000, 5), 1000, 5, 3)
    assert "not the salt's" in interleaving_problem(extra, 1000, 5, 4)


def test_made_up_tickets_that_cannot_hold_the_steps_or_collide_fail():
    extra = drawn_tickets(round_robin(40, 5), 40, 5, 3)
    probes = extra["ticket_probes"]
    squeezed = [[probes[0][0], 0, 2]] + probes[1:]
    assert "cannot hold its 5 steps" in interleaving_problem({**extra, "ticket_probes": squeezed}, 40, 5, 3)
    shared = [[probes[0][0], probes[1][1], probes[0][2]]] + probes[1:]
    assert "another probe task drew" in interleaving_problem({**extra, "ticket_probes": shared}, 40, 5, 3)


def test_one_task_or_one_step_has_nothing_to_interleave():
    assert interleaving_problem(drawn_tickets(run_to_completion(1, 5), 1, 5, 0), 1, 5, 0) is None
    assert interleaving_problem(drawn_tickets(run_to_completion(10, 1), 10, 1, 0), 10, 1, 0) is None


def in_windows(tasks: int, steps: int, window: int) -> list[int]:
    """Tasks taking turns `window` at a time, as tokio's workers do: probes far apart never
    overlap each other, but each shares its life with the rest of its window."""
    return [t for start in range(0, tasks, window) for _ in range(steps)
            for t in range(start, min(tasks, start + window))]


def test_tasks_taking_turns_in_windows_pass_though_the_probes_never_meet():
    assert interleaving_problem(drawn_tickets(in_windows(5000, 10, 100), 5000, 10, 3), 5000, 10, 3) is None


def test_one_probe_that_ran_back_to_back_among_interleaved_ones_passes():
    """A wheel can run a task's last step of one round and its first of the next together."""
    order = round_robin(40, 5)
    alone = [t for t in order if t != 1] + [1] * 5     # task 1 (a probe under salt 3) runs last, alone
    assert interleaving_problem(drawn_tickets(alone, 40, 5, 3), 40, 5, 3) is None
