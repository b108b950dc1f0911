defmodule Parbench.WorkerPool do
  @moduledoc """
  The warm start's workers (protocol 3): a fixed set of long-lived BEAM processes, made once
  before the ready line, to which each repetition hands its work by message and waits for every
  answer.
  """
  alias Parbench.WorkTally

  defstruct [:workers]

  @doc """
  `--list`'s start modes of a model whose cold form is `Task.async_stream`, one task per `unit`
  (chunk, document), and whose warm form is this pool.
  """
  def start_modes(unit) do
    %{"cold" => "one Task.async_stream task per #{unit}, spawned and ended (:DOWN) inside each repetition's ns, at most workers at once; the scheduler threads that run them are the VM's, made at its boot",
      "warm" => "workers long-lived BEAM processes (Parbench.WorkerPool) spawned before the ready line (start_ns); each repetition sends each one message and they take #{unit}s off a shared :atomics counter until none is left; Task.async_stream cannot keep its tasks between calls, so this pool stands in for them"}
  end

  @doc """
  The context with `pool`: a pool of its `workers` when `start` is warm (its making timed as the
  context's `start_ns`), else nil.
  """
  def for_start(context, "warm") do
    {start_ns, pool} = Parbench.Protocol.time_ns(fn -> start(context.workers) end)
    Map.merge(context, %{pool: pool, start_ns: start_ns})
  end

  def for_start(context, _cold), do: Map.put(context, :pool, nil)

  @doc "Stops the context's pool, if it has one (a workload's finish/1)."
  def stop_for(%{pool: %__MODULE__{} = pool}), do: stop(pool)
  def stop_for(_context), do: :ok

  @doc "Starts `count` idle worker processes, linked to the caller (a worker that crashes takes the case with it, as a task does)."
  def start(count), do: %__MODULE__{workers: for(_ <- 1..count, do: spawn_link(&idle/0))}

  @doc """
  Runs `job.(worker)` on every worker at once (`worker` = 0…count-1) and returns their answers
  in the workers' order, once every worker has answered.
  """
  def run(%__MODULE__{workers: workers}, job) do
    reference = make_ref()
    workers |> Enum.with_index() |> Enum.each(fn {pid, worker} -> send(pid, {:job, self(), reference, worker, job}) end)
    for pid <- workers, do: receive(do: ({^reference, ^pid, answer} -> answer))
  end

  @doc """
  `fun` over `chunks` on the pool: every worker takes the next chunk off a shared counter until
  none is left (a free worker takes the next chunk, as a free slot of `Task.async_stream`
  does), each chunk recorded in `tally` under its worker. The results come in the chunks' order
  when `ordered`.
  """
  def map(pool, chunks, fun, tally, ordered) do
    chunks = List.to_tuple(chunks)
    next = :atomics.new(1, signed: false)
    done = pool |> run(&take_chunks(&1, chunks, next, fun, tally, [])) |> Enum.concat()
    done = if ordered, do: Enum.sort_by(done, &elem(&1, 0)), else: done
    Enum.map(done, &elem(&1, 1))
  end

  defp take_chunks(worker, chunks, next, fun, tally, done) do
    index = :atomics.add_get(next, 1, 1) - 1

    if index < tuple_size(chunks) do
      result = WorkTally.run_chunk(tally, worker, fn -> fun.(elem(chunks, index)) end)
      take_chunks(worker, chunks, next, fun, tally, [{index, result} | done])
    else
      done
    end
  end

  @doc "Ends every worker and waits until each has exited."
  def stop(%__MODULE__{workers: workers}) do
    monitors = for pid <- workers, do: {pid, Process.monitor(pid)}
    Enum.each(workers, &send(&1, :stop))
    for {pid, monitor} <- monitors, do: receive(do: ({:DOWN, ^monitor, :process, ^pid, _} -> :ok))
    :ok
  end

  # A worker hibernates between jobs: its heap is collected and shrunk right after it answers,
  # as an ended task's is freed, so that no repetition's garbage is collected in the next one.
  @doc false
  def idle do
    receive do
      {:job, caller, reference, worker, job} ->
        send(caller, {reference, self(), job.(worker)})
        :erlang.hibernate(__MODULE__, :idle, [])

      :stop ->
        :ok
    end
  end
end
