defmodule Parbench.Workloads.SpawnChainTest do
  # Not async: live_units is the change of the VM's process count, which tests running beside
  # these would disturb (a case runs alone in its VM).
  use ExUnit.Case, async: false

  # A chain's last link exits just after its answer; a chain started right after may count it
  # while it is still exiting. A case's repetitions are separated by the checksum, the ceiling
  # and a garbage collection; here a pause stands in for them.
  defp settled(result), do: Process.sleep(20) && result
  alias Parbench.ProcessLimit
  alias Parbench.Workloads.SpawnChain

  # The distributed model starts peer nodes: distributed_test.exs checks it.
  @local_models Map.keys(SpawnChain.models()) -- ["distributed"]

  test "a chain of n processes answers n, with n links alive when 0 is sent" do
    for n <- [1, 2, 1000, 12_345], do: assert(settled(SpawnChain.chain(n)) == {n, n})
  end

  test "a chain of n GenServers answers n, with n links alive when 0 is sent" do
    for n <- [1, 2, 1000], do: assert(settled(SpawnChain.genserver_chain(n)) == {n, n})
  end

  test "the checksum is n in decimal, for every model, and live_units is n" do
    for model <- @local_models do
      context = SpawnChain.prepare(model, %{"n" => "777"}, 1)
      assert SpawnChain.summarize(settled(SpawnChain.run(context)), context) == {777, "777", %{live_units: 777}}
    end
  end

  test "protocol 2 vector: n 1000, start 123456 answers 124456, for every model" do
    for model <- @local_models do
      context = SpawnChain.prepare(model, %{"n" => "1000"}, 1) |> SpawnChain.vary(123_456)
      assert {1000, "124456", %{live_units: 1000}} = SpawnChain.summarize(settled(SpawnChain.run(context)), context)
    end
  end

  test "the GenServer hand-off pair hands the counter over n times" do
    for n <- [1, 2, 1001] do
      {first, second} = SpawnChain.start_genserver_hand_off_pair(self(), n)
      assert SpawnChain.genserver_hand_off(first, n) == n
      Enum.each([first, second], &GenServer.stop/1)
    end
  end

  test "the hand-off pair hands the counter over n times" do
    for n <- [1, 2, 1001] do
      {first, _second} = SpawnChain.start_hand_off_pair(self(), n)
      assert SpawnChain.hand_off(first, n) == n
    end
  end

  test "every model reports the hand-off ceiling" do
    for model <- @local_models do
      assert %{ceiling: "hand-off", ceiling_ns: ns} = SpawnChain.ceiling(%{model: model, n: 500})
      assert ns > 0
    end
  end

  test "a refused spawn is a limit with the VM's words, not a crash" do
    assert {:limit, "Too many processes" <> _} = catch_throw(ProcessLimit.guard(fn -> raise SystemLimitError end))
  end
end
