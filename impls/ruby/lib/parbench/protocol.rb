# frozen_string_literal: true

require "json"
require "etc"

module Parbench
  # Exit 2: the arguments ask for something this implementation does not have.
  class BadArguments < StandardError; end

  # Exit 3: a resource limit stopped the work; the message is the runtime's own.
  class LimitReached < StandardError; end

  # What one repetition did. `checksum` may be a Proc, evaluated after the timed region;
  # `ceiling` is a Proc run after the checksum, returning the ceiling's extra fields; `release`
  # a Proc that frees what the repetition left behind, run after it, outside the timed region;
  # `busy` the workers' busy intervals, [[worker, started_ns, ended_ns], ...] as absolute
  # CLOCK_MONOTONIC readings (nil for models without workers).
  Outcome = Struct.new(:items, :checksum, :extra, :ceiling, :release, :busy, keyword_init: true)

  # One call: the workload, its model and params, and its start mode. No repetition count
  # (protocol 4): the launcher alone decides how many run, so --warmup and --repeat are unknown params.
  Call = Struct.new(:klass, :model, :spec, :params, :workers, :start, keyword_init: true)

  # The harness protocol (docs/protocol.md): argument parsing, the ready line, the variants read
  # from stdin, the timed loop, JSON lines, exit codes 0/2/3 and `--list`.
  module Protocol
    module_function

    START_MODES = %w[cold warm].freeze

    # `variants` is where each repetition's variant line is read from (protocol 3: stdin).
    def main(argv, workloads:, description:, variants: $stdin)
      if argv == ["--list"]
        puts JSON.generate(list(workloads, description))
        return 0
      end
      call = parse(argv, workloads)
      # A server (echo-server) answers its own conversation instead of timed repetitions.
      call.klass.respond_to?(:serve) ? call.klass.serve(call, variants) : measure(call, variants)
      0
    rescue BadArguments => e
      warn "parbench-ruby: #{e.message}"
      2
    rescue LimitReached => e
      report_limit(e.message)
    rescue StandardError, NoMemoryError => e
      raise unless (detail = limit_detail(e))

      report_limit(detail)
    end

    def now_ns
      Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    end

    def list(workloads, description)
      entries = workloads.transform_values do |klass|
        models = klass::MODELS.transform_values { |model| model.reject { |key, _| key == :params } }
        entry = { params: klass::PARAMS.keys, models: models }
        entry[:kernels] = klass::KERNELS if klass.const_defined?(:KERNELS)
        entry
      end
      description.merge(workloads: entries)
    end

    def parse(argv, workloads)
      name, *rest = argv
      klass = workloads[name] or
        raise BadArguments, "unknown workload '#{name}'; valid: #{workloads.keys.join(', ')}"
      options = pairs(rest)
      model = options.delete("model") or
        raise BadArguments, "--model is required; valid for #{name}: #{klass::MODELS.keys.join(', ')}"
      spec = klass::MODELS[model] or
        raise BadArguments, "unknown model '#{model}' for #{name}; valid: #{klass::MODELS.keys.join(', ')}"
      Call.new(klass: klass, model: model, spec: spec,
               start: start_for(options.delete("start"), spec, "model '#{model}' of #{name}"),
               workers: workers_for(options.delete("workers"), spec, model),
               params: params_for(klass, spec, options))
    end

    # `--start cold|warm` (protocol 3): the mode asked for if the model offers it, else its
    # default (cold where offered, else the only mode); nil for a model that takes none.
    def start_for(value, spec, what)
      offered = spec.fetch(:start, {})
      unavailable = spec.fetch(:start_unavailable, {})
      if offered.empty?
        return nil if value.nil?

        reasons = unavailable.map { |mode, why| "#{mode}: #{why}" }.join("; ")
        raise BadArguments, "#{what} takes no --start#{reasons.empty? ? '' : " (#{reasons})"}"
      end
      return (offered.key?(:cold) ? "cold" : offered.keys.first.to_s) if value.nil?
      raise BadArguments, "--start must be one of #{START_MODES.join(', ')}, got '#{value}'" unless START_MODES.include?(value)
      return value if offered.key?(value.to_sym)

      raise BadArguments, "#{what} has no #{value} start: #{unavailable.fetch(value.to_sym, 'not offered')}; " \
                          "valid: #{offered.keys.join(', ')}"
    end

    # Repetition j's variant, read from its own line (protocol 3): a non-negative decimal
    # integer, checked by the workload where a variant has a range (sdes-ecb's 10-bit key);
    # nil at end of file, where the launcher wants no further repetition (protocol 4).
    def read_variant(variants, repetition, klass)
      line = variants.gets
      return nil if line.nil?

      text = line.strip
      unless text.match?(/\A[0-9]+\z/)
        raise BadArguments, "stdin line #{line.inspect} for repetition #{repetition} is not a variant; " \
                            "valid: one non-negative decimal integer per line"
      end
      variant = Integer(text, 10)
      klass.check_variant(variant) if klass.respond_to?(:check_variant)
      variant
    end

    def pairs(args)
      raise BadArguments, "expected --name value pairs, got: #{args.join(' ')}" if args.size.odd?

      args.each_slice(2).to_h do |flag, value|
        raise BadArguments, "expected an option, got '#{flag}'" unless flag.start_with?("--")

        [flag.delete_prefix("--").tr("-", "_"), value]
      end
    end

    # A comma-separated list of non-negative integers (`--probes`).
    def integer_list(value, name)
      values = value.split(",").map { |text| integer(text.strip, name) }
      raise BadArguments, "--#{name} takes non-negative integers, got '#{value}'" if values.any?(&:negative?)

      values
    end

    # `--kernel` of sdes-ecb, keygen and batch-job: one of the workload's KERNELS; a kernel
    # class the runtime does not have is a bad argument (exit 2), as docs/protocol.md asks.
    def check_kernel(kernels, kernel)
      return kernel if kernels.key?(kernel.to_sym)

      raise BadArguments, "--kernel '#{kernel}' is not offered here; valid: #{kernels.keys.join(', ')}"
    end

    def workers_for(value, spec, model)
      return Etc.nprocessors if value.nil?
      raise BadArguments, "model '#{model}' takes no --workers" unless spec[:workers]

      workers = integer(value, "workers")
      raise BadArguments, "--workers must be at least 1" if workers < 1

      workers
    end

    # Workload params with their defaults, plus the params only this model takes.
    def params_for(klass, spec, options)
      known = klass::PARAMS.merge(spec.fetch(:params, {}))
      unknown = options.keys - known.keys
      unless unknown.empty?
        raise BadArguments, "unknown param #{unknown.map { |k| "--#{k.tr('_', '-')}" }.join(', ')}; " \
                            "valid: #{known.keys.map { |k| "--#{k.tr('_', '-')}" }.join(', ')}"
      end
      known.to_h do |key, default|
        value = options.fetch(key, default)
        raise BadArguments, "--#{key.tr('_', '-')} is required" if value.nil?

        [key.to_sym, default.is_a?(Integer) ? integer(value, key) : value]
      end
    end

    def integer(text, name)
      text.is_a?(Integer) ? text : Integer(text, 10)
    rescue ArgumentError, TypeError
      raise BadArguments, "--#{name.tr('_', '-')} must be an integer, got '#{text}'"
    end

    # Loading happens outside the timed region; a warm start then makes the model's workers
    # (`start_workers`, timed as start_ns); the ready line follows. Each repetition reads its
    # variant, then is timed around `run` only, then its checksum is taken,
    # then its ceiling is timed, then what it left behind is released (docs/workloads/README.md,
    # docs/protocol.md "Proof of work" and "Protocol 3"). Every phase between two lines is timed
    # and reported, so the harness can account for the gap: prepare_ns (deriving the variant),
    # ns, checksum_ns, ceiling_ns, cleanup_ns. Repetitions go on until stdin ends (protocol 4: the
    # process never knows how many there will be, nor which are timed); a warm start's workers
    # end there.
    def measure(call, variants)
      started = now_ns
      workload = call.klass.new(model: call.model, workers: call.workers, **call.params)
      load_ns = now_ns - started
      print_ready(call, call.start == "warm" ? time_ns { workload.start_workers } : nil)
      0.step do |j|
        variant = read_variant(variants, j, call.klass) or break
        line = repetition(workload, variant, load_ns)
        line[:extra][:start] = call.start if call.start
        print_line({ rep: j }.merge(line))
      end
    ensure
      workload&.stop_workers if call.start == "warm"
    end

    def time_ns
      started = now_ns
      yield
      now_ns - started
    end

    # The ready line (protocol 3): the start mode that runs ("none" for a model that takes
    # none), and for warm the time its workers took to make.
    def print_ready(call, start_ns)
      ready = { ready: call.start || "none" }
      ready[:start_ns] = start_ns if start_ns
      ready[:extra] = { workers: call.workers } if call.spec[:workers]
      print_line(ready)
    end

    def repetition(workload, variant, load_ns)
      prepared = now_ns
      workload.prepare(variant)
      started = now_ns
      cpu_before = cpu_ns(workload)
      outcome = workload.run
      cpu_after = cpu_ns(workload)
      elapsed = now_ns - started
      checksum_started = now_ns
      checksum = outcome.checksum.respond_to?(:call) ? outcome.checksum.call : outcome.checksum
      checksum_ns = now_ns - checksum_started
      ceiling = outcome.ceiling ? outcome.ceiling.call : {}
      cleanup_started = now_ns
      outcome.release&.call
      cleanup_ns = now_ns - cleanup_started
      extra = { load_ns: load_ns }.merge(workload.extra, outcome.extra || {}, ceiling)
      extra.merge!(cpu_user_ns: [cpu_after[0] - cpu_before[0], 0].max, cpu_sys_ns: [cpu_after[1] - cpu_before[1], 0].max,
                   checksum_ns: checksum_ns, prepare_ns: started - prepared, cleanup_ns: cleanup_ns)
      extra[:busy] = relative_busy(outcome.busy, started) if outcome.busy
      { ns: elapsed, items: outcome.items, checksum: checksum.to_s, extra: extra }
    end

    # User and system CPU of the process and of its children reaped so far, in ns. getrusage
    # (RUSAGE_SELF covers every thread, so every Ractor; RUSAGE_CHILDREN every forked worker
    # that was waited for) through Process.times, which keeps the two apart; the clock of
    # CLOCK_PROCESS_CPUTIME_ID gives only their sum. A warm pool's processes are not reaped
    # inside the clock: the workload reads theirs (`workers_cpu_ns`, user and system together),
    # counted as user time.
    def cpu_ns(workload)
      times = Process.times
      workers = workload.respond_to?(:workers_cpu_ns) ? workload.workers_cpu_ns : 0
      [((times.utime + times.cutime) * 1e9).round + workers, ((times.stime + times.cstime) * 1e9).round]
    end

    # User and system CPU ns of every thread of the processes so far: the first field of each
    # thread's /proc/<pid>/task/<tid>/schedstat (ns, unlike /proc/<pid>/stat's clock ticks).
    def processes_cpu_ns(pids)
      pids.sum do |pid|
        Dir.glob("/proc/#{pid}/task/*/schedstat").sum do |path|
          Integer(File.read(path).split.first, 10)
        rescue SystemCallError, ArgumentError, TypeError
          0 # a thread that ended between the listing and the read
        end
      end
    end

    # Busy intervals from absolute monotonic readings to ns from the repetition's clock start.
    def relative_busy(busy, started)
      busy.sort.map { |worker, first, last| [worker, [first - started, 0].max, [last - started, 0].max] }
    end

    # Times the block as a ceiling named `name`: the extra fields every ceiling reports.
    def time_ceiling(name)
      started = now_ns
      yield
      { ceiling: name, ceiling_ns: now_ns - started }
    end

    def print_line(fields)
      $stdout.puts JSON.generate(fields)
      $stdout.flush
    end

    # The runtime's own errors that mean "out of a resource", not a bug.
    def limit_detail(error)
      message = "#{error.class}: #{error.message}"
      case error
      when NoMemoryError, Errno::EAGAIN, Errno::ENOMEM, Errno::EMFILE, Errno::ENFILE then message
      when FiberError then message if error.message.match?(/guard page|allocate|memory|mmap/i)
      when ThreadError then message if error.message.match?(/can't create|resource/i)
      else message if error.message.match?(/too many (clients|connections)/i)
      end
    end

    def report_limit(detail)
      print_line(error: "limit", detail: detail)
      3
    end
  end
end
