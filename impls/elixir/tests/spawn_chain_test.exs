defmodule Parbench.Workloads.SpawnChainTest do
  use ExUnit.Case, async: true
  alias Parbench.ProcessLimit
  alias Parbench.Workloads.SpawnChain

  # The distributed model starts peer nodes: distributed_test.exs checks it.
  @local_models Map.keys(SpawnChain.models()) -- ["distributed"]

  test "a chain of n processes answers n" do
    for n <- [1, 2, 1000, 12_345], do: assert(SpawnChain.chain(n) == n)
  end

  test "a chain of n GenServers answers n" do
    for n <- [1, 2, 1000], do: assert(SpawnChain.genserver_chain(n) == n)
  end

  test "the checksum is n in decimal, for every model" do
    for model <- @local_models do
      context = SpawnChain.prepare(model, %{"n" => "777"}, 1)
      assert SpawnChain.summarize(SpawnChain.run(context), context) == {777, "777", %{}}
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
