defmodule Parbench.Chunking do
  @moduledoc "The one chunking rule of docs/workloads/README.md: chunk = min(cap, ceil(total / workers)), `--chunk` overriding it."
  alias Parbench.Protocol

  @doc "The rule's chunk for `total` units over `workers` workers, at most `cap` (and at least 1)."
  def default_chunk(total, workers, cap), do: max(1, min(cap, ceil_div(total, workers)))

  @doc "The chunk a case uses: `--chunk N` when given, else the rule's."
  def chunk(options, total, workers, cap) do
    case Protocol.integer_option(options, "chunk", :default) do
      :default -> default_chunk(total, workers, cap)
      0 -> throw({:bad_args, "--chunk must be at least 1"})
      chunk -> chunk
    end
  end

  @doc "`{first, length}` of each chunk of `0..total-1`; every chunk is `chunk` units but the last."
  def spans(total, chunk), do: for(first <- 0..(total - 1)//chunk, do: {first, min(chunk, total - first)})

  @doc "How many chunks `total` units make."
  def count(total, chunk), do: ceil_div(total, chunk)

  defp ceil_div(total, divisor), do: div(total + divisor - 1, divisor)
end
