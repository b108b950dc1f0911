# frozen_string_literal: true

module Parbench
  module Workloads
    # Forked workers and Ractors streaming their results back chunk by chunk, shared by every
    # workload's process and Ractor models. Both helpers return only once every worker has
    # ended (children reaped, Ractors' final values taken), so the models join inside `ns`.
    module ParallelUnits
      # How the parent sees one forked worker.
      ForkedWorker = Struct.new(:index, :pid, :reader)

      # What a Ractor's block returns when it has yielded its last chunk.
      FINISHED = :finished

      # A child's end of its pipe. Messages are length-framed and the parent reads exactly one
      # frame at a time, so Ruby's read buffer never holds data that IO.select cannot see.
      class Channel
        HEADER = "CQ<"
        HEADER_BYTES = 9
        DATA = 0
        ERROR = 1

        def initialize(writer)
          @writer = writer
        end

        def send_message(payload)
          @writer.write([DATA, payload.bytesize].pack(HEADER), payload)
        end

        def send_error(text)
          @writer.write([ERROR, text.bytesize].pack(HEADER), text)
        end
      end

      module_function

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
          yield index, channel
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
      # every worker has closed its pipe and been reaped.
      def each_message(workers)
        open = workers.to_h { |worker| [worker.reader, worker] }
        payload = String.new(encoding: Encoding::BINARY)
        until open.empty?
          IO.select(open.keys)[0].each do |reader|
            kind, length = read_header(reader)
            next reap(open.delete(reader)) if kind.nil?

            reader.read(length, payload)
            raise_child_error(payload) if kind == Channel::ERROR
            yield open[reader], payload
          end
        end
      ensure
        open&.each_value { |worker| reap(worker, failed: true) }
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

      # Calls the block with (ractor, message) for every Ractor.yield, as they arrive; a
      # Ractor's block returns FINISHED after its last chunk, and taking that ends it.
      def each_ractor_message(ractors)
        running = ractors.dup
        until running.empty?
          ractor, message = Ractor.select(*running)
          next running.delete(ractor) if message.equal?(FINISHED)

          yield ractor, message
        end
      end
    end
  end
end
