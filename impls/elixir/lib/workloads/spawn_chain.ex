defmodule Parbench.Workloads.SpawnChain do
  @moduledoc "spawn-chain (seed 003): n BEAM processes (bare, or GenServers) in a chain, each adding 1 to the integer it passes on."
  @behaviour Parbench.Workload
  alias Parbench.{ProcessLimit, Protocol}
  alias Parbench.Workloads.SpawnChain.LinkServer

  @impl true
  def name, do: "spawn-chain"
  @impl true
  def params, do: ["n", "max_processes"]

  @impl true
  def models do
    limit = "--max-processes N starts the VM with +P N (a separate case, extra.erl_flags), without it the VM default limit applies"

    %{
      "spawn" => %{
        family: "actors",
        note: "the seed's chain: one spawn/3 process per link, each waiting in receive; " <> limit
      },
      "genserver" => %{
        family: "actors",
        note: "the same chain of OTP GenServers: each link started with GenServer.start/2 (which waits for its init), the pass by GenServer.cast/2, each link stopping after its pass; the BEAM's raw process cost beside an OTP abstraction's; " <> limit
      }
    }
  end

  @impl true
  def prepare(model, options, _workers) do
    n = Protocol.integer_option(options, "n", :required)
    if n < 1, do: throw({:bad_args, "--n must be at least 1"})
    %{model: model, n: n}
  end

  # Each link ends by itself right after its send, so nothing is left to join.
  @impl true
  def run(%{model: "spawn", n: n}), do: ProcessLimit.guard(fn -> chain(n) end)
  def run(%{model: "genserver", n: n}), do: ProcessLimit.guard(fn -> genserver_chain(n) end)

  @doc "Builds the chain of `n` processes, sends 0 to the last one created and waits for the answer."
  def chain(n) do
    last = Enum.reduce(1..n, self(), fn _, send_to -> spawn(__MODULE__, :link, [send_to]) end)
    send(last, 0)

    receive do
      answer when is_integer(answer) -> answer
    end
  end

  @doc "The same chain of GenServers: started one by one, then 0 cast to the last one started."
  def genserver_chain(n) do
    last = Enum.reduce(1..n, {:caller, self()}, fn _, send_to -> LinkServer.start_link_unit(send_to) end)
    LinkServer.pass(last, 0)

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

  @impl true
  def summarize(answer, %{n: n}), do: {n, Integer.to_string(answer), %{}}

  @doc """
  The ceiling "hand-off": two units of the model's kind, started before its clock, pass the
  counter back and forth (`send`, or `GenServer.cast` for genserver) until it has been handed
  over `n` times.
  """
  @impl true
  def ceiling(%{model: "spawn", n: n}) do
    {first, second} = start_hand_off_pair(self(), n)
    {hand_off_ns, ^n} = Protocol.time_ns(fn -> hand_off(first, n) end)
    # The unit that did not finish still waits; it is ended after the clock.
    Enum.each([first, second], &Process.exit(&1, :kill))
    %{ceiling: "hand-off", ceiling_ns: hand_off_ns}
  end

  def ceiling(%{model: "genserver", n: n}) do
    {first, second} = start_genserver_hand_off_pair(self(), n)
    {hand_off_ns, ^n} = Protocol.time_ns(fn -> genserver_hand_off(first, n) end)
    Enum.each([first, second], &GenServer.stop/1)
    %{ceiling: "hand-off", ceiling_ns: hand_off_ns}
  end

  @doc "Two GenServer hand-off units that know each other."
  def start_genserver_hand_off_pair(caller, n) do
    [first, second] = for _ <- 1..2, do: LinkServer.start_hand_off_unit(caller, n)
    GenServer.cast(first, {:peer, second})
    GenServer.cast(second, {:peer, first})
    {first, second}
  end

  @doc "Casts 0 to the first GenServer unit and waits until the counter has been handed over `n` times."
  def genserver_hand_off(first, n) do
    GenServer.cast(first, {:count, 0})
    receive(do: ({:handed_off, ^n} -> n))
  end

  @doc "Starts two units that will hand a counter to each other; the one that receives `n` reports it."
  def start_hand_off_pair(caller, n) do
    first = spawn(fn -> receive(do: ({:peer, peer} -> hand_off_loop(caller, peer, n))) end)
    second = spawn(fn -> hand_off_loop(caller, first, n) end)
    send(first, {:peer, second})
    {first, second}
  end

  @doc "Sends 0 to the first unit of a pair and waits until the counter has been handed over `n` times."
  def hand_off(first, n) do
    send(first, 0)
    receive(do: ({:handed_off, ^n} -> n))
  end

  defp hand_off_loop(caller, peer, n) do
    receive do
      ^n -> send(caller, {:handed_off, n})
      count when is_integer(count) ->
        send(peer, count + 1)
        hand_off_loop(caller, peer, n)
    end
  end
end
