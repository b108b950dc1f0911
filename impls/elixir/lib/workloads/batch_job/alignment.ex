defmodule Parbench.Workloads.BatchJob.Alignment do
  @moduledoc "The batch-job alignment: the spec's LCS offset map M, and annotations moved through it."
  import Bitwise

  @strategies ["cells", "bitparallel"]
  def strategies, do: @strategies

  @doc """
  The spec's alignment: each annotation `{begin, end, label}` on `old` moved to `new` through
  the LCS offset map; spans that collapse are dropped.
  """
  def align(old, new, spans, strategy \\ "cells") do
    offset_map = offset_map(old, new, strategy)

    for {span_begin, span_end, label} <- spans,
        moved_begin = elem(offset_map, span_begin),
        moved_end = elem(offset_map, span_end),
        moved_begin < moved_end,
        do: {moved_begin, moved_end, label}
  end

  @doc "M of the spec: where each offset 0..len(old) of `old` lands in `new`, as a tuple."
  def offset_map(old, new, "cells"), do: offset_map_cells(old, new)
  def offset_map(old, new, "bitparallel"), do: offset_map_bitparallel(old, new)

  @doc "M computed from the suffix table cell by cell, as the spec writes it: O(len(old) * len(new)) boxed integers."
  def offset_map_cells(old, new) do
    suffix_table = lcs_suffix_table(old, new)
    matched_to = walk_cells(old, new, suffix_table, 0, 0, %{})
    old_length = byte_size(old)

    {offsets, _next} =
      Enum.reduce((old_length - 1)..0//-1, {[byte_size(new)], byte_size(new)}, fn i, {offsets, next} ->
        here = Map.get(matched_to, i, next)
        {[here | offsets], here}
      end)

    List.to_tuple(offsets)
  end

  # dp[i][j] = LCS(old[i:], new[j:]), one tuple per row i = 0..n (row n is all zeros).
  # Each row is built from right to left out of the row below, as lists, then frozen as a tuple
  # for the walk's random access.
  defp lcs_suffix_table(old, new) do
    new_reversed = new |> :binary.bin_to_list() |> Enum.reverse()
    zero_row = List.duplicate(0, byte_size(new) + 1)

    {rows, _below} =
      old
      |> :binary.bin_to_list()
      |> Enum.reverse()
      |> Enum.reduce({[List.to_tuple(zero_row)], Enum.reverse(zero_row)}, fn old_byte, {rows, below_descending} ->
        row = lcs_row(old_byte, new_reversed, below_descending, 0, [0])
        {[List.to_tuple(row) | rows], Enum.reverse(row)}
      end)

    List.to_tuple(rows)
  end

  # Walks j from len(new)-1 down to 0 with `right` = dp[i][j+1] and the row below descending
  # from dp[i+1][j+1]; returns row i ascending.
  defp lcs_row(old_byte, [new_byte | new_rest], [diagonal, below | below_rest], right, row) do
    value = if old_byte == new_byte, do: diagonal + 1, else: max(below, right)
    lcs_row(old_byte, new_rest, [below | below_rest], value, [value | row])
  end

  defp lcs_row(_old_byte, [], _below, _right, row), do: row

  defp walk_cells(old, new, table, i, j, matched) when i < byte_size(old) and j < byte_size(new) do
    cond do
      :binary.at(old, i) == :binary.at(new, j) -> walk_cells(old, new, table, i + 1, j + 1, Map.put(matched, i, j))
      elem(elem(table, i + 1), j) >= elem(elem(table, i), j + 1) -> walk_cells(old, new, table, i + 1, j, matched)
      true -> walk_cells(old, new, table, i, j + 1, matched)
    end
  end

  defp walk_cells(_old, _new, _table, _i, _j, matched), do: matched

  @doc "The same M from the same suffix table, held as one bit vector per row (far fewer operations)."
  def offset_map_bitparallel(old, new) do
    rows = lcs_rows(old, new)
    old_length = byte_size(old)
    new_length = byte_size(new)
    first_below = if old_length > 0, do: lcs(rows, 1, 0, new_length), else: 0
    matched_to = walk(old, new, rows, {0, 0}, {lcs(rows, 0, 0, new_length), first_below}, %{})

    {offsets, _next} =
      Enum.reduce((old_length - 1)..0//-1, {[new_length], new_length}, fn i, {offsets, next} ->
        here = Map.get(matched_to, i, next)
        {[here | offsets], here}
      end)

    List.to_tuple(offsets)
  end

  # The suffix table dp[i][j] = LCS(old[i:], new[j:]) is kept as one big integer per row i
  # (Hyyrö's bit-parallel LCS over the reversed strings): bit m-1-j of row i is
  # dp[i][j] - dp[i][j+1], so dp[i][j] is the popcount of the row's low m-j bits. A row costs a
  # few big-integer operations instead of m boxed cells, which is what makes the BEAM fast here.
  defp lcs_rows(old, new) do
    new_length = byte_size(new)
    all_ones = (1 <<< new_length) - 1

    # Bit p stands for byte p of the reversed `new`, i.e. new[m-1-p].
    positions_of_byte =
      new
      |> :binary.bin_to_list()
      |> Enum.with_index()
      |> Enum.reduce(%{}, fn {byte, j}, masks ->
        Map.update(masks, byte, 1 <<< (new_length - 1 - j), &(&1 ||| 1 <<< (new_length - 1 - j)))
      end)

    {rows, _vector} =
      old
      |> :binary.bin_to_list()
      |> Enum.reverse()
      |> Enum.reduce({[0], all_ones}, fn byte, {rows, vector} ->
        matches = vector &&& Map.get(positions_of_byte, byte, 0)
        vector = ((vector + matches) ||| (vector - matches)) &&& all_ones
        {[bxor(vector, all_ones) | rows], vector}
      end)

    # The last byte processed is old[0], so the list runs from row 0 to row n (all zeros).
    List.to_tuple(rows)
  end

  # dp[i][j] with the rows above; rows past n are empty suffixes of `old`.
  defp lcs(rows, i, _j, _new_length) when i >= tuple_size(rows), do: 0
  defp lcs(rows, i, j, new_length), do: popcount(elem(rows, i) &&& (1 <<< (new_length - j)) - 1)

  # dp[i][j] - dp[i][j+1], one bit of row i.
  defp step_right(rows, i, j, new_length) when i < tuple_size(rows),
    do: elem(rows, i) >>> (new_length - 1 - j) &&& 1

  defp step_right(_rows, _i, _j, _new_length), do: 0

  # The spec's walk, carrying here = dp[i][j] and below = dp[i+1][j] so that each step needs
  # one bit test, and a popcount only when i moves on.
  defp walk(old, new, rows, {i, j}, {here, below}, matched) when i < byte_size(old) and j < byte_size(new) do
    m = byte_size(new)

    cond do
      :binary.at(old, i) == :binary.at(new, j) ->
        next = {below - step_right(rows, i + 1, j, m), lcs(rows, i + 2, j + 1, m)}
        walk(old, new, rows, {i + 1, j + 1}, next, Map.put(matched, i, j))

      below >= here - step_right(rows, i, j, m) ->
        walk(old, new, rows, {i + 1, j}, {below, lcs(rows, i + 2, j, m)}, matched)

      true ->
        next = {here - step_right(rows, i, j, m), below - step_right(rows, i + 1, j, m)}
        walk(old, new, rows, {i, j + 1}, next, matched)
    end
  end

  defp walk(_old, _new, _rows, _position, _values, matched), do: matched

  @popcounts List.to_tuple(for byte <- 0..255, do: Enum.sum(for <<bit::1 <- <<byte>> >>, do: bit))

  defp popcount(0), do: 0

  defp popcount(number) do
    for <<byte <- :binary.encode_unsigned(number)>>, reduce: 0, do: (count -> count + elem(@popcounts, byte))
  end
end
