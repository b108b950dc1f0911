# frozen_string_literal: true

module Parbench
  module Workloads
    # The portable S-DES kernel: the reference procedure of docs/workloads/sdes-ecb.md,
    # transliterated: the spec's tables as Arrays of positions looped over by `permute`, the
    # S-boxes as 4x4 Arrays, in the reference's order of operations. The constants are deeply
    # frozen (Ractor.make_shareable) so that Ractors may read them.
    module SdesPortable
      P10 = Ractor.make_shareable([3, 5, 2, 7, 4, 10, 1, 9, 8, 6])
      P8 = Ractor.make_shareable([6, 3, 7, 4, 8, 5, 10, 9])
      IP = Ractor.make_shareable([2, 6, 3, 1, 4, 8, 5, 7])
      IP_INV = Ractor.make_shareable([4, 1, 3, 5, 7, 2, 8, 6])
      EP = Ractor.make_shareable([4, 1, 2, 3, 2, 3, 4, 1])
      P4 = Ractor.make_shareable([2, 4, 3, 1])
      S0 = Ractor.make_shareable([[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]])
      S1 = Ractor.make_shareable([[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]])

      module_function

      # The table's positions count from 1 = the most significant of `width` bits.
      def permute(value, width, table)
        out = 0
        table.each { |position| out = (out << 1) | ((value >> (width - position)) & 1) }
        out
      end

      # A left rotation of a 5-bit half.
      def rotate5(half, by)
        ((half << by) | (half >> (5 - by))) & 0b11111
      end

      def subkeys(key)
        p10 = permute(key, 10, P10)
        left = rotate5(p10 >> 5, 1)
        right = rotate5(p10 & 0b11111, 1)
        k1 = permute((left << 5) | right, 10, P8)
        left = rotate5(left, 2)
        right = rotate5(right, 2)
        k2 = permute((left << 5) | right, 10, P8)
        [k1, k2]
      end

      # row = bits 1 and 4, column = bits 2 and 3.
      def sbox(box, bits4)
        row = (((bits4 >> 3) & 1) << 1) | (bits4 & 1)
        column = (bits4 >> 1) & 0b11
        box[row][column]
      end

      # block: 8 bits, left = the high 4, right = the low 4.
      def f_k(block, subkey)
        left = block >> 4
        right = block & 0xF
        mixed = permute(right, 4, EP) ^ subkey
        s = (sbox(S0, mixed >> 4) << 2) | sbox(S1, mixed & 0xF)
        ((left ^ permute(s, 4, P4)) << 4) | right
      end

      def encrypt_byte(k1, k2, plain)
        block = f_k(permute(plain, 8, IP), k1)
        swapped = ((block & 0xF) << 4) | (block >> 4)
        permute(f_k(swapped, k2), 8, IP_INV)
      end

      # The table cipher's 256 entries, packed into a String: the form String#tr looks them up in.
      def table(key)
        k1, k2 = subkeys(key)
        (0..255).map { |b| encrypt_byte(k1, k2, b) }.pack("C*")
      end
    end
  end
end
