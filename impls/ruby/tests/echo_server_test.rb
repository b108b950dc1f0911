# frozen_string_literal: true

require_relative "test_helper"
require "open3"
require "securerandom"
require "socket"
require "timeout"

# echo-server (workloads/echo-server.md): each model started as the harness starts it and spoken to
# over real sockets: the vector, random payloads, a bad len, a short request, the wait, the stats
# line, threads per connection, the exit at the end of stdin.
class EchoServerTest < Minitest::Test
  RUN = File.expand_path("../run", __dir__)
  Server = Parbench::Workloads::EchoServer
  MODELS = Server::MODELS.keys

  # One `run echo-server` process, its ready line read.
  class Served
    attr_reader :pid, :port

    def initialize(model, wait_us)
      args = [RUN, "echo-server", "--model", model, "--wait-us", wait_us.to_s]
      args += %w[--workers 2] if Server::MODELS[model][:workers]
      @stdin, @stdout, @thread = Open3.popen2(*args)
      @pid = @thread.pid
      ready = JSON.parse(@stdout.gets)
      raise "no ready line: #{ready}" unless ready["ready"] == "none" && ready["extra"]["model_detail"]

      @port = ready["port"]
    end

    def connect
      TCPSocket.new("127.0.0.1", @port).tap { |s| s.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) }
    end

    def stats(variant)
      @stdin.puts(variant)
      @stdin.flush
      JSON.parse(@stdout.gets)
    end

    # Ends stdin; the exit status within 5 s (nil if it hung, then killed).
    def close
      @stdin.close unless @stdin.closed?
      Timeout.timeout(5) { @thread.value.exitstatus }
    rescue Timeout::Error
      Process.kill("KILL", @pid)
      nil
    end
  end

  def request(id, payload)
    [id, payload.bytesize].pack("NN") + payload
  end

  def reply(id, payload)
    [id, payload.bytesize].pack("NN") + payload.reverse
  end

  # `size` bytes, or fewer at EOF or after `timeout` seconds.
  def read(socket, size, timeout = 20)
    data = +""
    while data.bytesize < size
      break unless socket.wait_readable(timeout)

      chunk = socket.read_nonblock(size - data.bytesize, exception: false)
      break if chunk.nil?

      data << chunk unless chunk == :wait_readable
    end
    data
  end

  def threads(pid)
    Server.os_threads(pid)
  end

  def test_the_reply_is_the_header_then_the_payload_reversed
    assert_equal "\x00\x00\x00\x01\x00\x00\x00\x03cba".b, Server.reply_to("\x00\x00\x00\x01\x00\x00\x00\x03".b, "abc".b)
  end

  MODELS.each do |model|
    define_method("test_#{model}_serves_the_spec_by_its_rules") do
      server = Served.new(model, 2000)
      vector = server.connect
      vector.write("\x00\x00\x00\x01\x00\x00\x00\x03abc".b)
      assert_equal "\x00\x00\x00\x01\x00\x00\x00\x03cba".b, read(vector, 11)
      vector.close

      bad = server.connect
      bad.write([2, 65_537].pack("NN"))
      assert_equal "", read(bad, 100), "a len over 65,536 closes the connection"
      short = server.connect
      short.write([4, 10].pack("NN") + "abc")
      short.close_write
      assert_equal "", read(short, 100), "a short request at EOF gets no reply"
      [bad, short].each(&:close)
      server.stats(0)

      at_once = model == "seq" ? 1 : 6 # in lockstep: no more connections than the model serves at once
      replies = 0
      2.times do
        sockets = Array.new(at_once) { server.connect }
        4.times do |r|
          payloads = sockets.each_index.map { |k| SecureRandom.random_bytes(r * 100 + k) }
          sockets.each_with_index { |s, k| s.write(request(1000 * k + r, payloads[k])) }
          sockets.each_with_index do |s, k|
            assert_equal reply(1000 * k + r, payloads[k]), read(s, 8 + payloads[k].bytesize), model
            replies += 1
          end
        end
        sockets.each(&:close)
      end
      line = server.stats(7)
      assert_equal [7, replies, "served", replies, 2 * at_once],
                   [line["rep"], line["items"], line["checksum"], line["extra"]["replies"], line["extra"]["accepted"]], line.to_s
      assert_equal 0, server.stats(8)["items"], "counted since the line before"

      # wait_us 2,000, 20 connections kept open: a concurrent model answers every one (in reverse
      # order here); seq only the first until it is closed.
      open = Array.new(20) { |k| server.connect.tap { |s| s.write(request(k, "wait")) } }
      served = model == "seq" ? 1 : 20
      (served - 1).downto(0) { |k| assert_equal reply(k, "wait"), read(open[k], 12), "#{model} #{k}" }
      if served < 20
        assert_equal "", read(open[1], 1, 0.3), "seq answered while the first connection stayed open"
        open[0].close
        assert_equal reply(1, "wait"), read(open[1], 12)
      end

      # 40 more connections, one exchange each: a thread per connection, or a handful
      before = threads(server.pid)
      more = model == "seq" ? [] : Array.new(40) { |k| server.connect.tap { |s| s.write(request(k, "t")) } }
      more.each_with_index { |s, k| assert_equal reply(k, "t"), read(s, 9) }
      if model == "threads"
        assert_operator threads(server.pid), :>=, before + 40
      elsif model == "async"
        assert_operator threads(server.pid), :<, before + 3
      end

      assert_equal 0, server.close, "exit 0 at the end of stdin, connections still open"
      (open + more).each { |s| s.close unless s.closed? }
      assert_raises(Errno::ECONNREFUSED) { TCPSocket.new("127.0.0.1", server.port) }
    end
  end

  # wait_us 200,000 on 20 connections: a server that waits for one connection at a time cannot
  # answer the 20th before 20 × 200 ms however fast the machine; these answer all about 200 ms after
  # they were sent (the bound is the serial floor, not a speed).
  %w[threads fork async].each do |model|
    define_method("test_#{model}_overlaps_the_waits_of_20_connections") do
      server = Served.new(model, 200_000)
      started = Protocol.now_ns
      sockets = Array.new(20) { |k| server.connect.tap { |s| s.write(request(k, "overlap")) } }
      sockets.each_with_index { |s, k| assert_equal reply(k, "overlap"), read(s, 15) }
      assert_operator Protocol.now_ns - started, :<, 20 * 200_000_000, "as if one after another"
      sockets.each(&:close)
      assert_equal 0, server.close
    end
  end

  def test_fork_ends_its_workers_with_it
    server = Served.new("fork", 0)
    workers = File.read("/proc/#{server.pid}/task/#{server.pid}/children").split.map(&:to_i)
    assert_equal 2, workers.size
    assert_equal 0, server.close
    assert(workers.none? { |pid| File.exist?("/proc/#{pid}") })
  end

  def test_bad_arguments_exit_2_with_one_line
    [%w[--wait-us 10000001], %w[--port 70000], %w[--workers 2]].each do |args|
      out, err, status = Open3.capture3(RUN, "echo-server", "--model", "seq", *args, stdin_data: "")
      assert_equal [2, "", 1], [status.exitstatus, out, err.lines.size], "#{args}: #{err}"
    end
  end

  Protocol = Parbench::Protocol
end
