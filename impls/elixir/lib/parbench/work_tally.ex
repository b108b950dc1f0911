defmodule Parbench.WorkTally do
  @moduledoc """
  Counts, while the work runs, how many chunks were processed and by how many distinct workers
  (`extra.chunks`, `extra.workers_used`).
  """

  @doc "A fresh tally; made inside the timed region by the process that runs the case."
  def new do
    %{table: :ets.new(__MODULE__, [:set, :public, write_concurrency: true]),
      in_progress: :atomics.new(1, signed: true)}
  end

  @doc "Records one chunk processed by `worker` (a term naming it)."
  def chunk_done(nil, _worker), do: :ok

  def chunk_done(%{table: table}, worker) do
    :ets.update_counter(table, :chunks, 1, {:chunks, 0})
    :ets.insert(table, {{:worker, worker}})
    :ok
  end

  @doc """
  Runs one chunk's `work` in a task that lives for that chunk alone, and records it under the
  number of chunks in progress when it began. Every level from 1 up to the highest is reached
  by some chunk, so the distinct levels count the most chunks in progress at once: the busy
  slots of a bounded stream, which is what `--workers` counts there.
  """
  def in_slot(nil, work), do: work.()

  def in_slot(%{in_progress: in_progress} = tally, work) do
    level = :atomics.add_get(in_progress, 1, 1)
    result = work.()
    :atomics.sub(in_progress, 1, 1)
    chunk_done(tally, {:in_progress, level})
    result
  end

  @doc "The counts, after the clock stopped; the tally is gone afterwards."
  def summary(%{table: table}) do
    counts = %{
      chunks: Enum.sum(for {:chunks, chunks} <- :ets.lookup(table, :chunks), do: chunks),
      workers_used: :ets.select_count(table, [{{{:worker, :_}}, [], [true]}])
    }

    :ets.delete(table)
    counts
  end
end
