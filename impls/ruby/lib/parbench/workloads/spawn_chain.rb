# frozen_string_literal: true

module Parbench
  module Workloads
    # spawn-chain (seed 003): n units in a chain, each adds 1 to what it receives and passes it on.
    class SpawnChain
      PARAMS = { "n" => 1000 }.freeze
      MODELS = {
        "fiber" => { family: "fibers",
                     note: "the seed's chain: one Fiber per link, each transfers n + 1 to the next; fails with FiberError \"can't set a guard page\" when the kernel's map count runs out" },
        "thread" => { family: "threads", note: "one Thread per link waiting on its own Queue" },
        "async" => { family: "async",
                     note: "one ruby-async Task per link waiting on its own Async::Variable (a oneshot), on the Fiber-based reactor" }
      }.freeze

      def initialize(model:, workers:, n:)
        raise BadArguments, "--n must be at least 1, got #{n}" if n < 1

        @model = model
        @n = n
        require_async if model == "async"
      end

      def extra
        {}
      end

      def run
        answer = send("run_#{@model}")
        Outcome.new(items: @n, checksum: answer)
      end

      # Seed 003's program: the caller's fiber keeps the answer; the last link created gets 0.
      def run_fiber
        answer = nil
        caller = Fiber.new { |value| answer = value }
        last = (1..@n).reduce(caller) do |send_to, _|
          Fiber.new { |value| send_to.transfer(value + 1) }
        end
        last.transfer(0)
        answer
      end

      def run_thread
        caller_inbox = Queue.new
        send_to = caller_inbox
        threads = Array.new(@n) do
          inbox = Queue.new
          target = send_to
          send_to = inbox
          Thread.new { target << (inbox.pop + 1) }
        end
        send_to << 0
        answer = caller_inbox.pop
        threads.each(&:join)
        answer
      end

      # Loaded before timing: the gem's boot is not the chain's work.
      def require_async
        require "async"
        require "async/variable"
      end

      # A task whose fiber cannot get a stack fails inside its parent's `task.async`; left alone,
      # the links already waiting would keep the reactor running forever, so its loop is
      # interrupted (Reactor#stop would take minutes) and the runtime's error becomes the limit result.
      def run_async
        failure = nil
        answer = Async do |task|
          caller_inbox = Async::Variable.new
          send_to = caller_inbox
          @n.times do
            inbox = Async::Variable.new
            target = send_to
            send_to = inbox
            task.async { target.resolve(inbox.value + 1) }
          end
          send_to.resolve(0)
          caller_inbox.value
        rescue FiberError => e
          failure = e
          task.reactor.interrupt
        end.wait
        raise failure if failure

        answer
      end
    end
  end
end
