# frozen_string_literal: true

require "test_helper"

class ProtocolTest < Minitest::Test
  include ProtocolRunner

  def exit_code(*argv, variants: "0\n")
    code = nil
    capture_io do
      code = Parbench::Protocol.main(argv.map(&:to_s), workloads: Parbench::WORKLOADS, description: Parbench.description,
                                                       variants: StringIO.new(variants))
    end
    code
  end

  # Protocol 4: a rep line per variant, numbered from 0; no warm-up lines.
  def test_noop_prints_one_line_per_repetition
    lines = protocol_lines("noop", "--model", "seq", variants: [0] * 3)
    assert_equal [[0, nil], [1, nil], [2, nil]], lines.map { |l| [l["rep"], l["warmup"]] }
    assert(lines.all? { |l| l["checksum"] == "noop" && l["items"].zero? })
  end

  # Protocol 2: every line of every workload accounts for its CPU and for each phase between lines.
  def test_every_line_reports_cpu_and_the_phases_between_lines
    lines = protocol_lines("noop", "--model", "seq", variants: [0] * 3) +
            protocol_lines("coroutine-swarm", "--model", "fiber", "--tasks", 4, "--steps", 2, variants: [0] * 2)
    lines.each do |line|
      %w[cpu_user_ns cpu_sys_ns checksum_ns prepare_ns cleanup_ns].each do |field|
        value = line["extra"][field]
        assert(value.is_a?(Integer) && !value.negative?, "#{field} = #{value.inspect}")
      end
    end
  end

  # A forked child's CPU counts once the child has been reaped inside the timed region.
  def test_cpu_of_forked_workers_is_counted
    extra = protocol_lines("keygen", "--model", "fork", "--count", 600, "--bytes", 1000, "--workers", 2).first["extra"]
    assert_operator extra["cpu_user_ns"] + extra["cpu_sys_ns"], :>, 0
  end

  # Protocol 3: a variant line per repetition, a non-negative decimal integer; --variants is gone.
  def test_a_malformed_variant_line_is_exit_2
    assert_equal 2, exit_code("spawn-chain", "--model", "fiber", variants: "-1\n")
    assert_equal 2, exit_code("spawn-chain", "--model", "fiber", variants: "x\n")
    assert_equal 2, exit_code("spawn-chain", "--model", "fiber", "--variants", "1")
  end

  # Protocol 4: the launcher alone decides how many repetitions run and which are warm-ups.
  def test_warmup_and_repeat_are_unknown_params
    %w[--warmup --repeat].each do |flag|
      assert_equal 2, exit_code("spawn-chain", "--model", "fiber", flag, 1), flag
      assert_equal 2, exit_code("noop", "--model", "seq", flag, 1), flag
    end
  end

  def test_an_absent_tuned_kernel_is_exit_2
    assert_equal 2, exit_code("batch-job", "--model", "seq", "--docs-dir", "/", "--db", "sqlite:/tmp/x", "--kernel", "tuned")
    assert_equal 2, exit_code("keygen", "--model", "seq", "--kernel", "fast")
    assert_equal 2, exit_code("noop", "--model", "seq", "--kernel", "portable")
  end

  def test_list_offers_the_kernels_each_workload_has
    out, = capture_io { Parbench::Protocol.main(["--list"], workloads: Parbench::WORKLOADS, description: Parbench.description) }
    listed = JSON.parse(out)["workloads"]
    assert_equal({ "sdes-ecb" => %w[portable tuned], "keygen" => %w[portable tuned], "batch-job" => %w[portable] },
                 %w[sdes-ecb keygen batch-job].to_h { |w| [w, listed[w]["kernels"].keys] })
    assert_nil listed["spawn-chain"]["kernels"]
  end

  def test_list_names_every_workload_and_family
    out, = capture_io { Parbench::Protocol.main(["--list"], workloads: Parbench::WORKLOADS, description: Parbench.description) }
    listed = JSON.parse(out)
    assert_equal %w[batch-job coroutine-swarm echo-server keygen noop sdes-ecb spawn-chain], listed["workloads"].keys.sort
    families = listed["workloads"].values.flat_map { |w| w["models"].values.map { |m| m["family"] } }
    assert_empty families - %w[seq threads processes data-parallel async green actors fibers distributed pool event-loop]
  end

  def test_unknown_model_is_exit_2
    assert_equal 2, exit_code("keygen", "--model", "foo")
  end

  def test_unknown_param_is_exit_2
    assert_equal 2, exit_code("keygen", "--model", "seq", "--colour", "red")
  end

  def test_workers_on_a_model_without_workers_is_exit_2
    assert_equal 2, exit_code("keygen", "--model", "seq", "--workers", 2)
  end

  def test_workers_are_reported
    assert_equal 3, protocol_lines("keygen", "--model", "fork", "--count", 4, "--workers", 3).first["extra"]["workers"]
  end
end
