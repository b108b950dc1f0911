# frozen_string_literal: true

require "digest"
require_relative "../chunking"
require_relative "parallel_units"
require_relative "sdes_ecb/portable"
require_relative "sdes_ecb/tuned"

module Parbench
  module Workloads
    # sdes-ecb (seed 001): S-DES in ECB mode, one byte per block, over a file loaded into memory.
    class SdesEcb
      PARAMS = { "input" => nil, "key" => 642, "cipher" => "table", "chunk" => 0, "kernel" => "portable" }.freeze
      # The portable kernel is the reference procedure transliterated (SdesPortable); the tuned
      # one the same cipher with straight-line permutations generated from the tables
      # (SdesTuned). Both table ciphers build the reference's 256-entry table with their own
      # encrypt_byte and look every byte up with String#tr, the standard library's call that
      # replaces the lookup loop.
      CIPHER_OF = { "portable" => SdesPortable, "tuned" => SdesTuned }.freeze
      DETAILS = {
        "portable" => { "bitwise" => "reference, transliterated", "table" => "reference, transliterated: String#tr" },
        "tuned" => { "bitwise" => "straight-line bit permutations generated from the spec's tables, S-box indices by masks",
                     "table" => "the tuned cipher's 256-byte table, looked up with String#tr" }
      }.freeze
      KERNELS = { portable: "reference, transliterated: String#tr (table cipher)",
                  tuned: "straight-line bit permutations generated from the spec's tables (a shift-and-mask term per " \
                         "output bit), S-box indices by masks; table cipher: its 256-byte table looked up with String#tr" }.freeze
      MODELS = {
        "seq" => { family: "seq" },
        "fork" => { family: "processes", workers: true,
                    note: "W forked workers (Process.fork, real OS processes) started and reaped inside the timed region; " \
                          "worker w encrypts chunks w, w+W, ... and streams each back over its pipe into the pre-allocated output String",
                    start: { cold: ParallelUnits::FORK_COLD },
                    start_unavailable: { warm: ParallelUnits::FORK_NOT_WARM } },
        "ractor" => { family: "actors", workers: true,
                      note: "W Ractors (each its own OS thread and lock, so they run in parallel) over the frozen (shareable) input, " \
                            "made before the ready line; each repetition sends worker w the key, it encrypts chunks w, w+W, ... " \
                            "and sends each to the main Ractor (Ractor#send, move: true), which copies it into the output",
                      start: { warm: ParallelUnits::RACTOR_WARM },
                      start_unavailable: { cold: ParallelUnits::RACTOR_NOT_COLD } }
      }.freeze
      CIPHERS = %w[bitwise table].freeze
      CHUNK_CAP = 1 << 20

      def initialize(model:, workers:, input:, key:, cipher:, chunk:, kernel: "portable")
        raise BadArguments, "--cipher must be one of #{CIPHERS.join(', ')}, got '#{cipher}'" unless CIPHERS.include?(cipher)
        SdesEcb.check_key(key, "--key")
        raise BadArguments, "--chunk must not be negative" if chunk.negative?

        @kernel = Protocol.check_kernel(KERNELS, kernel)
        @model = model
        @workers = workers
        @base_key = @key = key
        @cipher = cipher
        @plaintext = File.binread(input).freeze
        # Allocated and written once (so its pages are faulted in) before the first repetition;
        # every repetition, and the ceiling, write into this same String.
        @ciphertext = "\0".b * @plaintext.bytesize
        @chunk = Chunking.chunk_size(total: @plaintext.bytesize, workers: workers, cap: CHUNK_CAP, override: chunk)
        @chunks = Chunking.ranges(@plaintext.bytesize, @chunk)
      rescue Errno::ENOENT, Errno::EACCES => e
        raise BadArguments, "--input cannot be read: #{e.message}"
      end

      def self.check_key(key, what)
        raise BadArguments, "#{what} must be a 10-bit key (0..1023), got #{key}" unless (0..1023).cover?(key)
      end

      def self.check_variant(variant)
        check_key(variant, "a variant (the key)")
      end

      def extra
        fields = { kernel: @kernel, kernel_detail: DETAILS[@kernel][@cipher] }
        @model == "seq" ? fields : fields.merge(workers: @workers, chunk: @chunk, chunks: @chunks.size)
      end

      # A variant is the repetition's key (protocol 2): its ciphertext is this repetition's own.
      def prepare(variant)
        @key = variant || @base_key
      end

      # The warm start (protocol 3, the ractor model): W Ractors, each holding its stripe of the
      # chunks, made before the ready line; every repetition and ceiling is a message to each.
      def start_workers
        stripes = Chunking.stripes(@chunks, @workers)
        @warm_ractors = stripes.each_with_index.map do |ranges, w|
          Ractor.new(Ractor.current, w, @plaintext, ranges) do |parent, index, plaintext, my_ranges|
            ParallelUnits.serve { |job| SdesEcb.encrypt_stripe(parent, index, plaintext, my_ranges, job) }
          end
        end
      end

      def stop_workers
        ParallelUnits.stop_ractors(@warm_ractors) if @warm_ractors
      end

      def run
        busy = @model == "seq" ? nil : []
        workers_used = encrypt_with(@cipher, busy)
        Outcome.new(items: @plaintext.bytesize, checksum: -> { ::Digest::SHA256.hexdigest(@ciphertext) },
                    extra: workers_used ? { workers_used: workers_used } : {}, busy: busy,
                    ceiling: -> { Protocol.time_ceiling("copy") { encrypt_with("copy", nil) } })
      end

      # Runs the model with the writer `form` (a cipher, or "copy" for the ceiling); returns
      # how many workers delivered a chunk (nil for seq); workers' busy intervals go to `busy`.
      def encrypt_with(form, busy)
        case @model
        when "seq" then run_sequential(form)
        when "fork" then run_forked(form, busy)
        when "ractor" then run_ractors(form, busy)
        end
      end

      def run_sequential(form)
        SdesEcb.writer(form, @key, @kernel).whole(@plaintext, @ciphertext)
        nil
      end

      def run_forked(form, busy)
        stripes = Chunking.stripes(@chunks, @workers)
        key = @key
        workers = ParallelUnits.fork_workers(@workers) do |w, channel|
          writer = SdesEcb.writer(form, key, @kernel)
          stripes[w].each { |range| channel.send_message(writer.piece(@plaintext, range)) }
        end
        assembly = Assembly.new(@ciphertext, stripes)
        ParallelUnits.each_message(workers, busy: busy) { |worker, piece| assembly.place(worker.index, worker.pid, piece) }
        assembly.workers_used
      end

      # Each message names its place in the worker's stripe, so the assembly does not rely on
      # the order the main Ractor's queue hands them over in.
      def run_ractors(form, busy)
        assembly = Assembly.new(@ciphertext, Chunking.stripes(@chunks, @workers))
        ParallelUnits.run_round(@warm_ractors, [form, @key, @kernel].freeze, busy: busy) do |w, k, piece|
          assembly.place(w, @warm_ractors[w], piece, k)
        end
        assembly.workers_used
      end

      # In a Ractor: one job ([form, key, kernel]) over the Ractor's stripe, each piece sent to
      # `parent` tagged with its place in the stripe.
      def self.encrypt_stripe(parent, index, plaintext, ranges, job)
        form, key, kernel = job
        ParallelUnits.ractor_worker(parent, index) do |deliver|
          writer = SdesEcb.writer(form, key, kernel)
          ranges.each_with_index { |range, k| deliver.call(k, writer.piece(plaintext, range)) }
        end
      end

      # Puts each worker's pieces where they belong: the k-th chunk of the worker's stripe, or
      # (a forked worker's pipe keeps their order) the next one.
      class Assembly
        def initialize(output, stripes)
          @output = output
          @stripes = stripes
          @next_chunk = Array.new(stripes.size, 0)
          @delivered_by = {}
        end

        # String#[]= with a range of the piece's own length copies it in place (no reallocation).
        def place(worker_index, worker, piece, position = nil)
          position ||= @next_chunk[worker_index]
          @next_chunk[worker_index] += 1
          range = @stripes[worker_index][position]
          raise "worker #{worker_index} sent #{piece.bytesize} bytes for a chunk of #{range.size}" unless piece.bytesize == range.size

          @output[range] = piece
          @delivered_by[worker] = true
        end

        def workers_used
          @delivered_by.size
        end
      end

      # ---- What a model writes: the two S-DES forms, and the plain copy its ceiling times ----
      # `whole` writes the result for all of `plaintext` into `out` (the same size) in place;
      # `piece` returns one chunk's result as a String a worker can send back.

      def self.writer(form, key, kernel)
        case form
        when "table" then TableCipher.new(CIPHER_OF.fetch(kernel).table(key))
        when "bitwise" then BitwiseCipher.new(CIPHER_OF.fetch(kernel), key)
        when "copy" then PlainCopy.new
        end
      end

      # The reference's table cipher: String#tr maps every byte through the key's 256-byte table
      # in C, the standard library's call in place of the loop `output[i] = table[input[i]]`.
      class TableCipher
        def initialize(table)
          @from = SdesEcb.tr_escape(ALL_BYTES)
          @to = SdesEcb.tr_escape(table)
        end

        # Copy, then translate in place: tr! is tr's own loop without its new String.
        def whole(plaintext, out)
          out[0, plaintext.bytesize] = plaintext
          out.tr!(@from, @to)
          out
        end

        def piece(plaintext, range)
          plaintext.byteslice(range).tr(@from, @to)
        end
      end

      # Every byte through the permutations and both Feistel rounds (the seed's CPU-heavy form),
      # with the kernel's encrypt_byte (SdesPortable's or SdesTuned's).
      class BitwiseCipher
        def initialize(cipher, key)
          @cipher = cipher
          @k1, @k2 = cipher.subkeys(key)
        end

        def whole(plaintext, out)
          write(plaintext, 0...plaintext.bytesize, out)
        end

        def piece(plaintext, range)
          write(plaintext, range, "\0".b * range.size)
        end

        # output[i] = encrypt_byte(k1, k2, input[i]) for each byte of the range.
        def write(plaintext, range, out)
          first = range.begin
          count = range.size
          i = 0
          while i < count
            out.setbyte(i, @cipher.encrypt_byte(@k1, @k2, plaintext.getbyte(first + i)))
            i += 1
          end
          out
        end
      end

      # The copy ceiling: the fastest plain copy. A piece is a substring sharing the input's
      # bytes, so its one copy is the way back to the parent (the pipe, or the main Ractor's []=).
      class PlainCopy
        def whole(plaintext, out)
          out[0, plaintext.bytesize] = plaintext
          out
        end

        def piece(plaintext, range)
          plaintext.byteslice(range)
        end
      end

      ALL_BYTES = Ractor.make_shareable((0..255).to_a.pack("C*"))

      # tr's own syntax gives ^ - \ a meaning: each is escaped with a backslash. This runs in
      # every Ractor, and two Ruby 3.1 calls are not safe there: a gsub (one Regexp literal
      # matched from two Ractors at once races on its compiled pattern: re.c swaps it for one
      # of the string's encoding and frees the old one, "double free or corruption" now and
      # then) and String.new(capacity:, encoding:) (string.c looks its keyword names up in a
      # static table filled lazily, unlocked: "unknown keyword: :capacity" now and then).
      def self.tr_escape(bytes)
        escaped = "".b
        bytes.each_byte do |byte|
          escaped << 0x5C if byte == 0x5E || byte == 0x2D || byte == 0x5C
          escaped << byte
        end
        escaped
      end
    end
  end
end
