defmodule Parbench.Workloads.BatchJob do
  @moduledoc "batch-job (seed 002): re-aligns every pending document's annotations (LCS) and rewrites them in the database."
  use Parbench.Workload
  alias Parbench.{ChunkStream, Database, Digest, Protocol, WorkerPool, WorkTally}
  alias Parbench.Workloads.BatchJob.Alignment

  @label_type {:sql_varchar, 255}

  # Gives the job its starting rows back from the harness's pristine copies, before every
  # repetition but the process's first (docs/protocol.md, batch-job): one transaction on one
  # connection, the same text on SQLite and PostgreSQL. The annotations go back in one order so
  # that their ids come out the same every time. One statement a string: ODBC runs one a call.
  @reset_job [
    "DELETE FROM annotations",
    "INSERT INTO annotations (doc_id, span_begin, span_end, label) SELECT doc_id, span_begin, span_end, label FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label",
    "DELETE FROM documents",
    "INSERT INTO documents (doc_id, length, annotation_count, status) SELECT doc_id, length, annotation_count, status FROM pristine_documents"
  ]

  @impl true
  def name, do: "batch-job"
  @impl true
  def params, do: ["docs_dir", "db", "kernel"]

  # The alignment kernels: the spec's suffix table cell by cell (portable), or the same table
  # as big-integer bit vectors (Hyyrö's bit-parallel LCS, an alternative algorithm: tuned).
  @lcs %{"portable" => "cells", "tuned" => "bitparallel"}

  @impl true
  def kernels do
    %{"portable" => "reference, transliterated",
      "tuned" => "bitparallel: the same suffix table kept as one big-integer bit vector per row (Hyyrö's bit-parallel LCS over the reversed strings), then the spec's walk"}
  end

  @impl true
  def models do
    odbc = "each unit opens its own :odbc connection (an OS odbcserver process per connection, so database calls run outside the schedulers)"

    %{
      "seq" => %{family: "seq", note: "one connection, documents one after another"},
      "async_stream" => %{
        family: "data-parallel",
        workers: true,
        note: "Task.async_stream(ordered: false, max_concurrency: workers), one task per document; " <> odbc <> ", one per document as in cold; workers_used = the most documents in progress at once (cold), the pool's processes that took a document (warm)",
        start: WorkerPool.start_modes("document")
      },
      "process_per_doc" => %{
        family: "actors",
        workers: true,
        note: "one process per document, all at once (unbounded), for the file and the alignment; their database work goes as messages to workers connection-owning processes (documents dealt round-robin), because one :odbc connection per document means one OS odbcserver process each and :odbc's connect times out when a hundred start at once; workers_used = connection owners that served a document",
        start: %{"cold" => "one process per document (Task.async) and workers connection-owning processes, each with its :odbc connection (an odbcserver OS process), all started and ended inside ns"},
        start_unavailable: %{"warm" => "one process per document is made for its document in every repetition: cold by nature (the warm pool of this workload is `pool`)"}
      },
      "pool" => %{
        family: "actors",
        workers: true,
        note: "workers processes, one :odbc connection each, taking the next document from an :atomics counter; workers_used = pool processes that processed a document",
        start: %{
          "cold" => "workers pool processes (Task.async), spawned inside ns, each opening its :odbc connection (an odbcserver OS process), draining the counter and closing it; all awaited before ns ends",
          "warm" => "workers long-lived pool processes (Parbench.WorkerPool) spawned before the ready line (start_ns); each repetition sends each one message, and each opens its :odbc connection inside ns (the spec's timed region holds the connections), drains the counter and closes it"
        }
      }
    }
  end

  @impl true
  def prepare(model, options, workers) do
    docs_dir = Protocol.string_option(options, "docs-dir")
    unless File.dir?(docs_dir), do: throw({:bad_args, "--docs-dir #{docs_dir} is not a directory"})
    connection_string = Database.connection_string(Protocol.string_option(options, "db"))
    kernel = Map.get(options, "kernel", "portable")
    lcs = Map.fetch!(@lcs, kernel)
    job = %{docs_dir: docs_dir, lcs: lcs}
    extra = %{lcs: lcs, kernel: kernel, kernel_detail: kernels()[kernel]}
    extra = if model == "seq", do: extra, else: Map.put(extra, :chunk, 1)
    # How many repetitions have begun in this process: the first finds a fresh database.
    begun = :counters.new(1, [])
    %{model: model, job: job, connection_string: connection_string, workers: workers, extra: extra, begun: begun}
    |> WorkerPool.for_start(options["start"])
  end

  @doc "Before the clock (so in `prepare_ns`): every repetition but the process's first restores the starting rows."
  @impl true
  def vary(%{begun: begun, connection_string: connection_string} = context, _variant) do
    if :counters.get(begun, 1) > 0, do: reset_job(connection_string)
    :counters.add(begun, 1, 1)
    context
  end

  @doc "Runs the reset statements in one transaction on a connection of its own (its odbcserver's CPU is not the work's)."
  def reset_job(connection_string) do
    Database.with_connection(connection_string, fn connection ->
      Enum.each(@reset_job, &Database.query!(connection, &1))
      Database.commit!(connection)
    end, false)
  end

  @impl true
  def finish(context), do: WorkerPool.stop_for(context)

  @impl true
  def run(%{model: model, connection_string: connection_string} = context) do
    tally = if model == "seq", do: nil, else: WorkTally.new()

    doc_ids =
      Database.with_connection(connection_string, fn connection ->
        rows = Database.query!(connection, "SELECT doc_id FROM documents WHERE status = 'pending' ORDER BY doc_id")
        Database.commit!(connection)
        Enum.map(rows, fn {doc_id} -> doc_id end)
      end)

    {length(doc_ids), process_all(model, doc_ids, tally, context), tally}
  end

  # Each returns one {cpu_ns, io_ns} per document, after every unit has ended and every
  # connection is closed. A document's database work goes through an `on_database` function
  # that runs a function on a connection: the unit's own, or a server's.
  defp process_all("seq", doc_ids, nil, %{job: job, connection_string: connection_string}) do
    Database.with_connection(connection_string, fn connection ->
      Enum.map(doc_ids, &process_document(direct(connection), job, &1))
    end)
  end

  defp process_all("async_stream", doc_ids, tally, %{job: job, connection_string: connection_string} = context) do
    process_one = fn doc_id -> Database.with_connection(connection_string, &process_document(direct(&1), job, doc_id)) end
    ChunkStream.map(doc_ids, context, process_one, tally, false)
  end

  defp process_all("process_per_doc", doc_ids, tally, %{job: job, connection_string: connection_string, workers: workers}) do
    servers = List.to_tuple(for _ <- 1..workers, do: Database.start_server(connection_string))

    try do
      doc_ids
      |> Enum.with_index()
      |> Enum.map(fn {doc_id, index} ->
        server = elem(servers, rem(index, workers))
        Task.async(fn -> process_document_on(server, job, doc_id, tally) end)
      end)
      |> Task.await_many(:infinity)
    after
      servers |> Tuple.to_list() |> Enum.each(&Database.stop_server/1)
    end
  end

  defp process_all("pool", doc_ids, tally, %{job: job, connection_string: connection_string} = context) do
    queue = List.to_tuple(doc_ids)
    next_index = :atomics.new(1, signed: false)
    drain = fn -> Database.with_connection(connection_string, &drain_queue(direct(&1), job, queue, next_index, tally, [])) end
    context |> on_each_worker(drain) |> Enum.concat()
  end

  # The pool's workers: spawned for the repetition (cold) or the warm pool's.
  defp on_each_worker(%{pool: %WorkerPool{} = pool}, work), do: WorkerPool.run(pool, fn _worker -> work.() end)
  defp on_each_worker(%{workers: workers}, work), do: 1..workers |> Enum.map(fn _ -> Task.async(work) end) |> Task.await_many(:infinity)

  # The worker here is the connection owner: busy from its first document's start to its last's end.
  defp process_document_on(server, job, doc_id, tally),
    do: WorkTally.run_chunk(tally, server, fn -> process_document(&Database.run_on(server, &1), job, doc_id) end)

  defp direct(connection), do: fn database_work -> database_work.(connection) end

  defp drain_queue(on_database, job, queue, next_index, tally, done) do
    index = :atomics.add_get(next_index, 1, 1) - 1

    if index < tuple_size(queue) do
      times = WorkTally.run_chunk(tally, self(), fn -> process_document(on_database, job, elem(queue, index)) end)
      drain_queue(on_database, job, queue, next_index, tally, [times | done])
    else
      done
    end
  end

  @doc "Reads, aligns and rewrites one document; returns `{cpu_ns, io_ns}`."
  def process_document(on_database, %{docs_dir: dir, lcs: lcs}, doc_id) do
    {read_ns, {document, spans}} =
      Protocol.time_ns(fn ->
        document = read_document(Path.join(dir, "#{doc_id}.json"))
        {document, on_database.(&read_annotations(&1, doc_id))}
      end)

    {cpu_ns, aligned} = Protocol.time_ns(fn -> Alignment.align(document["old"], document["new"], spans, lcs) end)
    new_length = byte_size(document["new"])
    {write_ns, :ok} = Protocol.time_ns(fn -> on_database.(&write_aligned(&1, doc_id, new_length, aligned)) end)
    {cpu_ns, read_ns + write_ns}
  end

  defp read_annotations(connection, doc_id) do
    spans = Database.query!(connection, "SELECT span_begin, span_end, label FROM annotations WHERE doc_id = ?",
                            [{:sql_integer, [doc_id]}])
    # Ends the read transaction before the alignment, so the write that follows starts a fresh
    # one and waits for the SQLite write lock instead of failing on a stale snapshot.
    Database.commit!(connection)
    spans
  end

  defp write_aligned(connection, doc_id, new_length, aligned) do
    Database.query!(connection, "DELETE FROM annotations WHERE doc_id = ?", [{:sql_integer, [doc_id]}])

    if aligned != [] do
      Database.query!(connection,
        "INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)",
        [{:sql_integer, List.duplicate(doc_id, length(aligned))},
         {:sql_integer, Enum.map(aligned, &elem(&1, 0))},
         {:sql_integer, Enum.map(aligned, &elem(&1, 1))},
         {@label_type, Enum.map(aligned, &elem(&1, 2))}])
    end

    Database.query!(connection,
      "UPDATE documents SET length = ?, annotation_count = ?, status = 'aligned' WHERE doc_id = ?",
      [{:sql_integer, [new_length]}, {:sql_integer, [length(aligned)]}, {:sql_integer, [doc_id]}])

    Database.commit!(connection)
  end

  # The digest is read back from the database after the clock stops; the harness recomputes it too.
  @impl true
  def summarize({docs, times, tally}, %{connection_string: connection_string}) do
    {cpu_ns, io_ns} = Enum.reduce(times, {0, 0}, fn {cpu, io}, {cpu_sum, io_sum} -> {cpu_sum + cpu, io_sum + io} end)
    counted = if tally, do: WorkTally.summary(tally), else: %{}
    {docs, annotations_digest(connection_string), Map.merge(counted, %{cpu_ns: cpu_ns, io_ns: io_ns})}
  end

  @doc "batch-job has no ceiling: the report's limit is the Amdahl prediction from seq's cpu_ns / io_ns."
  @impl true
  def ceiling(_context), do: %{}

  @doc "The order-free digest of \"doc_id:span_begin:span_end:label\" over every annotations row."
  def annotations_digest(connection_string) do
    # After the clock: its odbcserver's CPU is not the work's.
    Database.with_connection(connection_string, fn connection ->
      connection
      |> Database.query!("SELECT doc_id, span_begin, span_end, label FROM annotations")
      |> Enum.reduce(0, fn {doc_id, span_begin, span_end, label}, sum ->
        Digest.add(sum, "#{doc_id}:#{span_begin}:#{span_end}:#{label}")
      end)
      |> Digest.hex()
    end, false)
  end

  @doc "Decodes a document file `{\"id\": …, \"old\": \"…\", \"new\": \"…\"}` (a flat JSON object)."
  def read_document(path) do
    case File.read(path) do
      {:ok, text} -> decode_flat_object(text)
      {:error, reason} -> raise "cannot read #{path}: #{:file.format_error(reason)}"
    end
  end

  # A flat JSON object of strings and integers is all the document files hold; no JSON library
  # ships with OTP 25 and Hex is out of reach.
  defp decode_flat_object(text) do
    "{" <> rest = String.trim_leading(text)
    decode_members(String.trim_leading(rest), %{})
  end

  defp decode_members("}" <> _, acc), do: acc
  defp decode_members("," <> rest, acc), do: decode_members(String.trim_leading(rest), acc)

  defp decode_members("\"" <> rest, acc) do
    {key, rest} = decode_string(rest, [])
    ":" <> rest = String.trim_leading(rest)
    {value, rest} = decode_value(String.trim_leading(rest))
    decode_members(String.trim_leading(rest), Map.put(acc, key, value))
  end

  defp decode_value("\"" <> rest), do: decode_string(rest, [])

  defp decode_value(text) do
    {number, rest} = Integer.parse(text)
    {number, rest}
  end

  defp decode_string("\"" <> rest, acc), do: {IO.iodata_to_binary(Enum.reverse(acc)), rest}
  defp decode_string("\\u" <> <<hex::binary-size(4), rest::binary>>, acc),
    do: decode_string(rest, [<<String.to_integer(hex, 16)::utf8>> | acc])
  defp decode_string("\\" <> <<escaped, rest::binary>>, acc), do: decode_string(rest, [unescape(escaped) | acc])
  defp decode_string(<<char, rest::binary>>, acc), do: decode_string(rest, [char | acc])

  defp unescape(?n), do: ?\n
  defp unescape(?t), do: ?\t
  defp unescape(?r), do: ?\r
  defp unescape(?b), do: ?\b
  defp unescape(?f), do: ?\f
  defp unescape(char), do: char
end
