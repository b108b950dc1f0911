# frozen_string_literal: true

require "test_helper"
require "open3"

# Protocol 3 (docs/protocol.md): the ready line, one variant read from stdin per repetition, and
# the start modes: cold workers made and ended in each repetition, warm ones reused by every one.
class Protocol3Test < Minitest::Test
  include ProtocolRunner
  RUN = File.expand_path("../run", __dir__)

  def test_the_ready_line_comes_before_the_first_variant_is_read
    Open3.popen3(RUN, "spawn-chain", "--model", "fiber", "--n", "10") do |stdin, stdout, _stderr, waiter|
      assert_equal({ "ready" => "none" }, JSON.parse(stdout.gets)) # no variant written yet
      stdin.puts "7"
      stdin.flush
      assert_equal "17", JSON.parse(stdout.gets)["checksum"]
      stdin.close
      assert waiter.value.success?
    end
  end

  def test_each_repetition_uses_the_line_written_for_it
    Open3.popen3(RUN, "spawn-chain", "--model", "thread", "--n", "5") do |stdin, stdout, _stderr, waiter|
      stdout.gets
      answers = [100, 200, 300].map do |variant| # each written after the line before it was read, as the launcher does
        stdin.puts variant
        stdin.flush
        JSON.parse(stdout.gets)["checksum"]
      end
      assert_equal %w[105 205 305], answers
      stdin.close
      waiter.value
    end
  end

  # Protocol 4: end of file is the end of the case, after k variants or before the first.
  def test_end_of_file_ends_the_case_cleanly_after_its_variants
    [[], [1], [1, 2, 3]].each do |variants|
      out, err, status = Open3.capture3(RUN, "spawn-chain", "--model", "fiber", "--n", "5",
                                        stdin_data: variants.map { |v| "#{v}\n" }.join)
      assert_equal [0, ""], [status.exitstatus, err], variants.inspect
      ready, *lines = out.lines.map { |line| JSON.parse(line) }
      assert_equal({ "ready" => "none" }, ready)
      assert_equal variants.each_with_index.map { |v, j| [j, (v + 5).to_s] }, lines.map { |l| [l["rep"], l["checksum"]] }
    end
  end

  # Protocol 4: --warmup is an unknown argument of the command line, one line on stderr.
  def test_the_warmup_argument_is_exit_2
    out, err, status = Open3.capture3(RUN, "spawn-chain", "--model", "fiber", "--n", "5", "--warmup", "1", stdin_data: "1\n")
    assert_equal [2, "", 1], [status.exitstatus, out, err.lines.size]
    assert_match(/unknown param --warmup/, err)
  end

  def test_batch_job_and_noop_read_the_line_and_ignore_it
    assert_equal %w[noop noop], protocol_lines("noop", "--model", "seq", variants: [5, 6]).map { |l| l["checksum"] }
  end

  def test_every_parallel_model_says_what_each_mode_makes_or_why_not
    Parbench::WORKLOADS.each do |workload, klass|
      klass::MODELS.each do |name, spec|
        modes = spec.fetch(:start, {}).keys + spec.fetch(:start_unavailable, {}).keys
        assert_equal %i[cold warm], modes.sort, "#{workload} #{name}" if spec[:workers]
        next unless %w[spawn-chain coroutine-swarm].include?(workload) && spec[:family] != "seq"

        assert_equal [nil, %i[cold warm]], [spec[:start], spec[:start_unavailable].keys.sort], "#{workload} #{name}"
      end
    end
  end

  def test_ready_and_every_line_echo_the_mode_and_cold_is_the_default
    { nil => "cold", "cold" => "cold" }.each do |asked, mode|
      lines = all_lines("keygen", "--model", "fork", "--count", 8, "--workers", 2, *(asked ? ["--start", asked] : []),
                        variants: [1, 2, 3])
      assert_equal({ "ready" => mode, "extra" => { "workers" => 2 } }, lines.first)
      assert_equal [mode], lines.drop(1).map { |line| line["extra"]["start"] }.uniq
    end
    ready, *rest = all_lines("keygen", "--model", "ractor", "--count", 8, "--workers", 2, variants: [1, 2])
    assert_equal "warm", ready["ready"] # the only mode it offers
    assert_operator ready["start_ns"], :>, 0
    assert_equal %w[warm warm], rest.map { |line| line["extra"]["start"] }
  end

  def test_a_mode_a_model_cannot_offer_is_exit_2_with_the_reason
    out, err, status = Open3.capture3(RUN, "keygen", "--model", "ractor", "--start", "cold", stdin_data: "1\n")
    assert_equal 2, status.exitstatus
    assert_match(/has no cold start: Ruby 3\.1 keeps an ended Ractor's/, err)
    assert_empty out
    _, err, status = Open3.capture3(RUN, "keygen", "--model", "seq", "--start", "cold", stdin_data: "1\n")
    assert_equal 2, status.exitstatus
    assert_match(/takes no --start/, err)
  end

  # Why the Ractor models offer no cold start: a Thread made after another one ended runs on
  # that one's OS thread (Ruby 3.1's thread cache), so a cold repetition would reuse the last one's.
  def test_ruby_hands_an_ended_threads_os_thread_to_the_next_one
    first = Thread.new { Thread.current.native_thread_id }.value
    assert_equal first, Thread.new { Thread.current.native_thread_id }.value
  end

  def test_warm_ractors_serve_every_repetition
    Dir.mktmpdir do |dir|
      path = File.join(dir, "input")
      File.binwrite(path, Random.new(3).bytes(3000))
      workload = Parbench::Workloads::SdesEcb.new(model: "ractor", workers: 2, input: path, key: 642, cipher: "table", chunk: 100)
      workload.start_workers
      ractors = workload.instance_variable_get(:@warm_ractors)
      sums = [642, 5, 642].map do |key|
        workload.prepare(key)
        outcome = workload.run
        assert_equal 3, Ractor.count # the main Ractor and the same two, every repetition
        [outcome.checksum.call, outcome.extra[:workers_used]]
      end
      assert_equal sums[0], sums[2]
      refute_equal sums[0], sums[1]
      assert_equal [2], sums.map(&:last).uniq
      assert_same ractors, workload.instance_variable_get(:@warm_ractors)
      workload.stop_workers
      assert_no_worker_left
    end
  end

  def test_warm_pools_of_batch_job_keep_their_workers_across_repetitions
    %w[thread-pool fork-pool].each do |model|
      Dir.mktmpdir do |dir|
        BatchJobTest.new("make_inputs").make_inputs(dir)
        workload = Parbench::Workloads::BatchJob.new(model: model, workers: 2, docs_dir: dir, db: "sqlite:#{dir}/job.sqlite")
        workload.start_workers
        threads_before = Thread.list.size
        first = workload.run
        assert_equal [6, 2], [first.items, first.extra[:workers_used]], model
        assert_equal 0, workload.run.items, model # every document is aligned now: an empty round
        assert_equal threads_before, Thread.list.size, model
        workload.stop_workers
        assert_no_worker_left(model)
      end
    end
  end

  def test_a_fork_pool_that_cannot_connect_leaves_no_worker_behind
    Dir.mktmpdir do |dir|
      workload = Parbench::Workloads::BatchJob.new(model: "fork-pool", workers: 2, docs_dir: dir, db: "sqlite:#{dir}/absent/job.sqlite")
      error = assert_raises(RuntimeError) { workload.start_workers }
      assert_match(/forked worker failed: SQLite3::CantOpenException/, error.message)
      assert_no_worker_left
    end
  end
end
