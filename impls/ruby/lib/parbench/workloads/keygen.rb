# frozen_string_literal: true

require "securerandom"
require_relative "../digest"
require_relative "../chunking"
require_relative "parallel_units"

module Parbench
  module Workloads
    # keygen (seed 000): `count` random keys of `bytes` bytes, each encoded as lower-case Base32.
    class Keygen
      PARAMS = { "count" => 2000, "bytes" => 1000, "source" => "strong", "seed" => 0, "chunk" => 0,
                 "kernel" => "portable", "probes" => "" }.freeze
      # The generator is the same in both: SecureRandom per key, Ruby's standard CSPRNG API.
      # Only the Base32 encoder differs: Ruby has none, so the portable one is the RFC's steps in
      # plain Ruby (each 5-byte group as one 40-bit Integer, cut into eight 5-bit digits looked
      # up in the RFC alphabet).
      KERNELS = {
        portable: "reference, transliterated: SecureRandom.random_bytes, Base32 in plain Ruby",
        tuned: "SecureRandom.random_bytes per key (Random.urandom, getrandom(2)); Base32 by big Integer: the key's hex " \
               "digits parsed once (String#to_i(16)), printed in radix 32 (Integer#to_s(32), linear in C for a " \
               "power-of-two base) and mapped onto the RFC alphabet with String#tr"
      }.freeze
      MODELS = {
        "seq" => { family: "seq" },
        "fork" => { family: "processes", workers: true,
                    note: "W forked workers (Process.fork, real OS processes) started and reaped inside the timed region; " \
                          "worker w makes chunks w, w+W, ... and streams each chunk's keys back over its pipe with Marshal",
                    start: { cold: ParallelUnits::FORK_COLD },
                    start_unavailable: { warm: ParallelUnits::FORK_NOT_WARM } },
        "ractor" => { family: "actors", workers: true,
                      note: "W Ractors (each its own OS thread and lock, so they run in parallel) made before the ready line; " \
                            "each repetition sends worker w the seed, it makes chunks w, w+W, ... and sends each chunk's keys " \
                            "to the main Ractor (Ractor#send, move: true)",
                      start: { warm: ParallelUnits::RACTOR_WARM },
                      start_unavailable: { cold: ParallelUnits::RACTOR_NOT_COLD } }
      }.freeze
      SOURCES = %w[strong seeded].freeze
      CHUNK_CAP = 1024

      def initialize(model:, workers:, count:, bytes:, source:, seed:, chunk:, kernel: "portable", probes: "")
        raise BadArguments, "--source must be one of #{SOURCES.join(', ')}, got '#{source}'" unless SOURCES.include?(source)
        raise BadArguments, "--count and --bytes must not be negative" if count.negative? || bytes.negative?
        raise BadArguments, "--chunk must not be negative" if chunk.negative?

        @kernel = Protocol.check_kernel(KERNELS, kernel)
        @probes = probes.empty? ? [] : Protocol.integer_list(probes, "probes")
        raise BadArguments, "--probes must be key indices below --count #{count}" if @probes.any? { |i| i >= count }

        @model = model
        @workers = workers
        @count = count
        @bytes = bytes
        @source = source
        @base_seed = @seed = seed
        @chunk = Chunking.chunk_size(total: count, workers: workers, cap: CHUNK_CAP, override: chunk)
        @chunks = Chunking.ranges(count, @chunk)
      end

      def extra
        fields = { kernel: @kernel, kernel_detail: KERNELS[@kernel.to_sym] }
        @model == "seq" ? fields : fields.merge(workers: @workers, chunk: @chunk, chunks: @chunks.size)
      end

      # A variant is the repetition's seed; `strong` draws fresh bytes every repetition anyway.
      def prepare(variant)
        @seed = variant || @base_seed
      end

      def run
        busy = @model == "seq" ? nil : []
        gathered = run_job(:keys, busy)
        keys = gathered.results
        extra = { probes: @probes.map { |i| gathered.key(i) } }
        extra[:workers_used] = gathered.workers_used unless @model == "seq"
        Outcome.new(items: keys.size, checksum: -> { Digest::OrderFree.of(keys).to_s }, extra: extra, busy: busy,
                    ceiling: -> { ceiling })
      end

      # The CSPRNG alone, then the Base32 encoder alone, each with the model's workers and chunks.
      def ceiling
        csprng_ns = Protocol.time_ceiling("csprng") { run_job(:csprng, nil) }[:ceiling_ns]
        base32_ns = Protocol.time_ceiling("base32") { run_job(:base32, nil) }[:ceiling_ns]
        { ceiling: "csprng+base32", ceiling_ns: csprng_ns + base32_ns, csprng_ns: csprng_ns, base32_ns: base32_ns }
      end

      # Runs `job` (see Keygen.work) over every chunk with the model; returns the Gathered
      # results. Workers' busy intervals go to `busy`.
      def run_job(job, busy)
        gathered = Gathered.new(@model == "seq" ? [@count, 1].max : @chunk)
        case @model
        when "seq" then gathered.add(:main, 0, Keygen.work(job, 0...@count, @bytes, @source, @seed, @kernel))
        when "fork" then run_forked(job, gathered, busy)
        when "ractor" then run_ractors(job, gathered, busy)
        end
        gathered
      end

      def run_forked(job, gathered, busy)
        stripes = Chunking.stripes(@chunks, @workers)
        seed = @seed
        workers = ParallelUnits.fork_workers(@workers) do |w, channel|
          stripes[w].each do |range|
            channel.send_message(Marshal.dump([range.begin, Keygen.work(job, range, @bytes, @source, seed, @kernel)]))
          end
        end
        ParallelUnits.each_message(workers, busy: busy) do |worker, message|
          first, keys = Marshal.load(message)
          gathered.add(worker.pid, first, keys)
        end
      end

      # The warm start (protocol 3, the ractor model): W Ractors, each holding its stripe of the
      # chunks, made before the ready line; every repetition and ceiling half is a message to each.
      def start_workers
        @warm_ractors = Chunking.stripes(@chunks, @workers).each_with_index.map do |ranges, w|
          Ractor.new(Ractor.current, w, ranges, @bytes, @source, @kernel) do |parent, index, my_ranges, bytes, source, kernel|
            ParallelUnits.serve do |(job, seed)|
              ParallelUnits.ractor_worker(parent, index) do |deliver|
                my_ranges.each { |range| deliver.call(range.begin, Keygen.work(job, range, bytes, source, seed, kernel)) }
              end
            end
          end
        end
      end

      def stop_workers
        ParallelUnits.stop_ractors(@warm_ractors) if @warm_ractors
      end

      def run_ractors(job, gathered, busy)
        ParallelUnits.run_round(@warm_ractors, [job, @seed].freeze, busy: busy) do |w, first, keys|
          gathered.add(@warm_ractors[w], first, keys)
        end
      end

      # The one collection the caller holds, who delivered to it, and where each chunk landed
      # in it: key i is key i % chunk of the chunk that starts at i - i % chunk, whatever order
      # the chunks arrived in (protocol 2's probes).
      class Gathered
        attr_reader :results

        def initialize(chunk)
          @chunk = chunk
          @results = []
          @delivered_by = {}
          @placed_at = {}
        end

        def add(worker, first, chunk_results)
          @placed_at[first] = @results.size
          @results.concat(chunk_results)
          @delivered_by[worker] = true
        end

        def key(index)
          @results[@placed_at.fetch(index - (index % @chunk)) + (index % @chunk)]
        end

        def workers_used
          @delivered_by.size
        end
      end

      # One chunk's work. :keys makes its keys; the ceiling's :csprng only draws the random
      # bytes and :base32 only encodes fixed bytes, keeping nothing.
      def self.work(job, indices, bytes, source, seed, kernel)
        case job
        when :keys then keys(indices, bytes, source, seed, kernel)
        when :csprng then draw_only(indices.size, bytes)
        when :base32 then encode_only(indices.size, bytes, kernel)
        end
      end

      def self.draw_only(count, bytes)
        count.times { SecureRandom.random_bytes(bytes) }
        []
      end

      def self.encode_only(count, bytes, kernel)
        fixed = "\xA5".b * bytes
        count.times { encode(kernel, fixed) }
        []
      end

      # Strong and seeded keys go through the same loop, store and encoder; only where the bytes
      # come from differs (SplitMix64 replaces SecureRandom for a verifiable answer).
      def self.keys(indices, bytes, source, seed, kernel)
        strong = source == "strong"
        indices.map do |i|
          encode(kernel, strong ? SecureRandom.random_bytes(bytes) : Digest.splitmix64_bytes(seed, i, bytes))
        end
      end

      def self.encode(kernel, data)
        kernel == "tuned" ? base32_lower(data) : base32_plain(data)
      end

      ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
      PAD = "=".ord

      # RFC 4648 Base32, lower case, padded, as the RFC describes it: every 5-byte group (the
      # last one zero-filled) is a 40-bit number written as eight 5-bit digits, of which only
      # the ones that carry input bits are kept and the rest become padding.
      def self.base32_plain(data)
        size = data.bytesize
        # Not String.new(capacity:): see SdesEcb.tr_escape (its keywords are not Ractor-safe on 3.1).
        out = +""
        i = 0
        while i < size
          taken = size - i < 5 ? size - i : 5
          group = 0
          k = 0
          while k < 5
            group = (group << 8) | (k < taken ? data.getbyte(i + k) : 0)
            k += 1
          end
          digits = (taken * 8 + 4) / 5
          k = 0
          while k < 8
            out << (k < digits ? ALPHABET.getbyte((group >> (35 - 5 * k)) & 31) : PAD)
            k += 1
          end
          i += 5
        end
        out
      end

      # The tuned kernel's RFC 4648 Base32, lower case, padded. Ruby has no Base32, and a loop over
      # 5-bit groups (base32_plain) runs at interpreter speed; instead each 5-byte group becomes
      # 8 radix-32 digits of one big integer (hex parsing and to_s(32) are linear in C for
      # power-of-two bases), and `tr` maps Ruby's digit alphabet 0-9a-v onto the RFC's a-z2-7.
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
