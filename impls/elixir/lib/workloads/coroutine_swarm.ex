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
        note: "one spawn/1 process per task; before each step :erlang.yield/0 (sleep-ms 0) or Process.sleep/1; each task sends its partial digest to the caller; the creating process runs at high priority while it spawns, so every task exists before most run; --max-processes N adds +P N"
      }
    }
  end

  @impl true
  def prepare(model, options, _workers) do
    tasks = Protocol.integer_option(options, "tasks", :required)
    steps = Protocol.integer_option(options, "steps", 10)
    sleep_ms = Protocol.integer_option(options, "sleep-ms", 0)
    extra = if model == "processes", do: %{pause: pause_name(sleep_ms), spawner_priority: "high"}, else: %{}
    %{model: model, tasks: tasks, steps: steps, sleep_ms: sleep_ms, extra: extra}
  end

  @impl true
  def run(%{model: "seq", tasks: tasks, steps: steps}) do
    sum =
      Enum.reduce(0..(tasks - 1)//1, 0, fn task, sum ->
        Enum.reduce(0..(steps - 1)//1, sum, &Digest.add(&2, line(task, &1)))
      end)

    {sum, nil}
  end

  def run(%{model: "processes", tasks: tasks, steps: steps, sleep_ms: sleep_ms}) do
    caller = self()
    started = :erlang.monotonic_time(:nanosecond)
    # The creator runs at high priority, as an asyncio loop creates every task before any runs:
    # otherwise it queues behind every yielding task and spawn_ns measures the swarm, not creation.
    previous_priority = Process.flag(:priority, :high)

    ProcessLimit.guard(fn ->
      for task <- 0..(tasks - 1)//1, do: spawn(fn -> swarm_task(caller, task, steps, sleep_ms) end)
    end)

    spawn_ns = :erlang.monotonic_time(:nanosecond) - started
    Process.flag(:priority, previous_priority)
    partial_sums = for _ <- 1..tasks//1, do: receive(do: ({:task_digest, sum} -> sum))
    {Digest.combine(partial_sums), spawn_ns}
  end

  @impl true
  def summarize({sum, nil}, %{tasks: tasks}), do: {tasks, Digest.hex(sum), %{}}
  def summarize({sum, spawn_ns}, %{tasks: tasks}), do: {tasks, Digest.hex(sum), %{spawn_ns: spawn_ns}}

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

  defp swarm_task(caller, task, steps, sleep_ms) do
    sum =
      Enum.reduce(0..(steps - 1)//1, 0, fn step, sum ->
        pause(sleep_ms)
        Digest.add(sum, line(task, step))
      end)

    send(caller, {:task_digest, sum})
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
