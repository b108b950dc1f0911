# frozen_string_literal: true

require "minitest/autorun"
require "tmpdir"
require "json"
require "parbench"

# Runs one protocol call in-process and returns the JSON lines it printed.
module ProtocolRunner
  def protocol_lines(*argv)
    out, = capture_io do
      assert_equal 0, Parbench::Protocol.main(argv.map(&:to_s), workloads: Parbench::WORKLOADS,
                                                                description: Parbench.description)
    end
    out.lines.map { |line| JSON.parse(line) }
  end

  def checksum_of(*argv)
    protocol_lines(*argv).first.fetch("checksum")
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
