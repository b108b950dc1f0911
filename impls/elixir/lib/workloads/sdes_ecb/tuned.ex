defmodule Parbench.Workloads.SdesEcb.Tuned do
  @moduledoc """
  sdes-ecb's tuned kernel: the bitwise cipher with every permutation unrolled at compile time
  into one shift-and-mask expression per output bit and the S-box row read with a hand-derived
  mask; the table cipher through a 65,536-entry tuple of byte-pair ciphertexts.
  """
  import Bitwise
  alias Parbench.Workloads.SdesEcb.Portable

  # Each S-box flattened row by row, indexed row * 4 + column.
  @s0 {1, 0, 3, 2, 3, 2, 1, 0, 0, 2, 1, 3, 3, 1, 3, 2}
  @s1 {0, 1, 2, 3, 2, 0, 1, 3, 3, 0, 1, 0, 2, 1, 0, 3}

  # Each permutation of the spec becomes permute_<name>/1, so a byte pays only the bit
  # operations, not a walk over the position list.
  for {name, width} <- [p10: 10, p8: 10, ip: 8, ip_inv: 8, ep: 4, p4: 4] do
    table = Map.fetch!(Portable.permutation_tables(), name)
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

  @doc "K1 and K2 of a 10-bit key, through the unrolled permutations."
  def subkeys(key) do
    p10 = permute_p10(key)
    {left, right} = {Portable.rotate5(p10 >>> 5, 1), Portable.rotate5(p10 &&& 0x1F, 1)}
    k1 = permute_p8(left <<< 5 ||| right)
    {left, right} = {Portable.rotate5(left, 2), Portable.rotate5(right, 2)}
    {k1, permute_p8(left <<< 5 ||| right)}
  end

  @doc "One 8-bit block through IP, f_K1, SW, f_K2 and IP⁻¹ with the unrolled permutations."
  def encrypt_byte(k1, k2, block) do
    block = round_function(permute_ip(block), k1)
    swapped = (block &&& 0xF) <<< 4 ||| block >>> 4
    permute_ip_inv(round_function(swapped, k2))
  end

  defp round_function(block, subkey) do
    right = block &&& 0xF
    mixed = bxor(permute_ep(right), subkey)
    s = sbox(@s0, mixed >>> 4) <<< 2 ||| sbox(@s1, mixed &&& 0xF)
    bxor(block >>> 4, permute_p4(s)) <<< 4 ||| right
  end

  # Row = bits 1 and 4 (bit 1 masked in place, one shift), column = bits 2 and 3.
  defp sbox(box, nibble), do: elem(box, ((nibble >>> 2 &&& 0b10) ||| (nibble &&& 1)) * 4 + (nibble >>> 1 &&& 0b11))

  @doc "The bitwise cipher of one chunk with the unrolled rounds."
  def encrypt_bitwise(chunk, {k1, k2}), do: for(<<block <- chunk>>, into: <<>>, do: <<encrypt_byte(k1, k2, block)>>)

  @doc "The 16-bit ciphertext of every byte pair, from the key's 256-entry table built with the unrolled rounds."
  def pair_table({k1, k2}) do
    table = List.to_tuple(for block <- 0..255, do: encrypt_byte(k1, k2, block))
    List.to_tuple(for high <- 0..255, low <- 0..255, do: elem(table, high) <<< 8 ||| elem(table, low))
  end

  @doc "The table cipher of one chunk, two bytes per lookup; an odd last byte through the pair (0, byte)'s low half."
  def encrypt_pairs(chunk, pairs) do
    even = byte_size(chunk) - rem(byte_size(chunk), 2)
    <<head::binary-size(even), tail::binary>> = chunk
    body = for <<pair::16 <- head>>, into: <<>>, do: <<elem(pairs, pair)::16>>
    for <<block <- tail>>, into: body, do: <<elem(pairs, block) &&& 0xFF>>
  end
end
