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

  # The distributed model starts peer nodes: distributed_test.exs checks it, once per cluster.
  @local_models Map.keys(Keygen.models()) -- ["distributed"]

  defp run_case(model, options, workers \\ 2) do
    context = Keygen.prepare(model, options, workers)
    {items, checksum, extra} = Keygen.summarize(Keygen.run(context), context)
    {items, checksum, Map.merge(context.extra, extra)}
  end

  defp checksum(model, options, workers \\ 2), do: model |> run_case(options, workers) |> elem(1)

  defp seeded(count, bytes, seed), do: %{"count" => "#{count}", "bytes" => "#{bytes}", "source" => "seeded", "seed" => "#{seed}"}

  test "seeded, count 3, bytes 10, seed 1 gives d3605c1b2c10e632" do
    for model <- @local_models do
      assert checksum(model, seeded(3, 10, 1)) == "d3605c1b2c10e632", model
    end
  end

  test "strong keys give the order-free digest too, a new one every run" do
    for model <- @local_models do
      options = %{"count" => "7", "bytes" => "1000", "source" => "strong"}
      assert checksum(model, options) =~ ~r/^[0-9a-f]{16}$/
      assert checksum(model, options) != checksum(model, options)
    end
  end

  defp probed(model, options, probes, workers \\ 2, seed \\ nil) do
    context = Keygen.prepare(model, Map.put(options, "probes", Enum.join(probes, ",")), workers)
    context = if seed, do: Keygen.vary(context, seed), else: context
    Keygen.summarize(Keygen.run(context), context)
  end

  test "protocol 2 vector: seeded count 3, bytes 10, seed 1 probes keys 0, 1, 2, for every model" do
    for model <- @local_models do
      assert {3, "d3605c1b2c10e632", %{probes: ["yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"]}} =
               probed(model, seeded(3, 10, 1), [0, 1, 2])
    end
  end

  test "a variant replaces the seed: base seed 0 with variant 1 is seed 1's keys" do
    for model <- @local_models do
      assert {3, "d3605c1b2c10e632", %{probes: ["lzktf67oukj7qc6j", "yfoafcpmfufjcz7m"]}} =
               probed(model, seeded(3, 10, 0), [2, 0], 2, 1)
    end
  end

  test "probes name key i of the generation order whatever the chunking, in the order asked" do
    options = Map.put(seeded(1000, 7, 5), "chunk", "33")
    expected = for index <- [999, 0, 33, 32, 500], do: Keygen.encode(Parbench.Digest.splitmix64_bytes(5, index, 7))
    for model <- @local_models, do: assert({1000, _, %{probes: ^expected}} = probed(model, options, [999, 0, 33, 32, 500], 3))
  end

  test "strong probes are keys of the right size, and a probe beyond count is a bad argument" do
    assert {5, _, %{probes: [key]}} = probed("flow", %{"count" => "5", "bytes" => "1000", "source" => "strong"}, [4])
    assert byte_size(key) == 1600
    assert {:bad_args, _} = catch_throw(probed("seq", seeded(5, 10, 1), [5]))
  end

  test "keygen has a portable kernel only, named in every line" do
    assert Map.keys(Keygen.kernels()) == ["portable"]
    assert %{kernel: "portable", kernel_detail: "reference, transliterated: :crypto.strong_rand_bytes/1" <> _} =
             Keygen.prepare("seq", %{"count" => "1", "source" => "strong", "kernel" => "portable"}, 1).extra
  end

  for model <- ["flow", "async_stream"] do
    test "#{model} reports one busy interval per worker" do
      # Keys of 1000 bytes, so that one chunk does not end before the other begins.
      assert %{busy: [[0, _, _], [1, _, _]], workers_used: 2} = run_case(unquote(model), seeded(2000, 1000, 1), 2) |> elem(2)
    end
  end

  test "every model agrees with seq for arbitrary seeded parameters, workers and chunks" do
    for {count, bytes, seed, workers, chunk} <- [{57, 13, 99, 2, nil}, {1, 1, 0, 3, nil}, {200, 31, 123_456_789, 5, 7}] do
      options = seeded(count, bytes, seed)
      options = if chunk, do: Map.put(options, "chunk", "#{chunk}"), else: options
      expected = checksum("seq", options)
      for model <- @local_models, do: assert(checksum(model, options, workers) == expected, model)
    end
  end

  test "items is the key count" do
    assert {257, _, _} = run_case("flow", seeded(257, 10, 7))
  end

  for model <- ["flow", "async_stream"] do
    test "#{model} follows the chunking rule and counts its chunks" do
      assert %{chunk: 1000, chunks: 2} = run_case(unquote(model), seeded(2000, 8, 1), 2) |> elem(2)
      assert %{chunk: 1024, chunks: 3} = run_case(unquote(model), seeded(3000, 8, 1), 1) |> elem(2)
      assert %{chunk: 10, chunks: 30} = run_case(unquote(model), Map.put(seeded(300, 8, 1), "chunk", "10"), 2) |> elem(2)
    end

    test "#{model}: 2000 strong keys on 2 workers use both workers" do
      assert %{workers_used: 2, chunks: 2} =
               run_case(unquote(model), %{"count" => "2000", "bytes" => "1000", "source" => "strong"}, 2) |> elem(2)
    end
  end

  test "flow records its stages, demand and the loaded Flow and GenStage versions" do
    extra = run_case("flow", seeded(100, 8, 1), 3) |> elem(2)
    assert %{stages: 3, max_demand: 34, min_demand: 0} = extra
    assert extra.flow_version == to_string(Application.spec(:flow, :vsn))
    assert extra.gen_stage_version == to_string(Application.spec(:gen_stage, :vsn))
    assert {extra.flow_version, extra.gen_stage_version} == {"1.2.4", "1.3.2"}
    assert Keygen.models()["flow"].versions == %{flow: "1.2.4", gen_stage: "1.3.2"}
  end

  test "no process of the flow outlives its run" do
    run_case("flow", seeded(500, 8, 1), 2)

    started_here =
      for pid <- Process.list(), {:dictionary, dictionary} <- [Process.info(pid, :dictionary)],
          self() in Keyword.get(dictionary, :"$ancestors", []), do: pid

    assert started_here == []
  end

  test "every model reports the csprng+base32 ceiling and its parts" do
    for model <- @local_models do
      context = Keygen.prepare(model, seeded(300, 100, 1), 2)
      assert %{ceiling: "csprng+base32", ceiling_ns: total, csprng_ns: csprng, base32_ns: base32} = Keygen.ceiling(context)
      assert csprng > 0 and base32 > 0 and total == csprng + base32
    end
  end

  # Warm: the model's workers are made in prepare (before the ready line) and reused by every
  # repetition; finish/1 ends them.
  defp warm_repetitions(model, options, seeds, workers \\ 2) do
    context = Keygen.prepare(model, Map.put(options, "start", "warm"), workers)

    try do
      for seed <- seeds do
        varied = Keygen.vary(context, seed)
        {_keys, tally, _probes} = result = Keygen.run(varied)
        # Read before summarize/2, which deletes the tally.
        stages = if model == "flow", do: stage_pids(tally)
        {Keygen.summarize(result, varied), stages}
      end
    after
      Keygen.finish(context)
    end
  end

  # The flow's workers are its stages, recorded by pid in the tally.
  defp stage_pids(%{table: table}), do: table |> :ets.tab2list() |> Enum.map(&elem(&1, 0)) |> MapSet.new()

  for model <- ["flow", "async_stream"] do
    test "warm #{model} gives cold's digests, probes and chunking for every repetition's seed" do
      options = Map.put(seeded(3000, 8, 0), "probes", "0,2999")

      for {{{items, checksum, extra}, _}, seed} <- Enum.zip(warm_repetitions(unquote(model), options, [1, 2, 1]), [1, 2, 1]) do
        {^items, expected, expected_extra} = probed("seq", options, [0, 2999], 1, seed)
        assert checksum == expected
        assert extra.probes == expected_extra.probes
        assert %{chunks: 3, workers_used: used} = extra
        # Chunking is the contract; who takes a chunk is not: a warm pool's process that asks
        # first may take all three tiny chunks before the other runs on a loaded 2-core machine.
        assert used in 1..2
      end
    end
  end

  test "warm flow: the same stages take the batches of every repetition, and none outlives finish" do
    [{_, first} | rest] = warm_repetitions("flow", seeded(4000, 8, 0), [1, 2, 3])
    assert MapSet.size(first) == 2
    for {_, stages} <- rest, do: assert(stages == first)
    refute Enum.any?(first, &Process.alive?/1)
  end

  test "a warm start is timed and offered only where the model keeps its workers" do
    context = Keygen.prepare("flow", Map.put(seeded(10, 8, 0), "start", "warm"), 2)
    assert context.start_ns > 0
    Keygen.finish(context)
    assert Keygen.models()["distributed"].start_unavailable["cold"] =~ "started once"
    assert Map.keys(Keygen.models()["flow"].start) |> Enum.sort() == ["cold", "warm"]
  end
end
