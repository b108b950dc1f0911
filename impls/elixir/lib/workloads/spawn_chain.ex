defmodule Parbench.Workloads.SpawnChain do
  @moduledoc "spawn-chain (seed 003): n BEAM processes (bare, or GenServers) in a chain, each adding 1 to the integer it passes on."
  use Parbench.Workload
  alias Parbench.{Cluster, ProcessLimit, Protocol}
  alias Parbench.Workloads.SpawnChain.LinkServer

  @impl true
  def name, do: "spawn-chain"
  @impl true
  def params, do: ["n", "max_processes"]

  @impl true
  def models do
    limit = "--max-processes N starts the VM with +P N (a separate case, extra.erl_flags), without it the VM default limit applies"

    %{
      "spawn" => %{
        family: "actors",
        note: "the seed's chain: one spawn/3 process per link, each waiting in receive; " <> limit,
        start_unavailable: Parbench.Workload.units_are_the_work("link")
      },
      "distributed" => %{
        family: "distributed",
        note: "the spawn chain across Erlang distribution: links alternate between two peer BEAM nodes (:peer, 127.0.0.1; started before the timed region, extra.cluster_start_ns, stopped after the last repetition), each created there with spawn_request from the caller's node, so every hop (and the caller's first send and last receive) crosses nodes: a cross-node message beside spawn's local one; " <> limit <> " (on the peers too)",
        start_unavailable: Parbench.Workload.units_are_the_work("link")
      },
      "genserver" => %{
        family: "actors",
        note: "the same chain of OTP GenServers: each link started with GenServer.start/2 (which waits for its init), the pass by GenServer.cast/2, each link stopping after its pass; the BEAM's raw process cost beside an OTP abstraction's; " <> limit,
        start_unavailable: Parbench.Workload.units_are_the_work("link")
      }
    }
  end

  # The distributed chain's two nodes; every hop alternates between them.
  @chain_nodes 2

  @impl true
  def prepare(model, options, _workers) do
    n = Protocol.integer_option(options, "n", :required)
    if n < 1, do: throw({:bad_args, "--n must be at least 1"})
    context = %{model: model, n: n, start: 0}
    if model == "distributed", do: start_cluster(context), else: context
  end

  @doc "The repetition's start value (its variant, read from stdin): sent into the chain instead of 0; the answer is start + n."
  @impl true
  def vary(context, start), do: %{context | start: start}

  # The peers boot outside the timed region, as the VM's own boot is (the contract's one exception).
  defp start_cluster(%{n: n} = context) do
    {start_ns, cluster} = Protocol.time_ns(fn -> Cluster.start(@chain_nodes, System.get_env("PARBENCH_ERL_FLAGS", "")) end)
    extra = %{nodes: @chain_nodes, cross_node_hops: n + 1, cluster_start_ns: start_ns, epmd: cluster.epmd}
    # Parbench.Protocol also counts the peers' CPU time as the case's (the cluster's agents).
    Map.merge(context, %{cluster: cluster, extra: extra})
  end

  @impl true
  def finish(%{cluster: cluster}), do: Cluster.stop(cluster)
  def finish(_context), do: :ok

  # Each link ends by itself right after its send, so nothing is left to join. Every chain
  # returns {answer, live_units}: live_units is the change of the VM's process count between just
  # before the first link and the moment the start value is sent, when every link has started and
  # none has ended (for distributed, the links found alive on their peers at that moment).
  @impl true
  def run(%{model: "spawn", n: n, start: start}), do: ProcessLimit.guard(fn -> chain(n, start) end)
  def run(%{model: "genserver", n: n, start: start}), do: ProcessLimit.guard(fn -> genserver_chain(n, start) end)
  def run(%{model: "distributed", n: n, start: start, cluster: cluster}), do: distributed_chain(n, cluster, start)

  @doc "Builds the chain of `n` processes, sends `start` to the last one created and waits for the answer."
  def chain(n, start \\ 0) do
    before = :erlang.system_info(:process_count)
    last = Enum.reduce(1..n, self(), fn _, send_to -> spawn(__MODULE__, :link, [send_to]) end)
    live_units = :erlang.system_info(:process_count) - before
    send(last, start)

    receive do
      answer when is_integer(answer) -> {answer, live_units}
    end
  end

  @doc "The same chain of GenServers: started one by one, then `start` cast to the last one started."
  def genserver_chain(n, start \\ 0) do
    before = :erlang.system_info(:process_count)
    last = Enum.reduce(1..n, {:caller, self()}, fn _, send_to -> LinkServer.start_link_unit(send_to) end)
    live_units = :erlang.system_info(:process_count) - before
    LinkServer.pass(last, start)

    receive do
      answer when is_integer(answer) -> {answer, live_units}
    end
  end

  @doc """
  The chain with unit k on `nodes[k mod 2]` (two nodes other than the caller's), so that every
  message, the caller's first and the answer included, crosses nodes: n + 1 cross-node hops.
  """
  def distributed_chain(n, %{nodes: [_, _] = nodes} = cluster, start \\ 0) do
    {last, links} =
      Enum.reduce(0..(n - 1)//1, {self(), []}, fn k, {send_to, links} ->
        link = spawn_on(link_node(k, nodes), :link, [send_to])
        {link, [link | links]}
      end)

    # Each peer's agent counts, by pid, the links it holds that are alive: one round trip to each
    # beside the chain's n spawn round trips. Not the change of the peers' process counts, as the
    # local chains do: a peer's distribution machinery starts and ends processes of its own (under
    # load `global` drops and remakes connections), and a process that has exited leaves the count
    # only later, so that difference read 997 of 1,000 on a loaded machine.
    live_units =
      links
      |> Enum.group_by(&node/1)
      |> Enum.reduce(0, fn {node, pids}, sum -> sum + Cluster.ask(cluster, node, __MODULE__, :count_alive, [pids]) end)

    send(last, start)

    # Cluster.start has this process monitor every peer: a node that goes down ends the wait.
    receive do
      answer when is_integer(answer) -> {answer, live_units}
      {:nodedown, node} -> throw(Cluster.node_down(node))
    end
  end

  @doc false
  def count_alive(pids), do: Enum.count(pids, &Process.alive?/1)

  @doc "The node of link k: the two nodes in turn."
  def link_node(k, [first, second]), do: if(rem(k, 2) == 0, do: first, else: second)

  # Like spawn/4 on a node, which also waits for the node's reply, but a refusal says why.
  defp spawn_on(node, function, arguments) do
    request = :erlang.spawn_request(node, __MODULE__, function, arguments, [])

    receive do
      {:spawn_reply, ^request, :ok, pid} -> pid
      {:spawn_reply, ^request, :error, :system_limit} -> throw({:limit, "Too many processes (spawn refused on #{node}: system_limit)"})
      {:spawn_reply, ^request, :error, :noconnection} -> throw(Cluster.node_down(node))
      {:spawn_reply, ^request, :error, reason} -> throw({:fault, "distributed: spawn on #{node} failed: #{inspect(reason)}"})
    end
  end

  @doc false
  def link(send_to) do
    receive do
      value -> send(send_to, value + 1)
    end
  end

  @impl true
  def summarize({answer, live_units}, %{n: n}), do: {n, Integer.to_string(answer), %{live_units: live_units}}

  @doc """
  The ceiling "hand-off": two units of the model's kind, started before its clock, pass the
  counter back and forth (`send`, or `GenServer.cast` for genserver) until it has been handed
  over `n` times.
  """
  @impl true
  def ceiling(%{model: "spawn", n: n}) do
    {first, second} = start_hand_off_pair(self(), n)
    {hand_off_ns, ^n} = Protocol.time_ns(fn -> hand_off(first, n) end)
    # The unit that did not finish still waits; it is ended after the clock.
    kill_and_await([first, second])
    %{ceiling: "hand-off", ceiling_ns: hand_off_ns}
  end

  def ceiling(%{model: "distributed", n: n, cluster: %{nodes: [first_node, second_node]}}) do
    caller = self()
    first = spawn_on(first_node, :hand_off_first, [caller, n])
    second = spawn_on(second_node, :hand_off_loop, [caller, first, n])
    send(first, {:peer, second})

    {hand_off_ns, ^n} =
      Protocol.time_ns(fn ->
        send(first, 0)

        receive do
          {:handed_off, ^n} -> n
          {:nodedown, node} -> throw(Cluster.node_down(node))
        end
      end)

    kill_and_await([first, second])
    %{ceiling: "hand-off", ceiling_ns: hand_off_ns}
  end

  def ceiling(%{model: "genserver", n: n}) do
    {first, second} = start_genserver_hand_off_pair(self(), n)
    {hand_off_ns, ^n} = Protocol.time_ns(fn -> genserver_hand_off(first, n) end)
    Enum.each([first, second], &GenServer.stop/1)
    %{ceiling: "hand-off", ceiling_ns: hand_off_ns}
  end

  # Waits for the killed units' ends, so that none is still exiting when the next repetition
  # counts the processes (live_units).
  defp kill_and_await(pids) do
    monitors = for pid <- pids, do: Process.monitor(pid)
    Enum.each(pids, &Process.exit(&1, :kill))
    for monitor <- monitors, do: receive(do: ({:DOWN, ^monitor, :process, _, _} -> :ok))
    :ok
  end

  @doc "Two GenServer hand-off units that know each other."
  def start_genserver_hand_off_pair(caller, n) do
    [first, second] = for _ <- 1..2, do: LinkServer.start_hand_off_unit(caller, n)
    GenServer.cast(first, {:peer, second})
    GenServer.cast(second, {:peer, first})
    {first, second}
  end

  @doc "Casts 0 to the first GenServer unit and waits until the counter has been handed over `n` times."
  def genserver_hand_off(first, n) do
    GenServer.cast(first, {:count, 0})
    receive(do: ({:handed_off, ^n} -> n))
  end

  @doc "Starts two units that will hand a counter to each other; the one that receives `n` reports it."
  def start_hand_off_pair(caller, n) do
    first = spawn(__MODULE__, :hand_off_first, [caller, n])
    second = spawn(__MODULE__, :hand_off_loop, [caller, first, n])
    send(first, {:peer, second})
    {first, second}
  end

  @doc false
  def hand_off_first(caller, n), do: receive(do: ({:peer, peer} -> hand_off_loop(caller, peer, n)))

  @doc "Sends 0 to the first unit of a pair and waits until the counter has been handed over `n` times."
  def hand_off(first, n) do
    send(first, 0)
    receive(do: ({:handed_off, ^n} -> n))
  end

  @doc false
  def hand_off_loop(caller, peer, n) do
    receive do
      ^n -> send(caller, {:handed_off, n})
      count when is_integer(count) ->
        send(peer, count + 1)
        hand_off_loop(caller, peer, n)
    end
  end
end
