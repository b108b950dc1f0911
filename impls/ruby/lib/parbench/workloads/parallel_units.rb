# frozen_string_literal: true

module Parbench
  module Workloads
    # Forked workers and Ractors streaming their results back chunk by chunk, shared by every
    # workload's process and Ractor models. Both helpers return only once every worker has
    # ended (children reaped, Ractors' final values taken), so the models join inside `ns`.
    # Both also collect each worker's busy interval (protocol 2's `extra.busy`) as absolute
    # CLOCK_MONOTONIC readings: that clock is machine-wide, so a forked child's readings and
    # the parent's clock start are on the same scale; Protocol makes them relative.
    module ParallelUnits
      # Protocol 3's start modes of the models built on these helpers, for --list.
      FORK_COLD = "W processes forked in each repetition (each inherits the input and the repetition's key or seed " \
                  "through fork and exits when its stripe is done), every one reaped before the clock stops"
      FORK_NOT_WARM = "a fork per repetition is what this model is: a child gets the repetition's variant and the input " \
                      "by being forked; workers kept across repetitions would have to be sent the work, another model"
      RACTOR_WARM = "W Ractors (each its own OS thread) made before the ready line, each holding its stripe of the chunks; " \
                    "each repetition sends every Ractor its job as a message and receives its pieces"
      RACTOR_NOT_COLD = "Ruby 3.1 keeps an ended Ractor's (or Thread's) OS thread for 3 s and hands it to the next one " \
                        "made (thread_pthread.c's thread cache), so Ractors made in a repetition would run on the OS " \
                        "threads an earlier repetition's Ractors ended: a cold start cannot be had within one process"

      # How the parent sees one forked worker.
      ForkedWorker = Struct.new(:index, :pid, :reader)

      # The tag of a Ractor worker's last message: [index, FINISHED, [started_ns, ended_ns]].
      FINISHED = :finished
      # The tag of a Ractor worker's message when its work raised: [index, FAILED, "Class: text"].
      FAILED = :failed

      # A child's end of its pipe. Messages are length-framed and the parent reads exactly one
      # frame at a time, so Ruby's read buffer never holds data that IO.select cannot see.
      class Channel
        HEADER = "CQ<"
        HEADER_BYTES = 9
        DATA = 0
        ERROR = 1
        BUSY = 2 # the payload is two Q< words: the child's first and last monotonic readings
        BUSY_WORDS = "Q<Q<"

        def initialize(writer)
          @writer = writer
        end

        def send_message(payload)
          @writer.write([DATA, payload.bytesize].pack(HEADER), payload)
        end

        def send_error(text)
          @writer.write([ERROR, text.bytesize].pack(HEADER), text)
        end

        def send_busy(started_ns, ended_ns)
          payload = [started_ns, ended_ns].pack(BUSY_WORDS)
          @writer.write([BUSY, payload.bytesize].pack(HEADER), payload)
        end
      end

      module_function

      def now_ns
        Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
      end

      # Forks `count` workers; child i runs the block with (i, its Channel) and exits.
      def fork_workers(count, &work)
        Array.new(count) do |index|
          reader, writer = IO.pipe
          pid = Process.fork do
            reader.close
            run_child(index, writer, &work)
          end
          writer.close
          ForkedWorker.new(index, pid, reader)
        end
      end

      def run_child(index, writer)
        channel = Channel.new(writer)
        begin
          started = now_ns
          yield index, channel
          channel.send_busy(started, now_ns)
        rescue Exception => e # rubocop:disable Lint/RescueException -- the parent must learn of any failure
          report_failure(channel, e)
        end
      ensure
        exit!(0) # skip at_exit hooks (minitest's among them) inherited from the parent
      end

      def report_failure(channel, error)
        channel.send_error("#{error.class}: #{error.message}")
      rescue SystemCallError
        nil # the parent stopped reading (it failed first): there is nobody to tell
      end

      # Calls the block with (worker, payload) for every message, in the order they arrive from
      # any worker; `payload` is one reused String, valid until the block returns. Returns when
      # every worker has closed its pipe and been reaped. Each worker's busy interval is
      # appended to `busy` as [index, started_ns, ended_ns] when one is given.
      def each_message(workers, busy: nil)
        open = workers.to_h { |worker| [worker.reader, worker] }
        payload = String.new(encoding: Encoding::BINARY)
        until open.empty?
          IO.select(open.keys)[0].each do |reader|
            kind, length = read_header(reader)
            next reap(open.delete(reader)) if kind.nil?

            reader.read(length, payload)
            case kind
            when Channel::ERROR then raise_child_error(payload)
            when Channel::BUSY then busy&.push([open[reader].index, *payload.unpack(Channel::BUSY_WORDS)])
            else yield open[reader], payload
            end
          end
        end
      ensure
        open&.each_value { |worker| reap(worker, failed: true) }
      end

      # Calls the block with (worker, payload) for the next `count` messages from any of the
      # long-lived `workers` (a warm pool), as they arrive; a worker that ends meanwhile, or
      # reports an error, fails the run.
      def receive_messages(workers, count)
        by_reader = workers.to_h { |worker| [worker.reader, worker] }
        payload = String.new(encoding: Encoding::BINARY)
        while count.positive?
          IO.select(by_reader.keys)[0].each do |reader|
            kind, length = read_header(reader)
            raise "forked worker #{by_reader[reader].index} ended during the run" if kind.nil?

            reader.read(length, payload)
            raise_child_error(payload) if kind == Channel::ERROR
            yield by_reader[reader], payload
            count -= 1
          end
        end
      end

      def read_header(reader)
        header = reader.read(Channel::HEADER_BYTES)
        return nil if header.nil?
        raise "a worker's message was cut short (it died while writing)" if header.bytesize < Channel::HEADER_BYTES

        header.unpack(Channel::HEADER)
      end

      def reap(worker, failed: false)
        worker.reader.close
        _, status = Process.wait2(worker.pid)
        raise "forked worker #{worker.index} ended with #{status}" unless failed || status.success?
      end

      def raise_child_error(message)
        raise LimitReached, message if message.match?(/too many (clients|connections)|Errno::EAGAIN|ENOMEM/i)

        raise "forked worker failed: #{message}"
      end

      # ---- Ractors ----
      # A Ractor worker sends each result to the main Ractor (`Ractor#send`, `move: true`: no
      # copy) and the main Ractor receives them from its one incoming queue. Not Ractor.yield +
      # Ractor.select: on Ruby 3.1 that rendezvous now and then delivered a worker's message to
      # nobody (the next one arrived in its place, so chunks landed one slot early), which gave
      # a wrong ciphertext about once in 600 repetitions of 2 Ractors and 5 chunks each.

      # Runs inside a Ractor worker: yields a Proc that sends (tag, payload) to `parent`, then
      # reports the busy interval with FINISHED. Call it from the Ractor's own block.
      def ractor_worker(parent, index)
        started = now_ns
        yield ->(tag, payload) { parent.send([index, tag, payload], move: true) }
        parent.send([index, FINISHED, [started, now_ns]])
      rescue Exception => e # rubocop:disable Lint/RescueException -- else the main Ractor would wait forever
        parent.send([index, FAILED, "#{e.class}: #{e.message}"])
      end

      # In the main Ractor: calls the block with (index, tag, payload) for every message of
      # the `ractors` (started with `ractor_worker`), as they arrive, then takes each Ractor's
      # final value (Ruby 3.1 has no Ractor#join: taking the value is the join). Busy
      # intervals go to `busy` when one is given.
      def each_ractor_message(ractors, busy: nil, &block)
        receive_rounds(ractors.size, busy: busy, &block)
        ractors.each(&:take)
      end

      # In the main Ractor: calls the block with (index, tag, payload) for every message until
      # `count` workers have each sent FINISHED (one round of work per worker).
      def receive_rounds(count, busy: nil)
        running = count
        while running.positive?
          index, tag, payload = Ractor.receive
          if tag.equal?(FINISHED)
            busy&.push([index, *payload])
            running -= 1
          elsif tag.equal?(FAILED)
            raise "Ractor worker #{index} failed: #{payload}"
          else
            yield index, tag, payload
          end
        end
      end

      # ---- Warm Ractors (protocol 3's warm start): made once, before the ready line ----
      # Each serves one job per repetition, sent to it as a message, and ends at STOP.

      # The message that ends a warm Ractor.
      STOP = :stop

      # Runs inside a warm Ractor: yields each job it receives until STOP.
      def serve
        until (job = Ractor.receive).equal?(STOP)
          yield job
        end
      end

      # In the main Ractor: hands each warm Ractor its job and takes every message of the round.
      def run_round(ractors, job, busy: nil, &block)
        ractors.each { |ractor| ractor.send(job) }
        receive_rounds(ractors.size, busy: busy, &block)
      end

      # Ends the warm Ractors: STOP to each, then each one's final value (the join).
      def stop_ractors(ractors)
        ractors.each { |ractor| ractor.send(STOP) }
        ractors.each(&:take)
      end
    end
  end
end
