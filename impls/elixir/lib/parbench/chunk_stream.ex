defmodule Parbench.ChunkStream do
  @moduledoc "Runs a function over chunks in `Task.async_stream` tasks, at most `workers` at a time, one task per chunk."
  alias Parbench.WorkTally

  @doc """
  The results of `fun` over `chunks` (in the chunks' order when `ordered`). Every task has
  exited when this returns: the stream hands a result on only after its task's `:DOWN`.
  """
  def map(chunks, workers, fun, tally, ordered) do
    chunks
    |> Task.async_stream(&WorkTally.in_slot(tally, fn -> fun.(&1) end),
      ordered: ordered, max_concurrency: workers, timeout: :infinity)
    |> Enum.map(fn {:ok, result} -> result end)
  end
end
