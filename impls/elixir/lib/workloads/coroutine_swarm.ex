defmodule Parbench.Workloads.CoroutineSwarm do
  @moduledoc "coroutine-swarm (seed 004): many BEAM processes that each yield before every FizzBuzz step."
  use Parbench.Workload
  alias Parbench.{Digest, ProcessLimit, Protocol}

  @impl true
  def name, do: "coroutine-swarm"
  @impl true
  def params, do: ["tasks", "steps", "sleep_ms", "max_processes"]

  @impl true
  def models do
    %{
      "seq" => %{family: "seq", note: "the same lines in a plain loop, no processes (the article's program 1)"},
      "processes" => %{
        family: "green",
        note: "one spawn/1 process per task; before each step :erlang.yield/0 (sleep-ms 0) or Process.sleep/1; each task sends its partial digest to the caller; the creating process runs at high priority while it spawns, and every task waits for a :go message, sent to the first task once all exist and passed on by each task to the next as it starts (an event loop's order), so all exist before any runs; --max-processes N adds +P N",
        start_unavailable: Parbench.Workload.units_are_the_work("task")
      }
    }
  end

  @impl true
  def prepare(model, options, _workers) do
    tasks = Protocol.integer_option(options, "tasks", :required)
    steps = Protocol.integer_option(options, "steps", 10)
    sleep_ms = Protocol.integer_option(options, "sleep-ms", 0)
    extra = if model == "processes", do: %{pause: pause_name(sleep_ms), spawner_priority: "high"}, else: %{}
    %{model: model, tasks: tasks, steps: steps, sleep_ms: sleep_ms, salt: 0, extra: extra}
  end

  @doc "The repetition's salt (its variant, read from stdin): task t forms its lines with the id t + salt."
  @impl true
  def vary(context, salt), do: %{context | salt: salt}

  # switches (protocol 2), counted at every step: the step's task swaps itself in as the last
  # one to run and counts a switch when another task ran before it. The first step of all has
  # no predecessor, so tasks that never interleave count tasks - 1.
  @impl true
  def run(%{model: "seq", tasks: tasks, steps: steps, salt: salt}) do
    {sum, _last, switches} =
      Enum.reduce(0..(tasks - 1)//1, {0, nil, 0}, fn task, acc ->
        Enum.reduce(0..(steps - 1)//1, acc, fn step, {sum, last, switches} ->
          switches = if last != nil and last != task, do: switches + 1, else: switches
          {Digest.add(sum, line(task + salt, step)), task, switches}
        end)
      end)

    {sum, nil, switches}
  end

  def run(%{model: "processes", tasks: tasks, steps: steps, sleep_ms: sleep_ms, salt: salt}) do
    caller = self()
    # [last task to run (0: none yet; task t is t + 1), switches, tickets drawn], shared by
    # every task.
    switches = :atomics.new(3, signed: true)
    probe = %{stride: max(div(tasks, 16), 1), salt: salt}
    started = :erlang.monotonic_time(:nanosecond)
    # The creator runs at high priority, as an asyncio loop creates every task before any runs:
    # otherwise it queues behind every yielding task and spawn_ns measures the swarm, not creation.
    previous_priority = Process.flag(:priority, :high)

    # Every task waits for :go before its first step, so that all exist before any runs (the
    # spec's "at once"), and passes :go on to the next task as it starts, as an event loop
    # starts task t + 1 when task t reaches its first yield. Without the gate an idle scheduler
    # steals each new task and runs its few steps to the end before the next one exists; with
    # a gate the creator opens task by task, the same happens whenever the creator's OS thread
    # is descheduled. So the tasks are created last to first, each knowing the next.
    first =
      ProcessLimit.guard(fn ->
        Enum.reduce((tasks - 1)..0//-1, nil, fn task, next ->
          spawn(fn -> swarm_task(caller, task, probe, steps, sleep_ms, switches, next) end)
        end)
      end)

    spawn_ns = :erlang.monotonic_time(:nanosecond) - started
    if first, do: send(first, :go)
    Process.flag(:priority, previous_priority)
    finished = for _ <- 1..tasks//1, do: receive(do: ({:task_digest, sum, probed} -> {sum, probed}))
    probes = for {_sum, probed} <- finished, probed != nil, do: probed

    {Digest.combine(Enum.map(finished, &elem(&1, 0))), spawn_ns,
     %{switches: :atomics.get(switches, 2), tickets: :atomics.get(switches, 3), ticket_probes: probes}}
  end

  @impl true
  def summarize({sum, nil, switches}, %{tasks: tasks}), do: {tasks, Digest.hex(sum), %{switches: switches}}
  def summarize({sum, spawn_ns, proof}, %{tasks: tasks}), do: {tasks, Digest.hex(sum), Map.put(proof, :spawn_ns, spawn_ns)}

  @doc """
  The ceiling "yield" (sleep-ms 0, model `processes`): one process, spawned before its clock
  starts, calls `:erlang.yield/0` tasks × steps times and forms no lines. seq has no units to
  yield and a sleeping swarm no bare yield, so neither has a ceiling.
  """
  @impl true
  def ceiling(%{model: "processes", sleep_ms: 0, tasks: tasks, steps: steps}) do
    caller = self()
    yielder =
      spawn(fn ->
        receive(do: (:go -> :ok))
        yield_times(tasks * steps)
        send(caller, {:yielded, self()})
      end)

    {yield_ns, _} =
      Protocol.time_ns(fn ->
        send(yielder, :go)
        receive(do: ({:yielded, ^yielder} -> :ok))
      end)

    %{ceiling: "yield", ceiling_ns: yield_ns}
  end

  def ceiling(_context), do: %{}

  defp yield_times(0), do: :ok

  defp yield_times(left) do
    :erlang.yield()
    yield_times(left - 1)
  end

  # Protocol 4's proof of interleaving: every step draws the next ticket (a fetch-add on the
  # shared atomics: tasks run on every scheduler), so tickets number the steps in the order they
  # ran; about 16 probe tasks, picked by the salt ((task + salt) rem stride == 0), send their
  # first and last tickets with their digest.
  defp swarm_task(caller, task, %{salt: salt, stride: stride}, steps, sleep_ms, switches, next) do
    me = task + 1
    receive(do: (:go -> :ok))
    if next, do: send(next, :go)

    {sum, first, last} =
      Enum.reduce(0..(steps - 1)//1, {0, nil, nil}, fn step, {sum, first, _last} ->
        pause(sleep_ms)
        previous = :atomics.exchange(switches, 1, me)
        if previous != 0 and previous != me, do: :atomics.add(switches, 2, 1)
        ticket = :atomics.add_get(switches, 3, 1) - 1
        {Digest.add(sum, line(task + salt, step)), first || ticket, ticket}
      end)

    probed = if first != nil and rem(task + salt, stride) == 0, do: [task, first, last]
    send(caller, {:task_digest, sum, probed})
  end

  defp pause(0), do: :erlang.yield()
  defp pause(sleep_ms), do: Process.sleep(sleep_ms)

  defp pause_name(0), do: ":erlang.yield/0"
  defp pause_name(_sleep_ms), do: "Process.sleep/1"

  @doc "The line of one step: \"task:step:fizzbuzz(step)\"."
  def line(task, step), do: "#{task}:#{step}:#{fizzbuzz(step)}"

  def fizzbuzz(i) when rem(i, 15) == 0, do: "FizzBuzz"
  def fizzbuzz(i) when rem(i, 5) == 0, do: "Buzz"
  def fizzbuzz(i) when rem(i, 3) == 0, do: "Fizz"
  def fizzbuzz(i), do: Integer.to_string(i)
end
