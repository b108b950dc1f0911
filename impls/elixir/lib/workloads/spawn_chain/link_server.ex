defmodule Parbench.Workloads.SpawnChain.LinkServer do
  @moduledoc """
  The units of spawn-chain's `genserver` model: a chain link that casts on the integer it is
  cast, plus 1, then stops; and a hand-off unit for the ceiling that casts a counter back and forth.
  """
  use GenServer

  @doc "Starts a link that will pass to `send_to`: another link, or `{:caller, pid}` for the end."
  def start_link_unit(send_to) do
    {:ok, link} = GenServer.start(__MODULE__, {:link, send_to})
    link
  end

  @doc "Passes `value` to a link (or the caller) the model's way."
  def pass({:caller, caller}, value), do: send(caller, value)
  def pass(link, value), do: GenServer.cast(link, {:pass, value})

  @doc "Starts a hand-off unit that reports to `caller` when it is cast `n`; its peer is set later."
  def start_hand_off_unit(caller, n) do
    {:ok, unit} = GenServer.start(__MODULE__, {:hand_off, caller, n})
    unit
  end

  @impl true
  def init(state), do: {:ok, state}

  @impl true
  def handle_cast({:pass, value}, {:link, send_to} = state) do
    pass(send_to, value + 1)
    # A link ends after its one pass, as the spawn model's processes do.
    {:stop, :normal, state}
  end

  def handle_cast({:peer, peer}, {:hand_off, caller, n}), do: {:noreply, {:hand_off, caller, n, peer}}

  def handle_cast({:count, n}, {:hand_off, caller, n, _peer} = state) do
    send(caller, {:handed_off, n})
    {:noreply, state}
  end

  def handle_cast({:count, count}, {:hand_off, _caller, _n, peer} = state) do
    GenServer.cast(peer, {:count, count + 1})
    {:noreply, state}
  end
end
