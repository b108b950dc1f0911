# frozen_string_literal: true

module Parbench
  # The checksum helpers every workload shares (workloads/README.md): FNV-1a 64, the order-free
  # digest and SplitMix64 bytes.
  module Digest
    MASK64 = 0xFFFF_FFFF_FFFF_FFFF
    MASK32 = 0xFFFF_FFFF
    GOLDEN_GAMMA = 0x9E37_79B9_7F4A_7C15

    module_function

    # FNV-1a 64 kept in two 32-bit halves: the prime is 2^40 + 0x1b3, so every partial product
    # fits a Fixnum and the loop never allocates a Bignum (about 4x faster than the plain form).
    def fnv1a64_halves(string)
      high = 0xCBF2_9CE4
      low = 0x8422_2325
      string.each_byte do |byte|
        low ^= byte
        low_product = low * 0x1B3
        high = (high * 0x1B3 + (low << 8) + (low_product >> 32)) & MASK32
        low = low_product & MASK32
      end
      [high, low]
    end

    def fnv1a64(string)
      high, low = fnv1a64_halves(string)
      (high << 32) | low
    end

    def splitmix64_bytes(seed, index, count)
      state = (seed + index * GOLDEN_GAMMA) & MASK64
      words = Array.new((count + 7) / 8) do
        state = (state + GOLDEN_GAMMA) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & MASK64
        z ^ (z >> 31)
      end
      words.pack("Q<*").byteslice(0, count)
    end

    # Sum mod 2^64 of fnv1a64 over a set of strings; one per worker, merged at the end, so the
    # result does not depend on the order items finish in.
    class OrderFree
      attr_reader :high_sum, :low_sum

      def initialize(high_sum = 0, low_sum = 0)
        @high_sum = high_sum
        @low_sum = low_sum
      end

      def add(string)
        high, low = Digest.fnv1a64_halves(string)
        @high_sum += high
        @low_sum += low
        self
      end

      def merge(other)
        OrderFree.new(@high_sum + other.high_sum, @low_sum + other.low_sum)
      end

      def value
        ((@high_sum << 32) + @low_sum) & MASK64
      end

      def to_s
        format("%016x", value)
      end

      def self.of(strings)
        strings.each_with_object(new) { |string, digest| digest.add(string) }
      end
    end
  end
end
