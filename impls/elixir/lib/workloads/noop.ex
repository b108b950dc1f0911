defmodule Parbench.Workloads.Noop do
  @moduledoc "The empty workload: the harness times it to measure the VM's boot and its own overhead."
  use Parbench.Workload

  @impl true
  def name, do: "noop"
  @impl true
  def params, do: []
  @impl true
  def models, do: %{"noop" => %{family: "seq", note: "does nothing in the timed region"}}
  @impl true
  def prepare(_model, _options, _workers), do: %{model: "noop"}
  @impl true
  def run(_context), do: nil
  @impl true
  def summarize(nil, _context), do: {0, "noop", %{}}
  @impl true
  def ceiling(_context), do: %{}
end
