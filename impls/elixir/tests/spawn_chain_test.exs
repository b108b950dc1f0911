defmodule Parbench.Workloads.SpawnChainTest do
  use ExUnit.Case, async: true
  alias Parbench.ProcessLimit
  alias Parbench.Workloads.SpawnChain

  test "a chain of n processes answers n" do
    for n <- [1, 2, 1000, 12_345], do: assert(SpawnChain.chain(n) == n)
  end

  test "the checksum is n in decimal" do
    context = SpawnChain.prepare("spawn", %{"n" => "777"}, 1)
    assert SpawnChain.summarize(SpawnChain.run(context), context) == {777, "777", %{}}
  end

  test "the hand-off pair hands the counter over n times" do
    for n <- [1, 2, 1001] do
      {first, _second} = SpawnChain.start_hand_off_pair(self(), n)
      assert SpawnChain.hand_off(first, n) == n
    end
  end

  test "the hand-off ceiling is reported" do
    assert %{ceiling: "hand-off", ceiling_ns: ns} = SpawnChain.ceiling(%{model: "spawn", n: 500})
    assert ns > 0
  end

  test "a refused spawn is a limit with the VM's words, not a crash" do
    assert {:limit, "Too many processes" <> _} = catch_throw(ProcessLimit.guard(fn -> raise SystemLimitError end))
  end
end
