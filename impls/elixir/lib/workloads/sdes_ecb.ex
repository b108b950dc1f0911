defmodule Parbench.Workloads.SdesEcb do
  @moduledoc "sdes-ecb (seed 001): S-DES in ECB mode over a file, per-byte Feistel rounds or a 256-entry table."
  use Parbench.Workload
  alias Parbench.{Chunking, ChunkStream, Protocol, WorkerPool, WorkTally}
  alias Parbench.Workloads.SdesEcb.{Portable, Tuned}

  # The chunking rule's cap for sdes-ecb, in bytes (docs/workloads/sdes-ecb.md).
  @chunk_cap 1_048_576

  @impl true
  def name, do: "sdes-ecb"

  @impl true
  def params, do: ["input", "key", "cipher", "chunk", "kernel"]

  # portable: the spec's reference procedure transliterated (Portable); tuned: what was
  # engineered here (Tuned).
  @portable_detail "reference, transliterated"
  @tuned_details %{
    "bitwise" => "permutations unrolled at compile time into one shift-and-mask expression per output bit, S-box rows by a hand-derived mask",
    "table" => "a 65,536-entry tuple of byte-pair ciphertexts built from the key's table, one elem/2 lookup per 16 bits"
  }

  @impl true
  def kernels,
    do: %{"portable" => @portable_detail, "tuned" => "bitwise: #{@tuned_details["bitwise"]}; table: #{@tuned_details["table"]}"}

  defp kernel_detail("portable", _cipher), do: @portable_detail
  defp kernel_detail("tuned", cipher), do: @tuned_details[cipher]

  @impl true
  def models do
    %{
      "seq" => %{family: "seq", note: "one binary comprehension over the whole input; the ciphertext is a new binary (allocated inside ns: an Elixir binary cannot be written into)"},
      "async_stream" => %{
        family: "data-parallel",
        workers: true,
        note: "Task.async_stream(ordered: true, max_concurrency: workers), one task per chunk of min(1 MiB, ceil(size/workers)) bytes (--chunk overrides; sub-binaries, not copies); the chunks' ciphertexts are joined into one new binary inside ns; workers_used = the most chunks in progress at once (cold), the pool's processes that took a chunk (warm)",
        start: WorkerPool.start_modes("chunk")
      }
    }
  end

  @impl true
  def prepare(model, options, workers) do
    path = Protocol.string_option(options, "input")
    key = Protocol.integer_option(options, "key", 642)
    if key > 0x3FF, do: throw({:bad_args, "--key must be a 10-bit key (0..1023), got #{key}"})
    cipher = Protocol.choice_option(options, "cipher", ["bitwise", "table"], :required)
    kernel = Map.get(options, "kernel", "portable")

    {load_ns, input} =
      Protocol.time_ns(fn ->
        case File.read(path) do
          {:ok, data} -> data
          {:error, reason} -> throw({:bad_args, "cannot read --input #{path}: #{:file.format_error(reason)}"})
        end
      end)

    chunk = Chunking.chunk(options, byte_size(input), if(model == "seq", do: 1, else: workers), @chunk_cap)
    extra = %{load_ns: load_ns, kernel: kernel, kernel_detail: kernel_detail(kernel, cipher)}
    extra = if model == "seq", do: extra, else: Map.put(extra, :chunk, chunk)

    %{model: model, input: input, key: key, cipher: cipher, kernel: kernel, chunk: chunk, workers: workers, extra: extra}
    |> WorkerPool.for_start(options["start"])
  end

  @impl true
  def finish(context), do: WorkerPool.stop_for(context)

  @doc "The repetition's key (its variant, read from stdin)."
  @impl true
  def vary(context, key) when key <= 0x3FF, do: %{context | key: key}
  def vary(_context, key), do: throw({:bad_args, "a sdes-ecb variant is a 10-bit key (0..1023), got #{key}"})

  # The key schedule (K1, K2 and for `table` the table) is part of the timed work.
  @impl true
  def run(%{model: "seq", input: input, key: key, cipher: cipher, kernel: kernel}) do
    {encrypt_with(input, key_schedule(key, cipher, kernel)), nil}
  end

  def run(%{model: "async_stream", input: input, key: key, cipher: cipher, kernel: kernel, chunk: chunk} = context) do
    tally = WorkTally.new()
    schedule = key_schedule(key, cipher, kernel)

    ciphertext =
      input
      |> chunks(chunk)
      |> ChunkStream.map(context, &encrypt_with(&1, schedule), tally, true)
      |> IO.iodata_to_binary()

    {ciphertext, tally}
  end

  @impl true
  def summarize({ciphertext, tally}, _context) do
    extra = if tally, do: WorkTally.summary(tally), else: %{}
    {byte_size(ciphertext), :crypto.hash(:sha256, ciphertext) |> Base.encode16(case: :lower), extra}
  end

  @doc """
  The ceiling "copy": the input copied (`:binary.copy/1`) by the same workers (tasks cold, the
  pool warm) in the same chunks and joined into one new binary as the ciphertext is; seq copies
  it whole.
  """
  @impl true
  def ceiling(context) do
    {copy_ns, _copy} = Protocol.time_ns(fn -> copy(context) end)
    %{ceiling: "copy", ceiling_ns: copy_ns}
  end

  defp copy(%{model: "seq", input: input}), do: :binary.copy(input)

  defp copy(%{input: input, chunk: chunk} = context) do
    input
    |> chunks(chunk)
    |> ChunkStream.map(context, &:binary.copy/1, nil, true)
    |> IO.iodata_to_binary()
  end

  @doc "The ECB ciphertext of `plaintext` under a 10-bit key, by Feistel rounds or by table, with either kernel."
  def encrypt(plaintext, key, cipher, kernel \\ "portable"), do: encrypt_with(plaintext, key_schedule(key, cipher, kernel))

  # What a repetition derives from its key inside ns: K1 and K2, and for `table` the table.
  defp key_schedule(key, "bitwise", "portable"), do: {:bitwise, Portable.subkeys(key)}
  defp key_schedule(key, "table", "portable"), do: {:table, Portable.table(Portable.subkeys(key))}
  defp key_schedule(key, "bitwise", "tuned"), do: {:bitwise_unrolled, Tuned.subkeys(key)}
  defp key_schedule(key, "table", "tuned"), do: {:pair_table, Tuned.pair_table(Tuned.subkeys(key))}

  defp encrypt_with(chunk, {:bitwise, subkeys}), do: Portable.encrypt_bitwise(chunk, subkeys)
  defp encrypt_with(chunk, {:table, table}), do: Portable.encrypt_table(chunk, table)
  defp encrypt_with(chunk, {:bitwise_unrolled, subkeys}), do: Tuned.encrypt_bitwise(chunk, subkeys)
  defp encrypt_with(chunk, {:pair_table, pairs}), do: Tuned.encrypt_pairs(chunk, pairs)

  defp chunks(binary, chunk) when byte_size(binary) <= chunk, do: [binary]

  defp chunks(binary, chunk) do
    <<head::binary-size(chunk), rest::binary>> = binary
    [head | chunks(rest, chunk)]
  end
end
