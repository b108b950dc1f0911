defmodule Parbench.Workloads.SdesEcbTest do
  use ExUnit.Case, async: true
  alias Parbench.Workloads.SdesEcb
  alias Parbench.Workloads.SdesEcb.{Portable, Tuned}

  # The spec's vectors are checked against the portable kernel, the reference procedure itself.
  test "key 1010000010 gives K1 10100100 and K2 01000011" do
    assert Portable.subkeys(0b1010000010) == {0b10100100, 0b01000011}
  end

  for {key, plain, cipher} <- [{"0000000000", "10101010", "00010001"}, {"1110001110", "10101010", "11001010"},
                               {"1110001110", "01010101", "01110000"}, {"1111111111", "10101010", "00000100"},
                               {"1010000010", "10010111", "00111000"}, {"1010000010", "00000011", "11010000"}] do
    test "key #{key} encrypts #{plain} to #{cipher}" do
      {k1, k2} = Portable.subkeys(String.to_integer(unquote(key), 2))
      assert Portable.encrypt_byte(k1, k2, String.to_integer(unquote(plain), 2)) == String.to_integer(unquote(cipher), 2)
    end
  end

  test "the table of key 642 matches the spec" do
    expected =
      "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b55156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1efcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c896d8ad1412ccf940434a41a6f71e1bf2a"

    assert Portable.table(Portable.subkeys(642)) |> Tuple.to_list() |> :binary.list_to_bin() |> Base.encode16(case: :lower) == expected
  end

  test "the quick brown fox under key 642 hashes to 914675d0…" do
    for cipher <- ["bitwise", "table"] do
      ciphertext = SdesEcb.encrypt("The quick brown fox jumps over the lazy dog\n", 642, cipher)
      assert Base.encode16(:crypto.hash(:sha256, ciphertext), case: :lower) ==
               "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf"
    end
  end

  test "the reference's steps: permute reads positions from the most significant bit, rotate5 wraps, S-box rows are bits 1 and 4" do
    assert Portable.permute(0b1000000000, 10, [1, 10]) == 0b10
    assert Portable.permute(0b0001, 4, [4, 4, 1]) == 0b110
    assert Portable.rotate5(0b10000, 1) == 0b00001 and Portable.rotate5(0b11000, 2) == 0b00011
    s0 = {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}}
    # 0b1001: row 0b11, column 0b00; 0b0110: row 0b00, column 0b11.
    assert Portable.sbox(s0, 0b1001) == 3 and Portable.sbox(s0, 0b0110) == 2
  end

  test "the portable and tuned kernels give the same subkeys, blocks, tables and ciphertexts for every key" do
    plaintext = :binary.list_to_bin(Enum.to_list(0..255)) <> "odd"

    for key <- 0..1023 do
      assert Portable.subkeys(key) == Tuned.subkeys(key)
    end

    for key <- [0, 1, 642, 777, 1023] do
      {k1, k2} = Portable.subkeys(key)
      for block <- 0..255, do: assert(Portable.encrypt_byte(k1, k2, block) == Tuned.encrypt_byte(k1, k2, block))
      ciphertexts = for cipher <- ["bitwise", "table"], kernel <- ["portable", "tuned"], do: SdesEcb.encrypt(plaintext, key, cipher, kernel)
      assert ciphertexts |> Enum.uniq() |> length() == 1
    end
  end

  test "the tuned table handles empty, one-byte and odd inputs" do
    for text <- ["", "a", "abc", "The quick brown fox jumps over the lazy dog\n"] do
      assert SdesEcb.encrypt(text, 642, "table", "tuned") == SdesEcb.encrypt(text, 642, "bitwise", "portable")
    end
  end

  test "a variant is the repetition's key; the kernel and its detail are in every line" do
    path = input_file(1000)
    reference = SdesEcb.encrypt(File.read!(path), 5, "bitwise")

    for model <- ["seq", "async_stream"], kernel <- ["portable", "tuned"], cipher <- ["bitwise", "table"] do
      context = SdesEcb.prepare(model, %{"input" => path, "cipher" => cipher, "kernel" => kernel}, 2) |> SdesEcb.vary(5)
      {1000, checksum, _} = SdesEcb.summarize(SdesEcb.run(context), context)
      assert checksum == Base.encode16(:crypto.hash(:sha256, reference), case: :lower)
      assert %{kernel: ^kernel, kernel_detail: detail} = context.extra
      assert detail == "reference, transliterated" or kernel == "tuned"
    end

    assert {:bad_args, _} = catch_throw(SdesEcb.vary(%{key: 1}, 1024))
  end

  test "--list names the portable kernel 'reference, transliterated' and the tuned one by its technique" do
    assert SdesEcb.kernels()["portable"] == "reference, transliterated"
    assert SdesEcb.kernels()["tuned"] =~ "unrolled" and SdesEcb.kernels()["tuned"] =~ "65,536"
  end

  test "warm async_stream: the same pool processes encrypt every repetition, with cold's answers, chunks and counts" do
    path = input_file(100_000)
    cold = SdesEcb.prepare("async_stream", %{"input" => path, "cipher" => "bitwise"}, 2)
    warm = SdesEcb.prepare("async_stream", %{"input" => path, "cipher" => "bitwise", "start" => "warm"}, 2)
    assert warm.start_ns > 0 and length(warm.pool.workers) == 2

    for key <- [642, 5, 1023] do
      {_, cold_checksum, cold_extra} = SdesEcb.summarize(SdesEcb.run(SdesEcb.vary(cold, key)), cold)
      {_, warm_checksum, warm_extra} = SdesEcb.summarize(SdesEcb.run(SdesEcb.vary(warm, key)), warm)
      assert warm_checksum == cold_checksum
      # A free worker takes the next chunk, so on a busy machine one may take both before the
      # other wakes: warm's count is 1 or 2, never more than the pool (cold's two tasks start at once).
      assert warm_extra.chunks == 2 and warm_extra.workers_used in 1..2
      assert Map.take(cold_extra, [:chunks, :workers_used]) == %{chunks: 2, workers_used: 2}
      assert Enum.all?(warm.pool.workers, &Process.alive?/1)
    end

    assert %{ceiling: "copy"} = SdesEcb.ceiling(warm)
    SdesEcb.finish(warm)
    refute Enum.any?(warm.pool.workers, &Process.alive?/1)
  end

  defp input_file(size) do
    path = Path.join(System.tmp_dir!(), "parbench-elixir-sdes-#{size}-#{System.unique_integer([:positive])}")
    File.write!(path, :crypto.strong_rand_bytes(size))
    on_exit(fn -> File.rm(path) end)
    path
  end

  defp run_case(model, options, workers \\ 2) do
    context = SdesEcb.prepare(model, options, workers)
    {items, checksum, extra} = SdesEcb.summarize(SdesEcb.run(context), context)
    {items, checksum, Map.merge(context.extra, extra)}
  end

  test "every model and cipher agrees with seq bitwise for arbitrary inputs, keys and chunks" do
    for {size, key, chunk} <- [{1, 0, 1}, {1000, 1023, 7}, {65_537, 321, 4096}, {300_001, 642, 100_000}] do
      options = %{"input" => input_file(size), "key" => "#{key}", "chunk" => "#{chunk}"}

      results =
        for model <- ["seq", "async_stream"], cipher <- ["bitwise", "table"] do
          {items, checksum, _extra} = run_case(model, Map.put(options, "cipher", cipher))
          {items, checksum}
        end

      assert results |> Enum.uniq() |> length() == 1
    end
  end

  test "the parallel model follows the chunking rule: ceil(size / workers), at most 1 MiB" do
    path = input_file(3)
    assert %{chunk: 2, chunks: 2} = run_case("async_stream", %{"input" => path, "cipher" => "table"}) |> elem(2)
    assert %{chunk: 1, chunks: 3} = run_case("async_stream", %{"input" => path, "cipher" => "table"}, 4) |> elem(2)
    path = input_file(3 * 1_048_576 + 5)
    assert %{chunk: 1_048_576, chunks: 4} = run_case("async_stream", %{"input" => path, "cipher" => "table"}) |> elem(2)
  end

  test "--chunk overrides the rule" do
    options = %{"input" => input_file(10_000), "cipher" => "table", "chunk" => "1000"}
    assert %{chunk: 1000, chunks: 10} = run_case("async_stream", options) |> elem(2)
  end

  test "1 MiB on 2 workers uses both workers" do
    options = %{"input" => input_file(1_048_576), "cipher" => "bitwise"}
    assert {1_048_576, _, %{workers_used: 2, chunks: 2, chunk: 524_288}} = run_case("async_stream", options)
  end

  test "every model reports the copy ceiling" do
    for model <- ["seq", "async_stream"] do
      context = SdesEcb.prepare(model, %{"input" => input_file(100_000), "cipher" => "table"}, 2)
      assert %{ceiling: "copy", ceiling_ns: ns} = SdesEcb.ceiling(context)
      assert ns > 0
    end
  end
end
