# frozen_string_literal: true

module Parbench
  module Workloads
    # spawn-chain (seed 003): n units in a chain, each adds 1 to what it receives and passes it on.
    class SpawnChain
      PARAMS = { "n" => 1000 }.freeze
      # Protocol 3: a chain's links are its work, made in every repetition; no model has a pool of
      # OS threads apart from its links.
      LINKS_ARE_THE_WORK = {
        cold: "the links are the work itself, made and ended in every repetition: there is no pool to start",
        warm: "the links are the work itself: links made before the ready line would be the answer half computed"
      }.freeze
      MODELS = {
        "fiber" => { family: "fibers", start_unavailable: LINKS_ARE_THE_WORK,
                     note: "the seed's chain: one Fiber per link, each transfers n + 1 to the next; each link is started as it is made " \
                           "(it counts itself and transfers back to its maker) so all n are running and waiting when the start value is " \
                           "sent; fails with FiberError \"can't set a guard page\" when the kernel's map count runs out; a repetition's " \
                           "ended Fibers are collected (GC.start) after it, outside the timed region, since their stacks stay mapped until then" },
        "thread" => { family: "threads", start_unavailable: LINKS_ARE_THE_WORK,
                      note: "one Thread (an OS thread) per link waiting on its own Queue; the start value is sent once every Thread " \
                            "has started running; every Thread joined inside the timed region" },
        "async" => { family: "async", start_unavailable: LINKS_ARE_THE_WORK,
                     note: "one ruby-async Task per link waiting on its own Async::Variable (a oneshot), on the Fiber-based reactor" }
      }.freeze

      def initialize(model:, workers:, n:)
        raise BadArguments, "--n must be at least 1, got #{n}" if n < 1

        @model = model
        @n = n
        @start = 0
        require_async if model == "async"
      end

      def extra
        {}
      end

      # A variant is the start value sent into the chain instead of 0; the answer is start + n.
      def self.check_variant(variant)
        raise BadArguments, "a variant (the start value) must be below 2^31, got #{variant}" if variant >= 1 << 31
      end

      def prepare(variant)
        @start = variant || 0
      end

      # live_units: how many links had started running and not ended when the start value was
      # sent, counted by the links themselves (each adds 1 as it starts, takes 1 as it ends).
      def run
        answer, _units, live_units = send("chain_#{@model}")
        Outcome.new(items: @n, checksum: answer, extra: { live_units: live_units },
                    ceiling: -> { { ceiling: "hand-off", ceiling_ns: send("hand_off_#{@model}") } },
                    release: @model == "fiber" ? -> { GC.start } : nil)
      end

      # Seed 003's program: the caller's fiber keeps the answer; the last link created gets the
      # start value. A Fiber's block only runs once it is switched to, so each link is started
      # as it is made: it counts itself and transfers back to its maker, where it waits for its
      # value as a process waits in receive. Returns [answer, every unit, live units at the
      # send]; every unit has ended.
      def chain_fiber
        answer = nil
        live = 0
        maker = Fiber.current
        caller = Fiber.new { |value| answer = value }
        links = []
        last = (1..@n).reduce(caller) do |send_to, _|
          link = Fiber.new do
            live += 1
            value = maker.transfer
            send_to.transfer(value + 1)
            live -= 1
          end
          link.transfer
          links << link
          link
        end
        live_at_send = live
        last.transfer(@start)
        # Each link is still suspended in its transfer: switching to it once lets its block return.
        links.each(&:transfer)
        [answer, links << caller, live_at_send]
      end

      # A new Thread runs only once the scheduler gives it the GVL, so the start value is sent
      # when every link has counted itself in (all n exist and wait on their Queue).
      def chain_thread
        lock = Mutex.new
        all_started = ConditionVariable.new
        live = 0
        caller_inbox = Queue.new
        send_to = caller_inbox
        threads = Array.new(@n) do
          inbox = Queue.new
          target = send_to
          send_to = inbox
          Thread.new do
            lock.synchronize { all_started.signal if (live += 1) == @n }
            target << (inbox.pop + 1)
            lock.synchronize { live -= 1 }
          end
        end
        live_at_send = lock.synchronize do
          all_started.wait(lock) until live == @n
          live
        end
        send_to << @start
        answer = caller_inbox.pop
        threads.each(&:join)
        [answer, threads, live_at_send]
      end

      # A task whose fiber cannot get a stack fails inside its parent's `task.async`; left alone,
      # the links already waiting would keep the reactor running forever, so its loop is
      # interrupted (Reactor#stop would take minutes) and the runtime's error becomes the limit result.
      # Each link ends by itself after its send; the reactor returns once every task has finished.
      # A new task runs at once until it waits, so each link has counted itself when made.
      def chain_async
        failure = nil
        links = []
        live = 0
        live_at_send = nil
        answer = Async do |task|
          caller_inbox = Async::Variable.new
          send_to = caller_inbox
          @n.times do
            inbox = Async::Variable.new
            target = send_to
            send_to = inbox
            links << task.async do
              live += 1
              target.resolve(inbox.value + 1)
              live -= 1
            end
          end
          live_at_send = live
          send_to.resolve(@start)
          caller_inbox.value
        rescue FiberError => e
          failure = e
          task.reactor.interrupt
        end.wait
        raise failure if failure

        [answer, links, live_at_send]
      end

      # ---- The hand-off ceiling: two units made before the clock pass a counter n times ----

      def hand_off_fiber
        ping = pong = nil
        ping = Fiber.new { |count| count = pong.transfer(count + 1) while count < @n }
        pong = Fiber.new { |count| count = ping.transfer(count + 1) while count < @n }
        started = Protocol.now_ns
        ping.transfer(0) # the fiber that receives n ends, which returns here
        elapsed = Protocol.now_ns - started
        [ping, pong].each { |player| player.transfer(@n) if player.alive? }
        elapsed
      end

      def hand_off_thread
        inboxes = [Queue.new, Queue.new]
        done = Queue.new
        players = [0, 1].map { |k| Thread.new { pass_through_queues(inboxes[k], inboxes[1 - k], done) } }
        started = Protocol.now_ns
        inboxes[0] << 0
        done.pop
        elapsed = Protocol.now_ns - started
        inboxes.each(&:close)
        players.each(&:join)
        elapsed
      end

      def pass_through_queues(inbox, outbox, done)
        while (count = inbox.pop)
          count < @n ? outbox << count + 1 : done << count
        end
      end

      # The chain's own primitive, Async::Variable (a oneshot): a fresh one per hand-off, as the
      # chain has one per link, so the distance to the chain is the tasks' creation and ending.
      def hand_off_async
        elapsed = nil
        Async do |top|
          inboxes = [Async::Variable.new, Async::Variable.new]
          done = Async::Variable.new
          inboxes.each { |inbox| top.async { pass_through_variables(inbox, done) } }
          started = Protocol.now_ns
          inboxes[0].resolve([0, inboxes[1]])
          done.value
          elapsed = Protocol.now_ns - started
        end.wait
        elapsed
      end

      # A message is [count, the sender's next inbox]; a nil inbox tells the receiver to stop.
      def pass_through_variables(inbox, done)
        loop do
          count, reply_to = inbox.value
          return unless reply_to
          return finish_hand_off(count, reply_to, done) if count >= @n

          inbox = Async::Variable.new
          reply_to.resolve([count + 1, inbox])
        end
      end

      def finish_hand_off(count, other_inbox, done)
        other_inbox.resolve([count, nil])
        done.resolve(count)
      end

      # Loaded before timing: the gem's boot is not the chain's work.
      def require_async
        require "async"
        require "async/variable"
      end
    end
  end
end
