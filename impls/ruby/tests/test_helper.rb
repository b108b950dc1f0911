# frozen_string_literal: true

require "minitest/autorun"
require "tmpdir"
require "json"
require "stringio"
require "parbench"

# Runs one protocol call in-process and returns the JSON lines it printed.
module ProtocolRunner
  # The repetitions' lines (after the ready line) of one call fed `variants` as its stdin, one
  # repetition per variant (protocol 4); by default one, with the call's own --key or --seed
  # (sdes-ecb's 642, else 0).
  def protocol_lines(*argv, variants: nil)
    all_lines(*argv, variants: variants).drop(1)
  end

  # Every line, the ready line first (asserted to be one).
  def all_lines(*argv, variants: nil)
    argv = argv.map(&:to_s)
    variants ||= [default_variant(argv)]
    out, = capture_io do
      assert_equal 0, Parbench::Protocol.main(argv, workloads: Parbench::WORKLOADS, description: Parbench.description,
                                                    variants: StringIO.new(variants.map { |v| "#{v}\n" }.join))
    end
    lines = out.lines.map { |line| JSON.parse(line) }
    assert lines.first&.key?("ready"), "the first line is the ready line: #{lines.first.inspect}"
    lines
  end

  def default_variant(argv)
    given = argv.drop(1).each_slice(2).to_h
    given["--key"] || given["--seed"] || (argv.first == "sdes-ecb" ? 642 : 0)
  end

  def checksum_of(*argv, variants: nil)
    protocol_lines(*argv, variants: variants).first.fetch("checksum")
  end

  # Every forked child has been reaped; every Ractor has ended. A Ractor whose final value was
  # taken has finished its block, but its OS thread is removed from Ractor.count a moment later
  # (Ruby 3.1 has no Ractor#join), so that count is given a bounded while to drop.
  def assert_no_worker_left(message = nil)
    assert_raises(Errno::ECHILD, message) { Process.wait(-1, Process::WNOHANG) }
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
    sleep(0.001) while Ractor.count > 1 && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
    assert_equal 1, Ractor.count, message
  end
end
