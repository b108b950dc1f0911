defmodule Parbench.Workload do
  @moduledoc "The behaviour every workload module implements, so the CLI lists and runs any of them the same way."

  @typedoc "What `prepare/3` builds once, before the first repetition, and every later step reads."
  @type context :: %{required(:model) => String.t(), optional(:extra) => map(), optional(atom()) => term()}

  @doc "The workload's name in the protocol (`keygen`, `sdes-ecb`, …)."
  @callback name() :: String.t()

  @doc "Its params as `--list` shows them (`_` where the command line has `-`)."
  @callback params() :: [String.t()]

  @doc """
  Its models: name → `%{family: …, workers: true?, note: …, start: %{mode => what it makes},
  start_unavailable: %{mode => why not}}` (protocol 3's start modes).
  """
  @callback models() :: %{String.t() => map()}

  @doc """
  Validates the options and does everything outside the timed region that comes before it:
  reading inputs and, where `options["start"]` is "warm", making the workers, timed as the
  context's `start_ns` (the ready line's).
  """
  @callback prepare(model :: String.t(), options :: map(), workers :: pos_integer()) :: context()

  @doc "The timed work of one repetition; returns what `summarize/2` needs."
  @callback run(context()) :: term()

  @doc "After the clock stops: `{items, checksum, extra}` of one repetition's result."
  @callback summarize(result :: term(), context()) :: {non_neg_integer(), String.t(), map()}

  @doc "After the checksum, in the same repetition: the workload's ceiling as extra fields (`%{}` where it has none)."
  @callback ceiling(context()) :: map()

  @doc "After the last repetition, also when one failed: releases what `prepare/3` started (peer nodes, warm pools)."
  @callback finish(context()) :: :ok

  @doc """
  The context of one repetition that uses `variant` (read from stdin before it, protocol 3) in
  place of the workload's base value: the sdes-ecb key, the keygen seed, the spawn-chain start value, the
  coroutine-swarm salt. Runs before the clock starts (`prepare_ns`).
  """
  @callback vary(context(), variant :: non_neg_integer()) :: context()

  @doc "The kernel classes it offers (`--kernel`): `%{\"portable\" => detail, \"tuned\" => detail}`, or `%{}`."
  @callback kernels() :: %{optional(String.t()) => String.t()}

  @doc """
  `--list`'s `start_unavailable` of a model whose units (one BEAM process per `unit`: link, task)
  are the work itself, so it takes no `--start` and is ready "none".
  """
  def units_are_the_work(unit) do
    %{"cold" => "its units are the work itself: one BEAM process per #{unit}, made and ended in every repetition on the VM's scheduler threads, which the VM made at its boot and no repetition makes or ends",
      "warm" => "its units are made for their repetition, one BEAM process per #{unit}: there is no pool to make before the ready line"}
  end

  @doc "Declares the behaviour; a workload that starts nothing in `prepare/3` gets a `finish/1` that does nothing."
  defmacro __using__(_options) do
    quote do
      @behaviour Parbench.Workload

      @impl true
      def finish(_context), do: :ok

      @impl true
      def vary(context, _variant), do: context

      @impl true
      def kernels, do: %{}

      defoverridable finish: 1, vary: 2, kernels: 0
    end
  end
end
