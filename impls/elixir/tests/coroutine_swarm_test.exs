defmodule Parbench.Workloads.CoroutineSwarmTest do
  use ExUnit.Case, async: true
  alias Parbench.Workloads.CoroutineSwarm

  defp run_case(model, tasks, steps, sleep_ms \\ 0, salt \\ nil) do
    options = %{"tasks" => "#{tasks}", "steps" => "#{steps}", "sleep-ms" => "#{sleep_ms}"}
    context = CoroutineSwarm.prepare(model, options, 2)
    context = if salt, do: CoroutineSwarm.vary(context, salt), else: context
    {^tasks, checksum, extra} = CoroutineSwarm.summarize(CoroutineSwarm.run(context), context)
    {checksum, extra}
  end

  defp checksum(model, tasks, steps, sleep_ms \\ 0, salt \\ nil), do: run_case(model, tasks, steps, sleep_ms, salt) |> elem(0)

  test "protocol 2 vectors: tasks 3, steps 10 with salts 0, 1000 and 4294967295" do
    for model <- ["seq", "processes"] do
      assert checksum(model, 3, 10, 0, 0) == "1161d008ce58dc37"
      assert checksum(model, 3, 10, 0, 1000) == "bb33744708f665dd"
      assert checksum(model, 3, 10, 0, 4_294_967_295) == "2540eadf7cfb00ad"
    end
  end

  test "seq counts tasks - 1 switches; yielding processes interleave, so they count more" do
    assert {_, %{switches: 99}} = run_case("seq", 100, 10)
    assert {_, %{switches: switches}} = run_case("processes", 100, 10)
    assert switches > 99 and switches <= 100 * 10 - 1
  end

  # Protocol 4: 40 tasks x 5 steps under salt 3 draw 200 tickets; the probes are every
  # 40 / 16 = 2nd task from (-3) mod 2 = 1; some probe drew a ticket inside another's life.
  test "the salt's probe tasks drew interleaved tickets" do
    assert {_, %{tickets: 200, ticket_probes: probes}} = run_case("processes", 40, 5, 0, 3)
    assert Enum.sort(Enum.map(probes, &hd/1)) == Enum.to_list(1..39//2)
    lives = probes |> Enum.map(fn [_task, first, last] -> {first, last} end) |> Enum.sort()
    assert Enum.any?(Enum.zip(lives, tl(lives)), fn {{_, last}, {later_first, _}} -> later_first < last end), inspect(lives)
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
