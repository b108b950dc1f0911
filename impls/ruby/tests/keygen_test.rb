# frozen_string_literal: true

require "test_helper"

class KeygenTest < Minitest::Test
  include ProtocolRunner
  Keygen = Parbench::Workloads::Keygen

  { "" => "", "f" => "my======", "fo" => "mzxq====", "foo" => "mzxw6===", "foob" => "mzxw6yq=",
    "fooba" => "mzxw6ytb", "foobar" => "mzxw6ytboi======" }.each do |plain, encoded|
    define_method("test_base32_lower_of_#{plain.empty? ? 'empty' : plain}_in_both_kernels") do
      assert_equal [encoded, encoded], %w[portable tuned].map { |kernel| Keygen.encode(kernel, plain) }
    end
  end

  def test_1000_bytes_encode_to_1600_chars_without_padding
    data = Random.bytes(1000)
    assert_equal [1600, 1600], %w[portable tuned].map { |kernel| Keygen.encode(kernel, data).size }
  end

  def test_leading_zero_bytes_keep_their_digits
    assert_equal %w[aaaaaaab aaaaaaab], %w[portable tuned].map { |kernel| Keygen.encode(kernel, "\0\0\0\0\1") }
  end

  def test_portable_and_tuned_base32_agree_on_every_length
    random = Random.new(9)
    (0..41).each do |size|
      data = random.bytes(size)
      assert_equal Keygen.base32_plain(data), Keygen.base32_lower(data), "#{size} bytes"
    end
  end

  # Protocol 2's vector: seeded, count 3, bytes 10, seed 1 (given as the variant).
  def test_probes_of_seed_1_in_every_model_and_kernel
    Keygen::MODELS.each_key.to_a.product(%w[portable tuned]).each do |model, kernel|
      line = protocol_lines("keygen", "--model", model, "--count", 3, "--bytes", 10, "--source", "seeded", "--kernel", kernel,
                            "--probes", "0,1,2", *(model == "seq" ? [] : ["--workers", 2]), variants: [1]).first
      assert_equal %w[yfoafcpmfufjcz7m m7wi4znbrxv34xsv lzktf67oukj7qc6j], line["extra"]["probes"], "#{model} #{kernel}"
      assert_equal "d3605c1b2c10e632", line["checksum"], "#{model} #{kernel}"
      assert_equal [kernel, Keygen::KERNELS[kernel.to_sym]], line["extra"].values_at("kernel", "kernel_detail")
    end
  end

  # Key i is key i of the chunking's order, whichever worker made it and whenever it arrived.
  def test_probes_follow_the_chunking_order
    seeded = ->(i) { Keygen.base32_plain(Parbench::Digest.splitmix64_bytes(7, i, 20)) }
    %w[fork ractor].each do |model|
      line = protocol_lines("keygen", "--model", model, "--count", 257, "--bytes", 20, "--source", "seeded", "--seed", 7,
                            "--workers", 3, "--chunk", 10, "--probes", "256,0,100,9,10").first
      assert_equal [256, 0, 100, 9, 10].map(&seeded), line["extra"]["probes"], model
    end
  end

  def test_each_repetition_uses_its_own_seed
    lines = protocol_lines("keygen", "--model", "seq", "--count", 3, "--bytes", 10, "--source", "seeded", "--seed", 1,
                           variants: [5, 1, 5])
    assert_equal "d3605c1b2c10e632", lines[1]["checksum"]
    refute_equal lines[1]["checksum"], lines[0]["checksum"]
    assert_equal lines[0]["checksum"], lines[2]["checksum"]
  end

  def test_seeded_count_3_bytes_10_seed_1
    Keygen::MODELS.each_key do |model|
      assert_equal "d3605c1b2c10e632",
                   checksum_of("keygen", "--model", model, "--count", 3, "--bytes", 10, "--source", "seeded", "--seed", 1), model
    end
  end

  # Strong keys are digested like seeded ones, so a strong checksum differs every repetition.
  def test_strong_checksum_is_the_order_free_digest
    lines = protocol_lines("keygen", "--model", "seq", "--count", 7, "--bytes", 10, "--source", "strong", "--probes", "6",
                           variants: [0, 0])
    assert(lines.all? { |line| line["checksum"].match?(/\A[0-9a-f]{16}\z/) })
    refute_equal lines[0]["checksum"], lines[1]["checksum"]
    assert_match(/\A[a-z2-7]{16}\z/, lines[0]["extra"]["probes"].first)
  end

  def test_parallel_models_report_each_workers_busy_interval
    %w[fork ractor].each do |model|
      line = protocol_lines("keygen", "--model", model, "--count", 40, "--workers", 2).first
      busy = line["extra"]["busy"]
      assert_equal [0, 1], busy.map(&:first), model
      assert(busy.all? { |_, first, last| first.between?(0, last) && last <= line["ns"] }, "#{model}: #{busy}")
    end
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
    assert_equal [[], []], %i[csprng base32].map { |job| Keygen.work(job, 0...5, 10, "strong", 0, "portable") }
  end

  def test_models_agree_for_arbitrary_params
    [[257, 13, 7], [40, 1, 99], [5, 0, 3]].each do |count, bytes, seed|
      args = ["--count", count, "--bytes", bytes, "--source", "seeded", "--seed", seed, "--workers", 3]
      sums = Keygen::MODELS.keys.map { |m| checksum_of("keygen", "--model", m, *(m == "seq" ? args[0..-3] : args)) }
      assert_equal 1, sums.uniq.size, "count #{count} bytes #{bytes}: #{sums}"
    end
  end
end
