# frozen_string_literal: true

require "digest"
require_relative "parallel_units"

module Parbench
  module Workloads
    # sdes-ecb (seed 001): S-DES in ECB mode, one byte per block, over a file loaded into memory.
    class SdesEcb
      PARAMS = { "input" => nil, "key" => 642, "cipher" => "table", "chunk" => 0 }.freeze
      MODELS = {
        "seq" => { family: "seq" },
        "fork" => { family: "processes", workers: true,
                    note: "Process.fork per worker; worker w encrypts chunks w, w+W, ... and writes the ciphertext back over a pipe" },
        "ractor" => { family: "actors", workers: true,
                      note: "one Ractor per worker over the frozen (shareable) input; ciphertext chunks moved back" }
      }.freeze
      CIPHERS = %w[bitwise table].freeze

      def initialize(model:, workers:, input:, key:, cipher:, chunk:)
        raise BadArguments, "--cipher must be one of #{CIPHERS.join(', ')}, got '#{cipher}'" unless CIPHERS.include?(cipher)
        raise BadArguments, "--key must be a 10-bit key (0..1023), got #{key}" unless (0..1023).cover?(key)
        raise BadArguments, "--chunk must not be negative" if chunk.negative?

        @model = model
        @workers = workers
        @key = key
        @cipher = cipher
        @plaintext = File.binread(input).freeze
        # The default work unit is one even share per worker: one fork or Ractor each.
        @chunk = chunk.zero? ? [(@plaintext.bytesize + workers - 1) / workers, 1].max : chunk
      rescue Errno::ENOENT, Errno::EACCES => e
        raise BadArguments, "--input cannot be read: #{e.message}"
      end

      def extra
        @model == "seq" ? {} : { workers: @workers, chunk: @chunk }
      end

      def run
        ciphertext = case @model
                     when "seq" then SdesEcb.cipher(@key, @cipher).call(@plaintext)
                     when "fork" then run_forked
                     when "ractor" then run_ractors
                     end
        Outcome.new(items: ciphertext.bytesize, checksum: -> { Digest::SHA256.hexdigest(ciphertext) })
      end

      # Chunk ranges for worker w: w, w + workers, w + 2 * workers, ...
      def chunk_offsets(worker)
        (worker * @chunk).step(@plaintext.bytesize - 1, @chunk * @workers).to_a
      end

      def run_forked
        pieces = ParallelUnits.fork_each(@workers) do |w|
          encrypt = SdesEcb.cipher(@key, @cipher)
          chunk_offsets(w).map { |offset| encrypt.call(@plaintext.byteslice(offset, @chunk)) }
        end
        interleave(pieces)
      end

      def run_ractors
        ractors = Array.new(@workers) do |w|
          Ractor.new(@plaintext, chunk_offsets(w), @chunk, @key, @cipher) do |plaintext, offsets, chunk, key, cipher|
            encrypt = SdesEcb.cipher(key, cipher)
            pieces = offsets.map { |offset| encrypt.call(plaintext.byteslice(offset, chunk)) }
            Ractor.yield(pieces, move: true)
          end
        end
        interleave(ractors.map(&:take))
      end

      # Puts worker-major chunk lists back into file order.
      def interleave(pieces_by_worker)
        out = String.new(capacity: @plaintext.bytesize, encoding: Encoding::BINARY)
        pieces_by_worker.map(&:size).max.to_i.times do |round|
          pieces_by_worker.each { |pieces| out << pieces[round] if pieces[round] }
        end
        out
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

      # Returns a lambda from plaintext to ciphertext; the key schedule (and the table) once per call.
      def self.cipher(key, form)
        k1, k2 = subkeys(key)
        if form == "table"
          # String#tr maps every byte through the 256-byte table in C; ^ - \ are tr syntax, so escaped.
          from = tr_escape(ALL_BYTES)
          to = tr_escape((0..255).map { |byte| encrypt_byte(byte, k1, k2) }.pack("C*"))
          ->(plaintext) { plaintext.b.tr(from, to) }
        else
          ->(plaintext) { plaintext.each_byte.map { |byte| encrypt_byte(byte, k1, k2) }.pack("C*") }
        end
      end

      def self.tr_escape(bytes)
        bytes.b.gsub(/[\^\-\\]/n) { |c| "\\#{c}" }
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
