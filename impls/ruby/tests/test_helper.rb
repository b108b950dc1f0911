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
end
