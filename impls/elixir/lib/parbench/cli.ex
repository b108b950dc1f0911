defmodule Parbench.CLI do
  @moduledoc "The `run` entry point: answers `--list`, validates a case and runs its repetitions."
  alias Parbench.Protocol
  require Logger

  # Every module here implements Parbench.Workload; adding a workload is one file and one line.
  @workloads [
    Parbench.Workloads.Noop,
    Parbench.Workloads.Keygen,
    Parbench.Workloads.SdesEcb,
    Parbench.Workloads.BatchJob,
    Parbench.Workloads.SpawnChain,
    Parbench.Workloads.CoroutineSwarm,
    Parbench.Workloads.EchoServer
  ]

  @doc "Runs the protocol for `argv` and halts with its exit code."
  def main(["--list"]) do
    IO.puts(Protocol.encode_json(listing(), [:runtime, :version, :flags, :sources, :workloads]))
    System.halt(0)
  end

  def main(argv) do
    # stdout carries JSON lines only; the VM's own reports ("Too many processes") go to stderr.
    Logger.configure_backend(:console, device: :standard_error)
    {:ok, _} = Application.ensure_all_started(:parbench)

    try do
      run_case(argv)
    catch
      {:bad_args, message} -> Protocol.bad_args_exit(message)
      {:limit, detail} -> Protocol.limit_exit(detail)
      {:fault, message} -> Protocol.fault_exit(message)
    end

    System.halt(0)
  end

  defp run_case(argv) do
    {workload_name, options} =
      case Protocol.parse_args(argv) do
        {:ok, name, options} -> {name, options}
        {:error, message} -> throw({:bad_args, message})
      end

    workload =
      workload(workload_name) ||
        throw({:bad_args, "unknown workload '#{workload_name}'; valid: #{Enum.map_join(@workloads, ", ", & &1.name())}"})

    models = workload.models()
    # noop measures boot whatever model the harness names, so it answers to any.
    model = if workload == Parbench.Workloads.Noop, do: "noop", else: Map.get(options, "model")

    unless Map.has_key?(models, model),
      do: throw({:bad_args, "unknown model '#{model}' for #{workload_name}; valid: #{Enum.join(Map.keys(models), ", ")}"})

    # No --warmup or --repeat (protocol 4): the launcher alone decides how many repetitions run.
    allowed = ["model", "max-processes"] ++ workload_params(workload) ++
                if(models[model][:workers], do: ["workers"], else: []) ++
                if(Map.has_key?(models[model], :start) or Map.has_key?(models[model], :start_unavailable), do: ["start"], else: [])

    case Map.keys(options) -- allowed do
      [] -> :ok
      unknown -> throw({:bad_args, "unknown option --#{hd(unknown)} for #{workload_name} #{model}; valid: --#{Enum.join(allowed, ", --")}"})
    end

    workers = Protocol.integer_option(options, "workers", System.schedulers_online())
    if workers < 1, do: throw({:bad_args, "--workers must be at least 1"})

    start = Protocol.start_mode(models[model], Map.get(options, "start"))
    options = options |> with_kernel(workload) |> Map.put("start", start)

    # A server (echo-server) answers its own conversation instead of timed repetitions.
    if function_exported?(workload, :serve, 2),
      do: workload.serve(model, options),
      else: run_repetitions(workload, model, options, workers, start)
  end

  defp run_repetitions(workload, model, options, workers, start) do
    models = workload.models()
    # A warm model makes its workers here, after the inputs and before the ready line.
    context = workload.prepare(model, options, workers)
    common_extra = Map.merge(runtime_extra(models[model], workers, start), Map.get(context, :extra, %{}))

    try do
      Protocol.ready(start, Map.get(context, :start_ns), Map.take(common_extra, [:workers, :schedulers]))
      Protocol.repeat(steps(workload, context), common_extra)
    after
      # Peer nodes and warm pools are stopped whatever ended the repetitions (end of stdin too).
      workload.finish(context)
    end
  end

  # One repetition's steps, all through the Parbench.Workload behaviour.
  defp steps(workload, context) do
    %{vary: &workload.vary(context, &1),
      work: &workload.run/1,
      summarize: &workload.summarize/2,
      ceiling: &workload.ceiling/1}
  end

  # --kernel portable|tuned where the workload has kernels (default portable); one a workload
  # does not have is a bad argument. The workload reads the checked value from its options.
  defp with_kernel(options, workload) do
    case workload.kernels() do
      kernels when kernels == %{} -> options
      kernels -> Map.put(options, "kernel", Protocol.choice_option(options, "kernel", Enum.sort(Map.keys(kernels)), "portable"))
    end
  end

  @doc "The Parbench.Workload module named `name`, or nil."
  def workload(name), do: Enum.find(@workloads, &(&1.name() == name))

  defp workload_params(workload), do: Enum.map(workload.params(), &String.replace(&1, "_", "-"))

  # The VM flags that change limits are part of every case (workloads/README.md).
  defp runtime_extra(model_entry, workers, start) do
    base = %{
      erl_flags: System.get_env("PARBENCH_ERL_FLAGS", ""),
      process_limit: :erlang.system_info(:process_limit),
      schedulers: System.schedulers_online()
    }

    base = if start, do: Map.put(base, :start, start), else: base
    if model_entry[:workers], do: Map.put(base, :workers, workers), else: base
  end

  @doc "The `--list` object: runtime, version, flags and every workload's models."
  def listing do
    %{
      runtime: "elixir",
      version: "Elixir #{System.version()} / Erlang/OTP #{System.otp_release()} (erts #{:erlang.system_info(:version)})",
      flags: "MIX_ENV=prod; VM defaults (+P #{:erlang.system_info(:process_limit)} unless --max-processes N adds +P N); schedulers = logical CPUs",
      sources: %{strong: ":crypto.strong_rand_bytes/1 (OpenSSL RAND_bytes)"},
      workloads:
        Map.new(@workloads, fn workload ->
          entry = %{params: workload.params(), models: workload.models()}
          {workload.name(), if(workload.kernels() == %{}, do: entry, else: Map.put(entry, :kernels, workload.kernels()))}
        end)
    }
  end
end
