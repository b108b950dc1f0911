defmodule Parbench.Workloads.Noop do
  @moduledoc "The empty workload: the harness times it to measure the VM's boot and its own overhead."

  def name, do: "noop"
  def params, do: []
  def models, do: %{"noop" => %{family: "seq", note: "does nothing in the timed region"}}
  def prepare(_model, _options, _workers), do: %{}
  def run(_context), do: nil
  def summarize(nil, _context), do: {0, "noop", %{}}
end
