# frozen_string_literal: true

require "test_helper"

class DigestTest < Minitest::Test
  include Parbench

  def test_fnv1a64_of_empty_string
    assert_equal 0xcbf29ce484222325, Digest.fnv1a64("")
  end

  def test_fnv1a64_of_a
    assert_equal 0xaf63dc4c8601ec8c, Digest.fnv1a64("a")
  end

  def test_splitmix64_bytes_seed_1_index_0_16_bytes
    assert_equal "c15c0289ec2d0a9167ec8e65a18debbe", Digest.splitmix64_bytes(1, 0, 16).unpack1("H*")
  end

  def test_order_free_digest_ignores_order
    assert_equal Digest::OrderFree.of(%w[x y z]).to_s, Digest::OrderFree.of(%w[z x y]).to_s
  end
end
