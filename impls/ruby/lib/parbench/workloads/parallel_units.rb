# frozen_string_literal: true

module Parbench
  module Workloads
    # Forked children answering over a pipe with Marshal (the seed 002 idiom), shared by every
    # workload's `fork` model.
    module ParallelUnits
      module_function

      # Runs the block in `count` forked children (child i gets i); returns their results in order.
      def fork_each(count)
        children = Array.new(count) do |index|
          reader, writer = IO.pipe
          pid = Process.fork do
            reader.close
            result = begin
              [:ok, yield(index)]
            rescue Exception => e # rubocop:disable Lint/RescueException -- the parent must learn of any failure
              [:error, "#{e.class}: #{e.message}"]
            end
            Marshal.dump(result, writer)
            writer.close
            exit!(0) # skip at_exit hooks (minitest's among them) inherited from the parent
          end
          writer.close
          [pid, reader]
        end
        children.map do |pid, reader|
          status, value = Marshal.load(reader)
          reader.close
          Process.wait(pid)
          raise_child_error(value) if status == :error
          value
        end
      end

      def raise_child_error(message)
        raise LimitReached, message if message.match?(/too many (clients|connections)|Errno::EAGAIN|ENOMEM/i)

        raise "child process failed: #{message}"
      end
    end
  end
end
