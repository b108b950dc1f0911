defmodule Parbench.Workloads.SdesEcb.Portable do
  @moduledoc """
  sdes-ecb's portable kernel: the reference procedure of docs/workloads/sdes-ecb.md,
  transliterated. The permutation tables are lists walked in order; each S-box is a tuple of
  four rows of four, and the table cipher's table a tuple (Elixir's arrays: elem/2 indexes in
  constant time, a list does not). The ciphertext is a new binary: an Elixir binary cannot be
  written into.
  """
  import Bitwise

  @p10 [3, 5, 2, 7, 4, 10, 1, 9, 8, 6]
  @p8 [6, 3, 7, 4, 8, 5, 10, 9]
  @ip [2, 6, 3, 1, 4, 8, 5, 7]
  @ip_inv [4, 1, 3, 5, 7, 2, 8, 6]
  @ep [4, 1, 2, 3, 2, 3, 4, 1]
  @p4 [2, 4, 3, 1]
  @s0 {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}}
  @s1 {{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}}

  @doc "The spec's permutation tables by name, for the tuned kernel to unroll."
  def permutation_tables, do: %{p10: @p10, p8: @p8, ip: @ip, ip_inv: @ip_inv, ep: @ep, p4: @p4}

  @doc "Output bit k is bit `table[k]` of a `width`-bit value (positions from 1 = the most significant)."
  def permute(value, width, table) do
    for position <- table, reduce: 0 do
      out -> (out <<< 1) ||| ((value >>> (width - position)) &&& 1)
    end
  end

  @doc "A left rotation of a 5-bit half."
  def rotate5(half, by), do: ((half <<< by) ||| (half >>> (5 - by))) &&& 0b11111

  @doc "K1 and K2 of a 10-bit key."
  def subkeys(key) do
    p10 = permute(key, 10, @p10)
    {left, right} = {rotate5(p10 >>> 5, 1), rotate5(p10 &&& 0b11111, 1)}
    k1 = permute((left <<< 5) ||| right, 10, @p8)
    {left, right} = {rotate5(left, 2), rotate5(right, 2)}
    k2 = permute((left <<< 5) ||| right, 10, @p8)
    {k1, k2}
  end

  @doc "Row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input."
  def sbox(box, bits4) do
    row = (((bits4 >>> 3) &&& 1) <<< 1) ||| (bits4 &&& 1)
    column = (bits4 >>> 1) &&& 0b11
    box |> elem(row) |> elem(column)
  end

  @doc "f_K of an 8-bit block: left = its high 4 bits, right = its low 4."
  def f_k(block, subkey) do
    {left, right} = {block >>> 4, block &&& 0xF}
    mixed = bxor(permute(right, 4, @ep), subkey)
    s = (sbox(@s0, mixed >>> 4) <<< 2) ||| sbox(@s1, mixed &&& 0xF)
    (bxor(left, permute(s, 4, @p4)) <<< 4) ||| right
  end

  @doc "IP⁻¹(f_K2(SW(f_K1(IP(plain)))))."
  def encrypt_byte(k1, k2, plain) do
    block = f_k(permute(plain, 8, @ip), k1)
    swapped = ((block &&& 0xF) <<< 4) ||| (block >>> 4)
    permute(f_k(swapped, k2), 8, @ip_inv)
  end

  @doc "The bitwise cipher of one chunk: every byte through encrypt_byte."
  def encrypt_bitwise(chunk, {k1, k2}), do: for(<<plain <- chunk>>, into: <<>>, do: <<encrypt_byte(k1, k2, plain)>>)

  @doc "The table cipher's table of a key: the ciphertext of every byte 0 … 255, indexed by the byte."
  def table({k1, k2}), do: List.to_tuple(for(plain <- 0..255, do: encrypt_byte(k1, k2, plain)))

  @doc "The table cipher of one chunk: every byte looked up in the key's table."
  def encrypt_table(chunk, table), do: for(<<plain <- chunk>>, into: <<>>, do: <<elem(table, plain)>>)
end
