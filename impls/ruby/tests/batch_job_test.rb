# frozen_string_literal: true

require "test_helper"
require "sqlite3"

class BatchJobTest < Minitest::Test
  include ProtocolRunner
  Job = Parbench::Workloads::BatchJob
  Digest = Parbench::Digest

  def test_offset_map_of_identical_texts_is_the_identity
    assert_equal [0, 1, 2, 3], Job.offset_map("abc", "abc")
  end

  def test_offset_map_follows_an_insertion
    assert_equal [0, 1, 3, 4], Job.offset_map("abc", "abXc")
  end

  def test_ties_step_through_old_first
    # "ab" vs "ba": dp[1][0] = dp[0][1] = 1, so the walk skips old's "a" and matches "b" -> 0.
    assert_equal [0, 0, 2], Job.offset_map("ab", "ba")
  end

  def test_an_annotation_that_collapses_is_dropped
    assert_equal [[0, 3, "X"]], Job.align_annotations("abc def", "abc", [[0, 3, "X"], [4, 7, "Y"]])
  end

  # A small database like the harness's, aligned by every model: all must reach the same rows,
  # and that digest must be the one computed directly from the alignment.
  def test_models_agree_on_a_real_sqlite_database
    expected = nil
    runs = Job::MODELS.keys.map { |model| [model, "cold"] } + [%w[thread-pool warm], %w[fork-pool warm]]
    runs.each do |model, start|
      Dir.mktmpdir do |dir|
        documents = make_inputs(dir)
        expected ||= Digest::OrderFree.of(documents.flat_map do |d|
          Job.align_annotations(d[:old], d[:new], d[:spans]).map { |b, e, label| "#{d[:id]}:#{b}:#{e}:#{label}" }
        end).to_s
        # three repetitions: the second and third start from the pristine rows again (the reset)
        lines = protocol_lines("batch-job", "--model", model, "--docs-dir", dir, "--db", "sqlite:#{dir}/job.sqlite",
                               *(model.end_with?("pool") ? ["--workers", 3, "--start", start] : []), variants: [0, 0, 0])
        assert_equal [documents.size] * 3, lines.map { |l| l["items"] }, "#{model} #{start}"
        assert_equal [expected] * 3, lines.map { |l| l["checksum"] }, "#{model} #{start}"
        line = lines.last
        assert_equal expected, line["checksum"], "#{model} #{start}"
        assert_equal (model == "seq" ? nil : start), line["extra"]["start"]
        assert_equal documents.size, line["items"]
        assert_equal ["portable", "reference, transliterated"], line["extra"].values_at("kernel", "kernel_detail")
        assert_equal model.end_with?("pool"), line["extra"].key?("busy"), model
        assert_operator line["extra"]["cpu_ns"], :>, 0
        assert_per_document_workers(model, line["extra"], documents.size)
        assert_no_worker_left(model)
        assert_equal documents.size, SQLite3::Database.new("#{dir}/job.sqlite").get_first_value(
          "SELECT count(*) FROM documents WHERE status = 'aligned'")
      end
    end
  end

  # Per-document models run one unit per document; pools report their workers.
  def assert_per_document_workers(model, extra, documents)
    return assert_nil(extra["workers_used"]) if model == "seq"

    assert_equal documents, extra["chunks"], model
    assert_equal documents, extra["workers_used"], model unless model.end_with?("pool")
  end

  # A pool hands documents out as workers ask, so which worker takes which is up to the
  # scheduler; the gate makes it deterministic by holding each worker's first document until
  # every worker holds one. A pool running fewer workers never opens it (after 20 s the test
  # lets it through, and the count fails).
  class GatedJob < Job
    def initialize(gate:, **options)
      super(**options)
      @arrived, @go = gate
    end

    def process(doc_id, database)
      unless Thread.current[:passed_gate]
        Thread.current[:passed_gate] = true
        @arrived.syswrite("x")
        @go.sysread(1)
      end
      super
    end
  end

  def with_gate(workers)
    arrived_reader, arrived = IO.pipe
    go_reader, go = IO.pipe
    opener = Thread.new { open_when_all_arrive(arrived_reader, go, workers) }
    yield [arrived, go_reader]
  ensure
    opener&.join
    [arrived_reader, arrived, go_reader, go].each { |io| io&.close }
  end

  def open_when_all_arrive(arrived_reader, go, workers)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 20
    count = 0
    while count < workers
      break unless IO.select([arrived_reader], nil, nil, [deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC), 0].max)

      count += arrived_reader.readpartial(workers - count).size
    end
  ensure
    go.syswrite("x" * workers)
  end

  def test_pools_use_every_worker
    %w[thread-pool fork-pool].each do |model|
      Dir.mktmpdir do |dir|
        documents = make_inputs(dir)
        outcome = with_gate(2) do |gate|
          GatedJob.new(gate: gate, model: model, workers: 2, docs_dir: dir, db: "sqlite:#{dir}/job.sqlite").run
        end
        assert_equal({ chunks: documents.size, workers_used: 2 }, outcome.extra.slice(:chunks, :workers_used), model)
        assert_equal [0, 1], outcome.busy.map(&:first).sort, model
        assert_no_worker_left(model)
      end
    end
  end

  def make_inputs(dir)
    random = Random.new(11)
    words = %w[alpha beam core delta edge flow graph]
    documents = Array.new(6) do |id|
      old = Array.new(30) { words.sample(random: random) }.join(" ")
      new = old.split(" ").flat_map { |w| random.rand < 0.1 ? [words.sample(random: random), w] : [w] }.reject { random.rand < 0.05 }.join(" ")
      spans = Array.new(8) { b = random.rand(old.size - 6); [b, b + 1 + random.rand(5), %w[PERSON PLACE].sample(random: random)] }
      File.write(File.join(dir, "#{id}.json"), JSON.generate(id: id, old: old, new: new))
      { id: id, old: old, new: new, spans: spans }
    end
    db = SQLite3::Database.new(File.join(dir, "job.sqlite"))
    # WAL from the start, as the harness writes it: concurrent workers switching a rollback-journal
    # database to WAL can deadlock, and SQLite then answers "locked" without calling the busy handler.
    db.execute("PRAGMA journal_mode=WAL")
    db.execute_batch(<<~SQL)
      CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER, annotation_count INTEGER, status TEXT);
      CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER, span_begin INTEGER, span_end INTEGER, label TEXT);
      CREATE TABLE pristine_documents(doc_id INTEGER PRIMARY KEY, length INTEGER, annotation_count INTEGER, status TEXT);
      CREATE TABLE pristine_annotations(doc_id INTEGER, span_begin INTEGER, span_end INTEGER, label TEXT);
    SQL
    documents.each do |d|
      db.execute("INSERT INTO documents VALUES (?, ?, ?, 'pending')", [d[:id], d[:old].size, d[:spans].size])
      d[:spans].each { |b, e, l| db.execute("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)", [d[:id], b, e, l]) }
    end
    # the harness's pristine copies of the starting rows (docs/protocol.md, batch-job)
    db.execute("INSERT INTO pristine_documents SELECT doc_id, length, annotation_count, status FROM documents")
    db.execute("INSERT INTO pristine_annotations SELECT doc_id, span_begin, span_end, label FROM annotations")
    db.close
    documents
  end
end
