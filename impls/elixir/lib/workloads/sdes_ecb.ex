defmodule Parbench.Workloads.SdesEcb do
  @moduledoc "sdes-ecb (seed 001): S-DES in ECB mode over a file, per-byte Feistel rounds or a 256-entry table."
  use Parbench.Workload
  import Bitwise
  alias Parbench.{Chunking, ChunkStream, Protocol, WorkTally}

  # Bit positions are 1-based from the most significant bit, as in the spec (Stallings).
  @p10 [3, 5, 2, 7, 4, 10, 1, 9, 8, 6]
  @p8 [6, 3, 7, 4, 8, 5, 10, 9]
  @ip [2, 6, 3, 1, 4, 8, 5, 7]
  @ip_inverse [4, 1, 3, 5, 7, 2, 8, 6]
  @expand_permute [4, 1, 2, 3, 2, 3, 4, 1]
  @p4 [2, 4, 3, 1]
  @s0 List.to_tuple(List.flatten([[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]]))
  @s1 List.to_tuple(List.flatten([[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]]))

  # The chunking rule's cap for sdes-ecb, in bytes (docs/workloads/sdes-ecb.md).
  @chunk_cap 1_048_576

  @impl true
  def name, do: "sdes-ecb"

  @impl true
  def params, do: ["input", "key", "cipher", "chunk", "kernel"]

  # portable: the spec's algorithm as plain Elixir writes it; tuned: what was engineered here.
  @details %{
    {"portable", "bitwise"} => "per-byte Feistel rounds, each permutation walked from its position list (Enum.reduce)",
    {"portable", "table"} => "the key's 256-entry table as a tuple, one elem/2 lookup per byte in a binary comprehension",
    {"tuned", "bitwise"} => "per-byte Feistel rounds, permutations unrolled at compile time into one shift-and-mask expression per bit",
    {"tuned", "table"} => "a 65,536-entry tuple of byte-pair ciphertexts built from the key's table, one elem/2 lookup per 16 bits"
  }

  @impl true
  def kernels do
    for kernel <- ["portable", "tuned"], into: %{},
        do: {kernel, "bitwise: #{@details[{kernel, "bitwise"}]}; table: #{@details[{kernel, "table"}]}"}
  end

  @impl true
  def models do
    %{
      "seq" => %{family: "seq", note: "one binary comprehension over the whole input; the ciphertext is a new binary (allocated inside ns: an Elixir binary cannot be written into)"},
      "async_stream" => %{
        family: "data-parallel",
        workers: true,
        note: "Task.async_stream(ordered: true, max_concurrency: workers), one task per chunk of min(1 MiB, ceil(size/workers)) bytes (--chunk overrides; sub-binaries, not copies); the chunks' ciphertexts are joined into one new binary inside ns; workers_used = the most chunks in progress at once"
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
    extra = %{load_ns: load_ns, kernel: kernel, kernel_detail: @details[{kernel, cipher}]}
    extra = if model == "seq", do: extra, else: Map.put(extra, :chunk, chunk)

    %{model: model, input: input, key: key, cipher: cipher, kernel: kernel, chunk: chunk, workers: workers, extra: extra}
  end

  @doc "The repetition's key (`--variants`)."
  @impl true
  def vary(context, key) when key <= 0x3FF, do: %{context | key: key}
  def vary(_context, key), do: throw({:bad_args, "--variants: a sdes-ecb variant is a 10-bit key (0..1023), got #{key}"})

  # The key schedule (K1, K2 and for `table` the table) is part of the timed work.
  @impl true
  def run(%{model: "seq", input: input, key: key, cipher: cipher, kernel: kernel}) do
    {encrypt_with(input, key_schedule(key, cipher, kernel)), nil}
  end

  def run(%{model: "async_stream", input: input, key: key, cipher: cipher, kernel: kernel, chunk: chunk, workers: workers}) do
    tally = WorkTally.new()
    schedule = key_schedule(key, cipher, kernel)

    ciphertext =
      input
      |> chunks(chunk)
      |> ChunkStream.map(workers, &encrypt_with(&1, schedule), tally, true)
      |> IO.iodata_to_binary()

    {ciphertext, tally}
  end

  @impl true
  def summarize({ciphertext, tally}, _context) do
    extra = if tally, do: WorkTally.summary(tally), else: %{}
    {byte_size(ciphertext), :crypto.hash(:sha256, ciphertext) |> Base.encode16(case: :lower), extra}
  end

  @doc """
  The ceiling "copy": the input copied (`:binary.copy/1`) by the same workers in the same
  chunks and joined into one new binary as the ciphertext is; seq copies it whole.
  """
  @impl true
  def ceiling(context) do
    {copy_ns, _copy} = Protocol.time_ns(fn -> copy(context) end)
    %{ceiling: "copy", ceiling_ns: copy_ns}
  end

  defp copy(%{model: "seq", input: input}), do: :binary.copy(input)

  defp copy(%{input: input, chunk: chunk, workers: workers}) do
    input
    |> chunks(chunk)
    |> ChunkStream.map(workers, &:binary.copy/1, nil, true)
    |> IO.iodata_to_binary()
  end

  @doc "The ECB ciphertext of `plaintext` under a 10-bit key, by Feistel rounds or by table, with either kernel."
  def encrypt(plaintext, key, cipher, kernel \\ "portable"), do: encrypt_with(plaintext, key_schedule(key, cipher, kernel))

  defp key_schedule(key, "bitwise", "portable"), do: {:bitwise, subkeys(key)}
  defp key_schedule(key, "table", "portable"), do: {:table, table(key)}
  defp key_schedule(key, "bitwise", "tuned"), do: {:bitwise_unrolled, subkeys(key, "tuned")}
  defp key_schedule(key, "table", "tuned"), do: {:pair_table, pair_table(table(key, "tuned"))}

  defp encrypt_with(plaintext, {:bitwise, {k1, k2}}),
    do: for(<<block <- plaintext>>, into: <<>>, do: <<encrypt_block(block, k1, k2)>>)

  defp encrypt_with(plaintext, {:table, table}),
    do: for(<<block <- plaintext>>, into: <<>>, do: <<elem(table, block)>>)

  defp encrypt_with(plaintext, {:bitwise_unrolled, {k1, k2}}),
    do: for(<<block <- plaintext>>, into: <<>>, do: <<encrypt_block_unrolled(block, k1, k2)>>)

  # Two bytes per lookup; an odd last byte goes through the pair of (0, byte)'s low half.
  defp encrypt_with(plaintext, {:pair_table, pairs}) do
    even = byte_size(plaintext) - rem(byte_size(plaintext), 2)
    <<head::binary-size(even), tail::binary>> = plaintext
    body = for <<pair::16 <- head>>, into: <<>>, do: <<elem(pairs, pair)::16>>
    for <<block <- tail>>, into: body, do: <<elem(pairs, block) &&& 0xFF>>
  end

  @doc "The 256 ciphertext bytes of a key, as a tuple indexed by plaintext byte."
  def table(key, kernel \\ "portable") do
    {k1, k2} = subkeys(key, kernel)
    encrypt = if kernel == "tuned", do: &encrypt_block_unrolled(&1, k1, k2), else: &encrypt_block(&1, k1, k2)
    List.to_tuple(for block <- 0..255, do: encrypt.(block))
  end

  @doc "The tuned table kernel's 65,536 entries: the 16-bit ciphertext of every byte pair."
  def pair_table(table), do: List.to_tuple(for high <- 0..255, low <- 0..255, do: elem(table, high) <<< 8 ||| elem(table, low))

  @doc "The two 8-bit round keys K1 and K2 of a 10-bit key."
  def subkeys(key, kernel \\ "portable")

  def subkeys(key, "portable") do
    p10 = permute(key, @p10, 10)
    {left, right} = {rotate5(p10 >>> 5, 1), rotate5(p10 &&& 0x1F, 1)}
    k1 = permute(left <<< 5 ||| right, @p8, 10)
    {left, right} = {rotate5(left, 2), rotate5(right, 2)}
    {k1, permute(left <<< 5 ||| right, @p8, 10)}
  end

  def subkeys(key, "tuned") do
    p10 = permute_p10(key)
    {left, right} = {rotate5(p10 >>> 5, 1), rotate5(p10 &&& 0x1F, 1)}
    k1 = permute_p8(left <<< 5 ||| right)
    {left, right} = {rotate5(left, 2), rotate5(right, 2)}
    {k1, permute_p8(left <<< 5 ||| right)}
  end

  @doc "One 8-bit block through IP, f_K1, SW, f_K2 and IP⁻¹ (the portable kernel)."
  def encrypt_block(block, k1, k2) do
    block = round_function(permute(block, @ip, 8), k1)
    swapped = (block &&& 0xF) <<< 4 ||| block >>> 4
    permute(round_function(swapped, k2), @ip_inverse, 8)
  end

  defp round_function(block, subkey) do
    right = block &&& 0xF
    mixed = bxor(permute(right, @expand_permute, 4), subkey)
    s0 = sbox(@s0, mixed >>> 4)
    s1 = sbox(@s1, mixed &&& 0xF)
    bxor(block >>> 4, permute(s0 <<< 2 ||| s1, @p4, 4)) <<< 4 ||| right
  end

  @doc "A permutation as the spec writes it: output bit k is input bit `table[k]` of a `width`-bit value (1 = most significant)."
  def permute(value, table, width),
    do: Enum.reduce(table, 0, fn position, acc -> acc <<< 1 ||| (value >>> (width - position) &&& 1) end)

  @doc "One 8-bit block with the tuned kernel's unrolled permutations."
  def encrypt_block_unrolled(block, k1, k2) do
    block = round_function_unrolled(permute_ip(block), k1)
    swapped = (block &&& 0xF) <<< 4 ||| block >>> 4
    permute_ip_inverse(round_function_unrolled(swapped, k2))
  end

  defp round_function_unrolled(block, subkey) do
    right = block &&& 0xF
    mixed = bxor(permute_expand_permute(right), subkey)
    s0 = sbox(@s0, mixed >>> 4)
    s1 = sbox(@s1, mixed &&& 0xF)
    bxor(block >>> 4, permute_p4(s0 <<< 2 ||| s1)) <<< 4 ||| right
  end

  # Row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input.
  defp sbox(box, nibble) do
    row = (nibble >>> 2 &&& 0b10) ||| (nibble &&& 1)
    column = nibble >>> 1 &&& 0b11
    elem(box, row * 4 + column)
  end

  defp rotate5(half, by), do: (half <<< by ||| half >>> (5 - by)) &&& 0x1F

  # The tuned kernel: each permutation is unrolled at compile time into one shift-and-mask
  # expression per output bit, so a byte pays only the bit operations, not a walk over the list.
  for {name, width, table} <- [{:p10, 10, @p10}, {:p8, 10, @p8}, {:ip, 8, @ip}, {:ip_inverse, 8, @ip_inverse},
                               {:expand_permute, 4, @expand_permute}, {:p4, 4, @p4}] do
    output_bits = length(table)

    expression =
      table
      |> Enum.with_index()
      |> Enum.map(fn {position, k} ->
        quote do: (var!(value) >>> unquote(width - position) &&& 1) <<< unquote(output_bits - 1 - k)
      end)
      |> Enum.reduce(fn bit, acc -> quote(do: unquote(acc) ||| unquote(bit)) end)

    defp unquote(:"permute_#{name}")(var!(value)), do: unquote(expression)
  end

  defp chunks(binary, chunk) when byte_size(binary) <= chunk, do: [binary]

  defp chunks(binary, chunk) do
    <<head::binary-size(chunk), rest::binary>> = binary
    [head | chunks(rest, chunk)]
  end
end
