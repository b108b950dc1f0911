defmodule Parbench.Workloads.BatchJobTest do
  use ExUnit.Case, async: true
  alias Parbench.{Database, Digest}
  alias Parbench.Workloads.BatchJob
  alias Parbench.Workloads.BatchJob.Alignment

  for strategy <- Alignment.strategies() do
    describe "#{strategy} alignment" do
      test "an unchanged text maps every offset to itself" do
        assert Alignment.offset_map("abc", "abc", unquote(strategy)) == {0, 1, 2, 3}
      end

      test "M[n] is len(new) and an unmatched offset takes the next match" do
        # old "axc" vs new "ac": a→0, x unmatched → M[2] = 1, c→1, M[3] = 2.
        assert Alignment.offset_map("axc", "ac", unquote(strategy)) == {0, 1, 1, 2}
      end

      test "ties step i first (dp[i+1][j] >= dp[i][j+1])" do
        # "ab" vs "ba": LCS 1 either way; the walk keeps b→0, so a is unmatched.
        assert Alignment.offset_map("ab", "ba", unquote(strategy)) == {0, 0, 2}
      end

      test "an annotation follows its words and a collapsed one is dropped" do
        spans = [{4, 9, "ORG"}, {0, 3, "PERSON"}]
        assert Alignment.align("the quick fox", "a quick fox", spans, unquote(strategy)) == [{2, 7, "ORG"}]
      end
    end
  end

  test "cells and bitparallel agree for arbitrary texts" do
    :rand.seed(:exsss, {1, 2, 3})

    for _ <- 1..60 do
      old = random_text(:rand.uniform(120) - 1)
      new = random_text(:rand.uniform(120) - 1)
      assert Alignment.offset_map(old, new, "cells") == Alignment.offset_map(old, new, "bitparallel")
    end
  end

  defp random_text(length), do: for(_ <- 1..length//1, into: "", do: <<Enum.random(~c"ab c")>>)

  test "a document file decodes with its escapes" do
    path = Path.join(System.tmp_dir!(), "parbench-elixir-doc.json")
    File.write!(path, ~s({"id": 3, "old": "a \\"b\\"\\n", "new": "\\u0041"}))
    assert BatchJob.read_document(path) == %{"id" => 3, "old" => "a \"b\"\n", "new" => "A"}
  end

  @tag :odbc
  test "every model rewrites a SQLite database to the same annotations" do
    documents =
      for doc_id <- 0..11 do
        old = "alpha beam core delta edge flow graph heap #{doc_id}"
        new = String.replace(old, "core", "kernel core") |> String.replace("flow ", "")
        {doc_id, old, new, [{0, 5, "ORG"}, {11, 21, "PLACE"}, {22, 26, "DATE"}, {6, 10, "WORK"}]}
      end

    expected =
      documents
      |> Enum.flat_map(fn {doc_id, old, new, spans} ->
        for {b, e, label} <- Alignment.align(old, new, spans), do: "#{doc_id}:#{b}:#{e}:#{label}"
      end)
      |> Digest.order_free()

    cases = [{"seq", nil}, {"async_stream", "cold"}, {"async_stream", "warm"}, {"process_per_doc", "cold"}, {"pool", "cold"}, {"pool", "warm"}]

    for {model, start} <- cases, kernel <- ["portable", "tuned"] do
      dir = Path.join(System.tmp_dir!(), "parbench-elixir-batch-#{model}-#{start}-#{kernel}")
      File.rm_rf!(dir)
      File.mkdir_p!(Path.join(dir, "docs"))
      db = "sqlite:" <> Path.join(dir, "job.sqlite")
      write_inputs(documents, Path.join(dir, "docs"), Database.connection_string(db))

      context = BatchJob.prepare(model, %{"docs-dir" => Path.join(dir, "docs"), "db" => db, "kernel" => kernel, "start" => start}, 3)
      {docs, checksum, extra} = BatchJob.summarize(BatchJob.run(context), context)
      BatchJob.finish(context)
      assert {docs, checksum} == {12, expected}, "#{model} #{start} #{kernel}"
      assert context.extra.kernel == kernel and context.extra.lcs == %{"portable" => "cells", "tuned" => "bitparallel"}[kernel]
      assert extra.cpu_ns > 0 and extra.io_ns > 0
      assert_counted(model, extra)
    end
  end

  @tag :odbc
  test "warm pool: the processes made before the repetition are the ones that process its documents" do
    dir = Path.join(System.tmp_dir!(), "parbench-elixir-batch-warm-pool-#{System.unique_integer([:positive])}")
    File.mkdir_p!(Path.join(dir, "docs"))
    db = "sqlite:" <> Path.join(dir, "job.sqlite")
    documents = for doc_id <- 0..5, do: {doc_id, "old text #{doc_id}", "new text #{doc_id}", [{0, 3, "A"}]}
    write_inputs(documents, Path.join(dir, "docs"), Database.connection_string(db))

    context = BatchJob.prepare("pool", %{"docs-dir" => Path.join(dir, "docs"), "db" => db, "kernel" => "portable", "start" => "warm"}, 2)
    {_docs, _times, tally} = BatchJob.run(context)
    processed_by = tally.table |> :ets.tab2list() |> Enum.map(&elem(&1, 0)) |> MapSet.new()
    assert MapSet.subset?(processed_by, MapSet.new(context.pool.workers)) and MapSet.size(processed_by) > 0
    BatchJob.finish(context)
    File.rm_rf!(dir)
  end

  @tag :odbc
  test "every repetition but the first starts again from the pristine rows" do
    documents = for doc_id <- 0..5, do: {doc_id, "old text #{doc_id} here", "new text #{doc_id}", [{0, 3, "A"}, {9, 14, "B"}]}

    expected =
      documents
      |> Enum.flat_map(fn {doc_id, old, new, spans} ->
        for {b, e, label} <- Alignment.align(old, new, spans), do: "#{doc_id}:#{b}:#{e}:#{label}"
      end)
      |> Digest.order_free()

    for {model, start} <- [{"seq", nil}, {"async_stream", "warm"}, {"process_per_doc", "cold"}, {"pool", "warm"}] do
      dir = Path.join(System.tmp_dir!(), "parbench-elixir-batch-again-#{model}-#{System.unique_integer([:positive])}")
      File.mkdir_p!(Path.join(dir, "docs"))
      db = "sqlite:" <> Path.join(dir, "job.sqlite")
      write_inputs(documents, Path.join(dir, "docs"), Database.connection_string(db))
      context = BatchJob.prepare(model, %{"docs-dir" => Path.join(dir, "docs"), "db" => db, "kernel" => "portable", "start" => start}, 2)

      # As Parbench.Protocol runs them: vary (before the clock), run, summarize.
      for rep <- 0..2 do
        varied = BatchJob.vary(context, 0)
        {docs, checksum, _extra} = BatchJob.summarize(BatchJob.run(varied), varied)
        # Without the reset a later repetition finds no pending document.
        assert {docs, checksum} == {6, expected}, "#{model} rep #{rep}"
      end

      BatchJob.finish(context)

      pristine =
        Database.with_connection(Database.connection_string(db), fn connection ->
          Database.query!(connection, "SELECT (SELECT count(*) FROM pristine_documents WHERE status = 'pending'), (SELECT count(*) FROM pristine_annotations)")
        end, false)

      assert [{6, 12}] = pristine, "#{model}: the pristine rows are untouched"
      File.rm_rf!(dir)
    end
  end

  test "process_per_doc is cold only: a process per document is made for its repetition" do
    assert Map.keys(BatchJob.models()["process_per_doc"].start) == ["cold"]
    assert BatchJob.models()["process_per_doc"].start_unavailable["warm"] =~ "cold by nature"
  end

  # Documents are the chunks; connection owners are dealt documents round-robin, so all are used.
  defp assert_counted("seq", extra), do: refute(Map.has_key?(extra, :workers_used))
  defp assert_counted("process_per_doc", extra), do: assert(%{chunks: 12, workers_used: 3, busy: [_, _, _]} = extra)
  defp assert_counted(_model, %{chunks: 12, workers_used: used, busy: busy}), do: assert(used in 1..3 and length(busy) == used)

  defp write_inputs(documents, docs_dir, connection_string) do
    Database.with_connection(connection_string, fn connection ->
      Database.query!(connection, "CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL, annotation_count INTEGER NOT NULL, status TEXT NOT NULL)")
      Database.query!(connection, "CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL, span_begin INTEGER NOT NULL, span_end INTEGER NOT NULL, label TEXT NOT NULL)")

      for {doc_id, old, new, spans} <- documents do
        File.write!(Path.join(docs_dir, "#{doc_id}.json"), ~s({"id": #{doc_id}, "old": "#{old}", "new": "#{new}"}))
        Database.query!(connection, "INSERT INTO documents VALUES (?, ?, ?, 'pending')",
                        [{:sql_integer, [doc_id]}, {:sql_integer, [byte_size(old)]}, {:sql_integer, [length(spans)]}])

        for {b, e, label} <- spans do
          Database.query!(connection, "INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)",
                          [{:sql_integer, [doc_id]}, {:sql_integer, [b]}, {:sql_integer, [e]}, {{:sql_varchar, 255}, [label]}])
        end
      end

      # The harness's fresh database also holds the starting rows, for the reset between repetitions.
      Database.query!(connection, "CREATE TABLE pristine_documents AS SELECT * FROM documents")
      Database.query!(connection, "CREATE TABLE pristine_annotations AS SELECT doc_id, span_begin, span_end, label FROM annotations")
      Database.commit!(connection)
    end)
  end
end
