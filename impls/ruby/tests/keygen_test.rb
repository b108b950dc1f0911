# frozen_string_literal: true

require "test_helper"

class KeygenTest < Minitest::Test
  include ProtocolRunner
  Keygen = Parbench::Workloads::Keygen

  { "" => "", "f" => "my======", "fo" => "mzxq====", "foo" => "mzxw6===", "foob" => "mzxw6yq=",
    "fooba" => "mzxw6ytb", "foobar" => "mzxw6ytboi======" }.each do |plain, encoded|
    define_method("test_base32_lower_of_#{plain.empty? ? 'empty' : plain}") do
      assert_equal encoded, Keygen.base32_lower(plain)
    end
  end

  def test_1000_bytes_encode_to_1600_chars_without_padding
    assert_equal 1600, Keygen.base32_lower(Random.bytes(1000)).size
  end

  def test_leading_zero_bytes_keep_their_digits
    assert_equal "aaaaaaab", Keygen.base32_lower("\0\0\0\0\1")
  end

  def test_seeded_count_3_bytes_10_seed_1
    Keygen::MODELS.each_key do |model|
      assert_equal "d3605c1b2c10e632",
                   checksum_of("keygen", "--model", model, "--count", 3, "--bytes", 10, "--source", "seeded", "--seed", 1), model
    end
  end

  def test_strong_checksum_is_count_and_total_chars
    assert_equal "7:112", checksum_of("keygen", "--model", "seq", "--count", 7, "--bytes", 10, "--source", "strong")
  end

  # The smoke size on 2 workers: chunk 1000 keys, one chunk each, so both must deliver.
  def test_parallel_models_use_every_worker_at_the_smoke_size
    %w[fork ractor].each do |model|
      extra = protocol_lines("keygen", "--model", model, "--count", 2000, "--workers", 2).first["extra"]
      assert_equal({ "workers" => 2, "chunk" => 1000, "chunks" => 2, "workers_used" => 2 },
                   extra.slice("workers", "chunk", "chunks", "workers_used"), model)
      assert_no_worker_left(model)
    end
  end

  def test_chunk_override_is_used_and_reported
    extra = protocol_lines("keygen", "--model", "fork", "--count", 10, "--workers", 2, "--chunk", 3).first["extra"]
    assert_equal({ "chunk" => 3, "chunks" => 4, "workers_used" => 2 }, extra.slice("chunk", "chunks", "workers_used"))
  end

  def test_every_model_reports_the_csprng_and_base32_ceiling
    Keygen::MODELS.each_key do |model|
      extra = protocol_lines("keygen", "--model", model, "--count", 20, *(model == "seq" ? [] : ["--workers", 2])).first["extra"]
      assert_equal "csprng+base32", extra["ceiling"], model
      assert(extra.values_at("csprng_ns", "base32_ns").all?(&:positive?), model)
      assert_equal extra["csprng_ns"] + extra["base32_ns"], extra["ceiling_ns"], model
    end
  end

  def test_the_ceiling_jobs_keep_nothing
    assert_equal [[], []], %i[csprng base32].map { |job| Keygen.work(job, 0...5, 10, "strong", 0) }
  end

  def test_models_agree_for_arbitrary_params
    [[257, 13, 7], [40, 1, 99], [5, 0, 3]].each do |count, bytes, seed|
      args = ["--count", count, "--bytes", bytes, "--source", "seeded", "--seed", seed, "--workers", 3]
      sums = Keygen::MODELS.keys.map { |m| checksum_of("keygen", "--model", m, *(m == "seq" ? args[0..-3] : args)) }
      assert_equal 1, sums.uniq.size, "count #{count} bytes #{bytes}: #{sums}"
    end
  end
end
