defmodule Parbench.DistributedTest do
  # Not async: each test makes this VM a distributed node and starts peer BEAM nodes.
  use ExUnit.Case, async: false
  alias Parbench.Cluster
  alias Parbench.Workloads.{Keygen, SpawnChain}

  # prepare (which starts the peers), one repetition and its ceiling, finish (which stops them).
  defp run_case(workload, model, options, workers) do
    context = workload.prepare(model, options, workers)

    try do
      {items, checksum, extra} = workload.summarize(workload.run(context), context)
      {items, checksum, Map.merge(context.extra, Map.merge(extra, workload.ceiling(context)))}
    after
      workload.finish(context)
    end
  end

  defp os_process_alive?(os_pid), do: match?({_, 0}, System.cmd("kill", ["-0", os_pid], stderr_to_stdout: true))

  defp await_os_exit(os_pid, tries \\ 50) do
    cond do
      not os_process_alive?(os_pid) -> :gone
      tries == 0 -> :still_running
      true -> Process.sleep(100) && await_os_exit(os_pid, tries - 1)
    end
  end

  # impls/elixir/test gives the VM a cookie of the run's own: the tests run sealed, where the
  # home folder is read-only and Erlang could not create ~/.erlang.cookie on a fresh machine.
  # OTP reads a cookie already in the home folder first, so on a machine that has one, that one.
  test "the cluster's cookie is read from a file that exists, the test run's own where the home has none" do
    run_cookie = Path.join([System.fetch_env!("XDG_CONFIG_HOME"), "erlang", ".erlang.cookie"])
    home_cookie = Path.join(System.user_home!(), ".erlang.cookie")
    cookie_file = if File.exists?(home_cookie), do: home_cookie, else: run_cookie
    cluster = Cluster.start(1, "")

    try do
      assert Atom.to_string(Node.get_cookie()) == String.trim(File.read!(cookie_file))
    after
      Cluster.stop(cluster)
    end
  end

  test "keygen distributed: seeded, count 3, bytes 10, seed 1 gives d3605c1b2c10e632 on 2 nodes" do
    options = %{"count" => "3", "bytes" => "10", "source" => "seeded", "seed" => "1"}
    assert {3, "d3605c1b2c10e632", extra} = run_case(Keygen, "distributed", options, 2)
    assert %{nodes: 2, chunk: 2, chunks: 2, workers_used: 2, ceiling: "csprng+base32"} = extra
    assert extra.cluster_start_ns > 0
  end

  test "keygen distributed agrees with seq and uses every node" do
    options = %{"count" => "2000", "bytes" => "31", "source" => "seeded", "seed" => "99"}
    {2000, expected, _} = run_case(Keygen, "seq", options, 1)
    assert {2000, ^expected, extra} = run_case(Keygen, "distributed", options, 3)
    assert %{nodes: 3, chunk: 667, chunks: 3, workers_used: 3, busy: [[0, _, _], [1, _, _], [2, _, _]]} = extra
  end

  test "keygen distributed: probes and variants, keys made on the peers" do
    options = %{"count" => "3", "bytes" => "10", "source" => "seeded", "seed" => "0", "probes" => "0,1,2"}
    context = Keygen.prepare("distributed", options, 2) |> Keygen.vary(1)

    try do
      assert {3, "d3605c1b2c10e632", %{probes: ["yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"]}} =
               Keygen.summarize(Keygen.run(context), context)
    after
      Keygen.finish(context)
    end
  end

  test "spawn-chain distributed: a chain of n across two nodes answers n, every hop crossing" do
    assert {1001, "1001", extra} = run_case(SpawnChain, "distributed", %{"n" => "1001"}, 1)
    assert %{nodes: 2, cross_node_hops: 1002, ceiling: "hand-off", live_units: 1001} = extra
  end

  test "spawn-chain distributed: the start value is a variant, and links are counted on the peers" do
    context = SpawnChain.prepare("distributed", %{"n" => "1000"}, 1)

    try do
      for start <- [123_456, 0, 7] do
        varied = SpawnChain.vary(context, start)
        assert {1000, answer, %{live_units: 1000}} = SpawnChain.summarize(SpawnChain.run(varied), varied)
        assert answer == Integer.to_string(start + 1000)
        SpawnChain.ceiling(varied)
      end
    after
      SpawnChain.finish(context)
    end
  end

  test "a peer counts only the links that are still alive: one that has passed its value on is not" do
    waiting = spawn(SpawnChain, :link, [self()])
    passed = spawn(SpawnChain, :link, [self()])
    send(passed, 1)
    assert_receive 2
    monitor = Process.monitor(passed)
    assert_receive {:DOWN, ^monitor, :process, _, _}
    assert SpawnChain.count_alive([waiting, passed]) == 1
    send(waiting, 0)
  end

  test "consecutive links sit on different nodes, so every hop crosses nodes" do
    nodes = [:"a@127.0.0.1", :"b@127.0.0.1"]
    placed = for k <- 0..9, do: SpawnChain.link_node(k, nodes)
    assert Enum.chunk_every(placed, 2, 1, :discard) |> Enum.all?(fn [one, next] -> one != next end)
    assert Enum.uniq(placed) |> Enum.sort() == nodes
  end

  # The peer boots, then halts before its code is loaded. (A flag erl refuses fails earlier, at
  # boot, the same way, but erl prints its whole usage text on stderr first.)
  test "a peer that does not start is one clear fault, and nothing is left running" do
    assert {:fault, "distributed: peer node 1 of 1 did not start on 127.0.0.1: " <> _} =
             catch_throw(Cluster.start(1, "-eval erlang:halt(7)"))

    refute Node.alive?()
  end

  # Node.stop returns before ERTS counts this node as stopped (it does once the last connection is
  # torn down): with the connection to a live peer still open, it read alive right after the call in
  # 12 of 40 tries. Eight rounds make a stop that does not wait fail here nearly every run.
  test "stop leaves this node not distributed, even while its connections are still closing" do
    for _round <- 1..8 do
      cluster = Cluster.start(1, "")
      Cluster.stop(%{cluster | peers: []})
      alive = Node.alive?()
      Enum.each(cluster.peers, &:peer.stop/1)
      refute alive
    end
  end

  test "a peer killed mid-case is a clear fault, and no node is left behind" do
    options = %{"count" => "100000", "bytes" => "1000", "source" => "strong"}
    context = Keygen.prepare("distributed", options, 2)
    [victim, survivor] = context.cluster.nodes
    [victim_os_pid, survivor_os_pid] = for node <- [victim, survivor], do: to_string(:erpc.call(node, :os, :getpid, []))
    # The first node's answer is awaited first, so its death ends the case at once.
    spawn(fn -> Process.sleep(300) && System.cmd("kill", ["-9", victim_os_pid]) end)

    try do
      assert {:fault, message} = catch_throw(Keygen.run(context))
      assert message == "distributed: node #{victim} went down during the case"
    after
      Keygen.finish(context)
    end

    assert Node.list() == []
    assert await_os_exit(victim_os_pid) == :gone
    assert await_os_exit(survivor_os_pid) == :gone
  end
end
