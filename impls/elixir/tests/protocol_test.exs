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
             ["batch-job", "coroutine-swarm", "echo-server", "keygen", "noop", "sdes-ecb", "spawn-chain"]
    assert listing.workloads["keygen"].models["flow"].workers
  end

  defp steps(counter) do
    %{vary: fn variant -> variant end,
      work: fn variant -> :counters.add(counter, 1, 1) && {:done, variant} end,
      summarize: fn {:done, variant}, variant -> {3, "c#{variant}", %{chunks: 2}} end,
      ceiling: fn _variant -> %{ceiling: "copy", ceiling_ns: 1} end}
  end

  # Protocol 3: the variants arrive one line per repetition, as the launcher writes them to stdin.
  defp variants(lines) do
    {:ok, device} = StringIO.open(Enum.map_join(lines, &"#{&1}\n"))
    device
  end

  defp repeat_output(steps, lines),
    do: ExUnit.CaptureIO.capture_io(fn -> Protocol.repeat(steps, %{workers: 2}, variants(lines)) end)

  test "repeat prints one line per variant until stdin ends, rep 0..k-1, with the ceiling's fields after the work's" do
    counter = :counters.new(1, [])
    output = repeat_output(steps(counter), [1, 2, 3, 4, 5])
    lines = String.split(output, "\n", trim: true)
    assert length(lines) == 5
    assert :counters.get(counter, 1) == 5

    for {line, index} <- Enum.with_index(lines) do
      assert line =~ ~r/^\{"rep":#{index},"ns":\d+,"items":3,"checksum":"c#{index + 1}","extra":\{/
      assert line =~ ~s("ceiling":"copy") and line =~ ~s("chunks":2) and line =~ ~s("workers":2)
    end
  end

  test "repetition j uses the j-th line of stdin, and every line carries the proof fields" do
    lines = steps(:counters.new(1, [])) |> repeat_output([7, 0, 4_294_967_295]) |> String.split("\n", trim: true)
    assert Enum.map(lines, &(Regex.run(~r/"checksum":"c(\d+)"/, &1) |> List.last())) == ["7", "0", "4294967295"]

    for line <- lines, field <- ~w(cpu_user_ns cpu_sys_ns checksum_ns prepare_ns cleanup_ns),
        do: assert(line =~ ~r/"#{field}":\d+/, field)
  end

  test "each variant is read only when its repetition starts, after the repetition before it has run" do
    parent = self()
    steps = %{steps(:counters.new(1, [])) | work: fn variant -> send(parent, {:worked, variant}) && {:done, variant} end}
    stdin = spawn_link(fn -> hand_out_lines(parent, [3, 4]) end)

    ExUnit.CaptureIO.capture_io(fn -> Protocol.repeat(steps, %{}, stdin) end)
    assert Process.info(self(), :messages) ==
             {:messages, [{:asked, 0}, {:worked, 3}, {:asked, 1}, {:worked, 4}, {:asked, 2}]}
  end

  # A stand-in for stdin: an io server that answers each line request with the next variant, then
  # with end of file, and tells the test when it was asked.
  defp hand_out_lines(test, lines) do
    for {reply, j} <- Enum.with_index(Enum.map(lines, &"#{&1}\n") ++ [:eof]) do
      receive do
        {:io_request, from, reply_as, {:get_line, _encoding, _prompt}} ->
          send(test, {:asked, j})
          send(from, {:io_reply, reply_as, reply})
      end
    end
  end

  # Protocol 4: the launcher closes stdin when it wants no more repetitions, before the first too.
  test "end of stdin ends the repetitions cleanly after k variants, with k lines" do
    for k <- [0, 1, 3] do
      counter = :counters.new(1, [])
      lines = steps(counter) |> repeat_output(Enum.to_list(1..k//1)) |> String.split("\n", trim: true)
      assert length(lines) == k and :counters.get(counter, 1) == k
      assert Enum.map(lines, &(Regex.run(~r/^\{"rep":(\d+),/, &1) |> List.last())) == Enum.map(0..(k - 1)//1, &to_string/1)
    end
  end

  test "a variant that is not a non-negative decimal integer is a bad argument" do
    for bad <- ["x", "-1", "5 6", ""] do
      assert {:bad_args, "repetition 0's variant must be" <> _} = catch_throw(Protocol.read_variant(variants([bad]), 0))
    end
  end

  test "the ready line says the start mode, and start_ns only for warm" do
    assert ExUnit.CaptureIO.capture_io(fn -> Protocol.ready(nil, nil) end) == ~s({"ready":"none"}\n)
    assert ExUnit.CaptureIO.capture_io(fn -> Protocol.ready("cold", nil) end) == ~s({"ready":"cold"}\n)
    assert ExUnit.CaptureIO.capture_io(fn -> Protocol.ready("warm", 1234, %{workers: 2}) end) ==
             ~s({"ready":"warm","start_ns":1234,"extra":{"workers":2}}\n)
  end

  test "--start: cold by default where offered, else the only mode; a mode not offered is a bad argument with its reason" do
    both = %{start: %{"cold" => "c", "warm" => "w"}}
    warm_only = %{start: %{"warm" => "w"}, start_unavailable: %{"cold" => "the nodes outlive every repetition"}}
    assert Protocol.start_mode(both, nil) == "cold"
    assert Protocol.start_mode(both, "warm") == "warm"
    assert Protocol.start_mode(warm_only, nil) == "warm"
    assert Protocol.start_mode(%{family: "seq"}, nil) == nil
    assert {:bad_args, "--start cold is not offered: the nodes outlive every repetition"} = catch_throw(Protocol.start_mode(warm_only, "cold"))
    assert {:bad_args, "--start must be cold or warm" <> _} = catch_throw(Protocol.start_mode(both, "hot"))
  end

  test "every model with workers offers a start mode or says why not, and every line of a case echoes it" do
    for {_name, %{models: models}} <- Parbench.CLI.listing().workloads, {model, entry} <- models, entry[:workers] do
      assert Map.keys(Map.get(entry, :start, %{})) ++ Map.keys(Map.get(entry, :start_unavailable, %{})) |> Enum.sort() ==
               ["cold", "warm"], model
    end
  end

  test "busy intervals become ns from the repetition's clock start" do
    steps = %{vary: fn 0 -> nil end,
              work: fn nil -> :erlang.monotonic_time(:nanosecond) end,
              summarize: fn at, nil -> {1, "x", %{busy: [[0, at, at + 5]]}} end,
              ceiling: fn nil -> %{} end}

    [line] = ExUnit.CaptureIO.capture_io(fn -> Protocol.repeat(steps, %{}, variants([0])) end) |> String.split("\n", trim: true)
    [_, from, to] = Regex.run(~r/"busy":\[\[0,(\d+),(\d+)\]\]/, line)
    {from, to} = {String.to_integer(from), String.to_integer(to)}
    ns = Regex.run(~r/"ns":(\d+)/, line) |> List.last() |> String.to_integer()
    assert from >= 0 and from <= ns and to == from + 5
  end

  test "--probes are comma-separated non-negative integers" do
    assert Protocol.integer_list_option(%{"probes" => "0,5,4294967295"}, "probes") == [0, 5, 4_294_967_295]
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
