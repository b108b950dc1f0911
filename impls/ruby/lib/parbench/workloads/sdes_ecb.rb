# frozen_string_literal: true

require "digest"
require_relative "../chunking"
require_relative "parallel_units"

module Parbench
  module Workloads
    # sdes-ecb (seed 001): S-DES in ECB mode, one byte per block, over a file loaded into memory.
    class SdesEcb
      PARAMS = { "input" => nil, "key" => 642, "cipher" => "table", "chunk" => 0, "kernel" => "portable" }.freeze
      # Both ciphers are plain Ruby and its standard library: there is no tuned kernel.
      DETAILS = {
        "bitwise" => "plain Ruby per byte: P10/P8 key schedule, IP, two Feistel rounds (E/P, S0/S1, P4), IP^-1 " \
                     "as straight-line bit permutations generated from the spec's tables",
        "table" => "the key's 256-byte table (each byte through the bitwise cipher) applied with String#tr"
      }.freeze
      KERNELS = { portable: "bitwise: #{DETAILS['bitwise']}; table: #{DETAILS['table']}" }.freeze
      MODELS = {
        "seq" => { family: "seq" },
        "fork" => { family: "processes", workers: true,
                    note: "W forked workers (Process.fork, real OS processes) started and reaped inside the timed region; " \
                          "worker w encrypts chunks w, w+W, ... and streams each back over its pipe into the pre-allocated output String" },
        "ractor" => { family: "actors", workers: true,
                      note: "W Ractors (each its own OS thread and lock, so they run in parallel) over the frozen (shareable) input, " \
                            "started and ended inside the timed region; worker w encrypts chunks w, w+W, ... and sends each to the " \
                            "main Ractor (Ractor#send, move: true), which copies it into the output" }
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
        check_key(variant, "a --variants key")
      end

      def extra
        fields = { kernel: @kernel, kernel_detail: DETAILS[@cipher] }
        @model == "seq" ? fields : fields.merge(workers: @workers, chunk: @chunk, chunks: @chunks.size)
      end

      # A variant is the repetition's key (protocol 2): its ciphertext is this repetition's own.
      def prepare(variant)
        @key = variant || @base_key
      end

      def run
        busy = @model == "seq" ? nil : []
        workers_used = encrypt_with(@cipher, busy)
        Outcome.new(items: @plaintext.bytesize, checksum: -> { Digest::SHA256.hexdigest(@ciphertext) },
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
        SdesEcb.writer(form, @key).whole(@plaintext, @ciphertext)
        nil
      end

      def run_forked(form, busy)
        stripes = Chunking.stripes(@chunks, @workers)
        key = @key
        workers = ParallelUnits.fork_workers(@workers) do |w, channel|
          writer = SdesEcb.writer(form, key)
          stripes[w].each { |range| channel.send_message(writer.piece(@plaintext, range)) }
        end
        assembly = Assembly.new(@ciphertext, stripes)
        ParallelUnits.each_message(workers, busy: busy) { |worker, piece| assembly.place(worker.index, worker.pid, piece) }
        assembly.workers_used
      end

      # Each message names its place in the worker's stripe, so the assembly does not rely on
      # the order the main Ractor's queue hands them over in.
      def run_ractors(form, busy)
        stripes = Chunking.stripes(@chunks, @workers)
        ractors = stripes.each_with_index.map do |ranges, w|
          Ractor.new(Ractor.current, w, @plaintext, ranges, @key, form) do |parent, index, plaintext, my_ranges, key, writer_form|
            ParallelUnits.ractor_worker(parent, index) do |deliver|
              writer = SdesEcb.writer(writer_form, key)
              my_ranges.each_with_index { |range, k| deliver.call(k, writer.piece(plaintext, range)) }
            end
          end
        end
        assembly = Assembly.new(@ciphertext, stripes)
        ParallelUnits.each_ractor_message(ractors, busy: busy) { |w, k, piece| assembly.place(w, ractors[w], piece, k) }
        assembly.workers_used
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

      def self.writer(form, key)
        case form
        when "table" then TableCipher.new(key)
        when "bitwise" then BitwiseCipher.new(key)
        when "copy" then PlainCopy.new
        end
      end

      # String#tr maps every byte through the key's 256-byte table in C.
      class TableCipher
        def initialize(key)
          @from = SdesEcb.tr_escape(ALL_BYTES)
          @to = SdesEcb.tr_escape(SdesEcb.table(key))
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

      # Every byte through the permutations and both Feistel rounds (the seed's CPU-heavy form).
      class BitwiseCipher
        def initialize(key)
          @k1, @k2 = SdesEcb.subkeys(key)
        end

        def whole(plaintext, out)
          write(plaintext, 0...plaintext.bytesize, out)
        end

        def piece(plaintext, range)
          write(plaintext, range, "\0".b * range.size)
        end

        # A while loop with setbyte: a block call per byte would cost more than the byte's rounds.
        def write(plaintext, range, out)
          k1 = @k1
          k2 = @k2
          first = range.begin
          count = range.size
          i = 0
          while i < count
            out.setbyte(i, SdesEcb.encrypt_byte(plaintext.getbyte(first + i), k1, k2))
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

      # ---- S-DES (Stallings; bit 1 is the most significant) ----
      # Constants are made deeply shareable so Ractors may read them (seed 002's "make_shareable").

      P10 = Ractor.make_shareable([3, 5, 2, 7, 4, 10, 1, 9, 8, 6])
      P8 = Ractor.make_shareable([6, 3, 7, 4, 8, 5, 10, 9])
      IP = Ractor.make_shareable([2, 6, 3, 1, 4, 8, 5, 7])
      IP_INVERSE = Ractor.make_shareable([4, 1, 3, 5, 7, 2, 8, 6])
      EXPAND_PERMUTE = Ractor.make_shareable([4, 1, 2, 3, 2, 3, 4, 1])
      P4 = Ractor.make_shareable([2, 4, 3, 1])
      S0 = Ractor.make_shareable([[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]])
      S1 = Ractor.make_shareable([[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]])
      ALL_BYTES = Ractor.make_shareable((0..255).to_a.pack("C*"))

      # Each permutation becomes one straight-line method generated from its table: a loop over
      # the positions costs several block calls per bit, and the bitwise form runs per byte.
      def self.define_permutation(name, width, positions)
        last = positions.size - 1
        terms = positions.each_with_index.map do |position, k|
          shift = (width - position) - (last - k)
          moved = shift.negative? ? "(value << #{-shift})" : "(value >> #{shift})"
          "(#{moved} & #{1 << (last - k)})"
        end
        singleton_class.class_eval("def #{name}(value) = #{terms.join(' | ')}", __FILE__, __LINE__)
      end

      define_permutation(:p10, 10, P10)
      define_permutation(:p8, 10, P8)
      define_permutation(:ip, 8, IP)
      define_permutation(:ip_inverse, 8, IP_INVERSE)
      define_permutation(:expand_permute, 4, EXPAND_PERMUTE)
      define_permutation(:p4, 4, P4)

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

      def self.table(key)
        k1, k2 = subkeys(key)
        (0..255).map { |byte| encrypt_byte(byte, k1, k2) }.pack("C*")
      end

      # C = IP^-1(f_K2(SW(f_K1(IP(P)))))
      def self.encrypt_byte(plain, k1, k2)
        block = feistel(ip(plain), k1)
        block = ((block & 0xF) << 4) | (block >> 4)
        ip_inverse(feistel(block, k2))
      end

      def self.decrypt_byte(cipher, k1, k2)
        encrypt_byte(cipher, k2, k1)
      end

      def self.subkeys(key)
        shuffled = p10(key)
        left = rotate5(shuffled >> 5, 1)
        right = rotate5(shuffled & 0x1F, 1)
        k1 = p8((left << 5) | right)
        left = rotate5(left, 2)
        right = rotate5(right, 2)
        [k1, p8((left << 5) | right)]
      end

      # f_K(L, R) = (L xor F(R, K), R); S-box row = bits 1 and 4, column = bits 2 and 3.
      def self.feistel(block, subkey)
        mixed = expand_permute(block & 0xF) ^ subkey
        l4 = mixed >> 4
        r4 = mixed & 0xF
        s0 = S0[((l4 >> 2) & 2) | (l4 & 1)][(l4 >> 1) & 3]
        s1 = S1[((r4 >> 2) & 2) | (r4 & 1)][(r4 >> 1) & 3]
        (((block >> 4) ^ p4((s0 << 2) | s1)) << 4) | (block & 0xF)
      end

      def self.rotate5(half, by)
        ((half << by) | (half >> (5 - by))) & 0x1F
      end
    end
  end
end
