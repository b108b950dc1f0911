# frozen_string_literal: true

require "securerandom"
require_relative "../digests"
require_relative "parallel_units"

module Parbench
  module Workloads
    # keygen (seed 000): `count` random keys of `bytes` bytes, each encoded as lower-case Base32.
    class Keygen
      PARAMS = { "count" => 2000, "bytes" => 1000, "source" => "strong", "seed" => 0 }.freeze
      MODELS = {
        "seq" => { family: "seq" },
        "fork" => { family: "processes", workers: true,
                    note: "Process.fork per worker, count/workers keys each, keys back over a pipe with Marshal" },
        "ractor" => { family: "actors", workers: true,
                      note: "one Ractor per worker, count/workers keys each, keys moved back with Ractor.yield(move: true)" }
      }.freeze
      SOURCES = %w[strong seeded].freeze

      def initialize(model:, workers:, count:, bytes:, source:, seed:)
        raise BadArguments, "--source must be one of #{SOURCES.join(', ')}, got '#{source}'" unless SOURCES.include?(source)
        raise BadArguments, "--count and --bytes must not be negative" if count.negative? || bytes.negative?

        @model = model
        @workers = workers
        @count = count
        @bytes = bytes
        @source = source
        @seed = seed
      end

      def extra
        @model == "seq" ? {} : { workers: @workers }
      end

      def run
        keys = case @model
               when "seq" then Keygen.keys(0...@count, @bytes, @source, @seed)
               when "fork" then run_forked
               when "ractor" then run_ractors
               end
        Outcome.new(items: keys.size, checksum: -> { checksum(keys) })
      end

      def checksum(keys)
        return Digests::OrderFree.of(keys).to_s if @source == "seeded"

        "#{keys.size}:#{keys.sum(&:bytesize)}"
      end

      # Worker w takes a contiguous slice of the key indices, so seeded keys stay key i = bytes(seed, i).
      def slices
        per_worker, extra_keys = @count.divmod(@workers)
        first = 0
        Array.new(@workers) do |w|
          size = per_worker + (w < extra_keys ? 1 : 0)
          (first...(first += size))
        end
      end

      def run_forked
        ranges = slices
        ParallelUnits.fork_each(@workers) { |w| Keygen.keys(ranges[w], @bytes, @source, @seed) }.flatten(1)
      end

      def run_ractors
        ranges = slices
        ractors = ranges.map do |range|
          Ractor.new(range, @bytes, @source, @seed) do |indices, bytes, source, seed|
            Ractor.yield(Keygen.keys(indices, bytes, source, seed), move: true)
          end
        end
        ractors.flat_map(&:take)
      end

      def self.keys(indices, bytes, source, seed)
        if source == "strong"
          indices.map { base32_lower(SecureRandom.random_bytes(bytes)) }
        else
          indices.map { |i| base32_lower(Digests.splitmix64_bytes(seed, i, bytes)) }
        end
      end

      # RFC 4648 Base32, lower case, padded. Ruby has no Base32, and a loop over 5-bit groups runs
      # at interpreter speed; instead each 5-byte group becomes 8 radix-32 digits of one big
      # integer (hex parsing and to_s(32) are linear in C for power-of-two bases), and `tr` maps
      # Ruby's digit alphabet 0-9a-v onto the RFC's a-z2-7.
      def self.base32_lower(data)
        return +"" if data.empty?

        groups = (data.bytesize + 4) / 5
        chars = (data.bytesize * 8 + 4) / 5
        padded = data.b << ("\0" * (groups * 5 - data.bytesize))
        digits = padded.unpack1("H*").to_i(16).to_s(32).rjust(groups * 8, "0")
        digits[0, chars].tr("0-9a-v", "a-z2-7") << ("=" * (groups * 8 - chars))
      end
    end
  end
end
