defmodule Parbench.Workloads.Keygen do
  @moduledoc "keygen (seed 000): random keys encoded as lower-case Base32, sequentially, across schedulers (Flow, tasks) and across nodes."
  use Parbench.Workload
  alias Parbench.{Chunking, ChunkStream, Cluster, Digest, Protocol, WorkTally}

  # The chunking rule's cap for keygen, in keys (docs/workloads/keygen.md).
  @chunk_cap 1024

  @impl true
  def name, do: "keygen"

  @impl true
  def params, do: ["count", "bytes", "source", "seed", "chunk"]

  @impl true
  def models do
    %{
      "seq" => %{family: "seq", note: "two Enum.map passes (generate, then encode), as the seed"},
      "flow" => %{
        family: "data-parallel",
        workers: true,
        note: "#{flow_versions_text()}: Flow.from_enumerable(stages: workers, max_demand: chunk, min_demand: 0) |> Flow.map(generate) |> Flow.map(encode) |> Enum.to_list(), as the seed; each stage takes batches of exactly min(1024, ceil(count/workers)) keys (--chunk overrides); keys in the order Flow delivers them; workers_used = distinct stages that processed a batch",
        versions: flow_versions()
      },
      "distributed" => %{
        family: "distributed",
        workers: true,
        note: "Erlang distribution: workers = peer BEAM nodes (:peer, 127.0.0.1), started before the timed region (extra.cluster_start_ns) and stopped after the last repetition; chunks of min(1024, ceil(count/workers)) keys (--chunk overrides) are dealt round-robin to the nodes, one :erpc process per node generates and encodes its share, and the keys come back over the distribution connection to the caller; workers_used = nodes that returned a chunk"
      },
      "async_stream" => %{
        family: "data-parallel",
        workers: true,
        note: "Task.async_stream(ordered: false, max_concurrency: workers), one task per chunk of min(1024, ceil(count/workers)) keys (--chunk overrides), each key generated and encoded in turn (stood in for Flow before Flow was built here); workers_used = the most chunks in progress at once"
      }
    }
  end

  @doc "The versions of Flow and GenStage as their loaded applications say."
  def flow_versions do
    for app <- [:flow, :gen_stage], into: %{} do
      Application.load(app)
      {app, to_string(Application.spec(app, :vsn) || "not loaded")}
    end
  end

  defp flow_versions_text, do: "Flow #{flow_versions().flow} on GenStage #{flow_versions().gen_stage}"

  @impl true
  def prepare(model, options, workers) do
    count = Protocol.integer_option(options, "count", :required)
    key_bytes = Protocol.integer_option(options, "bytes", 1000)
    source = Protocol.choice_option(options, "source", ["strong", "seeded"], "strong")
    seed = Protocol.integer_option(options, "seed", 0)
    # seq's chunks only pace its ceiling (one worker, so the rule gives the cap).
    chunk = Chunking.chunk(options, count, if(model == "seq", do: 1, else: workers), @chunk_cap)
    extra = Map.merge(if(model == "seq", do: %{}, else: %{chunk: chunk}), flow_extra(model, workers, chunk))

    context = %{model: model, count: count, key_bytes: key_bytes, source: source, seed: seed,
                workers: workers, chunk: chunk, extra: extra}

    if model == "distributed", do: start_cluster(context), else: context
  end

  # The peers boot outside the timed region, as the VM's own boot is (the contract's one exception).
  defp start_cluster(%{workers: nodes, extra: extra} = context) do
    {start_ns, cluster} = Protocol.time_ns(fn -> Cluster.start(nodes, System.get_env("PARBENCH_ERL_FLAGS", "")) end)
    extra = Map.merge(extra, %{nodes: nodes, cluster_start_ns: start_ns, epmd: cluster.epmd})
    %{context | extra: extra} |> Map.put(:cluster, cluster)
  end

  @impl true
  def finish(%{cluster: cluster}), do: Cluster.stop(cluster)
  def finish(_context), do: :ok

  @impl true
  def run(%{model: "seq", count: count} = context) do
    keys =
      0..(count - 1)//1
      |> Enum.map(key_source(context))
      |> Enum.map(&encode/1)

    {keys, nil}
  end

  def run(%{model: "flow", count: count, chunk: chunk, workers: workers} = context) do
    tally = WorkTally.new()
    caller = self()

    keys =
      0..(count - 1)//1
      |> Flow.from_enumerable(stages: workers, max_demand: chunk, min_demand: 0,
        on_init: fn _stage -> report_coordinator(caller) end)
      |> Flow.map_batch(&count_batch(&1, tally))
      |> Flow.map(key_source(context))
      |> Flow.map(&encode/1)
      |> Enum.to_list()

    await_flow_end(workers)
    {keys, tally}
  end

  def run(%{model: "async_stream", count: count, chunk: chunk, workers: workers} = context) do
    tally = WorkTally.new()
    key_source = key_source(context)

    keys =
      Chunking.spans(count, chunk)
      |> ChunkStream.map(workers, &generate_span(&1, key_source), tally, false)
      |> Enum.concat()

    {keys, tally}
  end

  def run(%{model: "distributed", count: count, chunk: chunk, cluster: cluster} = context) do
    tally = WorkTally.new()
    key_source = key_source(context)

    keys =
      Chunking.spans(count, chunk)
      |> Cluster.deal(cluster.nodes)
      |> Cluster.map_shares(fn spans -> {length(spans), Enum.flat_map(spans, &generate_span(&1, key_source))} end)
      |> Enum.flat_map(fn {node, {chunks_done, keys}} -> count_node_chunks(tally, node, chunks_done, keys) end)

    {keys, tally}
  end

  defp flow_extra("flow", workers, chunk) do
    versions = flow_versions()
    %{stages: workers, max_demand: chunk, min_demand: 0, flow_version: versions.flow, gen_stage_version: versions.gen_stage}
  end

  defp flow_extra(_model, _workers, _chunk), do: %{}

  # Runs in a stage, once per batch of max_demand keys (a chunk), before the maps.
  defp count_batch(batch, tally) do
    WorkTally.chunk_done(tally, self())
    batch
  end

  # A stage's ancestors are [its supervisor, the flow's coordinator, …]: the coordinator ends
  # after the supervisor has shut every stage down, so its end is the end of every worker.
  defp report_coordinator(caller) do
    [_supervisor, coordinator | _] = Process.get(:"$ancestors")
    send(caller, {:flow_coordinator, coordinator})
  end

  # Enum.to_list returns once the last batch is in; the stages exit just after, so the clock
  # waits for the coordinator's end (every stage sent its report before the first batch).
  defp await_flow_end(stages) do
    [coordinator | _] = for _ <- 1..stages, do: receive(do: ({:flow_coordinator, pid} -> pid))
    monitor = Process.monitor(coordinator)
    receive(do: ({:DOWN, ^monitor, :process, _, _} -> :ok))
  end

  # A node answers with how many chunks it did; each counts for that node.
  defp count_node_chunks(tally, node, chunks_done, keys) do
    for _ <- 1..chunks_done//1, do: WorkTally.chunk_done(tally, node)
    keys
  end

  defp generate_span({first, length}, key_source),
    do: for(index <- first..(first + length - 1)//1, do: encode(key_source.(index)))

  @impl true
  def summarize({keys, tally}, %{source: source, count: count}) do
    {count, checksum(keys, source), counted(tally)}
  end

  defp checksum(keys, "strong"), do: "#{length(keys)}:#{Enum.reduce(keys, 0, &(byte_size(&1) + &2))}"
  defp checksum(keys, "seeded"), do: Digest.order_free(keys)

  defp counted(nil), do: %{}
  defp counted(tally), do: WorkTally.summary(tally)

  @doc """
  The ceiling "csprng+base32", with the case's workers and chunks: the CSPRNG filling
  `count × bytes` bytes (one `:crypto.strong_rand_bytes` call per chunk), then `Base.encode32`
  alone encoding `count` keys of fixed bytes; nothing is kept.
  """
  @impl true
  def ceiling(%{count: count, chunk: chunk, key_bytes: key_bytes} = context) do
    spans = Chunking.spans(count, chunk)
    {csprng_ns, _} = Protocol.time_ns(fn -> each_chunk(context, spans, &fill_random(&1, key_bytes)) end)
    fixed_key = :binary.copy(<<0xA5>>, key_bytes)
    {base32_ns, _} = Protocol.time_ns(fn -> each_chunk(context, spans, &encode_times(&1, fixed_key)) end)
    %{ceiling: "csprng+base32", ceiling_ns: csprng_ns + base32_ns, csprng_ns: csprng_ns, base32_ns: base32_ns}
  end

  defp each_chunk(%{model: "seq"}, spans, fun), do: Enum.each(spans, fun)

  defp each_chunk(%{model: "distributed", cluster: cluster}, spans, fun),
    do: spans |> Cluster.deal(cluster.nodes) |> Cluster.map_shares(&Enum.each(&1, fun))

  defp each_chunk(%{workers: workers}, spans, fun), do: ChunkStream.map(spans, workers, fun, nil, false)

  defp fill_random({_first, length}, key_bytes) do
    :crypto.strong_rand_bytes(length * key_bytes)
    :ok
  end

  defp encode_times({_first, length}, key), do: Enum.each(1..length//1, fn _ -> encode(key) end)

  @doc "RFC 4648 Base32, lower case, with padding."
  def encode(bytes), do: Base.encode32(bytes, case: :lower)

  defp key_source(%{source: "strong", key_bytes: key_bytes}),
    do: fn _index -> :crypto.strong_rand_bytes(key_bytes) end

  defp key_source(%{source: "seeded", key_bytes: key_bytes, seed: seed}),
    do: fn index -> Digest.splitmix64_bytes(seed, index, key_bytes) end
end
