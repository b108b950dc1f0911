# frozen_string_literal: true

require "etc"
require "io/wait"
require "json"
require "socket"

module Parbench
  module Workloads
    # echo-server (workloads/echo-server.md): a TCP server on 127.0.0.1 that answers each request
    # with its payload reversed after wait_us µs, in seq, threads, pre-forked processes or on the
    # async gem's Fiber scheduler. It is served, not timed: the conversation is docs/protocol.md's.
    class EchoServer
      PARAMS = { "wait_us" => 0, "port" => 0 }.freeze
      MAX_PAYLOAD = 65_536
      MAX_WAIT_US = 10_000_000
      BACKLOG = 4096 # the kernel caps it at net.core.somaxconn
      # A stats line waits (this long at most) until every connection it counted is closed on the
      # server's side: the client may read the last reply before the server counts it.
      SETTLE_S = 2.0
      NO_START_MODES = {
        cold: "a server makes its workers before its ready line; its rounds are timed by the load generator, not by a start",
        warm: "a server's workers are made once, before its ready line, for every round: there is no per-round start to keep warm"
      }.freeze
      MODELS = {
        "seq" => { family: "seq", detail: "one connection at a time on one thread: the accept loop serves a connection " \
                                          "to its end (blocking recv/write) before it accepts the next" },
        "threads" => { family: "threads", detail: "one Thread (an OS thread) per connection, blocking recv/write and " \
                                                  "Kernel#sleep, which release the GVL" },
        "fork" => { family: "processes", workers: true, start_unavailable: NO_START_MODES,
                    detail: "--workers processes forked before the ready line, each accepting on the shared listening " \
                            "socket and running a Thread per connection (Puma's cluster mode, unpooled)" },
        "async" => { family: "event-loop", detail: "the async gem's reactor (Async::Scheduler, Ruby's Fiber scheduler, " \
                                                    "nio4r) on one thread: a Fiber per connection; recv, write, sleep and " \
                                                    "stdin's gets yield to it" }
      }.freeze

      # The spec's reply: the request's header, then its payload back to front.
      def self.reply_to(header, payload)
        header + payload.reverse
      end

      # Connections accepted, replies written and connections open since the last stats line,
      # and the peak of connection threads alive at once (Ruby's Threads are OS threads, one to one).
      class Tally
        attr_reader :open

        def initialize
          @lock = Mutex.new
          @accepted = @replies = @open = @live_threads = @live_peak = 0
          @base_threads = EchoServer.os_threads
        end

        def opened
          @lock.synchronize do
            @accepted += 1
            @open += 1
          end
        end

        def replied
          @lock.synchronize { @replies += 1 }
        end

        def closed
          @lock.synchronize { @open -= 1 }
        end

        def thread_started
          @lock.synchronize { @live_peak = [@live_peak, @live_threads += 1].max }
        end

        def thread_ended
          @lock.synchronize { @live_threads -= 1 }
        end

        def take
          @lock.synchronize do
            now = EchoServer.os_threads
            taken = { accepted: @accepted, replies: @replies, open: @open,
                      threads_peak: [now, @base_threads + @live_peak].max }
            @accepted = @replies = 0
            @live_peak = @live_threads
            taken
          end
        end
      end

      def self.os_threads(pid = "self")
        File.foreach("/proc/#{pid}/status") { |line| return Integer(line.split[1]) if line.start_with?("Threads:") }
        0
      rescue Errno::ENOENT
        0
      end

      # Exactly `size` bytes, never more (recv is unbuffered: the next request stays in the
      # kernel); nil at end of file.
      def self.recv_exactly(socket, size)
        data = +""
        while data.bytesize < size
          chunk = socket.recv(size - data.bytesize)
          return nil if chunk.empty?

          data << chunk
        end
        data
      end

      # One connection to its end; EOF, a len over the limit or a reset end it quietly.
      def self.serve_connection(socket, wait_s, tally)
        socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
        while (header = recv_exactly(socket, 8))
          length = header.unpack1("@4N")
          break if length > MAX_PAYLOAD

          payload = recv_exactly(socket, length) or break
          sleep(wait_s) if wait_s.positive?
          socket.write(reply_to(header, payload))
          tally.replied
        end
      rescue SystemCallError, IOError
        nil # a reset: the connection is closed either way
      ensure
        socket.close
        tally.closed
      end

      def self.accept_loop(listener, tally)
        loop do
          socket = listener.accept
          tally.opened
          yield socket
        rescue IOError, Errno::EBADF, Errno::EINVAL
          return # closed at the end of stdin
        rescue SystemCallError => e
          warn "echo-server accept: #{e.message}" # out of descriptors: keep serving the others
          sleep 0.001
        end
      end

      def self.thread_per_connection(listener, wait_s, tally)
        Thread.new do
          accept_loop(listener, tally) do |socket|
            Thread.new do
              tally.thread_started
              serve_connection(socket, wait_s, tally)
            ensure
              tally.thread_ended
            end
          rescue ThreadError => e # no thread for this one: its client sees it closed, a result
            warn "echo-server threads: #{e.message}; connection closed"
            socket.close
            tally.closed
          end
        end
      end

      def self.listen(port)
        TCPServer.new("127.0.0.1", port).tap { |server| server.listen(BACKLOG) } # TCPServer sets SO_REUSEADDR
      rescue SystemCallError => e
        raise StandardError, "echo-server cannot listen on 127.0.0.1:#{port}: #{e.message}"
      end

      def self.bounded(value, name, high)
        raise BadArguments, "--#{name.tr('_', '-')} must be from 0 to #{high}, got #{value}" unless (0..high).cover?(value)

        value
      end

      def self.ready(listener, model, workers)
        extra = { model_detail: MODELS.fetch(model)[:detail] }
        extra[:workers] = workers if MODELS.fetch(model)[:workers]
        Protocol.print_line({ ready: "none", port: listener.local_address.ip_port, extra: extra })
      end

      def self.stats(variant, taken)
        extra = taken.slice(:accepted, :replies, :threads_peak)
        Protocol.print_line({ rep: variant, items: taken[:replies], checksum: "served", extra: extra })
      end

      def self.settle(wait_for_open)
        deadline = Protocol.now_ns + (SETTLE_S * 1e9)
        sleep 0.001 while wait_for_open.call.positive? && Protocol.now_ns < deadline
      end

      # Protocol's entry for a server: checks the params, serves `call.model` until `variants` ends.
      def self.serve(call, variants)
        wait_s = bounded(call.params[:wait_us], "wait_us", MAX_WAIT_US) / 1_000_000.0
        port = bounded(call.params[:port], "port", 65_535)
        listener = listen(port)
        case call.model
        when "async" then serve_async(call, listener, wait_s, variants)
        when "fork" then Forked.new(listener, wait_s, call.workers).serve(call, variants)
        else serve_blocking(call, listener, wait_s, variants)
        end
      end

      # `wait_readable` first: stdin is a blocking descriptor, whose gets would hold the whole
      # reactor; waiting for it to be readable goes through the Fiber scheduler instead.
      def self.answer(call, variants, tally)
        0.step do |j|
          variants.wait_readable if call.model == "async"
          variant = Protocol.read_variant(variants, j, self) or break
          settle(-> { tally.open })
          stats(variant, tally.take)
        end
      end

      def self.serve_blocking(call, listener, wait_s, variants)
        tally = Tally.new
        acceptor = if call.model == "seq"
                     Thread.new { accept_loop(listener, tally) { |socket| serve_connection(socket, wait_s, tally) } }
                   else
                     thread_per_connection(listener, wait_s, tally)
                   end
        ready(listener, call.model, call.workers)
        answer(call, variants, tally)
      ensure
        listener&.close
        acceptor&.join(1)
      end

      # Everything on the reactor's one thread: the accept loop, a Fiber per connection, stdin.
      def self.serve_async(call, listener, wait_s, variants)
        require "async"
        tally = Tally.new
        Async do |task|
          acceptor = task.async do
            accept_loop(listener, tally) { |socket| task.async { serve_connection(socket, wait_s, tally) } }
          end
          ready(listener, call.model, call.workers)
          answer(call, variants, tally)
          listener.close
          acceptor.stop
          task.stop
        end
      end

      # The fork model: the workers, each answering its counters over a pipe of its own.
      class Forked
        def initialize(listener, wait_s, workers)
          @listener = listener
          @workers = (1..workers).map { fork_worker(wait_s) }
        end

        def serve(call, variants)
          EchoServer.ready(@listener, call.model, @workers.size)
          0.step do |j|
            variant = Protocol.read_variant(variants, j, EchoServer) or break
            EchoServer.settle(-> { ask("open").sum { |counts| counts[:open] } })
            counts = ask("take")
            threads = EchoServer.os_threads + @workers.sum { |worker| EchoServer.os_threads(worker[:pid]) }
            EchoServer.stats(variant, { accepted: counts.sum { |c| c[:accepted] }, replies: counts.sum { |c| c[:replies] },
                                        threads_peak: threads })
          end
        ensure
          @listener.close
          @workers.each { |worker| Process.kill("KILL", worker[:pid]) }
          @workers.each { |worker| Process.wait(worker[:pid]) }
        end

        private

        def ask(question)
          @workers.each { |worker| worker[:ask].puts(question) }
          @workers.map { |worker| JSON.parse(worker[:answer].gets, symbolize_names: true) }
        end

        # A worker serves until its question pipe closes (the parent gone, however it ended).
        def fork_worker(wait_s)
          questions, ask = IO.pipe
          answer, answers = IO.pipe
          pid = fork do
            ask.close
            answer.close
            tally = Tally.new
            EchoServer.thread_per_connection(@listener, wait_s, tally)
            while (question = questions.gets)
              taken = question.strip == "take" ? tally.take : { open: tally.open }
              answers.puts(JSON.generate(taken))
              answers.flush
            end
            exit!(0)
          end
          questions.close
          answers.close
          ask.sync = true
          { pid: pid, ask: ask, answer: answer }
        end
      end
    end
  end
end
