defmodule Parbench.Workloads.SdesEcb do
  @moduledoc "sdes-ecb (seed 001): S-DES in ECB mode over a file, per-byte Feistel rounds or a 256-entry table."
  import Bitwise
  alias Parbench.Protocol

  # Bit positions are 1-based from the most significant bit, as in the spec (Stallings).
  @p10 [3, 5, 2, 7, 4, 10, 1, 9, 8, 6]
  @p8 [6, 3, 7, 4, 8, 5, 10, 9]
  @ip [2, 6, 3, 1, 4, 8, 5, 7]
  @ip_inverse [4, 1, 3, 5, 7, 2, 8, 6]
  @expand_permute [4, 1, 2, 3, 2, 3, 4, 1]
  @p4 [2, 4, 3, 1]
  @s0 List.to_tuple(List.flatten([[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]]))
  @s1 List.to_tuple(List.flatten([[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]]))

  def name, do: "sdes-ecb"
  def params, do: ["input", "key", "cipher", "chunk"]

  def models do
    %{
      "seq" => %{family: "seq", note: "one binary comprehension over the whole input"},
      "async_stream" => %{
        family: "data-parallel",
        workers: true,
        note: "Task.async_stream(ordered: true) over --chunk byte sub-binaries (shared, not copied); default chunk = size / (4 * workers), at least 4096; extra.chunk"
      }
    }
  end

  def prepare(model, options, workers) do
    path = Protocol.string_option(options, "input")
    key = Protocol.integer_option(options, "key", 642)
    if key > 0x3FF, do: throw({:bad_args, "--key must be a 10-bit key (0..1023), got #{key}"})
    cipher = Protocol.choice_option(options, "cipher", ["bitwise", "table"], :required)

    {load_ns, input} =
      Protocol.time_ns(fn ->
        case File.read(path) do
          {:ok, data} -> data
          {:error, reason} -> throw({:bad_args, "cannot read --input #{path}: #{:file.format_error(reason)}"})
        end
      end)

    default_chunk = max(4096, div(byte_size(input) + 4 * workers - 1, 4 * workers))
    chunk = Protocol.integer_option(options, "chunk", default_chunk)
    if chunk < 1, do: throw({:bad_args, "--chunk must be at least 1 byte"})
    extra = if model == "async_stream", do: %{load_ns: load_ns, chunk: chunk}, else: %{load_ns: load_ns}

    %{model: model, input: input, key: key, cipher: cipher, chunk: chunk, workers: workers, extra: extra}
  end

  def run(%{model: "seq", input: input, key: key, cipher: cipher}) do
    encrypt(input, key, cipher)
  end

  def run(%{model: "async_stream", input: input, key: key, cipher: cipher, chunk: chunk, workers: workers}) do
    input
    |> chunks(chunk)
    |> Task.async_stream(&encrypt(&1, key, cipher), ordered: true, max_concurrency: workers, timeout: :infinity)
    |> Enum.map(fn {:ok, ciphertext} -> ciphertext end)
    |> IO.iodata_to_binary()
  end

  def summarize(ciphertext, _context) do
    {byte_size(ciphertext), :crypto.hash(:sha256, ciphertext) |> Base.encode16(case: :lower), %{}}
  end

  @doc "The ECB ciphertext of `plaintext` under a 10-bit key, by Feistel rounds or by table."
  def encrypt(plaintext, key, "bitwise") do
    {k1, k2} = subkeys(key)
    for <<block <- plaintext>>, into: <<>>, do: <<encrypt_block(block, k1, k2)>>
  end

  def encrypt(plaintext, key, "table") do
    table = table(key)
    for <<block <- plaintext>>, into: <<>>, do: <<elem(table, block)>>
  end

  @doc "The 256 ciphertext bytes of a key, as a tuple indexed by plaintext byte."
  def table(key) do
    {k1, k2} = subkeys(key)
    List.to_tuple(for block <- 0..255, do: encrypt_block(block, k1, k2))
  end

  @doc "The two 8-bit round keys K1 and K2 of a 10-bit key."
  def subkeys(key) do
    p10 = permute_p10(key)
    {left, right} = {rotate5(p10 >>> 5, 1), rotate5(p10 &&& 0x1F, 1)}
    k1 = permute_p8(left <<< 5 ||| right)
    {left, right} = {rotate5(left, 2), rotate5(right, 2)}
    {k1, permute_p8(left <<< 5 ||| right)}
  end

  @doc "One 8-bit block through IP, f_K1, SW, f_K2 and IP⁻¹."
  def encrypt_block(block, k1, k2) do
    block = round_function(permute_ip(block), k1)
    swapped = (block &&& 0xF) <<< 4 ||| block >>> 4
    permute_ip_inverse(round_function(swapped, k2))
  end

  defp round_function(block, subkey) do
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

  # Each permutation is unrolled at compile time into one shift-and-mask expression per
  # output bit, so a byte pays only the bit operations, not a walk over the table.
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
