# frozen_string_literal: true

require "test_helper"

# The one chunking rule (docs/workloads/README.md): chunk = min(cap, ceil(total / workers)).
class ChunkingTest < Minitest::Test
  Chunking = Parbench::Chunking
  MIB = 1 << 20

  def test_total_3_on_2_workers_is_chunk_2_in_2_chunks
    chunk = Chunking.chunk_size(total: 3, workers: 2, cap: MIB)
    assert_equal 2, chunk
    assert_equal [0...2, 2...3], Chunking.ranges(3, chunk)
  end

  def test_10_mib_on_2_workers_is_chunk_1_mib_in_10_chunks
    chunk = Chunking.chunk_size(total: 10 * MIB, workers: 2, cap: MIB)
    assert_equal MIB, chunk
    assert_equal 10, Chunking.ranges(10 * MIB, chunk).size
  end

  def test_keygen_cap_is_1024_keys
    assert_equal 1000, Chunking.chunk_size(total: 2000, workers: 2, cap: 1024)
    assert_equal 1024, Chunking.chunk_size(total: 100_000, workers: 2, cap: 1024)
  end

  def test_every_worker_gets_a_chunk_when_there_is_a_unit_each
    [[2, 2], [5, 3], [7, 7], [1000, 16]].each do |total, workers|
      chunks = Chunking.ranges(total, Chunking.chunk_size(total: total, workers: workers, cap: MIB))
      assert_operator chunks.size, :>=, workers, "total #{total} workers #{workers}"
    end
  end

  def test_chunk_override_wins
    assert_equal 7, Chunking.chunk_size(total: 10 * MIB, workers: 2, cap: MIB, override: 7)
  end

  def test_the_chunks_cover_every_unit_once_in_order
    assert_equal (0...1000).to_a, Chunking.ranges(1000, 64).flat_map(&:to_a)
  end

  def test_zero_units_give_no_chunks
    assert_empty Chunking.ranges(0, Chunking.chunk_size(total: 0, workers: 2, cap: MIB))
  end

  def test_stripes_deal_chunks_round_robin
    assert_equal [[:a, :c, :e], [:b, :d]], Chunking.stripes(%i[a b c d e], 2)
    assert_equal [[:a], []], Chunking.stripes([:a], 2)
  end
end
