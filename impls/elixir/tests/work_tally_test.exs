defmodule Parbench.WorkTallyTest do
  use ExUnit.Case, async: true
  alias Parbench.{ChunkStream, WorkTally}

  test "chunks and distinct workers are counted as they are recorded, each worker busy from first start to last end" do
    tally = WorkTally.new()
    for {worker, from, to} <- [{:a, 10, 20}, {:b, 5, 8}, {:a, 30, 40}, {:c, 12, 13}, {:a, 21, 22}],
        do: WorkTally.record(tally, worker, from, to)
    WorkTally.record(tally, :d, 50, 60, 3)
    assert %{chunks: 8, workers_used: 4, busy: busy} = WorkTally.summary(tally)
    assert busy == [[0, 5, 8], [1, 10, 40], [2, 12, 13], [3, 50, 60]]
  end

  test "an empty tally counts nothing" do
    assert WorkTally.summary(WorkTally.new()) == %{chunks: 0, workers_used: 0, busy: []}
  end

  # Each chunk waits until the test has seen `workers` chunks in progress at the same time, so
  # the count cannot depend on timing: a stream that ran chunks one by one would time out here.
  test "a bounded stream's workers_used is the most chunks in progress at once" do
    test_process = self()
    tally = WorkTally.new()

    task =
      Task.async(fn ->
        ChunkStream.map(1..6, %{workers: 3, pool: nil}, fn chunk ->
          send(test_process, {:started, self()})
          receive(do: (:go -> chunk))
        end, tally, true)
      end)

    started = fn -> receive(do: ({:started, pid} -> pid), after: (5_000 -> flunk("fewer than 3 chunks ran at once"))) end
    # The first three must all be in progress before any may finish; then the last three.
    first_three = for _ <- 1..3, do: started.()
    Enum.each(first_three, &send(&1, :go))
    for _ <- 1..3, do: send(started.(), :go)
    assert Task.await(task) == Enum.to_list(1..6)
    assert %{chunks: 6, workers_used: 3} = WorkTally.summary(tally)
  end

  test "a stream of one worker uses one" do
    tally = WorkTally.new()
    assert ChunkStream.map(1..5, %{workers: 1, pool: nil}, &(&1 * 2), tally, true) == [2, 4, 6, 8, 10]
    assert %{chunks: 5, workers_used: 1} = WorkTally.summary(tally)
  end
end
