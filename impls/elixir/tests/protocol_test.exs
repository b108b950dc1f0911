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

  test "repeat prints exactly R lines, rep 0..R-1, with the ceiling's fields after the work's" do
    counter = :counters.new(1, [])
    steps = %{work: fn -> :counters.add(counter, 1, 1) end,
              summarize: fn :ok -> {3, "c", %{chunks: 2}} end,
              ceiling: fn -> %{ceiling: "copy", ceiling_ns: 1} end}

    output = ExUnit.CaptureIO.capture_io(fn -> Protocol.repeat(steps, 2, 3, %{workers: 2}) end)
    lines = String.split(output, "\n", trim: true)
    assert length(lines) == 3
    assert :counters.get(counter, 1) == 5

    for {line, rep} <- Enum.with_index(lines) do
      assert line =~ ~r/^\{"rep":#{rep},"ns":\d+,"items":3,"checksum":"c","extra":\{/
      assert line =~ ~s("ceiling":"copy") and line =~ ~s("chunks":2) and line =~ ~s("workers":2)
    end
  end

  test "every workload implements the Parbench.Workload behaviour" do
    for {name, _} <- Parbench.CLI.listing().workloads do
      module = Parbench.CLI.workload(name)
      behaviours = module.module_info(:attributes) |> Keyword.get_values(:behaviour) |> List.flatten()
      assert Parbench.Workload in behaviours, name
    end
  end
end
