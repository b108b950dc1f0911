# frozen_string_literal: true

require "test_helper"

class SpawnChainTest < Minitest::Test
  include ProtocolRunner

  def test_the_answer_is_n_for_every_model
    Parbench::Workloads::SpawnChain::MODELS.each_key do |model|
      [1, 7, 1000].each { |n| assert_equal n.to_s, checksum_of("spawn-chain", "--model", model, "--n", n), model }
    end
  end

  # Protocol 2's vector: n 1000, start 123456 -> 124456; every link counted itself in.
  def test_start_value_and_live_units_for_every_model
    Parbench::Workloads::SpawnChain::MODELS.each_key do |model|
      lines = protocol_lines("spawn-chain", "--model", model, "--n", 1000, variants: [123_456, 7])
      assert_equal %w[124456 1007], lines.map { |line| line["checksum"] }, model
      assert_equal [1000, 1000], lines.map { |line| line["extra"]["live_units"] }, model
    end
  end

  def chain(model, n)
    Parbench::Workloads::SpawnChain.new(model: model, workers: 1, n: n)
  end

  def test_every_fiber_has_ended_when_the_chain_answers
    answer, fibers = chain("fiber", 50).chain_fiber
    assert_equal 50, answer
    assert_equal 51, fibers.size
    assert(fibers.none?(&:alive?))
  end

  def test_every_thread_is_joined_when_the_chain_answers
    answer, threads = chain("thread", 50).chain_thread
    assert_equal 50, answer
    assert(threads.none?(&:alive?))
  end

  def test_every_async_task_has_finished_when_the_chain_answers
    answer, tasks = chain("async", 50).chain_async
    assert_equal 50, answer
    assert_equal 50, tasks.size
    assert(tasks.all? { |task| task.complete? && !task.alive? })
  end

  def test_every_model_reports_a_hand_off_ceiling
    Parbench::Workloads::SpawnChain::MODELS.each_key do |model|
      [1, 2, 100].each do |n|
        extra = protocol_lines("spawn-chain", "--model", model, "--n", n).first["extra"]
        assert_equal "hand-off", extra["ceiling"], model
        assert_operator extra["ceiling_ns"], :>, 0, model
      end
    end
  end

  def test_a_guard_page_failure_is_a_limit_result
    error = FiberError.new("can't set a guard page: Cannot allocate memory")
    assert_match(/guard page/, Parbench::Protocol.limit_detail(error))
  end
end

class CoroutineSwarmTest < Minitest::Test
  include ProtocolRunner
  Swarm = Parbench::Workloads::CoroutineSwarm

  def test_fizzbuzz_rules
    assert_equal %w[FizzBuzz 1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14 FizzBuzz], (0..15).map { |i| Swarm.fizzbuzz(i) }
  end

  def test_task_0_step_0_is_0_0_fizzbuzz
    assert_equal "0:0:FizzBuzz", Swarm.line(0, 0)
  end

  def test_tasks_3_steps_10
    Swarm::MODELS.each_key do |model|
      assert_equal "1161d008ce58dc37", checksum_of("coroutine-swarm", "--model", model, "--tasks", 3, "--steps", 10), model
    end
  end

  # Protocol 2's vectors: the salt shifts every task id.
  { 0 => "1161d008ce58dc37", 1000 => "bb33744708f665dd", 4_294_967_295 => "2540eadf7cfb00ad" }.each do |salt, digest|
    define_method("test_tasks_3_steps_10_salt_#{salt}") do
      Swarm::MODELS.each_key do |model|
        assert_equal digest, protocol_lines("coroutine-swarm", "--model", model, "--tasks", 3, "--steps", 10,
                                             variants: [salt]).first["checksum"], model
      end
    end
  end

  # seq never interleaves (tasks - 1 switches); the unit models pass between tasks at every step.
  def test_switches_show_the_tasks_interleave
    switches = Swarm::MODELS.keys.to_h do |model|
      [model, protocol_lines("coroutine-swarm", "--model", model, "--tasks", 20, "--steps", 5).first["extra"]["switches"]]
    end
    assert_equal 19, switches["seq"]
    assert_operator switches["fiber"], :>, 19
    assert_operator switches["thread"], :>, 19
  end

  # Protocol 4: every step draws a ticket; the salt picks the probe tasks (40 / 16 = every 2nd,
  # from (-3) mod 2 = 1), and a probe that yielded between its steps drew tickets others share.
  def test_unit_models_draw_interleaved_tickets
    (Swarm::MODELS.keys - ["seq"]).each do |model|
      extra = protocol_lines("coroutine-swarm", "--model", model, "--tasks", 40, "--steps", 5, variants: [3]).first["extra"]
      assert_equal 200, extra["tickets"], model
      assert_equal (1...40).step(2).to_a, extra["ticket_probes"].map(&:first).sort, model
      lives = extra["ticket_probes"].map { |_, first, last| [first, last] }.sort
      assert(lives.each_cons(2).any? { |(_, last), (later_first, _)| later_first < last }, "#{model}: #{lives}")
    end
  end

  def test_unit_models_report_a_yield_ceiling_without_sleep
    %w[fiber thread].each do |model|
      extra = protocol_lines("coroutine-swarm", "--model", model, "--tasks", 5, "--steps", 3).first["extra"]
      assert_equal "yield", extra["ceiling"], model
      assert_operator extra["ceiling_ns"], :>, 0, model
    end
  end

  def test_no_yield_ceiling_for_seq_or_with_sleep
    assert_nil protocol_lines("coroutine-swarm", "--model", "seq", "--tasks", 5).first["extra"]["ceiling"]
    assert_nil protocol_lines("coroutine-swarm", "--model", "fiber", "--tasks", 5, "--steps", 1, "--sleep-ms", 1).first["extra"]["ceiling"]
  end

  def test_models_agree_for_arbitrary_params
    [[301, 7, 0], [17, 3, 2]].each do |tasks, steps, sleep_ms|
      sums = Swarm::MODELS.keys.map do |model|
        checksum_of("coroutine-swarm", "--model", model, "--tasks", tasks, "--steps", steps, "--sleep-ms", sleep_ms)
      end
      assert_equal 1, sums.uniq.size, sums.inspect
    end
  end
end
