# frozen_string_literal: true

require "test_helper"

class ProtocolTest < Minitest::Test
  include ProtocolRunner

  def exit_code(*argv)
    code = nil
    capture_io { code = Parbench::Protocol.main(argv.map(&:to_s), workloads: Parbench::WORKLOADS, description: Parbench.description) }
    code
  end

  def test_noop_prints_one_line_per_repetition
    lines = protocol_lines("noop", "--model", "seq", "--warmup", 1, "--repeat", 3)
    assert_equal [0, 1, 2], lines.map { |l| l["rep"] }
    assert(lines.all? { |l| l["checksum"] == "noop" && l["items"].zero? })
  end

  def test_list_names_every_workload_and_family
    out, = capture_io { Parbench::Protocol.main(["--list"], workloads: Parbench::WORKLOADS, description: Parbench.description) }
    listed = JSON.parse(out)
    assert_equal %w[batch-job coroutine-swarm keygen noop sdes-ecb spawn-chain], listed["workloads"].keys.sort
    families = listed["workloads"].values.flat_map { |w| w["models"].values.map { |m| m["family"] } }
    assert_empty families - %w[seq threads processes data-parallel async green actors fibers distributed]
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
