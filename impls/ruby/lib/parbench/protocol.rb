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
  # a Proc that frees what the repetition left behind, run after it, outside the timed region.
  Outcome = Struct.new(:items, :checksum, :extra, :ceiling, :release, keyword_init: true)

  # The harness protocol (docs/protocol.md): argument parsing, the timed loop, JSON lines,
  # exit codes 0/2/3 and `--list`.
  module Protocol
    module_function

    def main(argv, workloads:, description:)
      if argv == ["--list"]
        puts JSON.generate(list(workloads, description))
        return 0
      end
      workload_class, model, params, workers, warmup, repeat = parse(argv, workloads)
      measure(workload_class, model, params, workers, warmup, repeat)
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
        { params: klass::PARAMS.keys, models: models }
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
      warmup = integer(options.delete("warmup") || "0", "warmup")
      repeat = integer(options.delete("repeat") || "1", "repeat")
      workers = workers_for(options.delete("workers"), spec, model)
      params = params_for(klass, spec, options)
      [klass, model, params, workers, warmup, repeat]
    end

    def pairs(args)
      raise BadArguments, "expected --name value pairs, got: #{args.join(' ')}" if args.size.odd?

      args.each_slice(2).to_h do |flag, value|
        raise BadArguments, "expected an option, got '#{flag}'" unless flag.start_with?("--")

        [flag.delete_prefix("--").tr("-", "_"), value]
      end
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

    # Loading happens outside the timed region; each repetition is timed around `run` only,
    # then its checksum is taken, then its ceiling is timed (docs/workloads/README.md).
    def measure(klass, model, params, workers, warmup, repeat)
      started = now_ns
      workload = klass.new(model: model, workers: workers, **params)
      load_ns = now_ns - started
      warmup.times { workload.run.release&.call }
      repeat.times do |rep|
        started = now_ns
        outcome = workload.run
        elapsed = now_ns - started
        checksum = outcome.checksum.respond_to?(:call) ? outcome.checksum.call : outcome.checksum
        ceiling = outcome.ceiling ? outcome.ceiling.call : {}
        extra = { load_ns: load_ns }.merge(workload.extra, outcome.extra || {}, ceiling)
        print_line(rep: rep, ns: elapsed, items: outcome.items, checksum: checksum.to_s, extra: extra)
        outcome.release&.call
      end
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
