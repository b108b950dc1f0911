# frozen_string_literal: true

require "test_helper"
require "digest"

class SdesEcbTest < Minitest::Test
  include ProtocolRunner
  Sdes = Parbench::Workloads::SdesEcb
  # The portable kernel (the reference procedure) and the tuned one, each held to the spec's vectors.
  KERNELS = { "portable" => Parbench::Workloads::SdesPortable, "tuned" => Parbench::Workloads::SdesTuned }.freeze

  def encrypt(cipher, key, plain)
    k1, k2 = cipher.subkeys(key.to_i(2))
    format("%08b", cipher.encrypt_byte(k1, k2, plain.to_i(2)))
  end

  KERNELS.each do |kernel, cipher|
    define_method("test_#{kernel}_key_1010000010_gives_k1_10100100_and_k2_01000011") do
      assert_equal [0b10100100, 0b01000011], cipher.subkeys(0b1010000010)
    end

    [%w[0000000000 10101010 00010001], %w[1110001110 10101010 11001010], %w[1110001110 01010101 01110000],
     %w[1111111111 10101010 00000100], %w[1010000010 10010111 00111000], %w[1010000010 00000011 11010000]].each do |key, plain, ciphertext|
      define_method("test_#{kernel}_key_#{key}_encrypts_#{plain}_to_#{ciphertext}") do
        assert_equal ciphertext, encrypt(cipher, key, plain)
      end
    end

    define_method("test_#{kernel}_decryption_swaps_the_subkeys") do
      k1, k2 = cipher.subkeys(642)
      assert_equal (0..255).to_a, (0..255).map { |b| cipher.encrypt_byte(k2, k1, cipher.encrypt_byte(k1, k2, b)) }
    end

    define_method("test_#{kernel}_table_of_key_642") do
      expected = File.read(File.join(__dir__, "sdes_table_642.hex")).strip
      assert_equal expected, cipher.table(642).unpack1("H*")
    end
  end

  # The reference's S-box lookup: row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input.
  def test_portable_sbox_reads_row_from_the_outer_bits_and_column_from_the_inner_ones
    box = Parbench::Workloads::SdesPortable::S0
    assert_equal [box[0][0], box[2][0], box[0][1], box[1][3]],
                 [0b0000, 0b1000, 0b0010, 0b0111].map { |bits| Parbench::Workloads::SdesPortable.sbox(box, bits) }
  end

  FOX = "The quick brown fox jumps over the lazy dog\n"
  FOX_SHA256 = "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf"

  def test_quick_brown_fox_under_key_642_in_both_ciphers_whole_and_in_pieces
    %w[bitwise table].each do |form|
      writer = Sdes.writer(form, 642, "portable")
      whole = writer.whole(FOX, "\0".b * FOX.bytesize)
      pieces = Parbench::Chunking.ranges(FOX.bytesize, 10).map { |range| writer.piece(FOX, range) }.join
      assert_equal [FOX_SHA256, FOX_SHA256], [whole, pieces].map { |text| ::Digest::SHA256.hexdigest(text) }, form
    end
  end

  # The ceiling's copy overwrites the output buffer: the checksum must be taken before it.
  def test_every_model_reports_the_fox_checksum_and_a_copy_ceiling
    with_input(FOX) do |path|
      %w[seq fork ractor].product(%w[bitwise table]).each do |model, cipher|
        line = protocol_lines("sdes-ecb", "--model", model, "--input", path, "--cipher", cipher, *workers_args(model, 2)).first
        assert_equal FOX_SHA256, line["checksum"], "#{model} #{cipher}"
        assert_equal "copy", line["extra"]["ceiling"]
        assert_operator line["extra"]["ceiling_ns"], :>, 0
      end
    end
  end

  # 1 MiB (the smoke size) on 2 workers: chunk 512 KiB, one chunk each, so both must deliver.
  def test_parallel_models_use_every_worker_at_the_smoke_size
    with_input(Random.new(3).bytes(1 << 20)) do |path|
      %w[fork ractor].each do |model|
        extra = protocol_lines("sdes-ecb", "--model", model, "--input", path, "--workers", 2).first["extra"]
        assert_equal({ "workers" => 2, "chunk" => 1 << 19, "chunks" => 2, "workers_used" => 2 },
                     extra.slice("workers", "chunk", "chunks", "workers_used"), model)
      end
    end
  end

  def test_chunk_override_is_used_and_reported
    with_input(Random.new(4).bytes(1000)) do |path|
      extra = protocol_lines("sdes-ecb", "--model", "fork", "--input", path, "--workers", 3, "--chunk", 300).first["extra"]
      assert_equal({ "chunk" => 300, "chunks" => 4, "workers_used" => 3 }, extra.slice("chunk", "chunks", "workers_used"))
    end
  end

  def test_no_forked_worker_or_ractor_outlives_a_repetition
    with_input(Random.new(5).bytes(4096)) do |path|
      %w[fork ractor].each do |model|
        protocol_lines("sdes-ecb", "--model", model, "--input", path, "--workers", 3, "--chunk", 100)
        assert_no_worker_left(model)
      end
    end
  end

  def test_the_output_buffer_is_allocated_once_and_reused
    with_input(Random.new(6).bytes(5000)) do |path|
      workload = Sdes.new(model: "seq", workers: 1, input: path, key: 642, cipher: "table", chunk: 0)
      buffer = workload.instance_variable_get(:@ciphertext)
      first = workload.run.checksum.call
      assert_equal first, workload.run.checksum.call
      assert_same buffer, workload.instance_variable_get(:@ciphertext)
    end
  end

  # Protocol 2: repetition j encrypts under variants[j]; each line's checksum is its own key's.
  def test_each_repetition_encrypts_under_its_variant_key
    with_input(FOX) do |path|
      wanted = [1023, 642, 5].map { |key| checksum_of("sdes-ecb", "--model", "seq", "--input", path, "--key", key) }
      %w[seq fork ractor].product(%w[bitwise table]).each do |model, cipher|
        lines = protocol_lines("sdes-ecb", "--model", model, "--input", path, "--cipher", cipher,
                               *workers_args(model, 2), variants: [1023, 642, 5])
        assert_equal wanted, lines.map { |line| line["checksum"] }, "#{model} #{cipher}"
        assert_equal [0, 1, 2], lines.map { |line| line["rep"] }
      end
      assert_equal FOX_SHA256, wanted[1]
    end
  end

  def test_a_variant_key_outside_10_bits_is_exit_2
    with_input(FOX) do |path|
      code = nil
      capture_io do
        code = Parbench::Protocol.main(["sdes-ecb", "--model", "seq", "--input", path],
                                       workloads: Parbench::WORKLOADS, description: Parbench.description,
                                       variants: StringIO.new("1024\n"))
      end
      assert_equal 2, code
    end
  end

  def test_lines_name_the_kernel_that_ran_and_both_give_the_fox
    with_input(FOX) do |path|
      KERNELS.each_key.to_a.product(%w[bitwise table], %w[seq fork ractor]).each do |kernel, cipher, model|
        line = protocol_lines("sdes-ecb", "--model", model, "--input", path, "--cipher", cipher, "--kernel", kernel,
                              *workers_args(model, 2)).first
        assert_equal [kernel, Sdes::DETAILS[kernel][cipher]], line["extra"].values_at("kernel", "kernel_detail")
        assert_equal FOX_SHA256, line["checksum"], "#{kernel} #{cipher} #{model}"
      end
      assert_equal "reference, transliterated", Sdes::DETAILS["portable"]["bitwise"]
      assert_raises(Parbench::BadArguments) { Sdes.new(model: "seq", workers: 1, input: path, key: 642, cipher: "table", chunk: 0, kernel: "fast") }
    end
  end

  def test_parallel_models_report_each_workers_busy_interval
    with_input(Random.new(8).bytes(3000)) do |path|
      %w[fork ractor].each do |model|
        line = protocol_lines("sdes-ecb", "--model", model, "--input", path, "--cipher", "bitwise", "--workers", 3).first
        busy = line["extra"]["busy"]
        assert_equal [0, 1, 2], busy.map(&:first), model
        assert(busy.all? { |_, first, last| first.between?(0, last) && last <= line["ns"] }, "#{model}: #{busy}")
      end
    end
  end

  # tr's escapes, made without a Regexp (Regexps are not safe across Ractors on Ruby 3.1).
  def test_tr_escape_escapes_exactly_caret_dash_and_backslash
    escaped = Sdes.tr_escape(Sdes::ALL_BYTES)
    assert_equal 259, escaped.bytesize
    assert_equal Sdes::ALL_BYTES, escaped.gsub(/\\(.)/mn, '\1')
    assert_equal Sdes::ALL_BYTES, Sdes::ALL_BYTES.tr(escaped, escaped)
  end

  # The Ractor model once lost a message now and then (Ractor.yield + Ractor.select on Ruby
  # 3.1) and crashed on a shared Regexp: many small chunks over many repetitions catch either.
  def test_ractor_table_stays_right_over_many_repetitions_of_small_chunks
    with_input("1234567890\nhogehoge\n私の名前はmorimorikochanです\nDiggy-mo!!!\n") do |path|
      wanted = checksum_of("sdes-ecb", "--model", "seq", "--input", path, "--cipher", "table")
      lines = protocol_lines("sdes-ecb", "--model", "ractor", "--input", path, "--cipher", "table", "--chunk", 7,
                             "--workers", 2, variants: [642] * 60)
      assert_equal [wanted], lines.map { |line| line["checksum"] }.uniq
    end
  end

  def with_input(bytes)
    Dir.mktmpdir do |dir|
      path = File.join(dir, "input.bin")
      File.binwrite(path, bytes)
      yield path
    end
  end

  def workers_args(model, workers)
    model == "seq" ? [] : ["--workers", workers]
  end

  def test_the_seed_article_text_encrypts_alike_in_every_model_and_cipher
    Dir.mktmpdir do |dir|
      path = File.join(dir, "seed.txt")
      File.write(path, "1234567890\nhogehoge\n私の名前はmorimorikochanです\nDiggy-mo!!!\n")
      sums = %w[seq fork ractor].product(%w[bitwise table]).map do |model, cipher|
        checksum_of("sdes-ecb", "--model", model, "--input", path, "--cipher", cipher, *(model == "seq" ? [] : ["--chunk", 7]))
      end
      assert_equal 1, sums.uniq.size, sums.inspect
    end
  end

  def test_models_agree_for_arbitrary_params
    Dir.mktmpdir do |dir|
      path = File.join(dir, "random.bin")
      File.binwrite(path, Random.new(5).bytes(5003))
      [[1, 0, 2], [1023, 999, 3], [642, 64, 2]].each do |key, chunk, workers|
        sums = %w[seq fork ractor].product(%w[bitwise table]).map do |model, cipher|
          args = model == "seq" ? [] : ["--chunk", chunk, "--workers", workers]
          checksum_of("sdes-ecb", "--model", model, "--input", path, "--key", key, "--cipher", cipher, *args)
        end
        assert_equal 1, sums.uniq.size, "key #{key} chunk #{chunk}: #{sums}"
      end
    end
  end
end
