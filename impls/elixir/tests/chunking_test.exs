defmodule Parbench.ChunkingTest do
  use ExUnit.Case, async: true
  alias Parbench.Chunking

  test "total 3 over 2 workers: chunk 2, 2 chunks" do
    assert Chunking.default_chunk(3, 2, 1_048_576) == 2
    assert Chunking.spans(3, 2) == [{0, 2}, {2, 1}]
  end

  test "10 MiB over 2 workers: chunk 1 MiB (the cap), 10 chunks" do
    chunk = Chunking.default_chunk(10 * 1_048_576, 2, 1_048_576)
    assert chunk == 1_048_576
    assert Chunking.count(10 * 1_048_576, chunk) == 10
    assert length(Chunking.spans(10 * 1_048_576, chunk)) == 10
  end

  test "keygen's cap: 2000 keys over 2 workers is 1000 a chunk, 100000 keys is 1024" do
    assert Chunking.default_chunk(2000, 2, 1024) == 1000
    assert Chunking.default_chunk(100_000, 2, 1024) == 1024
  end

  test "fewer units than workers still gives chunks of one unit" do
    assert Chunking.default_chunk(1, 4, 1024) == 1
    assert Chunking.default_chunk(0, 4, 1024) == 1
    assert Chunking.spans(0, 1) == []
  end

  test "--chunk overrides the rule" do
    assert Chunking.chunk(%{"chunk" => "7"}, 1000, 2, 1024) == 7
    assert Chunking.chunk(%{}, 1000, 2, 1024) == 500
  end

  test "--chunk 0 is a bad argument" do
    assert {:bad_args, _} = catch_throw(Chunking.chunk(%{"chunk" => "0"}, 1000, 2, 1024))
  end

  test "the spans cover every unit once" do
    spans = Chunking.spans(1001, 64)
    assert Enum.flat_map(spans, fn {first, length} -> Enum.to_list(first..(first + length - 1)) end) ==
             Enum.to_list(0..1000)
  end
end
