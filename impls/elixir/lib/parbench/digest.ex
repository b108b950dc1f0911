defmodule Parbench.Digest do
  @moduledoc "The shared helpers of workloads/README.md: FNV-1a 64, the order-free digest and SplitMix64 bytes."
  import Bitwise

  @fnv_offset 0xCBF29CE484222325
  @fnv_prime 0x100000001B3
  @mask64 0xFFFFFFFFFFFFFFFF
  @golden_gamma 0x9E3779B97F4A7C15

  @doc "FNV-1a 64 of a binary, as an integer."
  def fnv1a64(data) when is_binary(data), do: fnv_bytes(data, @fnv_offset)

  defp fnv_bytes(<<byte, rest::binary>>, hash), do: fnv_bytes(rest, bxor(hash, byte) * @fnv_prime &&& @mask64)

  defp fnv_bytes(<<>>, hash), do: hash

  @doc "Adds one string's FNV-1a 64 to a running order-free sum (kept mod 2^64)."
  def add(sum, data), do: sum + fnv1a64(data) &&& @mask64

  @doc "Combines partial order-free sums."
  def combine(sums), do: Enum.reduce(sums, 0, fn sum, acc -> acc + sum &&& @mask64 end)

  @doc "The order-free digest of a list of binaries, as 16 lower-case hex digits."
  def order_free(strings), do: strings |> Enum.reduce(0, &add(&2, &1)) |> hex()

  @doc "A 64-bit sum as the 16 lower-case hex digits the checksums use."
  def hex(sum), do: sum |> Integer.to_string(16) |> String.downcase() |> String.pad_leading(16, "0")

  @doc "SplitMix64 bytes(seed, index, n): the seeded key material of keygen."
  def splitmix64_bytes(seed, index, n) do
    state = seed + index * @golden_gamma &&& @mask64
    words = div(n + 7, 8)
    {bytes, _state} =
      Enum.reduce(1..words//1, {[], state}, fn _, {acc, state} ->
        state = state + @golden_gamma &&& @mask64
        {[<<mix(state)::little-64>> | acc], state}
      end)

    bytes |> Enum.reverse() |> IO.iodata_to_binary() |> binary_part(0, n)
  end

  defp mix(z) do
    z = (bxor(z, z >>> 30) * 0xBF58476D1CE4E5B9) &&& @mask64
    z = (bxor(z, z >>> 27) * 0x94D049BB133111EB) &&& @mask64
    bxor(z, z >>> 31)
  end
end
