defmodule Parbench.Workloads.Keygen do
  @moduledoc "keygen (seed 000): random keys encoded as lower-case Base32, sequentially and across schedulers."
  alias Parbench.{Digest, Protocol}

  def name, do: "keygen"
  def params, do: ["count", "bytes", "source", "seed"]

  def models do
    %{
      "seq" => %{family: "seq", note: "two Enum.map passes (generate, then encode), as the seed"},
      "flow" => %{
        family: "data-parallel",
        workers: true,
        note: "Flow when it is loaded; without Hex (this project) Task.async_stream(ordered: false, max_concurrency: workers) stands in for Flow, one task per key; extra.engine says which ran"
      },
      "chunked" => %{
        family: "data-parallel",
        workers: true,
        note: "one batch of count/workers keys per task (Task.async_stream over the batches), so the per-item message overhead is paid once per scheduler"
      }
    }
  end

  def prepare(model, options, workers) do
    count = Protocol.integer_option(options, "count", :required)
    key_bytes = Protocol.integer_option(options, "bytes", 1000)
    source = Protocol.choice_option(options, "source", ["strong", "seeded"], "strong")
    seed = Protocol.integer_option(options, "seed", 0)
    engine = if model == "flow" and flow_available?(), do: "Flow", else: "Task.async_stream"
    extra = if model == "flow", do: %{engine: engine}, else: %{}

    %{model: model, count: count, key_bytes: key_bytes, source: source, seed: seed,
      workers: workers, engine: engine, extra: extra}
  end

  def run(%{model: model, count: count, workers: workers} = context) do
    key_source = key_source(context)
    generate(model, count, workers, key_source, context.engine)
  end

  @doc "The keys of one model, as a list (or list of batches) of encoded binaries."
  def generate("seq", count, _workers, key_source, _engine) do
    indices(count)
    |> Enum.map(key_source)
    |> Enum.map(&encode/1)
  end

  def generate("flow", count, workers, key_source, "Flow") do
    # Called through apply/3 so the project compiles where Flow is absent (no Hex here).
    indices(count)
    |> then(&apply(Flow, :from_enumerable, [&1, [stages: workers]]))
    |> then(&apply(Flow, :map, [&1, fn index -> encode(key_source.(index)) end]))
    |> Enum.to_list()
  end

  def generate("flow", count, workers, key_source, "Task.async_stream") do
    indices(count)
    |> Task.async_stream(fn index -> encode(key_source.(index)) end,
      ordered: false, max_concurrency: workers, timeout: :infinity)
    |> Enum.map(fn {:ok, key} -> key end)
  end

  def generate("chunked", count, workers, key_source, _engine) do
    batches(count, workers)
    |> Task.async_stream(fn batch -> batch |> Enum.map(key_source) |> Enum.map(&encode/1) end,
      ordered: false, max_concurrency: workers, timeout: :infinity)
    |> Enum.flat_map(fn {:ok, keys} -> keys end)
  end

  def summarize(keys, %{source: "strong", count: count}) do
    total_chars = Enum.reduce(keys, 0, &(byte_size(&1) + &2))
    {count, "#{length(keys)}:#{total_chars}", %{}}
  end

  def summarize(keys, %{source: "seeded", count: count}) do
    {count, Digest.order_free(keys), %{}}
  end

  @doc "RFC 4648 Base32, lower case, with padding."
  def encode(bytes), do: Base.encode32(bytes, case: :lower)

  defp key_source(%{source: "strong", key_bytes: key_bytes}),
    do: fn _index -> :crypto.strong_rand_bytes(key_bytes) end

  defp key_source(%{source: "seeded", key_bytes: key_bytes, seed: seed}),
    do: fn index -> Digest.splitmix64_bytes(seed, index, key_bytes) end

  defp indices(count), do: 0..(count - 1)//1

  # Contiguous index ranges, one per worker, sizes differing by at most one.
  defp batches(count, workers) do
    for worker <- 0..(workers - 1), first = div(count * worker, workers),
        last = div(count * (worker + 1), workers) - 1, last >= first,
        do: first..last//1
  end

  defp flow_available?, do: Code.ensure_loaded?(Flow)
end
