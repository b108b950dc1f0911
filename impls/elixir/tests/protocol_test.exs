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

  defp steps(counter) do
    %{vary: fn variant -> variant end,
      work: fn variant -> :counters.add(counter, 1, 1) && {:done, variant} end,
      summarize: fn {:done, variant}, variant -> {3, "c#{variant}", %{chunks: 2}} end,
      ceiling: fn _variant -> %{ceiling: "copy", ceiling_ns: 1} end}
  end

  test "repeat prints W warm-up lines then exactly R lines, rep 0..R-1, with the ceiling's fields after the work's" do
    counter = :counters.new(1, [])
    output = ExUnit.CaptureIO.capture_io(fn -> Protocol.repeat(steps(counter), 2, 3, %{workers: 2}) end)
    lines = String.split(output, "\n", trim: true)
    assert length(lines) == 5
    assert :counters.get(counter, 1) == 5

    for {line, index} <- Enum.with_index(lines) do
      label = if index < 2, do: ~s("warmup":#{index}), else: ~s("rep":#{index - 2})
      assert line =~ ~r/^\{#{label},"ns":\d+,"items":3,"checksum":"c","extra":\{/
      assert line =~ ~s("ceiling":"copy") and line =~ ~s("chunks":2) and line =~ ~s("workers":2)
    end
  end

  test "repetition j uses variants[j], warm-ups first, and every line carries the proof fields" do
    output = ExUnit.CaptureIO.capture_io(fn -> Protocol.repeat(steps(:counters.new(1, [])), 1, 2, %{}, [7, 0, 4294967295]) end)
    lines = String.split(output, "\n", trim: true)
    assert Enum.map(lines, &(Regex.run(~r/"checksum":"c(\d+)"/, &1) |> List.last())) == ["7", "0", "4294967295"]

    for line <- lines, field <- ~w(cpu_user_ns cpu_sys_ns checksum_ns prepare_ns cleanup_ns),
        do: assert(line =~ ~r/"#{field}":\d+/, field)
  end

  test "variants must cover every repetition" do
    assert {:bad_args, "--variants has 2 values" <> _} = catch_throw(Protocol.repeat(steps(:counters.new(1, [])), 1, 2, %{}, [1, 2]))
  end

  test "busy intervals become ns from the repetition's clock start" do
    steps = %{vary: fn nil -> nil end,
              work: fn nil -> :erlang.monotonic_time(:nanosecond) end,
              summarize: fn at, nil -> {1, "x", %{busy: [[0, at, at + 5]]}} end,
              ceiling: fn nil -> %{} end}

    [line] = ExUnit.CaptureIO.capture_io(fn -> Protocol.repeat(steps, 0, 1, %{}) end) |> String.split("\n", trim: true)
    [_, from, to] = Regex.run(~r/"busy":\[\[0,(\d+),(\d+)\]\]/, line)
    {from, to} = {String.to_integer(from), String.to_integer(to)}
    ns = Regex.run(~r/"ns":(\d+)/, line) |> List.last() |> String.to_integer()
    assert from >= 0 and from <= ns and to == from + 5
  end

  test "--variants and --probes are comma-separated non-negative integers" do
    assert Protocol.integer_list_option(%{"variants" => "0,5,4294967295"}, "variants") == [0, 5, 4_294_967_295]
    assert Protocol.integer_list_option(%{}, "probes") == nil
    assert {:bad_args, _} = catch_throw(Protocol.integer_list_option(%{"probes" => "1,-2"}, "probes"))
  end

  test "--list offers kernels per workload: portable everywhere, tuned where one exists" do
    workloads = Parbench.CLI.listing().workloads
    assert Map.keys(workloads["sdes-ecb"].kernels) |> Enum.sort() == ["portable", "tuned"]
    assert Map.keys(workloads["batch-job"].kernels) |> Enum.sort() == ["portable", "tuned"]
    assert Map.keys(workloads["keygen"].kernels) == ["portable"]
    refute Map.has_key?(workloads["spawn-chain"], :kernels)
  end

  test "every workload implements the Parbench.Workload behaviour" do
    for {name, _} <- Parbench.CLI.listing().workloads do
      module = Parbench.CLI.workload(name)
      behaviours = module.module_info(:attributes) |> Keyword.get_values(:behaviour) |> List.flatten()
      assert Parbench.Workload in behaviours, name
    end
  end
end
