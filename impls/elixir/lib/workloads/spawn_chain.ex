defmodule Parbench.Workloads.SpawnChain do
  @moduledoc "spawn-chain (seed 003): n BEAM processes in a chain, each adding 1 to the integer it passes on."
  alias Parbench.{ProcessLimit, Protocol}

  def name, do: "spawn-chain"
  def params, do: ["n", "max_processes"]

  def models do
    %{
      "spawn" => %{
        family: "actors",
        note: "the seed's chain: one spawn/3 process per link, each waiting in receive; --max-processes N starts the VM with +P N (a separate case, extra.erl_flags), without it the VM default limit applies"
      }
    }
  end

  def prepare(_model, options, _workers) do
    n = Protocol.integer_option(options, "n", :required)
    if n < 1, do: throw({:bad_args, "--n must be at least 1"})
    %{n: n}
  end

  def run(%{n: n}), do: ProcessLimit.guard(fn -> chain(n) end)

  @doc "Builds the chain of `n` processes, sends 0 to the last one created and waits for the answer."
  def chain(n) do
    last = Enum.reduce(1..n, self(), fn _, send_to -> spawn(__MODULE__, :link, [send_to]) end)
    send(last, 0)

    receive do
      answer when is_integer(answer) -> answer
    end
  end

  @doc false
  def link(send_to) do
    receive do
      value -> send(send_to, value + 1)
    end
  end

  def summarize(answer, %{n: n}), do: {n, Integer.to_string(answer), %{}}
end
