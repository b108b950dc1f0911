defmodule Parbench.Workloads.CoroutineSwarmTest do
  use ExUnit.Case, async: true
  alias Parbench.Workloads.CoroutineSwarm

  defp checksum(model, tasks, steps, sleep_ms \\ 0) do
    options = %{"tasks" => "#{tasks}", "steps" => "#{steps}", "sleep-ms" => "#{sleep_ms}"}
    context = CoroutineSwarm.prepare(model, options, 2)
    {^tasks, checksum, _extra} = CoroutineSwarm.summarize(CoroutineSwarm.run(context), context)
    checksum
  end

  test "task 0 step 0 is the line 0:0:FizzBuzz" do
    assert CoroutineSwarm.line(0, 0) == "0:0:FizzBuzz"
  end

  test "fizzbuzz follows 15, 5, 3, else the number" do
    assert Enum.map([15, 10, 9, 7], &CoroutineSwarm.fizzbuzz/1) == ["FizzBuzz", "Buzz", "Fizz", "7"]
  end

  test "tasks 3, steps 10 gives 1161d008ce58dc37" do
    assert checksum("seq", 3, 10) == "1161d008ce58dc37"
    assert checksum("processes", 3, 10) == "1161d008ce58dc37"
  end

  test "processes agree with seq for arbitrary tasks and steps" do
    for {tasks, steps} <- [{1, 1}, {301, 7}, {2000, 3}] do
      assert checksum("processes", tasks, steps) == checksum("seq", tasks, steps)
    end
  end

  test "sleeping processes agree with seq" do
    assert checksum("processes", 50, 3, 1) == checksum("seq", 50, 3)
  end

  test "the swarm reports the yield ceiling with sleep-ms 0 only" do
    context = CoroutineSwarm.prepare("processes", %{"tasks" => "100", "steps" => "10", "sleep-ms" => "0"}, 2)
    assert %{ceiling: "yield", ceiling_ns: ns} = CoroutineSwarm.ceiling(context)
    assert ns > 0
    assert CoroutineSwarm.ceiling(%{context | sleep_ms: 1}) == %{}
    assert CoroutineSwarm.ceiling(%{context | model: "seq"}) == %{}
  end
end
