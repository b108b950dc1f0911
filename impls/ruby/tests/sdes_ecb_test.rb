# frozen_string_literal: true

require "test_helper"
require "digest"

class SdesEcbTest < Minitest::Test
  include ProtocolRunner
  Sdes = Parbench::Workloads::SdesEcb

  def encrypt(key, plain)
    k1, k2 = Sdes.subkeys(key.to_i(2))
    format("%08b", Sdes.encrypt_byte(plain.to_i(2), k1, k2))
  end

  def test_key_1010000010_gives_k1_10100100_and_k2_01000011
    assert_equal [0b10100100, 0b01000011], Sdes.subkeys(0b1010000010)
  end

  [%w[0000000000 10101010 00010001], %w[1110001110 10101010 11001010], %w[1110001110 01010101 01110000],
   %w[1111111111 10101010 00000100], %w[1010000010 10010111 00111000], %w[1010000010 00000011 11010000]].each do |key, plain, cipher|
    define_method("test_key_#{key}_encrypts_#{plain}_to_#{cipher}") do
      assert_equal cipher, encrypt(key, plain)
    end
  end

  def test_decryption_swaps_the_subkeys
    k1, k2 = Sdes.subkeys(642)
    assert_equal (0..255).to_a, (0..255).map { |b| Sdes.decrypt_byte(Sdes.encrypt_byte(b, k1, k2), k1, k2) }
  end

  def test_table_of_key_642
    expected = File.read(File.join(__dir__, "sdes_table_642.hex")).strip
    assert_equal expected, Sdes.table(642).unpack1("H*")
  end

  def test_quick_brown_fox_under_key_642_in_both_ciphers
    text = "The quick brown fox jumps over the lazy dog\n"
    %w[bitwise table].each do |form|
      assert_equal "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf",
                   Digest::SHA256.hexdigest(Sdes.cipher(642, form).call(text)), form
    end
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
