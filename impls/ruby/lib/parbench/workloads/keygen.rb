# frozen_string_literal: true

require "securerandom"
require_relative "../digests"
require_relative "../chunking"
require_relative "parallel_units"

module Parbench
  module Workloads
    # keygen (seed 000): `count` random keys of `bytes` bytes, each encoded as lower-case Base32.
    class Keygen
      PARAMS = { "count" => 2000, "bytes" => 1000, "source" => "strong", "seed" => 0, "chunk" => 0 }.freeze
      MODELS = {
        "seq" => { family: "seq" },
        "fork" => { family: "processes", workers: true,
                    note: "W forked workers started and reaped inside the timed region; worker w makes chunks w, w+W, ... " \
                          "and streams each chunk's keys back over its pipe with Marshal" },
        "ractor" => { family: "actors", workers: true,
                      note: "W Ractors started and ended inside the timed region; worker w makes chunks w, w+W, ... " \
                            "and moves each chunk's keys back with Ractor.yield(move: true)" }
      }.freeze
      SOURCES = %w[strong seeded].freeze
      CHUNK_CAP = 1024

      def initialize(model:, workers:, count:, bytes:, source:, seed:, chunk:)
        raise BadArguments, "--source must be one of #{SOURCES.join(', ')}, got '#{source}'" unless SOURCES.include?(source)
        raise BadArguments, "--count and --bytes must not be negative" if count.negative? || bytes.negative?
        raise BadArguments, "--chunk must not be negative" if chunk.negative?

        @model = model
        @workers = workers
        @count = count
        @bytes = bytes
        @source = source
        @seed = seed
        @chunk = Chunking.chunk_size(total: count, workers: workers, cap: CHUNK_CAP, override: chunk)
        @chunks = Chunking.ranges(count, @chunk)
      end

      def extra
        @model == "seq" ? {} : { workers: @workers, chunk: @chunk, chunks: @chunks.size }
      end

      def run
        keys, workers_used = run_job(:keys)
        Outcome.new(items: keys.size, checksum: -> { checksum(keys) },
                    extra: workers_used ? { workers_used: workers_used } : {}, ceiling: -> { ceiling })
      end

      def checksum(keys)
        return Digests::OrderFree.of(keys).to_s if @source == "seeded"

        "#{keys.size}:#{keys.sum(&:bytesize)}"
      end

      # The CSPRNG alone, then the Base32 encoder alone, each with the model's workers and chunks.
      def ceiling
        csprng_ns = Protocol.time_ceiling("csprng") { run_job(:csprng) }[:ceiling_ns]
        base32_ns = Protocol.time_ceiling("base32") { run_job(:base32) }[:ceiling_ns]
        { ceiling: "csprng+base32", ceiling_ns: csprng_ns + base32_ns, csprng_ns: csprng_ns, base32_ns: base32_ns }
      end

      # Runs `job` (see Keygen.work) over every chunk with the model; returns the gathered
      # results and how many workers delivered a chunk (nil for seq).
      def run_job(job)
        case @model
        when "seq" then [Keygen.work(job, 0...@count, @bytes, @source, @seed), nil]
        when "fork" then run_forked(job)
        when "ractor" then run_ractors(job)
        end
      end

      def run_forked(job)
        stripes = Chunking.stripes(@chunks, @workers)
        workers = ParallelUnits.fork_workers(@workers) do |w, channel|
          stripes[w].each { |range| channel.send_message(Marshal.dump(Keygen.work(job, range, @bytes, @source, @seed))) }
        end
        gathered = Gathered.new
        ParallelUnits.each_message(workers) { |worker, message| gathered.add(worker.pid, Marshal.load(message)) }
        [gathered.results, gathered.workers_used]
      end

      def run_ractors(job)
        ractors = Chunking.stripes(@chunks, @workers).map do |ranges|
          Ractor.new(ranges, @bytes, @source, @seed, job) do |my_ranges, bytes, source, seed, my_job|
            my_ranges.each { |range| Ractor.yield(Keygen.work(my_job, range, bytes, source, seed), move: true) }
            ParallelUnits::FINISHED
          end
        end
        gathered = Gathered.new
        ParallelUnits.each_ractor_message(ractors) { |ractor, results| gathered.add(ractor, results) }
        [gathered.results, gathered.workers_used]
      end

      # The one collection the caller holds, and who delivered to it.
      class Gathered
        attr_reader :results

        def initialize
          @results = []
          @delivered_by = {}
        end

        def add(worker, chunk_results)
          @results.concat(chunk_results)
          @delivered_by[worker] = true
        end

        def workers_used
          @delivered_by.size
        end
      end

      # One chunk's work. :keys makes its keys; the ceiling's :csprng only draws the random
      # bytes and :base32 only encodes fixed bytes, keeping nothing.
      def self.work(job, indices, bytes, source, seed)
        case job
        when :keys then keys(indices, bytes, source, seed)
        when :csprng then draw_only(indices.size, bytes)
        when :base32 then encode_only(indices.size, bytes)
        end
      end

      def self.draw_only(count, bytes)
        count.times { SecureRandom.random_bytes(bytes) }
        []
      end

      def self.encode_only(count, bytes)
        fixed = "\xA5".b * bytes
        count.times { base32_lower(fixed) }
        []
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
