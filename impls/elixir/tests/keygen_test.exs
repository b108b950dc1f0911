defmodule Parbench.Workloads.KeygenTest do
  use ExUnit.Case, async: true
  alias Parbench.Workloads.Keygen

  for {plain, encoded} <- [{"", ""}, {"f", "my======"}, {"fo", "mzxq===="}, {"foo", "mzxw6==="},
                           {"foob", "mzxw6yq="}, {"fooba", "mzxw6ytb"}, {"foobar", "mzxw6ytboi======"}] do
    test "base32 lower of #{inspect(plain)} is #{inspect(encoded)}" do
      assert Keygen.encode(unquote(plain)) == unquote(encoded)
    end
  end

  test "1000 bytes encode to exactly 1600 characters" do
    assert byte_size(Keygen.encode(:crypto.strong_rand_bytes(1000))) == 1600
  end

  defp checksum(model, options, workers \\ 2) do
    context = Keygen.prepare(model, options, workers)
    {_items, checksum, _extra} = Keygen.summarize(Keygen.run(context), context)
    checksum
  end

  test "seeded, count 3, bytes 10, seed 1 gives d3605c1b2c10e632" do
    assert checksum("seq", %{"count" => "3", "bytes" => "10", "source" => "seeded", "seed" => "1"}) == "d3605c1b2c10e632"
  end

  test "strong keys give count:total characters" do
    for model <- ["seq", "flow", "chunked"] do
      assert checksum(model, %{"count" => "7", "bytes" => "1000", "source" => "strong"}) == "7:11200"
    end
  end

  test "every model agrees with seq for arbitrary seeded parameters" do
    for {count, bytes, seed, workers} <- [{57, 13, 99, 2}, {1, 1, 0, 3}, {200, 31, 123_456_789, 5}] do
      options = %{"count" => "#{count}", "bytes" => "#{bytes}", "source" => "seeded", "seed" => "#{seed}"}
      expected = checksum("seq", options)
      assert checksum("flow", options, workers) == expected
      assert checksum("chunked", options, workers) == expected
    end
  end
end
