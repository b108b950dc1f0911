defmodule Parbench.WorkerPoolTest do
  use ExUnit.Case, async: true
  alias Parbench.{WorkerPool, WorkTally}

  test "run hands every worker its job at once and returns the answers in the workers' order" do
    pool = WorkerPool.start(3)
    assert WorkerPool.run(pool, fn worker -> {worker, self()} end) == Enum.with_index(pool.workers, &{&2, &1})
    WorkerPool.stop(pool)
  end

  test "map gives every chunk's result once, in the chunks' order when asked" do
    pool = WorkerPool.start(2)
    assert WorkerPool.map(pool, Enum.to_list(1..50), &(&1 * 2), nil, true) == Enum.map(1..50, &(&1 * 2))
    assert WorkerPool.map(pool, Enum.to_list(1..50), &(&1 * 2), nil, false) |> Enum.sort() == Enum.map(1..50, &(&1 * 2))
    WorkerPool.stop(pool)
  end

  test "the same processes do the work of every repetition, and record it under their worker number" do
    pool = WorkerPool.start(2)

    doers =
      for _repetition <- 1..3 do
        tally = WorkTally.new()
        pids = WorkerPool.map(pool, Enum.to_list(1..20), fn _ -> Process.sleep(1) && self() end, tally, false)
        assert %{chunks: 20, workers_used: 2} = WorkTally.summary(tally)
        MapSet.new(pids)
      end

    assert doers == List.duplicate(MapSet.new(pool.workers), 3)
    WorkerPool.stop(pool)
  end

  test "a warm context has a pool made before its repetitions and timed as start_ns; a cold one has none" do
    warm = WorkerPool.for_start(%{workers: 2}, "warm")
    assert %{pool: %WorkerPool{workers: [_, _]}, start_ns: start_ns} = warm
    assert start_ns > 0
    assert WorkerPool.for_start(%{workers: 2}, "cold") == %{workers: 2, pool: nil}
    WorkerPool.stop_for(warm)
  end

  test "stop ends every worker before it returns" do
    pool = WorkerPool.start(2)
    WorkerPool.stop(pool)
    refute Enum.any?(pool.workers, &Process.alive?/1)
  end
end
