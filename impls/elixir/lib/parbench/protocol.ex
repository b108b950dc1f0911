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

  @doc """
  Runs `warmup` untimed and `repeat` timed repetitions of a case, printing one JSON line per
  timed one. `steps.work.()` is the timed work; after the clock stops, `steps.summarize.(result)`
  gives `{items, checksum, extra}` (the checksum is outside `ns`), then `steps.ceiling.()` times
  the workload's ceiling in the same repetition and returns its extra fields. Warm-ups do all three.
  """
  def repeat(steps, warmup, repeat, common_extra) do
    for _ <- 1..warmup//1, do: repetition(steps)

    for rep <- 0..(repeat - 1)//1 do
      {ns, items, checksum, extra} = repetition(steps)
      line = %{rep: rep, ns: ns, items: items, checksum: checksum, extra: Map.merge(common_extra, extra)}
      IO.puts(encode_json(line, [:rep, :ns, :items, :checksum, :extra]))
    end
  end

  defp repetition(%{work: work, summarize: summarize, ceiling: ceiling}) do
    {ns, result} = time_ns(work)
    {items, checksum, extra} = summarize.(result)
    {ns, items, checksum, Map.merge(extra, ceiling.())}
  end

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
