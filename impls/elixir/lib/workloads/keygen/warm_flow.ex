defmodule Parbench.Workloads.Keygen.WarmFlow do
  @moduledoc """
  keygen's warm Flow: one flow started before the ready line and kept up between repetitions
  (`Flow.from_stages |> … |> Flow.into_stages`), whose producer is handed each repetition's key
  indices and whose collector hands the keys back, as a server's long-lived flow is fed.
  """
  alias __MODULE__.{Collector, Indices}

  @doc """
  Starts the producer, the collector and the flow between them: `stages` stages taking batches
  of `chunk` indices (`min_demand: 0`, as the cold flow), running `pipeline.(flow)` on them.
  """
  def start(stages, chunk, pipeline) do
    {:ok, producer} = GenStage.start_link(Indices, chunk)
    {:ok, collector} = GenStage.start_link(Collector, :ok)

    {:ok, coordinator} =
      [producer]
      |> Flow.from_stages(stages: stages, max_demand: chunk, min_demand: 0)
      |> Flow.map_batch(&Enum.reject(&1, fn index -> index == :pad end))
      |> pipeline.()
      |> Flow.into_stages([collector])

    %{producer: producer, collector: collector, coordinator: coordinator}
  end

  @doc "Hands the flow the indices 0…count-1 and returns its `count` outputs, in the order they arrived."
  def run(%{producer: producer, collector: collector}, count) do
    reference = make_ref()
    :ok = GenStage.call(collector, {:expect, self(), reference, count}, :infinity)
    :ok = GenStage.call(producer, {:emit, count}, :infinity)
    receive(do: ({^reference, outputs} -> outputs))
  end

  @doc "Stops the flow's stages (through its coordinator), then its producer and collector."
  def stop(%{producer: producer, collector: collector, coordinator: coordinator}) do
    for pid <- [coordinator, producer, collector], do: GenServer.stop(pid, :normal, :infinity)
    :ok
  end

  defmodule Indices do
    @moduledoc """
    The flow's producer: a repetition's indices, emitted only as the stages ask for them, the
    last chunk padded to a whole one.
    """
    use GenStage

    # A stage asks for `chunk` indices and asks again only once it has had them all, so one
    # given a short last chunk would keep the rest of its request into the next repetition and
    # take a short batch there. Padding the last chunk (the stages drop the pads before their
    # maps) gives every request exactly `chunk` events, and every batch is a chunk as in cold.
    @impl true
    def init(chunk), do: {:producer, %{chunk: chunk, next: 0, count: 0, padded: 0, demand: 0}}

    @impl true
    def handle_call({:emit, count}, _from, %{chunk: chunk} = state) do
      {events, state} = dispatch(%{state | next: 0, count: count, padded: div(count + chunk - 1, chunk) * chunk})
      {:reply, :ok, events, state}
    end

    @impl true
    def handle_demand(demand, state) do
      {events, state} = dispatch(%{state | demand: state.demand + demand})
      {:noreply, events, state}
    end

    # Never more than the stages asked for, so GenStage buffers nothing.
    defp dispatch(%{next: next, count: count, padded: padded, demand: demand} = state) do
      taken = min(demand, padded - next)
      events = for index <- next..(next + taken - 1)//1, do: if(index < count, do: index, else: :pad)
      {events, %{state | next: next + taken, demand: demand - taken}}
    end
  end

  defmodule Collector do
    @moduledoc "The flow's consumer: gathers a repetition's outputs and sends them to the caller once all are in."
    use GenStage

    @impl true
    def init(:ok), do: {:consumer, %{caller: nil, reference: nil, left: 0, outputs: []}}

    @impl true
    def handle_call({:expect, caller, reference, count}, _from, _state),
      do: {:reply, :ok, [], deliver(%{caller: caller, reference: reference, left: count, outputs: []})}

    @impl true
    def handle_events(outputs, _from, state),
      do: {:noreply, [], deliver(%{state | left: state.left - length(outputs), outputs: outputs ++ state.outputs})}

    defp deliver(%{left: 0, caller: caller} = state) when caller != nil do
      send(caller, {state.reference, state.outputs})
      %{state | caller: nil, outputs: []}
    end

    defp deliver(state), do: state
  end
end
