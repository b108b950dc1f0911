defmodule Parbench.ProtocolTest do
  use ExUnit.Case, async: true
  alias Parbench.Protocol

  test "arguments become a workload and --name value options" do
    assert Protocol.parse_args(["keygen", "--model", "seq", "--count", "3"]) ==
             {:ok, "keygen", %{"model" => "seq", "count" => "3"}}
  end

  test "an option without a value is an error" do
    assert {:error, _} = Protocol.parse_args(["keygen", "--model"])
  end

  test "a bad integer is a bad-arguments throw" do
    assert catch_throw(Protocol.integer_option(%{"n" => "x"}, "n", 1)) |> elem(0) == :bad_args
  end

  test "a JSON line keeps the protocol's key order" do
    line = Protocol.encode_json(%{rep: 0, ns: 5, items: 1, checksum: "a\"b", extra: %{workers: 2}},
                                [:rep, :ns, :items, :checksum, :extra])
    assert line == ~s({"rep":0,"ns":5,"items":1,"checksum":"a\\"b","extra":{"workers":2}})
  end

  test "--list lists every workload with its models" do
    listing = Parbench.CLI.listing()
    assert Map.keys(listing.workloads) |> Enum.sort() ==
             ["batch-job", "coroutine-swarm", "keygen", "noop", "sdes-ecb", "spawn-chain"]
    assert listing.workloads["keygen"].models["flow"].workers
  end
end
