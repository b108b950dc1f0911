defmodule Parbench.WorkTally do
  @moduledoc """
  Counts, while the work runs, how many chunks were processed, by how many distinct workers, and
  when each worker was busy (`extra.chunks`, `extra.workers_used`, `extra.busy`).
  """

  @doc "A fresh tally; made inside the timed region by the process that runs the case."
  def new do
    # One row per chunk {worker, started, ended, chunks}: workers of a bounded stream share a
    # slot, so a per-worker min/max row would race; the rows are merged after the clock.
    %{table: :ets.new(__MODULE__, [:duplicate_bag, :public, write_concurrency: true]),
      in_progress: :atomics.new(1, signed: true)}
  end

  @doc "The clock busy intervals are read from (`:erlang.monotonic_time/1`, ns; VM-wide)."
  def now, do: :erlang.monotonic_time(:nanosecond)

  @doc "Records that `worker` (a term naming it) processed `chunks` chunks between `started` and `ended`."
  def record(tally, worker, started, ended, chunks \\ 1)
  def record(nil, _worker, _started, _ended, _chunks), do: :ok

  def record(%{table: table}, worker, started, ended, chunks) do
    :ets.insert(table, {worker, started, ended, chunks})
    :ok
  end

  @doc "Runs one chunk's `work` as `worker` and records it with its busy interval."
  def run_chunk(nil, _worker, work), do: work.()

  def run_chunk(tally, worker, work) do
    started = now()
    result = work.()
    record(tally, worker, started, now())
    result
  end

  @doc """
  Runs one chunk's `work` in a task that lives for that chunk alone, and records it under the
  number of chunks in progress when it began. Every level from 1 up to the highest is reached
  by some chunk, so the distinct levels count the most chunks in progress at once: the busy
  slots of a bounded stream, which is what `--workers` counts there.
  """
  def in_slot(nil, work), do: work.()

  def in_slot(%{in_progress: in_progress} = tally, work) do
    started = now()
    level = :atomics.add_get(in_progress, 1, 1)
    result = work.()
    :atomics.sub(in_progress, 1, 1)
    record(tally, {:in_progress, level}, started, now())
    result
  end

  @doc """
  The counts, after the clock stopped; the tally is gone afterwards. `busy` holds one
  `[worker, first start, last end]` per worker on the monotonic clock (Parbench.Protocol makes
  it relative to the repetition's clock); workers are numbered 0… in the order they started.
  """
  def summary(%{table: table}) do
    rows = :ets.tab2list(table)
    :ets.delete(table)

    spans =
      rows
      |> Enum.group_by(&elem(&1, 0))
      |> Enum.map(fn {_worker, rows} ->
        {rows |> Enum.map(&elem(&1, 1)) |> Enum.min(), rows |> Enum.map(&elem(&1, 2)) |> Enum.max()}
      end)
      |> Enum.sort()

    %{chunks: rows |> Enum.map(&elem(&1, 3)) |> Enum.sum(),
      workers_used: length(spans),
      busy: spans |> Enum.with_index() |> Enum.map(fn {{from, to}, index} -> [index, from, to] end)}
  end
end
