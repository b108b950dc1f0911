# frozen_string_literal: true

require_relative "../digest"

module Parbench
  module Workloads
    # coroutine-swarm (seed 004): `tasks` coroutines, each yielding before every one of `steps`
    # steps and folding "t:step:fizzbuzz(step)" into the order-free digest.
    class CoroutineSwarm
      PARAMS = { "tasks" => 1000, "steps" => 10, "sleep_ms" => 0 }.freeze
      # Protocol 3: the tasks are the work, made in every repetition; neither model has a pool of
      # OS threads apart from them to start cold or keep warm.
      TASKS_ARE_THE_WORK = {
        cold: "the tasks are the work itself, made and ended in every repetition: there is no pool to start",
        warm: "the tasks are the work itself: tasks made before the ready line would be the swarm half run"
      }.freeze
      MODELS = {
        "seq" => { family: "seq", note: "the same lines in a plain loop (seed 004's program 1)" },
        "fiber" => { family: "fibers", start_unavailable: TASKS_ARE_THE_WORK,
                     note: "ruby-async tasks, each its own Fiber, on the reactor's Fiber scheduler; Task#yield (back to the reactor, " \
                           "which resumes the next ready task) for sleep_ms 0, Task#sleep otherwise" },
        "thread" => { family: "threads", start_unavailable: TASKS_ARE_THE_WORK,
                      note: "one Thread (an OS thread) per task, every Thread joined inside the timed region; Thread.pass (hands the " \
                            "GVL on) for sleep_ms 0, Kernel#sleep otherwise; switches counted under a Mutex" }
      }.freeze

      def initialize(model:, workers:, tasks:, steps:, sleep_ms:)
        raise BadArguments, "--tasks, --steps and --sleep-ms must not be negative" if [tasks, steps, sleep_ms].any?(&:negative?)

        @model = model
        @tasks = tasks
        @steps = steps
        @salt = 0
        @sleep_s = sleep_ms / 1000.0
        require "async" if model == "fiber" # loaded before timing: the gem's boot is not the swarm's work
      end

      def extra
        {}
      end

      # A variant is the salt: task t forms its lines with the id t + salt.
      def self.check_variant(variant)
        raise BadArguments, "a variant (the salt) must be below 2^32, got #{variant}" if variant >= 1 << 32
      end

      def prepare(variant)
        @salt = variant || 0
      end

      def run
        started = Protocol.now_ns
        @switches = @model == "thread" ? LockedSwitches.new : Switches.new
        @tickets = (@model == "thread" ? LockedTickets : Tickets).new(@tasks, @salt)
        digest, spawned = send("run_#{@model}", started)
        Outcome.new(items: @tasks, checksum: digest.to_s,
                    extra: { spawn_ns: spawned - started, switches: @switches.count, **@tickets.extra },
                    ceiling: ceiling)
      end

      # Protocol 4's proof of interleaving: every step draws the next ticket; about 16 probe
      # tasks, picked by the salt, report the tickets of their first and last steps.
      class Tickets
        def initialize(tasks, salt)
          @drawn = 0
          @stride = [tasks / 16, 1].max
          @salt = salt
          @probes = []
        end

        def draw
          ticket = @drawn
          @drawn += 1
          ticket
        end

        def finished(task, first, last)
          @probes << [task, first, last] if ((task + @salt) % @stride).zero?
        end

        def extra
          { tickets: @drawn, ticket_probes: @probes }
        end
      end

      # Threads can be preempted between the read and the write of the counter: the draw is locked.
      class LockedTickets < Tickets
        def initialize(...)
          super
          @lock = Mutex.new
        end

        def draw
          @lock.synchronize { super }
        end

        def finished(...)
          @lock.synchronize { super }
        end
      end

      # Protocol 2's switch count, taken at every step: `prev = last.swap(me); switches += 1 if
      # prev != me`. The first step of the swarm has no previous task and is not a switch, so
      # tasks that never interleave count tasks - 1.
      class Switches
        attr_reader :count

        def initialize
          @last = nil
          @count = 0
        end

        def step(task)
          previous = @last
          @last = task
          @count += 1 if previous && !previous.equal?(task)
        end
      end

      # Threads can be preempted between the read and the write of `last`: the swap is locked.
      class LockedSwitches < Switches
        def initialize
          super
          @lock = Mutex.new
        end

        def step(task)
          @lock.synchronize { super }
        end
      end

      # The yield ceiling: one unit of the model's kind making tasks x steps bare yields. Only
      # with sleep_ms 0, and not for seq, which has no units.
      def ceiling
        return nil unless @sleep_s.zero? && @model != "seq"

        -> { { ceiling: "yield", ceiling_ns: send("yield_alone_#{@model}", @tasks * @steps) } }
      end

      # One ruby-async task making Task#yield calls, timed inside the task once it exists.
      def yield_alone_fiber(yields)
        elapsed = nil
        Async do |top|
          top.async do |task|
            started = Protocol.now_ns
            yields.times { task.yield }
            elapsed = Protocol.now_ns - started
          end
        end.wait
        elapsed
      end

      def yield_alone_thread(yields)
        Thread.new do
          started = Protocol.now_ns
          yields.times { Thread.pass }
          Protocol.now_ns - started
        end.value
      end

      def self.fizzbuzz(step)
        if (step % 15).zero? then "FizzBuzz"
        elsif (step % 5).zero? then "Buzz"
        elsif (step % 3).zero? then "Fizz"
        else step.to_s
        end
      end

      def self.line(task, step)
        "#{task}:#{step}:#{fizzbuzz(step)}"
      end

      def run_seq(started)
        digest = Digest::OrderFree.new
        @tasks.times do |t|
          @steps.times do |s|
            @switches.step(t)
            digest.add(CoroutineSwarm.line(t + @salt, s))
          end
        end
        [digest, started]
      end

      def run_fiber(_started)
        spawned = nil
        digests = Async do |top|
          tasks = Array.new(@tasks) do |t|
            top.async do |task|
              task_digest(t) { @sleep_s.zero? ? task.yield : task.sleep(@sleep_s) }
            end
          rescue FiberError => e
            limit_and_exit(e)
          end
          spawned = Protocol.now_ns
          tasks.map(&:wait)
        end.wait
        [digests.reduce(Digest::OrderFree.new, :merge), spawned]
      end

      def run_thread(_started)
        threads = Array.new(@tasks) do |t|
          Thread.new do
            task_digest(t) { @sleep_s.zero? ? Thread.pass : sleep(@sleep_s) }
          end
        end
        spawned = Protocol.now_ns
        [threads.map(&:value).reduce(Digest::OrderFree.new, :merge), spawned]
      end

      # async 1.30's reactor never ends once a task's fiber could not be created (it waits in
      # epoll for that task forever), so the limit is said and the process ends right here.
      def limit_and_exit(error)
        raise error unless (detail = Protocol.limit_detail(error))

        Protocol.report_limit(detail)
        $stdout.flush
        exit!(3)
      end

      # Task t's steps, each after giving way to the scheduler as the block does it.
      def task_digest(t)
        digest = Digest::OrderFree.new
        id = t + @salt
        first = ticket = nil
        @steps.times do |s|
          yield
          @switches.step(t)
          ticket = @tickets.draw
          first ||= ticket
          digest.add(CoroutineSwarm.line(id, s))
        end
        @tickets.finished(t, first, ticket) if first
        digest
      end
    end
  end
end
