# frozen_string_literal: true

require_relative "portable"

module Parbench
  module Workloads
    # The tuned S-DES kernel: each permutation is one straight-line method generated from the
    # spec's table (one shift-and-mask term per output bit, no loop and no block call per bit),
    # and the S-box row and column are picked with hand-derived masks. The same ciphertext as
    # SdesPortable, whose tables it is generated from.
    module SdesTuned
      S0 = SdesPortable::S0
      S1 = SdesPortable::S1

      # def name(value) = (value >> a & m1) | (value << b & m2) | ...: bit k of the output is
      # input position table[k], moved by the difference of the two places.
      def self.define_permutation(name, width, positions)
        last = positions.size - 1
        terms = positions.each_with_index.map do |position, k|
          shift = (width - position) - (last - k)
          moved = shift.negative? ? "(value << #{-shift})" : "(value >> #{shift})"
          "(#{moved} & #{1 << (last - k)})"
        end
        singleton_class.class_eval("def #{name}(value) = #{terms.join(' | ')}", __FILE__, __LINE__)
      end

      define_permutation(:p10, 10, SdesPortable::P10)
      define_permutation(:p8, 10, SdesPortable::P8)
      define_permutation(:ip, 8, SdesPortable::IP)
      define_permutation(:ip_inverse, 8, SdesPortable::IP_INV)
      define_permutation(:expand_permute, 4, SdesPortable::EP)
      define_permutation(:p4, 4, SdesPortable::P4)

      def self.subkeys(key)
        shuffled = p10(key)
        left = rotate5(shuffled >> 5, 1)
        right = rotate5(shuffled & 0x1F, 1)
        k1 = p8((left << 5) | right)
        left = rotate5(left, 2)
        right = rotate5(right, 2)
        [k1, p8((left << 5) | right)]
      end

      def self.rotate5(half, by)
        ((half << by) | (half >> (5 - by))) & 0x1F
      end

      # f_K(L, R) = (L xor F(R, K), R); the S-box row (bits 1 and 4) and column (bits 2 and 3)
      # taken with masks in place.
      def self.feistel(block, subkey)
        mixed = expand_permute(block & 0xF) ^ subkey
        l4 = mixed >> 4
        r4 = mixed & 0xF
        s0 = S0[((l4 >> 2) & 2) | (l4 & 1)][(l4 >> 1) & 3]
        s1 = S1[((r4 >> 2) & 2) | (r4 & 1)][(r4 >> 1) & 3]
        (((block >> 4) ^ p4((s0 << 2) | s1)) << 4) | (block & 0xF)
      end

      # C = IP^-1(f_K2(SW(f_K1(IP(P))))), with SdesPortable's argument order.
      def self.encrypt_byte(k1, k2, plain)
        block = feistel(ip(plain), k1)
        block = ((block & 0xF) << 4) | (block >> 4)
        ip_inverse(feistel(block, k2))
      end

      def self.table(key)
        k1, k2 = subkeys(key)
        (0..255).map { |byte| encrypt_byte(k1, k2, byte) }.pack("C*")
      end
    end
  end
end
