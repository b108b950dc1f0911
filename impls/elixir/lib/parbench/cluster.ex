defmodule Parbench.Cluster do
  @moduledoc """
  Starts and stops the peer BEAM nodes of the `distributed` models: `:peer` nodes on this
  machine (127.0.0.1 only) with this node's code, and turns a node that fails into one clear
  fault instead of a hang or a crash.
  """

  @host ~c"127.0.0.1"
  # A loaded machine can take seconds to boot a BEAM; :peer's default wait is 15 s.
  @boot_timeout_ms 60_000

  @doc """
  Makes this node distributed (starting epmd if none runs) and starts `count` peers with the
  VM flags `erl_flags` (the case's `+P`) and this node's code paths. Returns the cluster; every
  peer is monitored by the calling process. A peer that does not start is a `{:fault, line}`
  after the ones already started are stopped.
  """
  def start(count, erl_flags) do
    epmd = ensure_epmd()
    started_distribution = ensure_distributed()
    cluster = %{peers: [], nodes: [], clock_shifts: %{}, agents: %{}, epmd: epmd, started_distribution: started_distribution}

    cluster =
      Enum.reduce(1..count//1, cluster, fn index, cluster ->
        case start_peer(index, erl_flags) do
          {:ok, peer, node} ->
            Node.monitor(node, true)
            cluster = %{cluster | peers: cluster.peers ++ [peer], nodes: cluster.nodes ++ [node],
                                  agents: Map.put(cluster.agents, node, Node.spawn(node, __MODULE__, :agent, []))}
            %{cluster | clock_shifts: Map.put(cluster.clock_shifts, node, clock_shift(cluster, node))}

          {:error, reason} ->
            stop(cluster)
            throw({:fault, "distributed: peer node #{index} of #{count} did not start on #{@host}: #{inspect(reason)}"})
        end
      end)

    # The peers are connected to each other now, not by the first message between them inside
    # a timed region (a connection starts processes on both). The processes that :erpc and the
    # connections started for the set-up may still be exiting; the cluster is handed over once the
    # peers' process counts have settled, so that the first repetition does not share them.
    for from <- cluster.nodes, to <- cluster.nodes, from < to, do: true = ask(cluster, from, :net_kernel, :connect_node, [to])
    Enum.each(cluster.nodes, &ask(cluster, &1, __MODULE__, :settle_process_count, []))
    cluster
  end

  @doc false
  def settle_process_count(previous \\ nil) do
    Process.sleep(50)
    count = :erlang.system_info(:process_count)
    if count == previous, do: :ok, else: settle_process_count(count)
  end

  @doc "Stops every peer (those already gone too) and, if `start` made this node distributed, stops that."
  def stop(%{peers: peers, nodes: nodes, started_distribution: started_distribution}) do
    Enum.each(nodes, &Node.monitor(&1, false))
    Enum.each(peers, &stop_peer/1)
    flush_nodedowns(nodes)
    if started_distribution, do: stop_distribution()
    :ok
  end

  # Node.stop returns once net_kernel has exited, but the VM counts itself alive until the last of
  # its connections is torn down (ERTS clears the flag in work it schedules for then), which on a
  # loaded machine can outlast the call. A cluster started in that window would find this node
  # distributed, not stop it in turn, and leave it so. Stopping ends when the node has stopped;
  # 10 s bounds the wait, which takes milliseconds.
  defp stop_distribution do
    Node.stop()
    await_not_alive(1000)
  end

  defp await_not_alive(tries) do
    if Node.alive?() and tries > 0 do
      Process.sleep(10)
      await_not_alive(tries - 1)
    end
  end

  @doc """
  Runs `work.(share)` on each `{node, share}` at once (one `:erpc` process per node, started
  here and ended when it answers) and returns `[{node, result}]` in the same order.
  """
  def map_shares(shares, work) do
    shares
    |> Enum.map(fn {node, share} -> {node, :erpc.send_request(node, fn -> work.(share) end)} end)
    |> Enum.map(fn {node, request} -> {node, await(node, request)} end)
  end

  @doc """
  What to add to a `:erlang.monotonic_time/1` read on `node` to place it on this node's
  monotonic clock (busy intervals). Each VM's monotonic time has its own origin; monotonic +
  time offset is the OS system time on both, so the difference of the offsets maps one onto the
  other (to the µs, on this one machine).
  """
  def clock_shift(cluster, node),
    do: ask(cluster, node, :erlang, :time_offset, [:nanosecond]) - :erlang.time_offset(:nanosecond)

  @doc "`{user, system}` CPU ns of every peer's OS process, summed (Parbench.Protocol.os_process_cpu_ns/0 there)."
  def cpu_ns(cluster) do
    Enum.reduce(cluster.nodes, {0, 0}, fn node, {user, system} ->
      {node_user, node_system} = ask(cluster, node, Parbench.Protocol, :os_process_cpu_ns, [])
      {user + node_user, system + node_system}
    end)
  end

  @doc """
  `apply(module, function, arguments)` on `node` by its agent, a process that lives as long as
  the peer. Unlike `:erpc`, which spawns a process on the node for every call, it leaves no
  process behind that may still be exiting when spawn-chain counts the node's processes.
  """
  def ask(%{agents: agents}, node, module, function, arguments) do
    reference = make_ref()
    send(Map.fetch!(agents, node), {self(), reference, module, function, arguments})

    # Cluster.start has the calling process monitor every peer.
    receive do
      {^reference, result} -> result
      {:nodedown, ^node} -> throw(node_down(node))
    end
  end

  @doc false
  def agent do
    receive do
      {from, reference, module, function, arguments} -> send(from, {reference, apply(module, function, arguments)})
    end

    agent()
  end

  @doc "Deals `items` round-robin over `nodes`: `[{node, items}]`, leaving out nodes that get none."
  def deal(items, nodes) do
    count = length(nodes)
    dealt = items |> Enum.with_index() |> Enum.group_by(&rem(elem(&1, 1), count), &elem(&1, 0))
    for {node, index} <- Enum.with_index(nodes), Map.has_key?(dealt, index), do: {node, dealt[index]}
  end

  @doc "Waits for an `:erpc.send_request` answer from `node`; the node going down is a fault."
  def await(node, request) do
    :erpc.receive_response(request, :infinity)
  catch
    :error, {:erpc, :noconnection} -> throw(node_down(node))
  end

  @doc "The fault of a node that went down while the case ran."
  def node_down(node), do: {:fault, "distributed: node #{node} went down during the case"}

  defp ensure_epmd do
    case :erl_epmd.names() do
      {:ok, _names} ->
        "running"

      {:error, _} ->
        epmd = System.find_executable("epmd") || throw({:fault, "distributed: epmd is not running and not on PATH"})
        {_, 0} = System.cmd(epmd, ["-daemon"])
        wait_for_epmd(50)
        "started by this case (epmd -daemon)"
    end
  end

  defp wait_for_epmd(0), do: throw({:fault, "distributed: epmd -daemon started but does not answer"})

  defp wait_for_epmd(tries) do
    case :erl_epmd.names() do
      {:ok, _} -> :ok
      {:error, _} ->
        Process.sleep(100)
        wait_for_epmd(tries - 1)
    end
  end

  defp ensure_distributed do
    if Node.alive?() do
      false
    else
      case Node.start(:"parbench_#{System.pid()}_#{System.unique_integer([:positive])}@127.0.0.1", :longnames) do
        {:ok, _} -> true
        {:error, reason} -> throw({:fault, "distributed: this node cannot become distributed: #{inspect(reason)}"})
      end
    end
  end

  defp start_peer(index, erl_flags) do
    name = :"parbench_#{System.pid()}_peer#{index}_#{System.unique_integer([:positive])}"
    # Controlled over its stdin/stdout, so a peer that dies while booting is seen at once (over
    # the distribution connection :peer would wait out wait_boot), and a peer whose origin dies
    # loses its stdin and halts: no node outlives the case. Work still goes over distribution.
    options = %{name: name, host: @host, longnames: true, connection: :standard_io,
                wait_boot: @boot_timeout_ms, args: peer_args(erl_flags)}

    case :peer.start(options) do
      {:ok, peer, node} -> with_code(peer, node)
      {:error, reason} -> {:error, reason}
    end
  catch
    :exit, reason -> {:error, reason}
  end

  # A peer that dies right after its boot is a peer that did not start.
  defp with_code(peer, node) do
    load_code(node)
    {:ok, peer, node}
  catch
    kind, reason ->
      stop_peer(peer)
      {:error, {:loading_code, kind, reason}}
  end

  defp peer_args(erl_flags), do: erl_flags |> String.split() |> Enum.map(&String.to_charlist/1)

  # The peer starts as plain `erl`: it gets this node's non-OTP code paths (Elixir, parbench,
  # Flow…) so that the same modules run there, and Elixir's application.
  defp load_code(node) do
    paths = Enum.reject(:code.get_path(), &List.starts_with?(&1, :code.lib_dir()))
    :ok = :erpc.call(node, :code, :add_paths, [paths])
    {:ok, _} = :erpc.call(node, :application, :ensure_all_started, [:elixir])
  end

  defp stop_peer(peer) do
    :peer.stop(peer)
  catch
    # The controller of a node that died exits as it is stopped.
    :exit, _ -> :ok
  end

  defp flush_nodedowns(nodes) do
    for node <- nodes do
      receive do
        {:nodedown, ^node} -> :ok
      after
        0 -> :ok
      end
    end
  end
end
