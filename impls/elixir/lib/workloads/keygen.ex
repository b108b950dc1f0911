defmodule Parbench.Workloads.Keygen do
  @moduledoc "keygen (seed 000): random keys encoded as lower-case Base32, sequentially, across schedulers (Flow, tasks) and across nodes."
  use Parbench.Workload
  alias Parbench.{Chunking, ChunkStream, Cluster, Digest, Protocol, WorkerPool, WorkTally}
  alias Parbench.Workloads.Keygen.WarmFlow

  # The chunking rule's cap for keygen, in keys (docs/workloads/keygen.md).
  @chunk_cap 1024

  @impl true
  def name, do: "keygen"

  @impl true
  def params, do: ["count", "bytes", "source", "seed", "chunk", "kernel", "probes"]

  # The reference procedure is the standard CSPRNG call per key and the standard library's
  # encoder, which is all this code does: it is the portable kernel, and there is no tuned one.
  @portable_detail "reference, transliterated: :crypto.strong_rand_bytes/1 per key (OpenSSL RAND_bytes) + Base.encode32(case: :lower)"
  @seeded_detail "reference, transliterated: SplitMix64 bytes per key (seeded source, in place of :crypto.strong_rand_bytes/1) + Base.encode32(case: :lower)"

  @impl true
  def kernels, do: %{"portable" => @portable_detail}

  @impl true
  def models do
    %{
      "seq" => %{family: "seq", note: "two Enum.map passes (generate, then encode), as the seed"},
      "flow" => %{
        family: "data-parallel",
        workers: true,
        note: "#{flow_versions_text()}: Flow.from_enumerable(stages: workers, max_demand: chunk, min_demand: 0) |> Flow.map(generate) |> Flow.map(encode) |> Enum.to_list(), as the seed (cold); each stage takes batches of exactly min(1024, ceil(count/workers)) keys (--chunk overrides); keys in the order Flow delivers them; workers_used = distinct stages that processed a batch",
        versions: flow_versions(),
        start: %{
          "cold" => "Flow's coordinator, supervisor, producer and workers stages, started by Enum.to_list inside each repetition's ns and ended before it stops (the coordinator's :DOWN comes after its supervisor has shut every stage down)",
          "warm" => "one flow with the same stages and maps, started before the ready line (start_ns) and kept up: Flow.from_stages([an index producer], stages: workers, max_demand: chunk, min_demand: 0) |> … |> Flow.into_stages([a key collector]); each repetition hands the producer its indices and waits for the collector's keys"
        }
      },
      "distributed" => %{
        family: "distributed",
        workers: true,
        note: "Erlang distribution: workers = peer BEAM nodes (:peer, 127.0.0.1), started before the ready line (start_ns, extra.cluster_start_ns) and stopped after the last repetition; chunks of min(1024, ceil(count/workers)) keys (--chunk overrides) are dealt round-robin to the nodes, one :erpc process per node generates and encodes its share, and the keys come back over the distribution connection to the caller; workers_used = nodes that returned a chunk",
        start: %{"warm" => "the peer nodes (one BEAM OS process each, :peer) and their agents, started before the ready line (start_ns); each repetition starts one :erpc process on each node and waits for its keys"},
        start_unavailable: %{"cold" => "the peer nodes are started once, before the first repetition (a BEAM node takes 0.6-1 s to boot here), and no repetition starts or stops one"}
      },
      "async_stream" => %{
        family: "data-parallel",
        workers: true,
        note: "Task.async_stream(ordered: false, max_concurrency: workers), one task per chunk of min(1024, ceil(count/workers)) keys (--chunk overrides), each key generated and encoded in turn (stood in for Flow before Flow was built here); workers_used = the most chunks in progress at once (cold), the pool's processes that took a chunk (warm)",
        start: WorkerPool.start_modes("chunk of keys")
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
    probes = Protocol.integer_list_option(options, "probes")
    if probes && Enum.any?(probes, &(&1 >= count)), do: throw({:bad_args, "--probes must be key indices 0..#{count - 1}"})
    # seq's chunks only pace its ceiling (one worker, so the rule gives the cap).
    chunk = Chunking.chunk(options, count, if(model == "seq", do: 1, else: workers), @chunk_cap)
    kernel = %{kernel: Map.get(options, "kernel", "portable"),
               kernel_detail: if(source == "seeded", do: @seeded_detail, else: @portable_detail)}
    extra = if(model == "seq", do: %{}, else: %{chunk: chunk}) |> Map.merge(flow_extra(model, workers, chunk)) |> Map.merge(kernel)

    context = %{model: model, count: count, key_bytes: key_bytes, source: source, seed: seed,
                workers: workers, chunk: chunk, probes: probes, extra: extra}

    case model do
      "distributed" -> start_cluster(context)
      "flow" -> if(options["start"] == "warm", do: start_flow(context), else: Map.put(context, :warm_flow, nil))
      _ -> WorkerPool.for_start(context, options["start"])
    end
  end

  # The peers boot outside the timed region, as the VM's own boot is (the contract's one exception).
  defp start_cluster(%{workers: nodes, extra: extra} = context) do
    {start_ns, cluster} = Protocol.time_ns(fn -> Cluster.start(nodes, System.get_env("PARBENCH_ERL_FLAGS", "")) end)
    extra = Map.merge(extra, %{nodes: nodes, cluster_start_ns: start_ns, epmd: cluster.epmd})
    # Parbench.Protocol also counts the peers' CPU time as the case's (the cluster's agents).
    %{context | extra: extra} |> Map.merge(%{cluster: cluster, start_ns: start_ns})
  end

  # The warm flow's stages read each repetition's job (its key source, tally and probes) from a
  # table, once per batch: they were built before any repetition existed.
  defp start_flow(%{workers: workers, chunk: chunk} = context) do
    jobs = :ets.new(:keygen_flow_jobs, [:set, :public, read_concurrency: true])
    job_of_batch = fn -> :ets.lookup_element(jobs, :job, 2) end
    {start_ns, flow} = Protocol.time_ns(fn -> WarmFlow.start(workers, chunk, &key_stages(&1, job_of_batch)) end)
    Map.merge(context, %{warm_flow: flow, flow_jobs: jobs, start_ns: start_ns})
  end

  @impl true
  def finish(%{cluster: cluster}), do: Cluster.stop(cluster)
  def finish(%{warm_flow: flow}) when flow != nil, do: WarmFlow.stop(flow)
  def finish(context), do: WorkerPool.stop_for(context)

  @doc "The repetition's seed (its variant, read from stdin); the strong source has none to vary."
  @impl true
  def vary(%{source: "seeded"} = context, seed), do: %{context | seed: seed}
  def vary(context, _seed), do: context

  # Every model runs the same generator structure for both sources: key i's bytes come from
  # key_source (the CSPRNG or SplitMix64, the only difference), one call per key, then
  # Base.encode32; the keys are gathered into one list. Probed keys (--probes) are picked by
  # index where they are made; seq's list is in index order, so it picks them after the clock.
  @impl true
  def run(%{model: "seq", count: count} = context) do
    keys =
      0..(count - 1)//1
      |> Enum.map(key_source(context))
      |> Enum.map(&encode/1)

    {keys, nil, nil}
  end

  def run(%{model: "flow"} = context) do
    tally = WorkTally.new()
    probes = probe_store(context)
    {flow_keys(context, %{key_source: key_source(context), tally: tally, probes: probes}), tally, probes}
  end

  def run(%{model: "async_stream", count: count, chunk: chunk} = context) do
    tally = WorkTally.new()
    probes = probe_store(context)
    key_source = key_source(context)

    keys =
      Chunking.spans(count, chunk)
      |> ChunkStream.map(context, &generate_span(&1, key_source, probes), tally, false)
      |> Enum.concat()

    {keys, tally, probes}
  end

  def run(%{model: "distributed", count: count, chunk: chunk, cluster: cluster} = context) do
    tally = WorkTally.new()
    key_source = key_source(context)
    wanted = probe_indices(context)

    {keys, found} =
      Chunking.spans(count, chunk)
      |> Cluster.deal(cluster.nodes)
      |> Cluster.map_shares(fn spans -> generate_share(spans, key_source, wanted) end)
      |> Enum.flat_map_reduce([], fn {node, {chunks_done, keys, found, started, ended}}, found_so_far ->
        # The node's busy interval comes on its own monotonic clock, shifted onto this one.
        shift = Map.fetch!(cluster.clock_shifts, node)
        WorkTally.record(tally, node, started + shift, ended + shift, chunks_done)
        {keys, found ++ found_so_far}
      end)

    {keys, tally, Map.new(found)}
  end

  # Runs on a peer node: its whole share, with the probed keys it made and when it was busy.
  @doc false
  def generate_share(spans, key_source, wanted) do
    started = WorkTally.now()
    keyed = Enum.map(spans, fn span -> {span, generate_span(span, key_source, nil)} end)
    found = for {span, keys} <- keyed, probe <- pick_probes(keys, span, wanted), do: probe
    {length(spans), Enum.flat_map(keyed, &elem(&1, 1)), found, started, WorkTally.now()}
  end

  defp flow_extra("flow", workers, chunk) do
    versions = flow_versions()
    %{stages: workers, max_demand: chunk, min_demand: 0, flow_version: versions.flow, gen_stage_version: versions.gen_stage}
  end

  defp flow_extra(_model, _workers, _chunk), do: %{}

  # Cold: the flow is started by Enum.to_list and ends with the repetition.
  defp flow_keys(%{warm_flow: nil, count: count, chunk: chunk, workers: workers}, job) do
    caller = self()

    keys =
      0..(count - 1)//1
      |> Flow.from_enumerable(stages: workers, max_demand: chunk, min_demand: 0,
        on_init: fn _stage -> report_coordinator(caller) end)
      |> key_stages(fn -> job end)
      |> Enum.to_list()

    await_flow_end(workers)
    keys
  end

  # Warm: the flow started before the ready line gets the repetition's job and its indices.
  defp flow_keys(%{warm_flow: flow, flow_jobs: jobs, count: count}, job) do
    :ets.insert(jobs, {:job, job})
    WarmFlow.run(flow, count)
  end

  # What every stage does, cold or warm: generate and encode each key of its batch.
  defp key_stages(flow, job_of_batch) do
    flow
    |> Flow.map_batch(&begin_batch(&1, job_of_batch.()))
    |> Flow.map(&generate_key/1)
    |> Flow.map(&encode/1)
    |> Flow.map(&end_key/1)
  end

  # Runs in a stage, once per batch of max_demand keys (a chunk), before the maps (Flow allows
  # map_batch only there): the stage remembers the batch's indices, when it began it and the
  # repetition's job.
  defp begin_batch(batch, job) do
    Process.put(:keygen_batch, {batch, WorkTally.now(), job})
    batch
  end

  defp generate_key(index) do
    {_batch, _started, job} = Process.get(:keygen_batch)
    job.key_source.(index)
  end

  # The last map of the stage, once per key in the batch's order: pairs the key with its index
  # (for --probes) and, at the batch's last key, records the chunk and its busy interval.
  defp end_key(key) do
    {[index | rest], started, %{tally: tally, probes: probes} = job} = Process.get(:keygen_batch)
    if probes != nil and is_map_key(probes.wanted, index), do: :ets.insert(probes.found, {index, key})

    if rest == [] do
      WorkTally.record(tally, self(), started, WorkTally.now())
      Process.delete(:keygen_batch)
    else
      Process.put(:keygen_batch, {rest, started, job})
    end

    key
  end

  # Where the local models put probed keys as they make them: nil without --probes.
  defp probe_store(%{probes: nil}), do: nil

  defp probe_store(%{probes: probes}),
    do: %{list: probes, wanted: Map.new(probes, &{&1, true}), found: :ets.new(:keygen_probes, [:set, :public])}

  defp probe_indices(%{probes: nil}), do: []
  defp probe_indices(%{probes: probes}), do: probes

  # The probed keys of one chunk `{first, length}` whose keys are `keys`, in index order.
  defp pick_probes(keys, {first, length}, wanted) do
    for probe <- wanted, probe >= first and probe < first + length, do: {probe, Enum.at(keys, probe - first)}
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

  defp generate_span({first, length} = span, key_source, probes) do
    keys = for index <- first..(first + length - 1)//1, do: encode(key_source.(index))

    if probes != nil, do: :ets.insert(probes.found, pick_probes(keys, span, probes.list))

    keys
  end

  # The checksum is the order-free digest of the encoded keys for both sources (protocol 2).
  @impl true
  def summarize({keys, tally, probes}, %{count: count} = context) do
    extra = if tally, do: WorkTally.summary(tally), else: %{}
    extra = if context.probes, do: Map.put(extra, :probes, probed(keys, probes, context.probes)), else: extra
    {count, Digest.order_free(keys), extra}
  end

  # seq's list is in generation order; the other models looked the probed keys up as they ran.
  defp probed(keys, nil, wanted), do: Enum.map(wanted, &Enum.at(keys, &1))

  defp probed(_keys, %{found: found}, wanted) do
    keys = Map.new(:ets.tab2list(found))
    :ets.delete(found)
    Enum.map(wanted, &Map.fetch!(keys, &1))
  end

  defp probed(_keys, found, wanted) when is_map(found), do: Enum.map(wanted, &Map.fetch!(found, &1))

  @doc """
  The ceiling "csprng+base32", with the case's workers and chunks (tasks for cold models and
  for both flows, the warm pool for warm async_stream, the nodes for distributed): the CSPRNG filling
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

  defp each_chunk(context, spans, fun), do: ChunkStream.map(spans, context, fun, nil, false)

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
