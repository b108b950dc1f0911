defmodule Parbench.ChunkStream do
  @moduledoc """
  Runs a function over chunks with a case's workers: cold, in `Task.async_stream` tasks spawned
  for the repetition (one per chunk, at most `workers` at once); warm, on the case's
  Parbench.WorkerPool, made before the ready line.
  """
  alias Parbench.{WorkerPool, WorkTally}

  @doc """
  The results of `fun` over `chunks` (in the chunks' order when `ordered`), on the context's
  `pool` when it has one, else in tasks. Every task has exited when this returns: the stream
  hands a result on only after its task's `:DOWN`; a pool's workers have all answered.
  """
  def map(chunks, %{pool: %WorkerPool{} = pool}, fun, tally, ordered), do: WorkerPool.map(pool, chunks, fun, tally, ordered)

  def map(chunks, %{workers: workers}, fun, tally, ordered) do
    chunks
    |> Task.async_stream(&WorkTally.in_slot(tally, fn -> fun.(&1) end),
      ordered: ordered, max_concurrency: workers, timeout: :infinity)
    |> Enum.map(fn {:ok, result} -> result end)
  end
end
