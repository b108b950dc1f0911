defmodule Parbench.CLITest do
  # Runs the entry point in a VM of its own, as `run` does, with the variants on its stdin.
  use ExUnit.Case, async: true

  defp run_cli(stdin_lines, args) do
    code_paths = for ebin <- Path.wildcard(Path.expand("../_build/test/lib/*/ebin", __DIR__)), do: "-pa #{ebin}"
    command = "printf '#{Enum.map_join(stdin_lines, &"#{&1}\\n")}' | elixir #{Enum.join(code_paths, " ")} " <>
                "-e 'Parbench.CLI.main(System.argv())' -- #{Enum.join(args, " ")}"
    {output, status} = System.cmd("sh", ["-c", command], stderr_to_stdout: true)
    {String.split(output, "\n", trim: true), status}
  end

  test "the ready line comes first, then one rep line per variant read from stdin, until it ends (exit 0)" do
    {lines, 0} = run_cli([5, 123_456], ~w(spawn-chain --model spawn --n 1000))
    assert [~s({"ready":"none"}), first, second] = lines
    assert first =~ ~s({"rep":0,) and first =~ ~s("checksum":"1005")
    assert second =~ ~s({"rep":1,) and second =~ ~s("checksum":"124456")
  end

  test "end of stdin before the first variant is no repetition and exit 0" do
    assert run_cli([], ~w(noop --model seq)) == {[~s({"ready":"none"})], 0}
  end

  # Protocol 4: the launcher alone decides how many repetitions run.
  test "--warmup and --repeat are unknown arguments now: exit 2 with one line" do
    for option <- ~w(--warmup --repeat) do
      {[message], 2} = run_cli([1], ~w(spawn-chain --model spawn --n 3 #{option} 1))
      assert message =~ "unknown option #{option} for spawn-chain spawn"
    end
  end

  test "a warm model's ready line carries start_ns and every line echoes the start mode" do
    {[ready | reps], 0} = run_cli([1, 2], ~w(keygen --model async_stream --count 50 --bytes 10 --source seeded --start warm --workers 2))
    assert ready =~ ~r/^\{"ready":"warm","start_ns":\d+,"extra":\{/
    assert length(reps) == 2 and Enum.all?(reps, &(&1 =~ ~s("start":"warm")))
  end

  test "--variants is an unknown argument now, and a mode a model does not offer is exit 2 with its reason" do
    {[message], 2} = run_cli([1], ~w(spawn-chain --model spawn --n 3 --variants 1))
    assert message =~ "unknown option --variants"
    {[message], 2} = run_cli([1], ~w(batch-job --model process_per_doc --docs-dir /tmp --db sqlite:/tmp/x --start warm))
    assert message =~ "--start warm is not offered: one process per document"
  end
end
