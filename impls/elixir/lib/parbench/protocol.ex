defmodule Parbench.Protocol do
  @moduledoc "The harness protocol: argument parsing, the timed repetitions, JSON lines and exit codes."

  @doc """
  Splits `run` arguments into the workload name and a map of `--name value` options
  (names keep their dashes; values stay strings until a workload validates them).
  """
  def parse_args([workload | rest]) when is_binary(workload) do
    with {:ok, options} <- pair_options(rest, %{}) do
      {:ok, workload, options}
    end
  end

  def parse_args([]), do: {:error, "no workload given; usage: run <workload> --model M ... | run --list"}

  defp pair_options([], acc), do: {:ok, acc}

  defp pair_options(["--" <> name, value | rest], acc) when name != "",
    do: pair_options(rest, Map.put(acc, name, value))

  defp pair_options([flag | _], _acc),
    do: {:error, "expected '--name value' pairs, got #{inspect(flag)} without a value"}

  @doc "Reads a non-negative integer option, or the default when it is absent."
  def integer_option(options, name, default) do
    case Map.fetch(options, name) do
      :error when default == :required -> throw({:bad_args, "missing --#{name}"})
      :error -> default
      {:ok, text} ->
        case Integer.parse(text) do
          {value, ""} when value >= 0 -> value
          _ -> throw({:bad_args, "--#{name} must be a non-negative integer, got #{inspect(text)}"})
        end
    end
  end

  @doc "Reads a string option restricted to `valid` values."
  def choice_option(options, name, valid, default) do
    value = Map.get(options, name, default)

    cond do
      value == :required -> throw({:bad_args, "missing --#{name}; valid: #{Enum.join(valid, ", ")}"})
      value in valid -> value
      true -> throw({:bad_args, "--#{name} #{inspect(value)} is not valid; valid: #{Enum.join(valid, ", ")}"})
    end
  end

  @doc "Reads a string option (a path or URL) that must be present."
  def string_option(options, name) do
    Map.get(options, name) || throw({:bad_args, "missing --#{name}"})
  end

  @doc "Reads a comma-separated list of non-negative integers (`--probes`), or nil when absent."
  def integer_list_option(options, name) do
    case Map.fetch(options, name) do
      :error -> nil
      {:ok, text} ->
        for item <- String.split(text, ",") do
          case Integer.parse(String.trim(item)) do
            {value, ""} when value >= 0 -> value
            _ -> throw({:bad_args, "--#{name} must be comma-separated non-negative integers, got #{inspect(text)}"})
          end
        end
    end
  end

  @doc """
  The start mode a model runs (protocol 3): `--start` when the model's `--list` entry offers it,
  else its default (cold where offered, else the only mode offered); nil for a model that takes
  no `--start` (ready "none"). A mode the model cannot run is a bad argument with its reason.
  """
  def start_mode(model_entry, asked) do
    offered = Map.get(model_entry, :start, %{})

    cond do
      asked == nil and Map.has_key?(offered, "cold") -> "cold"
      asked == nil -> offered |> Map.keys() |> List.first()
      Map.has_key?(offered, asked) -> asked
      asked not in ["cold", "warm"] -> throw({:bad_args, "--start must be cold or warm, got #{inspect(asked)}"})
      true -> throw({:bad_args, "--start #{asked} is not offered: #{Map.get(model_entry[:start_unavailable] || %{}, asked, "it has no workers")}"})
    end
  end

  @doc """
  Prints protocol 3's ready line, the first line on stdout, once the arguments are checked and the
  inputs loaded: the start mode that runs ("none" without one) and, for warm, `start_ns`, the time
  spent making the workers before it.
  """
  def ready(start, start_ns, extra \\ %{}) do
    load_the_untimed_path()
    IO.puts(ready_line(start, start_ns, extra))
  end

  defp ready_line("warm", start_ns, extra),
    do: encode_json(%{ready: "warm", start_ns: start_ns, extra: extra}, [:ready, :start_ns, :extra])

  defp ready_line(start, _start_ns, _extra), do: encode_json(%{ready: start || "none"})

  # Runs once, before the ready line, the code that runs outside every clock around a repetition
  # (parsing a variant, encoding its line): the BEAM loads a module at its first call, and in
  # repetition 0 that took 5-14 ms that the launcher saw and no phase held.
  defp load_the_untimed_path do
    {0, ""} = Integer.parse(String.trim_trailing("0\n"))
    line = %{rep: 0, ns: 0, items: 0, checksum: "0", extra: %{float: 0.5, list: [1], none: nil, flag: true, atom: :a, map: %{}}}
    _ = encode_json(line, [:rep, :ns, :items, :checksum, :extra])
    :ok
  end

  @doc """
  Runs repetitions of a case, j = 0, 1, 2 …, until `variants` ends, printing one JSON line for
  each, `{"rep":j,…}` (protocol 4: the process never knows how many there will be, nor which the
  harness times). Before each, the repetition's variant is read as one line from `variants`
  (stdin: protocol 3), outside every clock; then `steps.vary.(variant)` derives the repetition's
  context (`prepare_ns`) and `steps.work.(varied)` runs timed. After the clock stops,
  `steps.summarize.(result, varied)` gives `{items, checksum, extra}` (timed as `checksum_ns`),
  then `steps.ceiling.(varied)` times the workload's ceiling in the same repetition while the
  result is still held. Afterwards the result is dropped and this process collects its garbage,
  so that no repetition pays for the previous one's heap.
  """
  def repeat(steps, common_extra, variants \\ :stdio), do: repeat_from(0, steps, common_extra, variants)

  defp repeat_from(j, steps, common_extra, variants) do
    case read_variant(variants, j) do
      :eof ->
        :ok

      variant ->
        {ns, items, checksum, extra} = repetition(steps, variant)
        line = %{rep: j, ns: ns, items: items, checksum: checksum, extra: Map.merge(common_extra, extra)}
        IO.puts(encode_json(line, [:rep, :ns, :items, :checksum, :extra]))
        repeat_from(j + 1, steps, common_extra, variants)
    end
  end

  @doc """
  Repetition j's variant: one decimal integer on a line of its own; `:eof` at end of file, where
  the launcher wants no further repetition (protocol 4).
  """
  def read_variant(device, j) do
    case IO.read(device, :line) do
      :eof -> :eof
      {:error, reason} -> throw({:bad_args, "stdin unreadable before repetition #{j}: #{inspect(reason)}"})
      text ->
        case Integer.parse(String.trim_trailing(text)) do
          {variant, ""} when variant >= 0 -> variant
          _ -> throw({:bad_args, "repetition #{j}'s variant must be a non-negative decimal integer on a line of its own, got #{inspect(String.trim_trailing(text))}"})
        end
    end
  end

  # Every phase between two lines is measured: prepare_ns (deriving the variant, reading the CPU
  # counters), ns, checksum_ns, the ceiling's own ns, and cleanup_ns = the rest of the gap (the
  # ceiling's set-up and tear-down, the CPU counters after the clock, dropping the result and
  # the forced garbage collection). Only reading the variant, encoding and printing the line
  # are left outside.
  defp repetition(steps, variant) do
    entered = now()
    context = steps.vary.(variant)
    {user_before, sys_before} = cpu_ns(context)
    started = now()
    result = steps.work.(context)
    stopped = now()
    {user_after, sys_after} = cpu_ns(context)
    {checksum_ns, {items, checksum, extra}} = time_ns(fn -> steps.summarize.(result, context) end)
    ceiling = steps.ceiling.(context)
    # The result stays alive until the ceiling is done (keygen's spec); only then is it dropped.
    :ok = drop(result)
    :erlang.garbage_collect()
    left = now()

    ns = stopped - started
    ceiling_ns = Map.get(ceiling, :ceiling_ns, 0)
    prepare_ns = started - entered

    proof = %{
      cpu_user_ns: max(0, user_after - user_before),
      cpu_sys_ns: max(0, sys_after - sys_before),
      checksum_ns: checksum_ns,
      prepare_ns: prepare_ns,
      cleanup_ns: max(0, left - entered - prepare_ns - ns - checksum_ns - ceiling_ns)
    }

    {ns, items, checksum, extra |> relative_busy(started) |> Map.merge(ceiling) |> Map.merge(proof)}
  end

  defp now, do: :erlang.monotonic_time(:nanosecond)

  @doc false
  def drop(_result), do: :ok

  # {user, system} CPU ns of this VM, of the peer nodes a distributed case works on (its
  # `cluster`) and of the other OS processes the work started and ended (add_child_cpu/1): the
  # case's "children".
  defp cpu_ns(context) do
    {user, system} = os_process_cpu_ns()

    {peers_user, peers_system} =
      if is_map(context) and is_map_key(context, :cluster), do: Parbench.Cluster.cpu_ns(context.cluster), else: {0, 0}

    {user + peers_user + :counters.get(child_cpu(), 1), system + peers_system + :counters.get(child_cpu(), 2)}
  end

  @doc """
  `{user, system}` CPU ns of this VM's OS process. User time is `:erlang.statistics(:runtime)`
  (getrusage(RUSAGE_SELF) user time, in ms; it leaves system time out); system time is `stime`
  of /proc/self/stat (the same kernel counter, in 10 ms ticks): the VM offers nothing finer.
  """
  def os_process_cpu_ns do
    user_ms = elem(:erlang.statistics(:runtime), 0)
    {_utime, stime} = proc_stat_cpu_ns("self")
    {user_ms * 1_000_000, stime}
  end

  # Linux's USER_HZ: /proc reports CPU times in ticks of 10 ms on every architecture.
  @tick_ns 10_000_000

  @doc "`{utime, stime}` in ns of an OS process from /proc/<pid>/stat (10 ms ticks)."
  def proc_stat_cpu_ns(pid) do
    [_, after_name] = "/proc/#{pid}/stat" |> File.read!() |> String.split(") ", parts: 2)
    [utime, stime] = after_name |> String.split(" ") |> Enum.slice(11, 2) |> Enum.map(&String.to_integer/1)
    {utime * @tick_ns, stime * @tick_ns}
  end

  @doc """
  Adds the CPU time `{user, system}` (ns) of an OS process the work started and is about to
  end (batch-job's odbcserver processes, which are not the VM's children) to the case's.
  """
  def add_child_cpu({user, system}) do
    :counters.add(child_cpu(), 1, user)
    :counters.add(child_cpu(), 2, system)
  end

  defp child_cpu do
    case :persistent_term.get({__MODULE__, :child_cpu}, nil) do
      nil ->
        counter = :counters.new(2, [:write_concurrency])
        :persistent_term.put({__MODULE__, :child_cpu}, counter)
        counter

      counter ->
        counter
    end
  end

  # Workers record their busy intervals on the monotonic clock (Parbench.WorkTally); the line
  # gives them in ns from the start of the repetition's clock.
  defp relative_busy(%{busy: busy} = extra, started),
    do: %{extra | busy: for([worker, from, to] <- busy, do: [worker, from - started, to - started])}

  defp relative_busy(extra, _started), do: extra

  @doc "Measures `fun` in nanoseconds, returning `{ns, value}`."
  def time_ns(fun) do
    started = :erlang.monotonic_time(:nanosecond)
    value = fun.()
    {:erlang.monotonic_time(:nanosecond) - started, value}
  end

  @doc "Prints the limit line and halts with exit code 3 (a result, not a crash)."
  def limit_exit(detail) do
    IO.puts(encode_json(%{error: "limit", detail: detail}, [:error, :detail]))
    System.halt(3)
  end

  @doc "Prints a fault the user must see (a peer node that did not start or went down) as one stderr line; exit 1."
  def fault_exit(message) do
    IO.puts(:stderr, message)
    System.halt(1)
  end

  @doc "Prints why the arguments are wrong on stderr and halts with exit code 2."
  def bad_args_exit(message) do
    IO.puts(:stderr, message)
    System.halt(2)
  end

  @doc "JSON text for maps, lists, strings, numbers, booleans and nil; `order` fixes the top keys' order."
  def encode_json(map, order \\ []) when is_map(map) do
    keys = order ++ Enum.sort(Map.keys(map) -- order)
    fields = for key <- keys, Map.has_key?(map, key), do: [encode_json_value(to_string(key)), ":", encode_json_value(map[key])]
    IO.iodata_to_binary(["{", Enum.intersperse(fields, ","), "}"])
  end

  defp encode_json_value(value) when is_map(value), do: encode_json(value)
  defp encode_json_value(value) when is_list(value), do: ["[", Enum.intersperse(Enum.map(value, &encode_json_value/1), ","), "]"]
  defp encode_json_value(value) when is_integer(value), do: Integer.to_string(value)
  defp encode_json_value(value) when is_float(value), do: Float.to_string(value)
  defp encode_json_value(value) when is_boolean(value), do: to_string(value)
  defp encode_json_value(nil), do: "null"
  defp encode_json_value(value) when is_atom(value), do: encode_json_value(Atom.to_string(value))
  defp encode_json_value(value) when is_binary(value), do: [?", escape_json(value), ?"]

  defp escape_json(text) do
    for <<char::utf8 <- text>>, into: "" do
      case char do
        ?" -> "\\\""
        ?\\ -> "\\\\"
        ?\n -> "\\n"
        ?\r -> "\\r"
        ?\t -> "\\t"
        c when c < 0x20 -> "\\u" <> String.pad_leading(Integer.to_string(c, 16), 4, "0")
        c -> <<c::utf8>>
      end
    end
  end
end
